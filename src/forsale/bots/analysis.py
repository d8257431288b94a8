"""Post-game analysis: what each decision of a game did to a seat's chance of winning.

For every decision of a seat (an auction turn with a choice, or a sale
round with more than one house in hand) :func:`analyse` asks the bot for
the chance of winning that each legal action gives, **from that seat's
view only** (:func:`forsale.view.view` at the moment it decided, never
the true state: the undealt order and, in a sale round, the others'
choices stay unknown), and compares the move made with the best one. The
*loss* of a decision is how much win chance the move gave up against the
best action; the costliest decisions are the ones a player can learn
from. For the chart, every position of the game (after each move) is
valued from the public view, which at these positions holds everything any
seat knows (every hand is known by deduction, and a sale round's choices
are recorded only once all are made), so the seats' chances are comparable
and sum to one.

Win chances are estimated by :mod:`forsale.bots.search` when it offers
them (``action_values`` / ``win_chances``); until then by determinized
play-outs here: deals consistent with the view are drawn
(:func:`forsale.view.sample_state`), each action is taken in every one of
them (the same deals for every action, so their differences are measured
rather than drowned in the luck of the deal), and the game is played out
by the expert heuristic; a shared win counts as a share. ``budget`` is
the number of sampled deals per evaluation, so an analysis is the same for
the same record, budget and seed, whichever seats are analysed.

Nothing here needs more than the engine: the server runs it in its bot
worker processes, ``forsale analyse`` in a terminal.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..actions import PASS, SELLS, Action, action_to_json, bid
from ..errors import RecordError
from ..record import from_record, to_record
from ..view import View, sample_state, spectator_view, view

DEFAULT_BUDGET = 64
"""Sampled deals per evaluation: a whole 4-player game, every seat, in about ten seconds on one core."""

HINT_BUDGET = 48
"""Sampled deals for a hint during play: well under a second in a bot worker."""


@dataclass(frozen=True)
class Decision:
    """One decision of ``seat``: each legal action's chance of winning, the move made and the best one.

    ``move`` is the index in the record's ``moves`` of the move it made (a
    sale decision is part of the round's ``sell`` move). ``chances`` pairs
    every legal action with its win chance, in the engine's order (pass,
    then the bids; or the houses, ascending).
    """

    move: int
    seat: int
    phase: str
    round: int
    chances: tuple[tuple[Action, float], ...]
    chosen: Action

    @property
    def chosen_chance(self) -> float:
        return next(c for a, c in self.chances if a == self.chosen)

    @property
    def best(self) -> Action:
        """The action with the highest chance (the first such, in the engine's order)."""
        return max(self.chances, key=lambda pair: pair[1])[0]

    @property
    def best_chance(self) -> float:
        return max(c for _, c in self.chances)

    @property
    def loss(self) -> float:
        """Win chance given up against the best action (0 when the move was the best)."""
        return self.best_chance - self.chosen_chance

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "seat": self.seat,
            "phase": self.phase,
            "round": self.round,
            "chances": [{"action": action_to_json(a), "chance": c} for a, c in self.chances],
            "chosen": action_to_json(self.chosen),
            "chosen_chance": self.chosen_chance,
            "best": action_to_json(self.best),
            "best_chance": self.best_chance,
            "loss": self.loss,
        }


@dataclass(frozen=True)
class Analysis:
    """The analysis of one game (see :func:`analyse`).

    ``chances[k][s]`` is seat ``s``'s chance of winning after the first
    ``k`` moves of the record (``k = 0``: the deal), valued from the public
    view; at the end it is the result (1 for a sole winner, shares for a
    shared win); empty when the chart was left out. ``decisions`` are those of the analysed seats, in the
    order of play.
    """

    players: tuple[str, ...]
    seats: tuple[int, ...]
    budget: int
    seed: int
    complete: bool
    chances: tuple[tuple[float, ...], ...]
    decisions: tuple[Decision, ...]

    def costliest(self, seat: int | None = None, count: int = 5) -> list[Decision]:
        """The decisions (of ``seat``, or every analysed seat) that gave up the most win chance, costliest first.

        Only decisions that lost something are listed; ties keep the order of play.
        """
        chosen = [d for d in self.decisions if (seat is None or d.seat == seat) and d.loss > 0]
        return sorted(chosen, key=lambda d: -d.loss)[:count]

    def to_json(self, costliest: int = 5) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "seats": list(self.seats),
            "budget": self.budget,
            "seed": self.seed,
            "complete": self.complete,
            "chances": [list(c) for c in self.chances],
            "decisions": [d.to_json() for d in self.decisions],
            "costliest": {str(s): [d.move for d in self.costliest(s, costliest)] for s in self.seats},
        }


