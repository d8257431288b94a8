"""Tournaments: who sits where, one game at a time, in processes or on Ray.

Game ``i`` of a tournament plays deal ``i // n`` with the lineup rotated by
``i % n`` seats, so in every block of ``n`` games each bot plays the same deal
from every seat (duplicate deals): the luck of the cards and of the seat
cancels out. Rotation alone keeps each bot's neighbours, though, and in For
Sale who bids just before and after you matters (at one 6-player table,
swapping two bots' chairs moved a bot from 25% of the wins to 62%), so by
default (``seating="shuffle"``) every deal first seats the bots round the
table in an order of its own, drawn from the seed, then rotates that order:
every bot still plays every deal from every seat, and over the deals it
meets every neighbour. ``seating="rotate"`` rotates the lineup as given
(tournaments before this option, to reproduce them). Deals and each seat's random generator are derived from the
tournament seed and the game index only, so a tournament is reproducible
from its seed whatever the number of jobs or the backend (for bots whose
moves do not depend on the clock: search bots spend a wall-clock budget).
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..actions import Action
from ..bots import make_agent
from ..bots.protocol import Agent
from ..errors import IllegalActionError
from ..record import to_record
from ..rules import Ruleset, win_shares
from ..state import Deal, State
from ..view import view
from .ratings import placings


@dataclass
class GameResult:
    """One finished game: per-seat bots, scores, coins, win shares and thinking time."""

    index: int
    bots: list[str]
    scores: list[int]
    coins: list[int]
    shares: list[float]
    decision_s: list[float]
    decisions: list[int]
    record: dict[str, Any] | None = field(default=None, repr=False)

    def ranks(self) -> list[int]:
        """1 for the winner(s), then by (score, coins) descending (:func:`~forsale.arena.ratings.placings`)."""
        return placings(self.scores, self.coins)


SEATINGS = ("rotate", "shuffle")
"""How a tournament seats its bots: the lineup rotated as it is, or each deal's own order rotated."""


def lineup_for(bots: Sequence[str], index: int, seed: int = 0, seating: str = "shuffle") -> list[str]:
    """The bot at each seat in game ``index``: the lineup rotated by ``index % n`` seats
    (``seating="shuffle"``: the order of deal ``index // n``, drawn from ``seed``, rotated)."""
    if seating not in SEATINGS:
        raise ValueError(f"seating must be one of {', '.join(SEATINGS)}, not {seating!r}")
    n = len(bots)
    order = list(bots)
    if seating == "shuffle":
        random.Random(f"forsale-arena-seating:{seed}:{index // n}").shuffle(order)
    r = index % n
    return [order[(seat - r) % n] for seat in range(n)]


def deal_for(rules: Ruleset, seed: int, index: int) -> Deal:
    """The deal of game ``index``: one per block of ``n`` games, derived from the seed only."""
    return Deal.random(rules, random.Random(f"forsale-arena-deal:{seed}:{index // rules.players}"))


def play_game(
    bots: Sequence[str],
    seed: int,
    index: int,
    rules: Ruleset | str | dict[str, Any] | None = None,
    *,
    record: bool = False,
    seating: str = "shuffle",
) -> GameResult:
    """Play game ``index`` of the tournament ``(bots, seed, rules, seating)`` and return its result.

    Every agent sees only ``view(state, seat)``. An illegal move stops the
    game with an :class:`IllegalActionError` that names the bot.
    """
    n = len(bots)
    ruleset = rules if isinstance(rules, Ruleset) else Ruleset.parse(rules, n)
    lineup = lineup_for(bots, index, seed, seating)
    agents: list[Agent] = [make_agent(spec) for spec in lineup]
    rngs = [random.Random(f"forsale-arena-seat:{seed}:{index}:{seat}") for seat in range(n)]
    state = State(ruleset, deal_for(ruleset, seed, index))
    spent = [0.0] * n
    decisions = [0] * n
    clock = time.perf_counter
    while not state.is_over:
        for seat in state.seats_to_act():
            seen = view(state, seat)
            start = clock()
            action: Action = agents[seat].act(seen, rngs[seat], None)
            spent[seat] += clock() - start
            decisions[seat] += 1
            try:
                state.push(seat, action)
            except IllegalActionError as error:
                raise IllegalActionError(f"bot {lineup[seat]!r} at seat {seat} played {action}: {error}") from None
    shares = win_shares(state.scores(), state.coins)
    return GameResult(
        index=index,
        bots=lineup,
        scores=state.scores(),
        coins=list(state.coins),
        shares=shares,
        decision_s=spent,
        decisions=decisions,
        record=to_record(state, players=lineup, tournament={"seed": seed, "game": index}) if record else None,
    )


