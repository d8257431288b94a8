"""``hard`` (and the ``easy`` / ``medium`` levels): the search bot people play against and measure by.

``hard`` (:class:`HardAgent`) searches within its time budget (0.2 s a
decision by default):

- **auctions** as ``hard-v1`` does (:mod:`forsale.bots.auction_search`):
  determinized Monte Carlo over deals consistent with the view, comparing
  whole-round plans on common samples, with the end of the auction phase
  valued at the leaves (:mod:`forsale.bots.leaves`: the hand-set valuation,
  or the learned value model with ``leaf=model``). Each sampled deal draws
  every opponent's bidding rule from its posterior given the raises and
  passes it made this game (:func:`forsale.bots.opponents.sample_bidders`;
  the posterior starts from a prior fitted to how players at large bid,
  pooled with how this table's players bid so far, so thin evidence means
  a player like the others, and a plan must hold up against every rule that
  fits, not only the likeliest); an opponent whose bids a library of
  bidding rules (:mod:`forsale.bots.bidmodels`: pacers, going-price payers,
  flat-table savers, jump bidders) has predicted better than that grid is
  drawn from the library instead (issue 32; ``bidmodel=0``: never);
- **sales** as the simultaneous game each round is
  (:mod:`forsale.bots.salegame`): every hand is known by deduction, a
  profile of plays is worth each seat's win chance after it (exact in the
  last two rounds), and regret matching solves it, with each opponent
  mixed between its sale model and equilibrium play by how much evidence
  supports the model (:func:`forsale.bots.opponents.sale_confidence`); the
  model is itself a mixture of the expert's sale types and the sales
  ``hard-v1``'s search and ``expert`` would make in the opponent's chair,
  weighed by how well each predicted that seat so far
  (:mod:`forsale.bots.searchers`). The
  move is drawn, with the caller's rng, from the bot's own solved strategy
  (``model=0``). By default (issue 32) each opponent's sales are fitted to
  the library of :mod:`forsale.bots.salemodels` (a posterior over its rules,
  the expert's types and the equilibrium player with a head start, pooled
  over the table's sellers, and the predictive log-loss), and the bot plays the best response to their
  predicted sales at every sale with a choice (``gate=always``), each house
  valued by playing the sale phase out against rules drawn from those
  posteriors (:mod:`forsale.bots.salelookahead`); beside the library, the
  sale ``hard-v1``'s search would make in each opponent's chair is weighed
  by how well it predicted that seat
  (:func:`~forsale.bots.searchers.searcher_share`). The gates it replaced
  stay as options: ``gate=apart`` waits until every opponent still
  choosing sells like a rule of the library, or is more likely a seller
  by a fixed rule than one who reasons about the others after two sales,
  or after one that the expert's own sale would not have made
  (:func:`~forsale.bots.salemodels.told_apart`); ``gate=fixed``: two sales
  always; ``gate=safe``: the first criterion alone.

``hard-v1``, the search bot before issue 14, stays registered: it is
:class:`~forsale.bots.auction_search.AuctionSearchAgent` itself, the base
class whose auction search ``hard`` inherits, and the reference every newer
``hard`` is measured against (its pinned moves tell when a change to the
shared search moves it).

The bot's estimates for people (each action's and each seat's win chance,
for analysis and hints) are in :mod:`forsale.bots.estimates`, with the sale
round as a game (:func:`~forsale.bots.estimates.round_game`) that both use.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..actions import PASS, SELLS, Action, bid
from ..view import View, sample_state
from .auction_search import AuctionSearchAgent, build_auction_search
from .bidmodels import BidRule, auction_prices, fit_bidding
from .estimates import ITERATIONS_PER_SAMPLE, in_iterations, round_game
from .expert import ExpertAgent, sale_posteriors
from .leaves import Leaf, ModelLeaf
from .opponents import TABLE_SEATS, Bidder, fitted_prior, flat_prior, sample_bidders, table_posteriors, tempering
from .registry import option_number, register
from .rollout import play_auctions
from .salegame import SaleRound, blend, choose, expected_payoffs, solve
from .salelookahead import rollout_values
from .salemodels import (
    BROAD_PRIOR,
    CHOICES,
    GUARD_EPSILON,
    PRIOR,
    SALE_TABLE_SEATS,
    Fit,
    choosing,
    current,
    equilibrium_chances,
    exploitable,
    fit_opponents,
    fixed_sellers,
    from_the_first_sale,
    rule_distributions,
    suspects,
    table_sale_prior,
    told_apart,
    well_modelled,
)
from .searchers import CHAIRS, SEARCHER, SaleMemory, chair_chance, searcher_blend, searcher_share
from .valuation import MARGIN_WEIGHT

GATES = {
    "always": from_the_first_sale,
    "apart": told_apart,
    "fixed": fixed_sellers,
    "safe": exploitable,
    "guard": told_apart,
}
"""When the sale search best-responds to the fitted sale models (``gate=``). ``always`` (the default since 5 December):
at every sale with a choice (:func:`~forsale.bots.salemodels.from_the_first_sale`): with the play-outs of
:data:`LOOKAHEAD` it earned more than ``apart`` at 4 and 6 players and against every baseline, and as much at 3 and
5 (docs/strength.md). ``apart`` (the default before): once every
opponent still choosing is well modelled or more likely sells by a fixed rule than reasons about the others'
hands, after two sales, or after one that the expert's own sale would not have made
(:func:`~forsale.bots.salemodels.told_apart`); ``fixed``: the same after two sales always
(:func:`~forsale.bots.salemodels.fixed_sellers`, the default before that); ``safe``: only once each is well modelled
(:func:`~forsale.bots.salemodels.exploitable`); ``guard``: as ``apart``, and after one sale each the best
response is also played where it would lose little if the sellers not yet told apart were the expert
(:meth:`HardAgent._guarded`; measured, not adopted)."""

LOOKAHEAD = 4
"""Play-outs of the sale phase per sample with which the best response to fitted sellers values each house
(:mod:`forsale.bots.salelookahead`; ``lookahead=0``: the solved round's static values, the bot before). Against
three ``cheapskate``, ``prudent`` and ``expert`` alike it earned more cheques on the same houses (docs/strength.md)."""


class HardAgent(AuctionSearchAgent):
    """``hard``: the auction search of ``hard-v1``, and each sale round solved as a game.

    Auctions: as :class:`~forsale.bots.auction_search.AuctionSearchAgent`, except that
    with ``sampled_bidders`` each sampled deal draws every opponent's bidding
    rule from its posterior (:func:`~forsale.bots.opponents.sample_bidders`)
    instead of playing only the single best fit; those posteriors start, with
    ``bidprior`` (the default), from the prior fitted to how players at large bid
    (:func:`~forsale.bots.opponents.fitted_prior`; off: the expert's head start
    alone), and with ``pool`` (:data:`~forsale.bots.opponents.TABLE_SEATS`; 0: off) from the table's own mixture
    of rules fitted to every opponent's bids (:func:`~forsale.bots.opponents.table_prior`),
    so players who bid alike teach the bot about each other; and with ``bidmodel`` (the
    default; issue 32) the seats the library of :mod:`forsale.bots.bidmodels`
    predicts better than that grid are drawn from the library. Sales: the round is a game
    (:mod:`forsale.bots.salegame`) solved by regret matching, opponents mixed
    between their sale model and equilibrium play by how well the model fits
    them, and the move is drawn from the bot's own solved strategy
    (``mixed=False``: the house worth most against the opponents as they
    were taken to play, a best response). With ``searchers`` each
    opponent's sale model is mixed with a searcher's sale by how well that
    predicted it so far (:mod:`forsale.bots.searchers`), and so is the
    sale ``expert`` would make there. ``sale="v1"`` sells as ``hard-v1``
    does instead (an ablation: docs/strength.md), and ``v1sale=N`` does so
    at tables of ``N`` players or more (0: never): at 6 players the solved
    game, sampled over thousands of profiles of plays, earned fewer cheques
    from the same houses than ``expert`` and ``hard-v1``'s sale. With ``model`` (the
    default; issue 32) each opponent's sales are also fitted to a library of
    sale rules (:mod:`forsale.bots.salemodels`, from :data:`~forsale.bots.salemodels.PRIOR`;
    ``typeprior=False``: the library's own prior; with ``salepool``, :data:`~forsale.bots.salemodels.SALE_TABLE_SEATS`
    by default, each seller's posterior starts from the table's own mixture of those rules fitted to every
    opponent's sales, :func:`~forsale.bots.salemodels.table_sale_prior`; 0: each alone), and whenever ``gate``
    (:data:`GATES`; ``always``, the default: at every sale with a choice)
    lets it, the bot plays the best response to them instead of drawing
    from the solved game (the solved game still gives the ``equilibrium``
    rule its play, and the opponents nothing fits well their share of it), each house
    valued by playing the sale phase out against rules drawn from their
    posteriors (``lookahead`` play-outs a sample, :data:`LOOKAHEAD`; 0: by
    the solved round's static values); with ``partial`` (off; an
    option measured at 6 players) it best-responds as soon as some are,
    the others keeping their model and solved play.

    Three more ablations of the auction search, measured at 6 players in
    docs/strength.md and not adopted: ``futures`` (multiples of ``alpha``)
    values each plan for this round by its best way of bidding in the later
    rounds instead of the expert's rule alone; ``spread`` above 1 tempers the
    opponents' bidder posteriors; ``fit_self`` bids in the later rounds by
    a rule drawn from the posterior fitted to the bot's own bids this game.
    """

    def __init__(
        self,
        name: str = "hard",
        sampled_bidders: bool = True,
        leaf: str | Leaf = "valuation",
        mixed: bool = True,
        searchers: bool = True,
        sale: str = "game",
        futures: Sequence[float] = (1.0,),
        spread: float = 1.0,
        fit_self: bool = False,
        model: bool = True,
        bidmodel: bool = True,
        partial: bool = False,
        gate: str = "always",
        typeprior: bool = True,
        v1sale: int = 0,
        lookahead: int = LOOKAHEAD,
        bidprior: bool = True,
        pool: float = TABLE_SEATS,
        salepool: float = SALE_TABLE_SEATS,
        **options: Any,
    ) -> None:
        super().__init__(name, **options)
        self.salepool = salepool
        self.bidprior = bidprior
        self.pool = pool
        if type(lookahead) is not int or lookahead < 0:
            raise ValueError(f"lookahead must be a whole number of play-outs a sample (0: off), not {lookahead!r}")
        self.lookahead = lookahead
        if v1sale and not 3 <= v1sale <= 6:
            raise ValueError(f"v1sale must be 0 (never) or a player count from 3 to 6, not {v1sale!r}")
        self.v1sale = v1sale
        if gate not in GATES:
            raise ValueError(f"gate must be one of {', '.join(GATES)}, not {gate!r}")
        self.gate = gate
        self.typeprior = typeprior
        self.model = model
        self.bidmodel = bidmodel
        self.partial = partial
        self.spread = tempering(spread)  # refused here, before any game, not at the first bid
        if not futures or any(not m > 0 for m in futures):
            raise ValueError(f"futures must be positive multiples of alpha, not {futures!r}")
        self.futures = tuple(float(m) for m in futures)
        if fit_self and self.futures != (1.0,):
            raise ValueError("fit_self and futures are two ways of bidding in the later rounds: choose one")
        self.fit_self = fit_self
        if sale not in ("game", "v1"):
            raise ValueError(f"sale must be 'game' or 'v1', not {sale!r}")
        self.sale = sale
        self.sampled_bidders = sampled_bidders
        self.mixed = mixed
        self.searchers = searchers
        self._memory = SaleMemory()
        if leaf not in ("valuation", "model") and not callable(leaf):
            raise ValueError(f"leaf must be 'valuation', 'model' or a callable, not {leaf!r}")
        self.leaf = leaf
        self._leaves: dict[int, Leaf] = {}

    def _leaf(self, players: int) -> Leaf | None:
        """The auction leaf for this table size (``None``: the v1 valuation inside the rollout)."""
        if self.leaf == "valuation":
            return None
        if callable(self.leaf):
            return self.leaf
        if players not in self._leaves:
            self._leaves[players] = ModelLeaf.shipped(players)
        return self._leaves[players]

    def _rollout(
        self,
        state: Any,
        me: int,
        posts: Sequence[dict[str, float]],
        bidders: Sequence[Bidder | BidRule],
        rng: random.Random,
        plan: tuple[int, int] | None = None,
        prices: Sequence[int] = (),
    ) -> float:
        leaf = self._leaf(state.n)
        if leaf is None or state.phase != "auction" or self.sale_rollouts:
            return super()._rollout(state, me, posts, bidders, rng, plan, prices)
        return leaf(state, [play_auctions(state, bidders, plan, prices)], me)[0]

    def _plan_totals(self, view: View, rng: random.Random, deadline: float, limits: Sequence[int]) -> list[float]:
        if not (self.sampled_bidders and self.model_bidders):
            return super()._plan_totals(view, rng, deadline, limits)
        seat = view.seat
        assert seat is not None
        posts = sale_posteriors(view.players, view.hands, view.history, (), view.unseen_cheques, view.rules.rounds)
        prior = fitted_prior(view.players) if self.bidprior else flat_prior(head_start=True)
        bidder_posts = table_posteriors(view, prior, self.pool, seat, self.spread)
        # Opponents the library of bidding rules has predicted better than the grid are drawn from it (issue 32).
        fits = fit_bidding(view, prior) if self.bidmodel else []
        modelled = [s for s, fit in enumerate(fits) if s != seat and fit.trusted]
        prices = auction_prices(view) if modelled else []
        leaf = None if self.sale_rollouts else self._leaf(view.players)
        # One row of totals per way of bidding in the later rounds (``futures``: multiples of alpha).
        totals = [[0.0] * len(limits) for _ in self.futures]
        samples = 0
        while self._more(samples, deadline):
            state = sample_state(view, rng)
            bidders: list[Bidder | BidRule] = list(sample_bidders(bidder_posts, rng))
            for s in modelled:
                bidders[s] = fits[s].sample(rng)
            own = bidders[seat]
            seed = 0 if leaf is not None else rng.getrandbits(64)  # one seed: every row on the same luck
            for row, m in zip(totals, self.futures):
                if not self.fit_self:  # later rounds bid as the expert's rule (by default), or as fitted
                    own = (self.alpha * m, 0.0)
                bidders[seat] = own
                if leaf is not None:  # every plan's outcome valued in one call (one batch for a model)
                    outcomes = [play_auctions(state, bidders, (seat, limit), prices) for limit in limits]
                    for i, value in enumerate(leaf(state, outcomes, seat)):
                        row[i] += value
                else:
                    for i, limit in enumerate(limits):
                        row[i] += self._rollout(state, seat, posts, bidders, random.Random(seed), (seat, limit), prices)
            samples += 1
        self.samples_drawn = samples
        # A plan for this round is worth what its best way of going on is worth, on the same deals.
        return [max(row[i] for row in totals) for i in range(len(limits))]

    def _sale(self, view: View, rng: random.Random, deadline: float) -> Action:
        if self.sale == "v1" or (self.v1sale and view.players >= self.v1sale):  # hard-v1's sampled best response
            return super()._sale(view, rng, deadline)
        seat = view.seat
        assert seat is not None
        game, models, weights = round_game(view, margin=MARGIN_WEIGHT)
        chairs: dict[int, int] = {}  # each opponent's house as hard-v1's search would sell it from its chair
        if self.searchers:  # written down every round, so that the chair models' odds miss no sale
            chairs = self._learn_searchers(view, models, weights, rng)
        if self.model:
            prior = PRIOR if self.typeprior else BROAD_PRIOR
            if self.salepool:  # each seat starts from the table's own mixture of sale rules
                prior = table_sale_prior(view, prior, self.salepool, seat)
            fits = fit_opponents(view, prior)
            if GATES[self.gate](fits, view):
                return self._best_response(view, game, fits, rng, deadline, chairs=chairs)
            if self.gate == "guard" and suspects(fits, view):
                return self._guarded(view, game, models, weights, fits, rng, deadline)
            if self.partial and any(well_modelled(fits[s]) for s in choosing(view)):
                # Exploit the seats that sell like a rule; the others keep the model and solved play they had.
                return self._best_response(view, game, fits, rng, deadline, (models, weights))
        strategies, values, iterations = solve(
            game, models, weights, rng, in_iterations(lambda t: self._more(t, deadline))
        )
        self.samples_drawn = iterations // ITERATIONS_PER_SAMPLE
        if not self.mixed:  # the house worth most against the opponents as they were taken to play
            return SELLS[view.hand[max(range(len(view.hand)), key=values[seat].__getitem__)]]
        return SELLS[view.hand[choose(strategies[seat], rng)]]

    def _guarded(
        self,
        view: View,
        game: SaleRound,
        models: list[list[float] | None],
        weights: list[float],
        fits: Sequence[Fit],
        rng: random.Random,
        deadline: float,
    ) -> Action:
        """``gate=guard`` after one sale each: the best response to the fitted models if, should the sellers one
        sale has not told from the expert (:func:`~forsale.bots.salemodels.suspects`) sell as the expert would,
        it is worth at most :data:`~forsale.bots.salemodels.GUARD_EPSILON` less than the solved game's mix
        against them; else the move the solved game draws, the same as with ``gate=fixed`` at a fixed sample
        count."""
        seat = view.seat
        assert seat is not None
        half = self._halfway(deadline)  # within a time budget each solve gets half of what is left
        strategies, _, iterations = solve(game, models, weights, rng, in_iterations(lambda t: self._more(t, half)))
        twin = random.Random()  # the best response draws from a copy, so that declining it is the solved game's move
        twin.setstate(rng.getstate())
        response, played = self._response(view, game, fits, twin, deadline)
        self.samples_drawn += iterations // ITERATIONS_PER_SAMPLE
        pos = current(view)
        for s in suspects(fits, view):
            played[s] = [0.0] * len(view.hands[s])
            played[s][CHOICES["expert"](pos, s)] = 1.0
        worth = expected_payoffs(game, seat, played)
        mix = sum(p * w for p, w in zip(strategies[seat], worth))
        if worth[response] >= mix - GUARD_EPSILON:
            return SELLS[view.hand[response]]
        return SELLS[view.hand[choose(strategies[seat], rng)]]

    def _best_response(
        self,
        view: View,
        game: SaleRound,
        fits: Sequence[Fit],
        rng: random.Random,
        deadline: float,
        rest: tuple[list[list[float] | None], list[float]] | None = None,
        chairs: dict[int, int] | None = None,
    ) -> Action:
        """The house worth most against every opponent's predicted play from its fitted sale rules
        (:meth:`_response`)."""
        return SELLS[view.hand[self._response(view, game, fits, rng, deadline, rest, chairs)[0]]]

    def _response(
        self,
        view: View,
        game: SaleRound,
        fits: Sequence[Fit],
        rng: random.Random,
        deadline: float,
        rest: tuple[list[list[float] | None], list[float]] | None = None,
        chairs: dict[int, int] | None = None,
    ) -> tuple[int, list[list[float]]]:
        """The index of the house worth most against every opponent's predicted play from its fitted sale rules
        (:mod:`forsale.bots.salemodels`), the ``equilibrium`` rule's share playing the opponent's solved
        strategy; and every seat's play as it was taken (the seat's own: its solved strategy).

        ``chairs``: each opponent's house as ``hard-v1``'s search would sell it from its chair
        (:mod:`forsale.bots.searchers`). A seat sells so with its :func:`~forsale.bots.searchers.searcher_share`
        against the library, and the library's prediction has the rest: a field of searchers, whom no rule of
        the library predicts well, is answered as the searchers they are. In the play-outs' later rounds a
        searcher sells as the expert would (:data:`~forsale.bots.salelookahead.STAND_INS`).

        ``rest``: the models and weights of :func:`~forsale.bots.estimates.round_game` for the opponents that are not well modelled
        (partial exploitation): they keep them, and so play the solved game's mix as far as it was trusted."""
        seat = view.seat
        assert seat is not None
        pos = current(view)
        models: list[list[float] | None] = []
        weights: list[float] = []
        dists: list[dict[str, list[float]] | None] = []  # each fitted seat's rules' chances, for the play-outs
        shares = [0.0] * len(fits)  # each seat's chance of selling as the searcher in its chair
        if chairs:
            evidence = self._memory.searcher_chances(view)
            for s in chairs:
                shares[s] = searcher_share(evidence[s], fits[s].chances)
        for s, fit in enumerate(fits):
            dists.append(None)
            if s == seat or len(view.hands[s]) < 2:
                models.append(None)
                weights.append(0.0)
                continue
            if rest is not None and not well_modelled(fit):
                models.append(rest[0][s])
                weights.append(rest[1][s])
                continue
            k = len(view.hands[s])
            # The equilibrium rule's prediction is the seat's strategy in the game solved below (blend's rest).
            chances = dists[s] = rule_distributions(pos, s, solved=[1.0 / k] * k)
            model, weight = fit.predict(chances)
            if shares[s] > 0:  # the searcher's house joins the modelled part of the prediction
                assert chairs is not None
                chances["searcher"] = [chair_chance(h, chairs[s], k) for h in view.hands[s]]
                modelled = shares[s] + (1.0 - shares[s]) * weight
                model = [
                    (shares[s] * c + (1.0 - shares[s]) * weight * m) / modelled
                    for c, m in zip(chances["searcher"], model)
                ]
                weight = modelled
            models.append(model)
            weights.append(weight)
        look = bool(self.lookahead) and rest is None and len(view.hand) > 2
        until = self._halfway(deadline) if look else deadline
        strategies, values, iterations = solve(
            game, models, weights, rng, in_iterations(lambda t: self._more(t, until))
        )
        self.samples_drawn = iterations // ITERATIONS_PER_SAMPLE
        played = [blend(m, w, sigma) for m, w, sigma in zip(models, weights, strategies)]
        if look:
            posts: list[dict[str, float] | None] = [
                None if d is None else _with_searcher(fits[s].posterior, shares[s]) for s, d in enumerate(dists)
            ]
            # The rules' chances as predicted above, the equilibrium rule's now the seat's solved strategy.
            now = [
                None if d is None else {**d, "equilibrium": equilibrium_chances(strategies[s])}
                for s, d in enumerate(dists)
            ]
            totals = [0.0] * len(view.hand)
            drawn = 0
            while self._more(drawn, deadline):
                for i, v in enumerate(rollout_values(pos, seat, posts, now, self.lookahead, rng)):
                    totals[i] += v
                drawn += 1
            self.samples_drawn += drawn
            return max(range(len(view.hand)), key=totals.__getitem__), played
        return max(range(len(view.hand)), key=values[seat].__getitem__), played

    def _learn_searchers(
        self, view: View, models: list[list[float] | None], weights: list[float], rng: random.Random
    ) -> dict[int, int]:
        """Mix each opponent's model with the chair models' sales by how well each predicted its earlier
        sales (:mod:`forsale.bots.searchers`), in place, and write down this round's predictions; each
        opponent's house as the searcher in its chair would sell it."""
        share, seen = self._memory.odds(view)
        predictions = {}
        for s, model in enumerate(models):
            hand = view.hands[s]
            if model is None or len(hand) < 2:
                continue
            houses = tuple(predict(view, s, random.Random(rng.getrandbits(64))) for _, predict in CHAIRS)
            total = sum(model) or 1.0
            types = [p / total for p in model]
            predictions[s] = (houses, dict(zip(hand, types)))
            models[s], weights[s] = searcher_blend(hand, houses, types, weights[s], share[s], seen[s])
        self._memory.remember(view, predictions)
        return {s: houses[SEARCHER] for s, (houses, _) in predictions.items()}