# -- the bot's estimates ----------------------------------------------------
# Adapter over forsale.bots.search: until it offers action_values / win_chances,
# the play-outs below give the same kind of number (a chance of winning).

def _share(state: Any, seat: int) -> float:
    winners = state.winners()
    return 1.0 / len(winners) if seat in winners else 0.0


def _house_values(state: Any) -> dict[int, int]:
    """What each house of the (sampled) deal sells for if houses and cheques meet by rank over the game.

    The play-out knows the sampled deal, so this is the cheque at the same
    rank among the cheques in play as the house among the houses in play:
    the value a seat pays for, and the one its gap rule compares.
    """
    return dict(zip(sorted(state.deal.houses), sorted(state.deal.cheques)))


NOISE = 0.4
"""How far a play-out seat strays from the rule: its bidding limit is scaled by 1 +- this, and it
sells a house at random this share of the time, so that no seat's move is taken as certain."""


def _sale_rule(hand: list[int], top: int, rest: list[int], rng: random.Random) -> int:
    ordered = sorted(hand)
    if rng.random() < NOISE:
        return ordered[int(rng.random() * len(ordered))]
    quantile = bisect_left(rest, top) / max(1, len(rest) - 1)
    return ordered[min(len(ordered) - 1, round(quantile * (len(ordered) - 1)))]


def _play_out(state: Any, rng: random.Random) -> Any:
    """Finish ``state`` in place by a fast rule every seat follows, with some noise.

    Auctions: raise by one while the raise stays below the gap between what
    the top house and the lowest house left on the table will sell for (the
    expert's rule, on the values of :func:`_house_values`); pass otherwise.
    Sales: play the house whose rank in one's hand matches the rank of this
    round's best cheque among the cheques still to come (keep the best
    houses for the richest rounds). Thousands of these per second are what
    let a whole game be analysed in a worker process.
    """
    values = _house_values(state)
    limits = [1.0 + NOISE * (2 * rng.random() - 1) for _ in range(state.n)]
    while state.phase == "auction":
        seat = state.turn
        table = state.table
        lowest = table[len(table) - state.n_active]  # the houses below it are taken
        gap = values[table[-1]] - values[lowest]
        if state.coins[seat] > state.high and state.high + 1 <= gap * limits[seat]:
            state.push(seat, bid(state.high + 1))
        else:
            state.push(seat, PASS)
    n = state.n
    cheques = state.deal.cheques
    while state.phase == "sale":
        top = state.table[-1]
        rest = sorted(cheques[state.round * n :])
        if state.n_commits:  # a round under way: the seats yet to choose choose
            for seat in state.seats_to_act():
                state.push(seat, SELLS[_sale_rule(state.hands[seat], top, rest, rng)])
        else:
            state.push_sale([_sale_rule(hand, top, rest, rng) for hand in state.hands])
    return state


def action_chances(v: View, rng: random.Random, samples: int) -> list[tuple[Action, float]]:
    """Each legal action of ``v.seat`` with its chance of winning, from the view only."""
    seat = v.seat
    if seat is None:
        raise ValueError("a spectator has no decision to value")
    legal = v.legal_actions()
    totals = [0.0] * len(legal)
    for _ in range(samples):
        base = sample_state(v, rng)
        seed = rng.getrandbits(64)
        for i, action in enumerate(legal):
            state = base.clone()
            state.push(seat, action)
            totals[i] += _share(_play_out(state, random.Random(seed)), seat)
    return [(a, t / samples) for a, t in zip(legal, totals)]


def position_chances(v: View, rng: random.Random, samples: int) -> list[float]:
    """Each seat's chance of winning from ``v`` (a seat's view or the public one)."""
    n = v.players
    if v.is_over:
        return [_share_of(v.winners(), s) for s in range(n)]
    totals = [0.0] * n
    for _ in range(samples):
        state = _play_out(sample_state(v, rng), random.Random(rng.getrandbits(64)))
        for s in range(n):
            totals[s] += _share(state, s)
    return [t / samples for t in totals]


def _share_of(winners: Sequence[int], seat: int) -> float:
    return 1.0 / len(winners) if seat in winners else 0.0


# -- the analysis ----------------------------------------------------------------


def _rng(seed: int, *where: object) -> random.Random:
    """A generator for one evaluation, so each result depends only on the seed and where it is."""
    return random.Random(":".join(str(x) for x in (seed, *where)))


