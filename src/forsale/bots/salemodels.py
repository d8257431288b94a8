"""Who sells how: a library of sale rules, a posterior over them per opponent, and when to exploit it (issue 32).

In the sale phase every hand is known by deduction, so each opponent's sale
is a labelled example: its hand, the others' hands, the cheques on the table
and the round, and the house it sold. A field of one simple kind of player
sells deterministically from those, and the equilibrium ``hard`` otherwise
plays leaves the points on the table that a best response to them would take.

**The library** (:data:`RULES`): rank matching on several scales (the house
whose rank in the hand matches the rank of the top or the mean cheque of the
table among the cheques still unseen, or among all the cheques of the game,
or of the round's sum among the rounds left);
lowest, highest, median, the house nearest the hand's mean; threshold rules
(the highest house when the top cheque reaches a threshold, else the lowest),
and the same on a three-step scale of the table's richness (``tiers``);
cheque matching (nearest twice the top cheque); the expert's sale types
``greedy``, ``greedy_now`` and ``match`` and the expert's own sale
(:func:`forsale.bots.expert.sale_choice`, imported, not restated); and the
two *unmodelled* players: ``uniform`` (a house at random) and
``equilibrium`` (the seat's strategy in the solved sale game,
:func:`forsale.bots.salegame.solve`, with no opponent models). Every
deterministic rule keeps a chance :data:`EPSILON` of any house, so one odd
sale lowers a rule's weight without refuting it.

**The posterior** (:func:`fit_opponents`) starts from :data:`PRIOR` and is
updated by Bayes' rule from each sale the seat made this game, replayed as
it was seen then. The prior is half the library's own (:data:`BROAD_PRIOR`:
half on the unmodelled players, the rest even over the rules) and half the
expert's prior over its sale types (uniform, lowest, highest, median, the
greedy ones and matching), which are rules of this library too: the mixture
of a narrow and a broad class of models. With the broad prior alone a
seller who always sells its lowest house was still spread, after its first
sale, over every rule that happened to agree with that one sale (on a poor
table the threshold and tier rules also sell low), and the best response
hedged against those rules' next choices (its highest house); the expert's
seven types name it after one sale. Before each update the mixture's chance
of the house actually sold is scored: the **predictive log-loss**
(:attr:`Fit.log_loss`), beside a uniform guess's and each rule's own, so a
report can say how well the models predict.

**The table.** People at a table often sell alike, and a seller's first
sales fit many rules. ``hard`` starts each seller's posterior from the
table's own mixture of rules (:func:`table_sale_prior`), fitted by EM to
every opponent's sales so far with :data:`PRIOR` worth
:data:`SALE_TABLE_SEATS` players, so after two rounds five sellers who sell
alike have each been seen ten times.

**When to exploit.** Five criteria, chosen by ``hard``'s ``gate=``. The
default, :func:`from_the_first_sale` (``gate=always``), asks nothing: the
best response to the posterior predictive is played at every sale with a
choice, the prior's head start for the reasoning players standing in for
the evidence not yet seen. Once the best response valued each house by
playing the sale phase out against rules drawn from the posteriors
(:mod:`forsale.bots.salelookahead`), waiting for ``gate=apart`` cost points
at 4 and 6 players and against every baseline, and gained nothing at 3 and
5 (docs/strength.md). The other four:
:func:`exploitable`, the safe-exploitation criterion (``gate=safe``): for
every opponent still choosing, the posterior puts at least
:data:`EXPLOIT_MASS` on the modelled rules and the model has predicted that
seat's sales better than a uniform guess so far. It waits three or four
of the six rounds with a choice, and the first rounds are the richest ones.
:func:`fixed_sellers` (``gate=fixed``) opens earlier for sellers who do not
reason about the table: an opponent passes if it is well modelled, or if
after two sales of its own choosing its posterior makes it more likely a
seller by a rule of its own hand and the table (or at random) than one of
:data:`REASONING` (the expert's own sale, which learns the others' sale
types from their sales, and the equilibrium player, who solves the round),
against whom the mixed solved game is the safe play. :func:`told_apart` (``gate=apart``, the default before)
opens one sale sooner for a seller whose sales the expert's own sale, replayed from what that seat saw, has
mispredicted where a fixed rule predicted them (:data:`SEPARATION`): the expert's sale agrees with its greedy
types at most tables, so one sale that all of them predicted cannot tell a field of ``expert`` from greedy
sellers, but one sale the expert would not have made can (and a field of ``expert`` is never told apart).
``gate=guard`` adds a safe-exploitation test for the sellers one sale has not told apart (:func:`suspects`):
the best response is played if, should they be the expert after all, it loses at most
:data:`GUARD_EPSILON` against the solved game's mix (measured, not adopted: docs/strength.md). The bot
then plays the best response to the posterior predictive, in which the unmodelled players keep their share
(``uniform`` at random, ``equilibrium`` as the solved game's play). An
opponent unlike every rule keeps its mass on ``uniform`` or ``equilibrium``
under either, and so is met by a response to random and solved play, never
to a wrong rule.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from math import erf, log, sqrt

from ..rules import CHEQUES
from ..view import View
from .expert import SALE_TYPE_PRIOR, order_stat_means, sale_choice, sale_posteriors, type_choice
from .opponents import pooled_weights
from .salegame import SaleRound, solve
from .valuation import MARGIN_WEIGHT, sale_temperature

EPSILON = 0.1
"""Chance that a seat of a deterministic rule sells any house at random (so one odd sale does not refute the rule)."""

EXPLOIT_MASS = 0.9
"""Posterior mass on the modelled rules every opponent must reach before the bot best-responds to the models."""

EQUILIBRIUM_ITERATIONS = 100
"""Regret-matching iterations that solve a finished round for the ``equilibrium`` rule (each round solved once)."""

UNMODELLED = ("uniform", "equilibrium")
"""The players the bot does not exploit: one at random, and one that plays the solved game."""

GUARD_EPSILON = 0.01
"""``gate=guard``: how much of the seat's utility (a win chance, plus a hundredth of the lead in points) the best
response to the fitted models may lose against the solved game's mix if the sellers not yet told apart from the
expert are in fact the expert, before the bot plays the solved game instead."""

SEPARATION = 1.0
"""Nats by which the best fixed rule must have out-predicted the expert's own sale before :func:`told_apart` takes a
seller with one sale of its own choosing for a fixed-rule one: one sale the expert's sale missed and the rule
predicted is worth about 3.6 (``-log(EPSILON / k)`` against ``-log(1 - EPSILON)``), sales both predicted nothing."""

REASONING = ("expert", "equilibrium")
"""The sellers who reason about the others as the bot does: the expert's own sale (a best response to the sale types
it learns from the others' sales) and the equilibrium player. A best response to a thin model of them is what the
mixed solved game guards against."""


@dataclass(frozen=True)
class Position:
    """One sale round as every seat saw it, with all hands known: what every rule decides from.

    ``pool``: the cheques unseen while the round is played (this round's
    table excluded), sorted. ``sales_before``: each earlier round's houses
    by seat (what the expert's own opponent model learns from).
    """

    hands: tuple[tuple[int, ...], ...]
    table: tuple[int, ...]
    pool: tuple[int, ...]
    won: tuple[int, ...]
    coins: tuple[int, ...]
    rounds: int
    sales_before: tuple[tuple[int, ...], ...]
    finished_tables: tuple[tuple[int, ...], ...]

    @property
    def rounds_after(self) -> int:
        return self.rounds - len(self.sales_before) - 1


Choice = Callable[[Position, int], int]
"""A deterministic rule: the index in ``hands[seat]`` (ascending) the seat sells."""


def _rank(x: float, scale: Sequence[float]) -> float:
    """Where ``x`` stands in ``scale`` from 0 (below all) to 1 (above all); ties count half."""
    if not scale:
        return 0.5
    return sum(1.0 if v < x else 0.5 if v == x else 0.0 for v in scale) / len(scale)


def _rank_match(cheque: Callable[[Position], float], scale: Callable[[Position], Sequence[float]]) -> Choice:
    """The house whose rank in the hand matches the rank of ``cheque`` on ``scale``."""

    def choose(pos: Position, seat: int) -> int:
        k = len(pos.hands[seat])
        return round(_rank(cheque(pos), scale(pos)) * (k - 1))

    return choose


def _top(pos: Position) -> float:
    return float(pos.table[-1])


def _mean(pos: Position) -> float:
    return sum(pos.table) / len(pos.table)


def _left(pos: Position) -> Sequence[float]:
    """The cheques not yet won: still unseen or on the table."""
    return [*pos.pool, *pos.table]


def _all(pos: Position) -> Sequence[float]:
    return CHEQUES


def _round_rank(pos: Position, seat: int) -> int:
    """The house whose rank in the hand matches this round's rank among the rounds left: the table's sum
    against the sum of as many cheques drawn from the unseen ones (a normal approximation, without
    replacement), a narrower scale than single cheques."""
    k = len(pos.hands[seat])
    n, pool = len(pos.table), pos.pool
    if k == 1 or len(pool) < 2:
        return 0
    mu = sum(pool) / len(pool)
    var = sum((c - mu) ** 2 for c in pool) / len(pool) * n * (len(pool) - n) / (len(pool) - 1)
    z = (sum(pos.table) - n * mu) / sqrt(var) if var > 0 else 0.0
    return round(0.5 * (1.0 + erf(z / sqrt(2.0))) * (k - 1))


def _tiers(cheque: Callable[[Position], float]) -> Choice:
    """Rank matching on a three-step scale: the highest house when ``cheque`` is in the top third of the
    cheques not yet won, the lowest in the bottom third, the median between (keep the best for rich rounds)."""

    def choose(pos: Position, seat: int) -> int:
        k = len(pos.hands[seat])
        r = _rank(cheque(pos), _left(pos))
        return k - 1 if r >= 2 / 3 else 0 if r <= 1 / 3 else k // 2

    return choose


def _threshold(t: int) -> Choice:
    """The highest house when the top cheque is at least ``t``, else the lowest."""
    return lambda pos, seat: len(pos.hands[seat]) - 1 if pos.table[-1] >= t else 0


def _nearest(target: Callable[[Position, int], float]) -> Choice:
    def choose(pos: Position, seat: int) -> int:
        hand = pos.hands[seat]
        t = target(pos, seat)
        return min(range(len(hand)), key=lambda i: (abs(hand[i] - t), hand[i]))

    return choose


def _expert_type(kind: str) -> Choice:
    """One of the expert's sale types (:func:`forsale.bots.expert.type_choice`)."""

    def choose(pos: Position, seat: int) -> int:
        n = len(pos.hands)
        others = [pos.hands[o] for o in range(n) if o != seat]
        stats = order_stat_means(pos.pool, n) if pos.rounds_after > 0 else None
        got = type_choice(kind, pos.hands[seat], others, pos.table, stats)
        assert got is not None
        return got

    return choose


def _expert(pos: Position, seat: int) -> int:
    """The expert's own sale, with the opponent model it would have learnt from the sales before."""
    n = len(pos.hands)
    history = tuple((None, houses) for houses in pos.sales_before)
    unseen = tuple(sorted(pos.pool + pos.table))
    posts = sale_posteriors(n, pos.hands, history, pos.finished_tables, unseen, pos.rounds)
    house = sale_choice(seat, pos.hands, pos.table, pos.pool, pos.rounds_after, posts)
    return pos.hands[seat].index(house)


CHOICES: dict[str, Choice] = {
    "lowest": lambda pos, seat: 0,
    "highest": lambda pos, seat: len(pos.hands[seat]) - 1,
    "median": lambda pos, seat: len(pos.hands[seat]) // 2,
    "hand_mean": _nearest(lambda pos, seat: sum(pos.hands[seat]) / len(pos.hands[seat])),
    "rank_top_left": _rank_match(_top, _left),
    "rank_mean_left": _rank_match(_mean, _left),
    "rank_top_all": _rank_match(_top, _all),
    "rank_mean_all": _rank_match(_mean, _all),
    "rank_round": _round_rank,
    "tiers_mean": _tiers(_mean),
    "threshold_9": _threshold(9),
    "threshold_12": _threshold(12),
    "threshold_14": _threshold(14),
    "match_top": _nearest(lambda pos, seat: 2.0 * pos.table[-1]),
    "match": _expert_type("match"),
    "greedy": _expert_type("greedy"),
    "greedy_now": _expert_type("greedy_now"),
    "expert": _expert,
}
"""The modelled rules: each picks one house from what the seat sees."""

RULES: tuple[str, ...] = (*CHOICES, *UNMODELLED)
"""Every rule of the library, the modelled ones first."""

BROAD_PRIOR: dict[str, float] = {
    **{name: 0.5 / len(CHOICES) for name in CHOICES},
    "uniform": 0.2,
    "equilibrium": 0.3,
}
"""The library's own prior: half on the unmodelled players, the rest spread evenly over the rules."""

PRIOR: dict[str, float] = {name: 0.5 * BROAD_PRIOR[name] + 0.5 * SALE_TYPE_PRIOR.get(name, 0.0) for name in RULES}
"""The prior :func:`fit_opponents` starts from: half the library's own (:data:`BROAD_PRIOR`), half the expert's
prior over its sale types (:data:`forsale.bots.expert.SALE_TYPE_PRIOR`, a sub-library of this one)."""


@lru_cache(maxsize=1024)
def equilibrium(pos: Position) -> tuple[tuple[float, ...], ...]:
    """Every seat's strategy in ``pos`` solved as a game with no opponent models (as ``hard`` solves it).

    Deterministic (a generator seeded by the position) and cached: every
    later decision of the game replays the same finished rounds.
    """
    n = len(pos.hands)
    k = len(pos.hands[0])
    stats = list(order_stat_means(pos.pool, n)) if k > 1 else None
    game = SaleRound(pos.hands, pos.table, pos.pool, pos.won, pos.coins, stats, sale_temperature(k - 1), MARGIN_WEIGHT)
    rng = random.Random(f"forsale-salemodels:{pos}")
    strategies, _, _ = solve(game, [None] * n, [0.0] * n, rng, lambda t: t < EQUILIBRIUM_ITERATIONS)
    return tuple(tuple(s) for s in strategies)


def noisy(choice: int, k: int) -> list[float]:
    """A deterministic rule's chances over ``k`` houses: ``1 - EPSILON`` on its choice, the rest spread evenly."""
    probs = [EPSILON / k] * k
    probs[choice] += 1.0 - EPSILON
    return probs


def rule_distributions(pos: Position, seat: int, solved: Sequence[float] | None = None) -> dict[str, list[float]]:
    """Each rule's chance of every house of ``hands[seat]`` (ascending).

    ``solved``: the seat's equilibrium strategy if already known (the current
    round's comes from the bot's own solve); else it is solved here.
    """
    k = len(pos.hands[seat])
    out = {name: noisy(choice(pos, seat), k) for name, choice in CHOICES.items()}
    out["uniform"] = [1.0 / k] * k
    out["equilibrium"] = equilibrium_chances(solved if solved is not None else equilibrium(pos)[seat])
    return out


def equilibrium_chances(solved: Sequence[float]) -> list[float]:
    """The ``equilibrium`` rule's chances from the seat's solved strategy: kept with ``1 - EPSILON``, the rest
    spread evenly, as a deterministic rule's (:func:`noisy`)."""
    k = len(solved)
    return [(1.0 - EPSILON) * p + EPSILON / k for p in solved]


@dataclass
class Fit:
    """One opponent's posterior over :data:`RULES` and how well its predictions did (log-losses in nats)."""

    posterior: dict[str, float] = field(default_factory=lambda: dict(PRIOR))
    observed: int = 0
    log_loss: float = 0.0
    uniform_loss: float = 0.0
    rule_loss: dict[str, float] = field(default_factory=lambda: dict.fromkeys(RULES, 0.0))
    chances: list[float] = field(default_factory=list)
    """The chance the posterior predictive gave each observed sale, in order (the evidence for the library as a
    whole, which a model outside it is weighed against: :func:`forsale.bots.searchers.searcher_share`)."""

    @property
    def modelled(self) -> float:
        """Posterior mass on the modelled rules (not ``uniform`` nor ``equilibrium``)."""
        return sum(p for name, p in self.posterior.items() if name not in UNMODELLED)

    def update(self, dists: dict[str, list[float]], sold: int) -> None:
        """Score the prediction of house index ``sold``, then weigh every rule by its chance of it (Bayes)."""
        k = len(dists["uniform"])
        predicted = sum(self.posterior[name] * dists[name][sold] for name in RULES)
        self.chances.append(predicted)
        self.log_loss -= log(max(predicted, 1e-12))
        self.uniform_loss += log(k)
        for name in RULES:
            self.rule_loss[name] -= log(max(dists[name][sold], 1e-12))
        post = {name: self.posterior[name] * dists[name][sold] for name in RULES}
        total = sum(post.values())
        if total > 0:
            self.posterior = {name: p / total for name, p in post.items()}
        self.observed += 1

    def predict(self, dists: dict[str, list[float]]) -> tuple[list[float], float]:
        """The predicted play as ``(model, weight)`` for :func:`forsale.bots.salegame.blend`.

        ``model`` mixes every rule but ``equilibrium`` by the posterior;
        ``weight`` is their share: the rest is the seat's strategy in the game
        being solved, which is the equilibrium rule's prediction.
        """
        weight = 1.0 - self.posterior["equilibrium"]
        k = len(dists["uniform"])
        if weight <= 0:
            return [1.0 / k] * k, 0.0
        model = [
            sum(self.posterior[name] * dists[name][i] for name in RULES if name != "equilibrium") / weight
            for i in range(k)
        ]
        return model, weight


def positions(view: View) -> list[tuple[Position, tuple[int, ...]]]:
    """Every finished sale round of ``view``'s game as it was seen, with the houses each seat sold."""
    sales = [tuple(houses) for seat, houses in view.history if seat is None]
    n = view.players
    held = [list(h) for h in view.hands]
    for houses in sales:
        for s, h in enumerate(houses):
            held[s].append(h)
    # The cheques unseen while round r was played: those unseen now and every later round's table.
    pools = []
    pool = sorted(view.unseen_cheques)
    for r in range(len(sales) - 1, -1, -1):
        if r + 1 < len(view.sale_tables):
            pool = sorted(pool + list(view.sale_tables[r + 1]))
        pools.append(tuple(pool))
    pools.reverse()
    out = []
    won = [0] * n
    for r, houses in enumerate(sales):
        table = tuple(sorted(view.sale_tables[r]))
        pos = Position(
            hands=tuple(tuple(sorted(h)) for h in held),
            table=table,
            pool=pools[r],
            won=tuple(won),
            coins=view.coins,
            rounds=view.rules.rounds,
            sales_before=tuple(sales[:r]),
            finished_tables=tuple(tuple(t) for t in view.sale_tables[:r]),
        )
        out.append((pos, houses))
        order = sorted(houses)
        for s, h in enumerate(houses):
            won[s] += table[order.index(h)]
            held[s].remove(h)
    return out


def current(view: View) -> Position:
    """The sale round being played now, as a :class:`Position`."""
    sales = tuple(tuple(houses) for seat, houses in view.history if seat is None)
    return Position(
        hands=tuple(tuple(sorted(h)) for h in view.hands),
        table=tuple(sorted(view.table)),
        pool=tuple(sorted(view.unseen_cheques)),
        won=tuple(sum(c) for c in view.cheques_won),
        coins=view.coins,
        rounds=view.rules.rounds,
        sales_before=sales,
        finished_tables=tuple(tuple(t) for t in view.sale_tables[: len(sales)]),
    )


@lru_cache(maxsize=4096)
def _finished(pos: Position, seat: int) -> dict[str, list[float]]:
    """:func:`rule_distributions` of a finished round, cached: every later decision of the game replays it.

    Callers must not change the lists returned."""
    return rule_distributions(pos, seat)


def fit_opponents(view: View, prior: dict[str, float] = PRIOR) -> list[Fit]:
    """Per seat, its :class:`Fit` from every sale of its own choosing this game (forced sales teach nothing),
    starting from ``prior``.

    Reads only public information: the view's deduced hands, the sale
    history and the tables; the viewing seat's own commitment never enters.
    """
    fits = [Fit(posterior=dict(prior)) for _ in range(view.players)]
    for pos, houses in positions(view):
        for s, fit in enumerate(fits):
            hand = pos.hands[s]
            if len(hand) > 1:
                fit.update(_finished(pos, s), hand.index(houses[s]))
    return fits


SALE_TABLE_SEATS = 3.0
"""Players' worth of the prior that the table's own mixture of sale rules starts from (:func:`table_sale_prior`,
``hard:salepool=``; 0: each seller fitted alone). The default of ``hard`` since 5 December: +3.8 [+1.6, +6.0] and
+3.8 [+1.8, +5.9] at two seeds' 6-player fields, +5.9 [+3.1, +8.8] against three ``expert`` (docs/strength.md)."""


def table_sale_prior(view: View, prior: dict[str, float], seats: float, me: int | None = None) -> dict[str, float]:
    """A prior over :data:`RULES` for the players at this table, learnt from all of their sales together.

    People at a table often sell alike. The table's own mixture of rules is
    fitted (EM, :func:`forsale.bots.opponents.pooled_weights`) to every
    opponent's sales so far, each scored by every rule as :func:`fit_opponents`
    scores it, starting from ``prior`` worth ``seats`` players; each seat's
    posterior can then start from it, so after one round five sellers who
    sell alike have each been seen five times. ``me`` (the seat that is
    deciding) is left out; a table with no sale of choice yet keeps ``prior``.
    """
    rows = [
        [-fit.rule_loss[name] for name in RULES]
        for s, fit in enumerate(fit_opponents(view, prior))
        if s != me and fit.observed
    ]
    if not rows:
        return dict(prior)
    return dict(zip(RULES, pooled_weights(rows, [prior[name] for name in RULES], seats)))


def well_modelled(fit: Fit) -> bool:
    """One opponent passes the safe-exploitation criterion: evidence, :data:`EXPLOIT_MASS` on the modelled
    rules, and a predictive log-loss below a uniform guess's (module docstring)."""
    return fit.observed > 0 and fit.modelled >= EXPLOIT_MASS and fit.log_loss < fit.uniform_loss


def choosing(view: View) -> list[int]:
    """The opponents of the viewing seat who still choose what to sell (two houses or more)."""
    return [s for s in range(view.players) if s != view.seat and len(view.hands[s]) > 1]


def exploitable(fits: Sequence[Fit], view: View) -> bool:
    """The safe-exploitation criterion: every opponent still choosing is well modelled (module docstring)."""
    others = choosing(view)
    return bool(others) and all(well_modelled(fits[s]) for s in others)


def fixed_sellers(fits: Sequence[Fit], view: View) -> bool:
    """Every opponent still choosing is either well modelled (:func:`well_modelled`), or has made two sales of its
    own choosing or more and is more likely a seller by a rule of its own hand and the table (or at random) than
    one who reasons about the others (:data:`REASONING`).

    Two sales, because one cannot tell them apart: the expert's sale agrees with one of its greedy types at
    most tables, and after one sale a field of ``expert`` looked like greedy sellers at 15 of 20 decisions (the
    best response to that thin model lost about 4 points a game against three ``expert``; docs/strength.md).
    A reasoning seller is best-responded to only once it is well modelled, as before."""
    return bool(choosing(view)) and all(
        well_modelled(fits[s]) or (fits[s].observed > 1 and reasoning_mass(fits[s]) < 0.5) for s in choosing(view)
    )


def reasoning_mass(fit: Fit) -> float:
    """The posterior mass on the sellers who reason about the others (:data:`REASONING`)."""
    return sum(fit.posterior[r] for r in REASONING)


def expert_refuted(fit: Fit) -> bool:
    """Some rule that does not reason about the others has out-predicted the expert's own sale on this seat's
    sales by :data:`SEPARATION` nats or more: a sale the expert, seeing what the seat saw, would not have made."""
    best = min(fit.rule_loss[r] for r in RULES if r not in REASONING)
    return fit.rule_loss["expert"] - best >= SEPARATION


def told_apart(fits: Sequence[Fit], view: View) -> bool:
    """:func:`fixed_sellers`, or one sale sooner: an opponent with one sale of its own choosing passes too if it
    is more likely a fixed-rule seller than a reasoning one and that sale already told it from the expert
    (:func:`expert_refuted`).

    The expert's sale is computable from what the seat could see, so a field of ``expert`` is never refuted
    and meets exactly the bot of ``gate=fixed``; a seller whose first sale the expert would not have made (a
    cheapskate selling its lowest house where the expert sold the middle one) is best-responded to from the
    second round with a choice, not the third. The equilibrium player, whose play is mixed, is not refuted
    by one sale; the posterior mass on it still has to be under a half."""
    return bool(choosing(view)) and all(
        well_modelled(fits[s])
        or (
            reasoning_mass(fits[s]) < 0.5
            and (fits[s].observed > 1 or (fits[s].observed > 0 and expert_refuted(fits[s])))
        )
        for s in choosing(view)
    )


def from_the_first_sale(fits: Sequence[Fit], view: View) -> bool:
    """``gate=always``: some opponent still chooses, whatever its sales so far said.

    The best response then meets each seller as its posterior predicts it, from the prior onwards: a seller
    the sales have not yet told apart keeps the prior's mass on the reasoning players (the expert's own
    sale, and the equilibrium player, who plays the solved game's strategy), so it is answered as a mixture
    of them, and a seller unlike every rule keeps its mass on ``uniform`` or ``equilibrium``. Measured with
    the sale play-outs (:mod:`forsale.bots.salelookahead`), this earned more than waiting for ``gate=apart`` at
    4 and 6 players and against every baseline, and as much at 3 and 5 (docs/strength.md); without them it
    did not. ``fits`` is not read: the gates share one signature (the best response reads the posteriors)."""
    return bool(choosing(view))


def suspects(fits: Sequence[Fit], view: View) -> list[int]:
    """The opponents still choosing that :func:`told_apart` does not pass but one sale makes more likely sellers
    by a fixed rule (or at random) than reasoning ones: those whose sales so far the expert's own sale predicted
    as well as any rule did. Empty when some opponent has not sold by choice yet or is more likely reasoning
    (then the solved game is played, whatever the guard of ``gate=guard`` would say)."""
    out = []
    for s in choosing(view):
        fit = fits[s]
        if well_modelled(fit) or (reasoning_mass(fit) < 0.5 and (fit.observed > 1 or expert_refuted(fit))):
            continue
        if fit.observed == 0 or reasoning_mass(fit) >= 0.5:
            return []
        out.append(s)
    return out