def _with_searcher(posterior: dict[str, float], share: float) -> dict[str, float]:
    """A seat's posterior over the library's rules with the searcher's ``share`` beside them (the play-outs draw
    from it)."""
    if share <= 0:
        return posterior
    return {**{name: (1.0 - share) * p for name, p in posterior.items()}, "searcher": share}


class EasyAgent:
    """The expert without its opponent models, and a careless move one time in four."""

    name = "easy"

    def __init__(self, blunder: float = 0.25) -> None:
        self.blunder = blunder
        self._expert = ExpertAgent(name="easy")

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        legal = view.legal_actions()
        if rng.random() < self.blunder:
            if view.phase == "auction":
                return bid(view.high + 1) if len(legal) > 1 and rng.random() < 0.5 else PASS
            return legal[int(rng.random() * len(legal))]
        return self._expert.act(view, rng, budget)


def _multiples(spec: str | float) -> list[float]:
    """``futures=0.6+1+1.6`` of a bot spec as numbers, refused with its reason when it is not one."""
    try:
        return [float(m) for m in str(spec).split("+")]
    except ValueError:
        reason = f"futures must be positive multiples of alpha joined by '+' (e.g. 0.6+1+1.6), not {spec!r}"
        raise ValueError(reason) from None


def _whole(key: str, value: Any, high: int) -> int:
    """A whole-number option from 0 to ``high``, or ``ValueError`` saying so (``2.5`` is not silently 2)."""
    number = option_number(key, value, 0, high)
    if number != int(number):
        raise ValueError(f"{key} must be a whole number from 0 to {high}, not {value!r}")
    return int(number)


