"""When the server acts for a seat: move clocks, the grace period of an absent person, and bot turns.

Nothing here changes a game by itself: a clock that runs out, an absence
longer than the grace period and a bot's decision all end in
:meth:`LiveTable.act <forsale.server.table.live.LiveTable.act>`, the same path a
person's action takes. :class:`Scheduler` only decides when, and what the
clock plays (:func:`safe_action`). It is re-armed after every change to its
table (an action, a seat taken or left, a connection made or lost).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ...actions import PASS, Action
from ...state import State
from ...view import View
from ..errors import Refused
from ..ops.badinput import BadInputLog
from ..ops.botrunner import BotFailed, BotOverran, BotRunner, Share
from ..people.turnmail import TurnNotices
from .seats import Seat

log = logging.getLogger("forsale.server")


class BotsAndMail(Protocol):
    """What the scheduler asks of the table's lobby: a bot worker's decision, a "your turn" email."""

    @property
    def runner(self) -> BotRunner: ...
    @property
    def turns(self) -> TurnNotices: ...
    def share_of(self, table: Any) -> Share: ...


class Timing(Protocol):
    @property
    def grace(self) -> float: ...
    @property
    def bot_budget(self) -> float | None: ...


class Views(Protocol):
    def view_of(self, seat: int | None) -> View: ...


class ScheduledTable(Protocol):
    """What the scheduler reads of its table (:class:`forsale.server.table.live.LiveTable` is one), and the one
    way it changes the game: :meth:`act`, as a person's move does."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    @property
    def state(self) -> State: ...
    @property
    def seats(self) -> Sequence[Seat]: ...
    @property
    def time_limit(self) -> float | None: ...
    @property
    def turn_limit(self) -> float | None: ...
    @property
    def turn_began(self) -> float | None: ...
    @property
    def bot_delay(self) -> float: ...
    @property
    def lobby(self) -> BotsAndMail: ...
    @property
    def options(self) -> Timing: ...
    @property
    def snapshots(self) -> Views: ...
    async def act(self, index: int, action: Action, source: str) -> int: ...


_DRAW = random.SystemRandom()
"""The clock's sale choices come from the OS's secret source, as deals do: nobody can predict them."""
BOT_FAILURES = BadInputLog(log, what="bot failure", level=logging.ERROR)

OUTAGE_PAUSE = 1.0
"""Seconds a clock or bot move waits before trying again while the database is out of reach."""
"""A few lines a minute per bot spec, the worker's whole traceback at debug level."""


def safe_action(v: View) -> Action:
    """What the clock plays for an absent seat: pass in an auction, a house drawn at random in a sale.

    Not the lowest house, nor any other rule of the hand: hands are public, and everyone can see
    that a seat is away or that its clock ran out (``connected``, ``clock.deadlines``), so a fixed
    choice would tell the others that seat's house before the reveal. A random draw from the hand
    tells them nothing they did not know (issue 36).
    """
    legal = v.legal_actions()
    if v.phase == "auction":
        return PASS
    return _DRAW.choice(legal)


