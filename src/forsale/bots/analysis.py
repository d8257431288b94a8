"""Post-game analysis: what each decision of a game did to a seat's chance of winning, as ``hard`` sees it.

For every decision of a seat (an auction turn with a choice, or a sale
round with more than one house in hand) :func:`analyse` asks the strongest
bot's estimator, :func:`forsale.bots.estimates.action_values`, for the chance
of winning that each legal action gives, **from that seat's view only**
(:func:`forsale.view.view` at the moment it decided, never the true state:
the undealt order and, in a sale round, the others' choices stay unknown),
and compares the move made with the best one. The *loss* of a decision is
how much win chance the move gave up against the best action; the
costliest decisions are the ones a player can learn from. For the chart,
every position of the game (after each move) is valued by
:func:`forsale.bots.estimates.win_chances` from the public view, which at
these positions holds everything any seat knows (every hand is known by
deduction, and a sale round's choices are recorded only once all are
made), so the seats' chances are comparable and sum to one.

``budget`` is the estimator's ``samples=`` (sampled deals per auction
evaluation, a twentieth of the regret-matching iterations of a sale
round), never a time: the same record, budget and seed give the same
analysis on any machine, whichever seats are analysed, because each
evaluation draws from its own generator seeded by the seed and where it
is in the game.

:func:`hint` is "what would ``hard`` do here, and why": the move is the one
``hard`` (built through the registry, with the hint's samples) plays from
the view with the hint's generator, and the reason is a code with the
numbers behind it (the win chance of that move against the next best),
which the web page words in the player's language.

Nothing here needs more than the engine and the bots: the server runs it
in its bot worker processes, ``forsale analyse`` in a terminal.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..actions import PASS, SELLS, Action, Sell, action_to_json
from ..errors import RecordError
from ..record import from_record, to_record
from ..view import View, spectator_view, view
from .estimates import action_values, win_chances
from .registry import make_agent

DEFAULT_BUDGET = 32
"""Samples per evaluation: every seat of a 4-player game in about 15 s of one core (docs/analysis.md)."""

HINT_BUDGET = 32
"""Samples for a hint during play (``hard``'s move, then every action valued): well under a second."""

CLOSE_SPREAD = 6
"""A pass is explained by the table when its houses are at most this far apart (the advice: pass quickly
when the houses on the table are close in value, since the cheapest one is as good and costs nothing)."""


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
    seat. ``budget``: samples per evaluation (the estimator's ``samples=``). The record is refereed
    first (:class:`forsale.errors.RecordError` with the referee's message if
    it is malformed or illegal); an unfinished game is analysed up to where
    it stands. ``progress(done, total)`` is called after each evaluation.
    ``chart=False`` leaves the chart out (``chances`` is empty): the server
    values each seat's decisions and the chart as separate jobs.
    """
    if type(budget) is not int or budget < 1:
        raise ValueError(f"budget must be a whole number of samples, at least 1, not {budget!r}")
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
            chances.append(tuple(win_chances(spectator_view(state), _rng(seed, "chart", k), samples=budget)))
            tick()

    point(0)
    decisions: list[Decision] = []
    for index, found in work:
        move = moves[index]
        for s, action in found:
            values = action_values(view(state, s), _rng(seed, "move", index, s), samples=budget)
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
    """What ``hard`` would do from ``v`` and why: its move, a reason code with the numbers, and one English line.

    The move is ``make_agent(f"hard:samples={budget}").act(v, ...)``, exactly
    what ``hard`` plays from this view with this generator when it takes the
    seat now (a ``hard`` that played the whole game has also learnt, from the
    sales it saw, which opponents sell like search bots or like ``expert``:
    :mod:`forsale.bots.searchers`). Then every legal
    action is valued (:func:`forsale.bots.estimates.action_values`, same
    samples) and the move's win chance is set against the best other
    action's. ``reason`` is one of:

    - ``only``: the only legal move;
    - ``pass_close``: a pass while the houses on the table (``low`` to
      ``high``) are close in value, so the cheapest is as good;
    - ``better``: the move has the highest win chance of them all;
    - ``mixed``: a sale where ``hard`` plays a house other than the one that
      looks best, on purpose (it mixes its sales so they cannot be read);
    - ``close``: an auction move within the estimate's noise of a better-looking one.

    Raises ``ValueError`` when ``v``'s seat has nothing to decide.
    """
    if v.seat is None or not v.legal_actions():
        raise ValueError("there is no decision to make now")
    seed = rng.getrandbits(64)
    move = make_agent(f"hard:samples={budget}").act(v, random.Random(seed), None)
    values = dict(action_values(v, random.Random(seed), samples=budget))
    chance = values[move]
    out: dict[str, Any] = {"action": action_to_json(move), "chance": chance}
    others = [(a, c) for a, c in values.items() if a != move]
    if not others:
        out["reason"] = "only"
        out["line"] = f"{move}: it is the only move"
        return out
    other, other_chance = max(others, key=lambda pair: pair[1])
    out.update(alternative=action_to_json(other), alternative_chance=other_chance)
    numbers = f"about {chance:.0%} to win, against {other_chance:.0%} for {other}"
    spread = v.table[-1] - v.table[0] if v.phase == "auction" else None
    if move == PASS and spread is not None and spread <= CLOSE_SPREAD:
        out.update(reason="pass_close", low=v.table[0], high=v.table[-1])
        out["line"] = f"pass: the houses on the table ({v.table[0]} to {v.table[-1]}) are close in value ({numbers})"
    elif chance >= other_chance:
        out["reason"] = "better"
        out["line"] = f"{move}: {numbers}"
    elif isinstance(move, Sell):
        out["reason"] = "mixed"
        out["line"] = f"{move}: hard varies its sales so that they cannot be read ({numbers})"
    else:
        out["reason"] = "close"
        out["line"] = f"{move}: as good as any within the estimate's noise ({numbers})"
    return out


__all__ = [
    "CLOSE_SPREAD",
    "DEFAULT_BUDGET",
    "HINT_BUDGET",
    "Analysis",
    "Decision",
    "analyse",
    "hint",
]