def _player_count(key: str, value: Any) -> int:
    """A bot option that names a table size (0: none) as a whole number, refused with its reason otherwise."""
    number = option_number(key, value, 0, 6)
    if number != int(number) or 0 < number < 3:
        raise ValueError(f"{key} must be 0 (never) or a player count from 3 to 6, not {value!r}")
    return int(number)


@register(
    "hard", "determinized auction search; each sale round solved as a game (regret matching); time=SECONDS per decision"
)
def _hard(
    sampled_bidders: int = 1,
    leaf: str = "valuation",
    mixed: int = 1,
    searchers: int = 1,
    sale: str = "game",
    futures: str | float = "1",
    spread: Any = 1.0,
    fit_self: int = 0,
    model: int = 1,
    bidmodel: int = 1,
    partial: int = 0,
    gate: str = "always",
    typeprior: int = 1,
    v1sale: int = 0,
    lookahead: int = LOOKAHEAD,
    bidprior: int = 1,
    pool: float = TABLE_SEATS,
    salepool: float = SALE_TABLE_SEATS,
    **options: Any,
) -> HardAgent:
    base = build_auction_search("hard", **options)  # the shared options, checked once
    return HardAgent(
        "hard",
        sampled_bidders=bool(sampled_bidders),
        leaf=leaf,
        mixed=bool(mixed),
        searchers=bool(searchers),
        sale=sale,
        futures=_multiples(futures),
        spread=spread,
        fit_self=bool(fit_self),
        model=bool(option_number("model", model, 0, 1)),
        bidmodel=bool(option_number("bidmodel", bidmodel, 0, 1)),
        partial=bool(option_number("partial", partial, 0, 1)),
        gate=gate,
        typeprior=bool(option_number("typeprior", typeprior, 0, 1)),
        v1sale=_player_count("v1sale", v1sale),
        lookahead=_whole("lookahead", lookahead, 64),
        bidprior=bool(option_number("bidprior", bidprior, 0, 1)),
        pool=option_number("pool", pool, 0, 100),
        salepool=option_number("salepool", salepool, 0, 100),
        time=base.time,
        alpha=base.alpha,
        phases=",".join(base.phases),
        samples=base.samples,
        temperature=base.temperature,
        sale_rollouts=base.sale_rollouts,
        model_bidders=base.model_bidders,
        steps=base.steps,
    )


@register("hard-v1", "the hard bot as it was before issue 14 (kept for comparison); time=SECONDS per decision")
def _hard_v1(**options: Any) -> AuctionSearchAgent:
    return build_auction_search("hard-v1", **options)


@register("medium", "the expert heuristic (a level for people to play against)")
def _medium() -> ExpertAgent:
    return ExpertAgent(name="medium")


@register("easy", "the expert with one careless move in four (a level for people to play against)")
def _easy(blunder: float = 0.25) -> EasyAgent:
    return EasyAgent(blunder=option_number("blunder", blunder, 0, 1))