def _decisions_of(state: Any, move: tuple[Any, Any], seats: Sequence[int]) -> list[tuple[int, Action]]:
    """The decisions of ``seats`` in ``move`` (as :attr:`State.moves` holds it) that were real choices."""
    seat, action = move
    if seat is None:  # a sale round: one house per seat
        return [(s, SELLS[h]) for s, h in enumerate(action) if s in seats and len(state.hands[s]) > 1]
    return [(seat, action)] if seat in seats and state.can_raise(seat) else []


def _push(state: Any, move: tuple[Any, Any]) -> None:
    """Apply one move as :attr:`forsale.state.State.moves` holds it (a sale round: ``(None, houses)``)."""
    seat, action = move
    if seat is None:
        state.push_sale(list(action))
    else:
        state.push(seat, action)


def _as_record(game: Any) -> dict[str, Any]:
    if not isinstance(game, dict) and hasattr(game, "deal") and hasattr(game, "moves"):  # a State
        return to_record(game)
    if not isinstance(game, dict):
        raise RecordError("a record must be a JSON object")
    return game


def analyse(
    game: Any,
    seat: int | Sequence[int] | None = None,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    chart: bool = True,
) -> Analysis:
    """Analyse a game: a ``forsale-record/1`` record (a dict) or a :class:`State` with its history.

    ``seat``: the seat (or seats) whose decisions are valued; ``None``, every
    seat. ``budget``: sampled deals per evaluation. The record is refereed
    first (:class:`forsale.errors.RecordError` with the referee's message if
    it is malformed or illegal); an unfinished game is analysed up to where
    it stands. ``progress(done, total)`` is called after each evaluation.
    ``chart=False`` leaves the chart out (``chances`` is empty): the server
    values each seat's decisions and the chart as separate jobs.
    """
    if type(budget) is not int or budget < 1:
        raise ValueError(f"budget must be a whole number of sampled deals, at least 1, not {budget!r}")
    record = _as_record(game)
    final = from_record(record)  # the referee: raises RecordError on anything illegal
    n = final.n
    seats = tuple(range(n)) if seat is None else (seat,) if isinstance(seat, int) else tuple(seat)
    for s in seats:
        if type(s) is not int or not 0 <= s < n:
            raise ValueError(f"seat must be from 0 to {n - 1}, not {s!r}")
    moves = final.moves
    state = from_record({**record, "moves": []})  # the deal, refereed
    work: list[tuple[int, list[tuple[int, Action]]]] = []
    replay = state.clone()
    for index, move in enumerate(moves):
        work.append((index, _decisions_of(replay, move, seats)))
        _push(replay, move)
    total = (len(moves) + 1 if chart else 0) + sum(len(d) for _, d in work)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    chances: list[tuple[float, ...]] = []

    def point(k: int) -> None:
        if chart:
            chances.append(tuple(position_chances(spectator_view(state), _rng(seed, "chart", k), budget)))
            tick()

    point(0)
    decisions: list[Decision] = []
    for index, found in work:
        move = moves[index]
        for s, action in found:
            values = action_chances(view(state, s), _rng(seed, "move", index, s), budget)
            decisions.append(Decision(index, s, state.phase, state.round, tuple(values), action))
            tick()
        _push(state, move)
        point(index + 1)
    return Analysis(
        players=tuple(record["players"]),
        seats=seats,
        budget=budget,
        seed=seed,
        complete=state.is_over,
        chances=tuple(chances),
        decisions=tuple(decisions),
    )


# -- hints during play -----------------------------------------------------------


def hint(v: View, rng: random.Random, budget: int = HINT_BUDGET) -> dict[str, Any]:
    """What the bot would do from ``v`` and why, in one line (and as data for a translated page).

    The reason is the comparison the bot made: the chance of winning with
    its move against the best other move.
    """
    values = action_chances(v, rng, budget)
    if not values:
        raise ValueError("there is no decision to make now")
    ranked = sorted(values, key=lambda pair: -pair[1])
    best, chance = ranked[0]
    out: dict[str, Any] = {"action": action_to_json(best), "chance": chance}
    if len(ranked) == 1:
        out["line"] = f"{best}: it is the only move"
        return out
    other, other_chance = ranked[1]
    out.update(alternative=action_to_json(other), alternative_chance=other_chance)
    out["line"] = (
        f"{best}: about {chance:.0%} to win, against {other_chance:.0%} for {other}"
    )
    return out


__all__ = [
    "DEFAULT_BUDGET",
    "HINT_BUDGET",
    "Analysis",
    "Decision",
    "action_chances",
    "analyse",
    "hint",
    "position_chances",
]