class Scheduler:
    """One table's deadlines, its timer and its bots' pending decisions."""

    def __init__(self, table: ScheduledTable) -> None:
        self.table = table
        self.deadlines: dict[int, float] = {}
        self._turn_key: tuple[Any, ...] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._thinking: set[int] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._noticed: set[int] = set()  # seats of this turn told (or, after a restart, taken as told) it is theirs
        self._notice_timer: asyncio.TimerHandle | None = None

    def to_act(self) -> tuple[int, ...]:
        table = self.table
        return table.state.seats_to_act() if table.status == "playing" else ()

    def _effective_deadlines(self) -> dict[int, float]:
        """Seat -> monotonic time at which the server acts for it (move clock or absence).

        At a table with a long clock (``turn_limit``) absence never acts: people close the
        page and come back when they are told it is their turn (:mod:`forsale.server.people.turnmail`).
        """
        grace = self.table.options.grace
        absence_counts = not self.table.turn_limit
        out: dict[int, float] = {}
        for s in self.to_act():
            seat = self.table.seats[s]
            if seat.kind != "human":
                continue
            when = self.deadlines.get(s)
            if absence_counts and seat.away_since is not None:
                away = seat.away_since + grace
                when = away if when is None else min(when, away)
            if when is not None:
                out[s] = when
        return out

    def clock(self) -> dict[str, Any]:
        """Each seat's deadline (epoch milliseconds), when a clock or an absence will act for it."""
        now_wall, now_mono = time.time(), time.monotonic()
        out: dict[str, int] = {}
        for s, when in self._effective_deadlines().items():
            out[str(s)] = int((now_wall + (when - now_mono)) * 1000)
        return {
            "time_limit": self.table.time_limit,
            "turn_limit": self.table.turn_limit,
            "grace": self.table.options.grace,
            "deadlines": out,
            "now": int(now_wall * 1000),
        }

    def schedule(self) -> None:
        """After any change: reset move clocks for a new turn, arm the timer, wake the bots."""
        table = self.table
        if table.closed or table.status != "playing":
            return
        state = table.state
        to_act = self.to_act()
        key = ("auction", len(state.moves)) if state.phase == "auction" else ("sale", state.round)
        now = time.monotonic()
        if key != self._turn_key:
            began = now
            if self._turn_key is None and table.turn_began is not None and table.turn_limit:
                began = now - max(0.0, time.time() - table.turn_began)  # resumed: the long clock ran on meanwhile
            self._turn_key = key
            limit = table.time_limit or table.turn_limit
            self.deadlines = {s: began + limit for s in to_act} if limit else {}
            self._noticed = set() if began == now else set(to_act)  # a resumed turn's notices went out before
        else:
            self.deadlines = {s: t for s, t in self.deadlines.items() if s in to_act}
        self.cancel_timer()
        if table.turn_limit:
            self._notify_absent(to_act, now)
        due = self._effective_deadlines()
        if due:
            delay = max(0.0, min(due.values()) - now)
            self._timer = asyncio.get_running_loop().call_later(delay, self._spawn, self._on_clock)
        for s in to_act:
            if table.seats[s].kind == "bot" and s not in self._thinking:
                self._thinking.add(s)
                self._spawn(functools.partial(self._bot_move, s))

    def _notify_absent(self, to_act: tuple[int, ...], now: float) -> None:
        """At a table over days: tell each seat of this turn that has been away for the grace period, once a turn.

        Someone who closed the page yesterday is told as the turn begins; someone who closes it
        during their turn is told once the grace period has passed (a reload is not an absence).
        """
        table, grace = self.table, self.table.options.grace
        told: list[int] = []
        later: list[float] = []
        for s in to_act:
            seat = table.seats[s]
            if s in self._noticed or seat.kind != "human" or seat.conns or seat.away_since is None:
                continue
            if seat.away_since + grace <= now:
                told.append(s)
            else:
                later.append(seat.away_since + grace)
        if told:
            self._noticed.update(told)
            table.lobby.turns.turn(table, tuple(told), self.deadlines)
        if self._notice_timer is not None:
            self._notice_timer.cancel()
            self._notice_timer = None
        if later:
            self._notice_timer = asyncio.get_running_loop().call_later(max(0.0, min(later) - now), self.schedule)

    def _spawn(self, factory: Callable[[], Any]) -> None:
        task = asyncio.get_running_loop().create_task(factory())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def close(self) -> None:
        """Stop the timer and every pending clock or bot task (the table is closing)."""
        self.cancel_timer()
        if self._notice_timer is not None:
            self._notice_timer.cancel()
        for task in list(self._tasks):
            task.cancel()

    async def _on_clock(self) -> None:
        """Play the safe action for every seat whose clock (or absence) has run out."""
        table = self.table
        now = time.monotonic()
        for s, when in sorted(self._effective_deadlines().items()):
            # Still to act? Another clock task (a timer re-armed while this one awaited a write) may have
            # played this seat meanwhile: in a sale round it then has no legal choice left to draw from.
            if when <= now + 0.001 and s in self.to_act():
                seat = table.seats[s]
                away_since = None if table.turn_limit else seat.away_since
                source = "away" if away_since is not None and away_since + table.options.grace <= now else "clock"
                try:
                    await table.act(s, safe_action(table.snapshots.view_of(s)), source)
                except Refused as refused:
                    if refused.code == "unavailable":  # the database is out of reach: try again in a moment,
                        await asyncio.sleep(OUTAGE_PAUSE)  # not at once (the deadline has passed: no timer waits)
                        break
        self.schedule()

    async def _bot_move(self, s: int) -> None:
        table = self.table
        try:
            if table.bot_delay:
                await asyncio.sleep(table.bot_delay)
            seat = table.seats[s]
            if table.closed or s not in self.to_act() or seat.bot is None:
                return
            v = table.snapshots.view_of(s)
            source = "bot"
            try:
                lobby = table.lobby
                action = await lobby.runner.act(
                    seat.bot, v, secrets.randbits(64), table.options.bot_budget, table.id, lobby.share_of(table)
                )
            except BotOverran as overran:  # the clock's move, as for a person who ran out of time
                log.warning("bot %s at table %s seat %d %s; playing the safe action", seat.bot, table.id, s, overran)
                action, source = safe_action(v), "clock"
            except BotFailed as failed:  # the worker's traceback: its last line says what
                last = str(failed).strip().splitlines()[-1:] or ["?"]
                BOT_FAILURES.note(seat.bot, f"table {table.id} seat {s}, playing the safe action: {last[0]}")
                log.debug("bot %s at table %s seat %d: %s", seat.bot, table.id, s, failed)
                action = safe_action(v)
            except Exception:
                log.exception("bot %s at table %s seat %d failed; playing the safe action", seat.bot, table.id, s)
                action = safe_action(v)
            if table.closed:
                return
            try:
                await table.act(s, action, source)
            except Refused as refused:
                if refused.code == "unavailable":
                    raise  # not the bot's fault: no safe action either, the database is out of reach
                if s in self.to_act():
                    log.warning(
                        "bot %s at table %s seat %d: %s; playing the safe action", seat.bot, table.id, s, refused
                    )
                    await table.act(s, safe_action(table.snapshots.view_of(s)), "bot")
        except Refused as refused:
            if refused.code == "unavailable":  # logged once per outage (forsale.server.store.outage)
                await asyncio.sleep(OUTAGE_PAUSE)  # then the move is tried again, not at once
        except Exception:
            log.exception("bot move failed at table %s seat %d", table.id, s)
        finally:
            self._thinking.discard(s)
            if not table.closed and s in self.to_act() and table.seats[s].kind == "bot":
                self.schedule()
