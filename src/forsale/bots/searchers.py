"""Opponents who think: predicting a seat's sale from its own chair, and learning online who sells that way.

The expert's sale types (:data:`forsale.bots.expert.SALE_TYPES`) describe
simple sellers well, and thinking players badly: a seat that best-responds
to what it predicts of the others (``hard-v1`` does, ``expert`` does, and so
do strong people) sells a house none of the types picks about half the
time. In the sale phase every hand is known by deduction, so the bot can
put itself in an opponent's chair: the opponent's view is the bot's own with
the seat changed. Two *chair models* (:data:`CHAIRS`) predict from there:
:func:`searcher_sale` runs ``hard-v1``'s sale search, :func:`expert_sale`
the expert's one-step best response to the sale types.

Which model fits which opponent is learnt online (:class:`SaleMemory`): at
every sale decision the bot writes down, per opponent, each chair model's
house and the type model's chances; at the next one it reads what each seat
actually sold and updates the odds between the models by Bayes' rule. With
no evidence the chair models have small priors (:data:`SEARCHER_PRIOR`,
:data:`EXPERT_PRIOR`), so the bot starts from its usual model and moves to
a chair model only for seats that keep selling as it predicts; a seat that
fits none of them is left to the type model and its fall-back to the
robust strategy (:func:`forsale.bots.opponents.sale_confidence`).

The best response to fitted sellers that ``hard`` plays by default
(:mod:`forsale.bots.salemodels`) weighs the searcher the same way against
the library of sale rules as a whole (:func:`searcher_share`): a field of
``hard-v1``, whom no rule of the library predicts as well as its own
search in its chair, is answered as the searchers they are (against three
``hard-v1``, 42.9% of 240 games became 55.0%: docs/strength.md).
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence

from ..actions import Sell
from ..view import View
from .auction_search import AuctionSearchAgent
from .expert import ExpertAgent

SEARCHER_PRIOR = 0.2
"""Prior share of the model that the seat sells as ``hard-v1``'s search does (no sale seen yet)."""

EXPERT_PRIOR = 0.1
"""Prior share of the model that the seat sells as ``expert`` does."""

SEARCHER_ERROR = 0.1
"""Chance a seat sells some other house than a chair model predicts (spread evenly over its hand)."""

SEARCHER_SAMPLES = 24
"""Sampled profiles of the others' plays per prediction (``hard-v1``'s own budget buys about 300)."""

GAMES_KEPT = 64
"""Games a :class:`SaleMemory` remembers; the oldest is forgotten first (a long-lived bot must not grow)."""


def searcher_sale(view: View, seat: int, rng: random.Random, samples: int = SEARCHER_SAMPLES) -> int:
    """The house ``seat`` would sell now if it searched like ``hard-v1``, seen from ``view``.

    Only the seat's own unrevealed commitment is private in a sale round,
    and the search never reads it, so the seat's view is ``view`` with the
    seat changed. ``view`` must be in the sale phase, with ``seat`` holding
    at least two houses.
    """
    action = AuctionSearchAgent(samples=samples).sale_search(dataclasses.replace(view, seat=seat, my_commit=None), rng)
    assert isinstance(action, Sell)
    return action.house


def expert_sale(view: View, seat: int, rng: random.Random) -> int:
    """The house ``seat`` would sell now if it were ``expert`` (a best response to the sale types)."""
    action = ExpertAgent().act(dataclasses.replace(view, seat=seat, my_commit=None), rng)
    assert isinstance(action, Sell)
    return action.house


def chair_chance(house: int, predicted: int, k: int) -> float:
    """A chair model's chance that a seat holding ``k`` houses sells ``house`` when the model says ``predicted``."""
    return (1.0 - SEARCHER_ERROR) * (house == predicted) + SEARCHER_ERROR / k


CHAIRS: tuple[tuple[float, Callable[[View, int, random.Random], int]], ...] = (
    (SEARCHER_PRIOR, searcher_sale),
    (EXPERT_PRIOR, expert_sale),
)
"""The models that sit in an opponent's chair, each with its prior; the sale types have the rest."""

SEARCHER = 0
"""The index of :func:`searcher_sale` in :data:`CHAIRS`, and so of its house in a :data:`Prediction`."""

Prediction = tuple[tuple[int, ...], dict[int, float]]
"""An opponent's predicted sale: each chair model's house, and the type model's chance of each house."""