def _play_packed(args: tuple[Sequence[str], int, int, Any, bool, str, tuple[str, ...]]) -> GameResult:
    bots, seed, index, rules, record, seating, bot_modules = args
    for module in bot_modules:  # a worker process registers the caller's extra bots before building any
        importlib.import_module(module)
    return play_game(bots, seed, index, rules, record=record, seating=seating)


def run_tournament(
    bots: Sequence[str],
    games: int,
    seed: int = 0,
    *,
    rules: Ruleset | str | dict[str, Any] | None = None,
    jobs: int = 1,
    backend: str = "local",
    records: bool = False,
    on_result: Callable[[GameResult], None] | None = None,
    seating: str = "shuffle",
    bot_modules: Sequence[str] = (),
) -> list[GameResult]:
    """Play ``games`` games of the lineup ``bots`` (one spec per seat); results in game order.

    ``bot_modules``: modules that register more bots (``harness.population``, the bench's measurement
    population), imported here and in every process that plays games, before any bot is built.

    ``seating``: ``"shuffle"`` (each deal's own order, rotated: the fair comparison of distinct
    bots, see the module docstring) or ``"rotate"`` (the lineup as given, as before).

    ``jobs`` > 1 plays games in that many processes; ``backend="ray"`` sends
    them to Ray (a local instance with ``jobs`` CPUs unless one is already
    initialised). ``on_result`` is called as each game finishes (for a
    progress bar), in completion order.
    """
    if not 2 <= len(bots) <= 6:
        raise ValueError(f"a table has 2 to 6 bots, not {len(bots)}")
    if games < 1:
        raise ValueError(f"a tournament needs at least 1 game, not {games}")
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, not {jobs}")
    lineup_for(bots, 0, seed, seating)  # an unknown seating fails here, before any game
    modules = tuple(bot_modules)
    for module in modules:  # an unknown module fails here, before any game
        importlib.import_module(module)
    for spec in dict.fromkeys(bots):
        make_agent(spec)  # unknown names and bad options fail here, before any game
    ruleset = rules if isinstance(rules, Ruleset) else Ruleset.parse(rules, len(bots))
    tasks = [(list(bots), seed, i, ruleset, records, seating, modules) for i in range(games)]
    if backend == "ray":
        from .ray_backend import run_on_ray

        stream: Iterator[GameResult] = run_on_ray(tasks, jobs)
    elif backend == "local":
        stream = _run_local(tasks, jobs)
    else:
        raise ValueError(f"unknown backend {backend!r}; known backends: local, ray")
    results: list[GameResult] = []
    for result in stream:
        results.append(result)
        if on_result is not None:
            on_result(result)
    results.sort(key=lambda r: r.index)
    return results


def _run_local(tasks: list[tuple[Any, ...]], jobs: int) -> Iterator[GameResult]:
    if jobs == 1 or len(tasks) == 1:
        for task in tasks:
            yield _play_packed(task)
        return
    import multiprocessing

    # spawn: no fork of a process that may hold threads (rich's progress bar, Ray).
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap_unordered(_play_packed, tasks, chunksize=max(1, min(8, len(tasks) // (jobs * 8))))