class SaleMemory:
    """Per game and seat of the bot, the predictions made at each sale round, to score them later.

    A game is recognised by the viewing seat and the auction tables (every
    house revealed in the auction phase), so one bot object may play many
    games and seats at once. A memory that lost a game (a restarted server)
    only means no evidence: the bot falls back to its usual model. A lock
    keeps the bookkeeping whole when threads share the bot.
    """

    def __init__(self) -> None:
        self._games: OrderedDict[tuple[object, ...], dict[int, dict[int, Prediction]]] = OrderedDict()
        self._lock = threading.Lock()

    def _rounds(self, view: View) -> dict[int, dict[int, Prediction]]:
        key = (view.seat, view.auction_tables)
        with self._lock:
            rounds = self._games.get(key)
            if rounds is None:
                rounds = self._games[key] = {}
                while len(self._games) > GAMES_KEPT:
                    self._games.popitem(last=False)
            else:
                self._games.move_to_end(key)
            return rounds

    def _scored(self, view: View) -> Iterator[tuple[int, int, int, Prediction]]:
        """Each prediction written down for a finished sale round, in the order written, with the house the seat
        then sold: ``(round, seat, sold, prediction)``."""
        sales = [houses for seat, houses in view.history if seat is None]
        for r, predictions in list(self._rounds(view).items()):
            if r < len(sales):
                for s, prediction in predictions.items():
                    yield r, s, sales[r][s], prediction

    def odds(self, view: View) -> tuple[list[list[float]], list[int]]:
        """Per seat, the posterior shares of the type model and of each chair model, and the sales seen."""
        n = view.players
        prior = [1.0 - sum(p for p, _ in CHAIRS)] + [p for p, _ in CHAIRS]
        shares = [list(prior) for _ in range(n)]
        seen = [0] * n
        for _, s, sold, (houses, types) in self._scored(view):
            k = len(types)
            likes = [types.get(sold, 0.0)] + [chair_chance(sold, h, k) for h in houses]
            post = [p * like for p, like in zip(shares[s], likes)]
            total = sum(post)
            if total > 0:
                shares[s] = [p / total for p in post]
            seen[s] += 1
        return shares, seen

    def searcher_chances(self, view: View) -> list[dict[int, float]]:
        """Per seat, the searcher's chance (:func:`chair_chance`) of the house it sold, by finished sale round
        (the rounds written down; a lost game has none)."""
        chances: list[dict[int, float]] = [{} for _ in range(view.players)]
        for r, s, sold, (houses, types) in self._scored(view):
            chances[s][r] = chair_chance(sold, houses[SEARCHER], len(types))
        return chances

    def remember(self, view: View, predictions: dict[int, Prediction]) -> None:
        """Write down this round's predictions (keyed by the number of sale rounds already played)."""
        played = sum(1 for seat, _ in view.history if seat is None)
        self._rounds(view)[played] = predictions


def searcher_share(chair: dict[int, float], library: Sequence[float], prior: float = SEARCHER_PRIOR) -> float:
    """The posterior chance that a seat sells as ``hard-v1``'s search in its chair rather than by the library of
    sale rules (:mod:`forsale.bots.salemodels`): Bayes' rule over the sales both predicted.

    ``chair``: the searcher's chance of each sale, by round (:meth:`SaleMemory.searcher_chances`);
    ``library``: the library's posterior predictive chance of each sale, in order (its
    :attr:`~forsale.bots.salemodels.Fit.chances`). A flat posterior over the library's rules and the searcher
    would give the same odds: the library's rules share its evidence.

    >>> searcher_share({}, [])
    0.2
    >>> round(searcher_share({0: 0.9, 1: 0.9}, [0.3, 0.5]), 2)
    0.57
    """
    odds = prior / (1.0 - prior)
    for r, chance in chair.items():
        if r < len(library):
            odds *= chance / max(library[r], 1e-12)
    return odds / (1.0 + odds)


def searcher_blend(
    hand: Sequence[int],
    houses: Sequence[int],
    types: Sequence[float],
    weight: float,
    shares: Sequence[float],
    seen: int,
) -> tuple[list[float], float]:
    """A seat's model and trust after mixing the type model and the chair models by their posterior ``shares``.

    ``types`` is the type model's chance of each house in ``hand`` (summing
    to one) and ``weight`` the trust in it. A chair model's prediction puts
    ``1 - SEARCHER_ERROR`` on its house; the trust in it grows with the sales
    it rests on (``seen / (seen + 1)``), as the type model's does
    (:func:`forsale.bots.opponents.sale_confidence`).
    """
    k = len(hand)
    mixed = [shares[0] * p for p in types]
    for share, house in zip(shares[1:], houses):
        for i, h in enumerate(hand):
            mixed[i] += share * chair_chance(h, house, k)
    trust = (1.0 - shares[0]) * seen / (seen + 1) + shares[0] * weight
    return mixed, trust
