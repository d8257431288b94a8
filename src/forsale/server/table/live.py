"""A live table: one game in memory, its seats and connections, and the one path every action takes.

An action - from a person, a bot, or a clock running out - goes through
:meth:`LiveTable.act`, under the table's lock:

1. it is checked against the acting seat's **view** (never the state), so the
   error a client gets says only what that seat may know;
2. its event is appended to the database and committed;
3. only then is the state advanced, the actor acknowledged, and every
   connection sent its own snapshot (:mod:`forsale.server.table.snapshots`), built
   from ``view(state, seat)`` (or the spectator view).

Taking, leaving and watching a seat change the table under the same lock.
When the server acts for a seat is :mod:`forsale.server.table.scheduling`'s
concern; the set of tables is :mod:`forsale.server.lobby.lobby`'s.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from ...actions import Action, Bid, Pass, Sell, action_from_json, action_to_json
from ...record import to_record
from ...rules import Ruleset
from ...state import Deal, State, play_moves
from ...view import View, spectator_view
from ..errors import Refused
from ..metrics import action as count_action
from ..names import joined_name, left_name, open_seat_name
from ..ops.botrunner import BotRunner, Share
from ..people.skill import rate_finished
from ..people.turnmail import TurnNotices
from ..store.database import Fence, LeaseLost, Op, Storage, StoredGame, fenced
from ..tokens import new_token
from .chat import ChatLog
from .config import CHANGEABLE, TableConfig
from .connections import Conn, dumps
from .scheduling import Scheduler
from .seats import (
    Seat,
    check_one_seat,
    free_seats_text,
    seat_for_token,
    token_matches,
)
from .snapshots import Snapshots

if TYPE_CHECKING:
    from .rematch import Offer


class TableOptions(Protocol):
    """The server's settings a table reads (the lobby's :class:`~forsale.server.lobby.lobby.Options`)."""

    @property
    def grace(self) -> float: ...
    @property
    def bot_delay(self) -> float: ...
    @property
    def bot_budget(self) -> float | None: ...
    @property
    def rematch_timeout(self) -> float: ...


class TableShares(Protocol):
    """Whose tables count against which client's limits (:class:`forsale.server.lobby.fairshare.Shares`)."""

    def starting(self, tables: dict[str, LiveTable], table: LiveTable) -> None: ...
    def left_to_bots(self, tables: dict[str, LiveTable], table: LiveTable) -> bool: ...
    def claim(
        self, tables: dict[str, LiveTable], owner: str, table_id: str, waiting: bool, bots: int, seats: int
    ) -> None: ...
    def creating(self, table_id: str) -> AbstractContextManager[None]: ...


class Host(Protocol):
    """What a table asks of whatever holds it: the lobby (:class:`forsale.server.lobby.lobby.Lobby`, or a
    cluster's node) implements it, and a test may give a stand-in. The table's floor does not import the
    lobby's: it is handed its storage, bot runner and mail through this port, as boardgame.io's ``Master``
    is handed its storage and transport."""

    @property
    def storage(self) -> Storage: ...
    @property
    def runner(self) -> BotRunner: ...
    @property
    def options(self) -> TableOptions: ...
    @property
    def turns(self) -> TurnNotices: ...
    @property
    def shares(self) -> TableShares: ...
    @property
    def tables(self) -> dict[str, LiveTable]: ...
    def share_of(self, table: LiveTable) -> Share: ...
    def fallback_bot(self) -> str: ...
    def fence_of(self, table_id: str) -> Fence | None: ...
    async def expire(self, table: LiveTable, bots_over_limit: bool = False) -> bool: ...
    def changed(self, table: LiveTable) -> None: ...
    def lost(self, table: LiveTable) -> None: ...
    def finished(self, table: LiveTable) -> None: ...
    def forget(self, table: LiveTable) -> None: ...
    async def add(self, game: StoredGame) -> LiveTable: ...


def turn_began(events: list[dict[str, Any]], state: State) -> float | None:
    """When (epoch seconds) the turn now being played began, from the event log; None at a game's start.

    An auction turn begins with the last event. A sale round begins with the event before its
    commits, so a long clock (:attr:`LiveTable.turn_limit`) resumes after a restart exactly where
    it was, instead of starting the turn over.
    """
    if not events or state.phase == "over":
        return None
    committed = state.n - len(state.seats_to_act()) if state.phase == "sale" else 0
    index = len(events) - committed - 1
    return events[index]["at"] if index >= 0 else None


def result_of(v: View) -> dict[str, Any]:
    """Scores and winners (:meth:`View.winners`) of a finished game, from its public view."""
    return {"scores": list(v.scores()), "coins": list(v.coins), "winners": v.winners()}


class LiveTable:
    """One table in memory: its game, seats and connections; its clock and bots are :attr:`scheduler`'s."""

    def __init__(self, stored: StoredGame, lobby: Host) -> None:
        self.id = stored.id
        self.name = stored.name
        self.lobby = lobby
        self.storage = lobby.storage
        self.options = lobby.options
        self.config = TableConfig.of(stored.config)  # read once, by attribute from here on
        self.created_at = stored.created_at
        self.finished_at = stored.finished_at
        self.creator_hash = stored.creator_hash
        self.status = stored.status
        rules = Ruleset.parse(self.config.rules, stored.players)
        d = stored.deal
        removed = d.get("removed")
        if removed is None and "removed_houses" in d:  # a row written before Deal.to_json held the removed cards flat
            removed = {"houses": d["removed_houses"], "cheques": d["removed_cheques"]}
        self.state = State(rules, Deal.from_json(d, rules, removed))
        for e in stored.events:
            self.state.push(e["seat"], action_from_json(e["action"]))
        self.seq = len(stored.events)
        self.turn_began = turn_began(stored.events, self.state)
        self.seats = [Seat(s.seat, s.kind, s.name, s.bot, s.token_hash, s.account_id) for s in stored.seats]
        self.spectators: set[Conn] = set()
        self.lock = asyncio.Lock()
        self.snapshots = Snapshots(self)
        self.scheduler = Scheduler(self)
        self.closed = False
        self.invite_hash = stored.invite_hash  # set: invitation-only (forsale.server.table.invites)
        self.chat = ChatLog(self)
        self.rematch: Offer | None = None  # after the game (forsale.server.table.rematch)
        self.fence = lobby.fence_of(self.id)  # on a cluster, the lease every write of this table needs
        self.owner = (
            f"table:{self.id}"  # the client it counts against (forsale.server.lobby.fairshare; set by its maker)
        )
        now = time.monotonic()
        for seat in self.seats:
            if seat.kind == "human":
                seat.away_since = now  # nobody is connected yet (a fresh start or a restart)

    # -- settings ------------------------------------------------------------
    @property
    def time_limit(self) -> float | None:
        return self.config.time_limit

    @property
    def turn_limit(self) -> float | None:
        """A long clock (seconds a move, an hour or more): absence never acts, only the clock does."""
        return self.config.turn_limit

    @property
    def memory_aid(self) -> bool:
        return self.config.memory_aid

    @property
    def bot_delay(self) -> float:
        """Seconds this table's bots wait before each move (its creator's choice, else the server's)."""
        return self.config.bots_wait(self.options.bot_delay)

    @property
    def private(self) -> bool:
        """Unlisted: left out of the lobby's listings (solo games, invitation-only tables)."""
        return self.config.private

    @property
    def invite_only(self) -> bool:
        """Private in full: seats, game, chat and record only for its players and holders of its invitation code."""
        return self.invite_hash is not None

    # -- what clients see ----------------------------------------------------
    def info(self) -> dict[str, Any]:
        """The table as the lobby shows it (no game secrets: rules, seats, settings, status)."""
        rules = self.state.rules
        return {
            "id": self.id,
            "name": self.name,
            "status": self.status,
            "players": self.state.n,
            "rules": rules.to_json(),
            "rules_text": rules.describe(),
            "seats": [s.public() for s in self.seats],
            "open_seats": [s.index for s in self.seats if s.kind == "open"],
            "time_limit": self.time_limit,
            "turn_limit": self.turn_limit,
            "grace": self.options.grace,
            "memory_aid": self.memory_aid,
            "hints": self.config.hints_shown,  # never at a rated table
            "private": self.private,
            "invite_only": self.invite_only,
            "spectator_chat": self.config.spectator_chat,
            "rated": self.config.rated,
            "spectators": len(self.spectators),
            "created_at": self.created_at,
            "seq": self.seq,
            **({} if self.config.bot_delay is None else {"bot_delay": self.config.bot_delay}),
        }

    def result(self) -> dict[str, Any] | None:
        if not self.state.is_over:
            return None
        return {**result_of(self.snapshots.view_of(None)), "record": f"/api/tables/{self.id}/record"}

    def snapshot(self, kind: str, seat: int | None) -> str:
        """One seat's (or a spectator's) snapshot as JSON text (see :meth:`Snapshots.snapshot`)."""
        return self.snapshots.snapshot(kind, seat)

    def connections(self) -> list[Conn]:
        return [c for s in self.seats for c in s.conns] + list(self.spectators)

    # -- seats -----------------------------------------------------------------
    def seat_for_token(self, token: str) -> int | None:
        return seat_for_token(self.seats, token)

    def is_creator(self, token: str) -> bool:
        return token_matches(self.creator_hash, token)

    async def join(self, index: int | None, name: str | None, account_id: str | None = None) -> tuple[int, str]:
        """Take a free seat (the lowest if ``index`` is None); returns ``(seat, token)``.

        ``account_id``: the signed-in account taking it, linked under the same lock, so two joins at once
        cannot both seat one account twice at a rated table (:func:`~forsale.server.table.seats.check_one_seat`).
        """
        async with self.lock:
            if self.status == "over":
                raise Refused("game_over", "the game is over; there is no seat to take", 409)
            check_one_seat(self, None, account_id)
            if index is None:
                free = [s.index for s in self.seats if s.kind == "open"]
                if not free:
                    raise Refused("table_full", "every seat at this table is taken; you can watch instead", 409)
                index = free[0]
            if not 0 <= index < len(self.seats):
                raise Refused("no_such_seat", f"this table has seats 0 to {len(self.seats) - 1}", 404)
            seat = self.seats[index]
            if seat.kind != "open":
                raise Refused(
                    "seat_taken", f"seat {index + 1} is taken; free seats: {free_seats_text(self.seats)}", 409
                )
            if self.status == "waiting" and sum(s.kind == "open" for s in self.seats) == 1:
                self.lobby.shares.starting(self.lobby.tables, self)  # the game starts: the owner's games limit
            token, token_hash = new_token()
            seat.kind, seat.name, seat.token_hash = "human", name or joined_name(index), token_hash
            seat.account_id = account_id
            seat.away_since = time.monotonic()
            starts = self.status == "waiting" and all(s.kind != "open" for s in self.seats)
            await self.write(Storage.op_update_seat(self.id, seat.stored(), "playing" if starts else None))
            if starts:
                self.status = "playing"
            self.snapshots.broadcast_info()
            if starts:
                self._changed({"kind": "start"})
            return index, token

    async def leave(self, index: int) -> None:
        """Give a seat up: before the game it becomes free again; during it, a bot plays it."""
        async with self.lock:
            seat = self.seats[index]
            if seat.kind != "human":
                return
            if self.status == "over":
                raise Refused("game_over", "the game is over; there is nothing to leave", 409)
            before = (seat.kind, seat.name, seat.bot, seat.token_hash, seat.account_id)
            if self.status == "waiting":
                seat.kind, seat.name, seat.token_hash = "open", open_seat_name(index), None
                seat.account_id = None  # a free seat is nobody's (after the game starts, the history keeps it)
            else:
                seat.kind, seat.bot, seat.token_hash = "bot", self.lobby.fallback_bot(), None
                seat.name = left_name(seat.name)
            try:
                await self.write(Storage.op_update_seat(self.id, seat.stored()))
            except BaseException:  # not stored (the database unavailable, the table moved): the seat stays theirs
                seat.kind, seat.name, seat.bot, seat.token_hash, seat.account_id = before
                raise
            self.unseat_connections(index)
            seat.away_since = None
            self.snapshots.broadcast_info()
            self.scheduler.schedule()
            ends = self.status == "playing" and self.lobby.shares.left_to_bots(self.lobby.tables, self)
        if (
            ends
        ):  # bots only now, past its owner's limit: a casual game nobody plays ends (forsale.server.lobby.fairshare)
            await self.lobby.expire(self, bots_over_limit=True)

    def unseat_connections(self, index: int, notice: dict[str, Any] | None = None) -> None:
        """Make the seat's open connections spectators (sent ``notice`` first): it is no longer theirs to play.

        Called with the lock held, once the seat changed hands: it was given up, or its token was replaced
        (``resume`` from another device), so a connection opened with the old token cannot go on acting.
        """
        seat = self.seats[index]
        for conn in list(seat.conns):
            if notice is not None:
                conn.send(notice)
            conn.seat = None
            self.spectators.add(conn)
        seat.conns.clear()

    async def set_options(self, **changes: Any) -> None:
        """Change some of the creator's settings (:data:`~forsale.server.table.config.CHANGEABLE`) at once:
        stored, then every connection is sent the table's new info (once, whatever changed)."""
        fixed = set(changes) - CHANGEABLE
        if fixed:
            raise ValueError(f"a table's {', '.join(sorted(fixed))} cannot change once it is made")
        async with self.lock:
            self.config = replace(self.config, **changes)
            await self.write(Storage.op_update_game(self.id, config=self.config.stored()))  # fenced: owner only
            self.snapshots.broadcast_info()

    def attach(self, conn: Conn, index: int | None) -> None:
        conn.table, conn.seat, conn.hello = self, index, True
        if index is None:
            self.spectators.add(conn)
        else:
            seat = self.seats[index]
            seat.conns.add(conn)
            seat.away_since = None
        conn.send(self.snapshot("welcome", index))
        self.snapshots.broadcast_info()
        self.scheduler.schedule()

    def detach(self, conn: Conn) -> None:
        if conn.table is not self:
            return
        conn.table = None
        if conn.seat is None:
            self.spectators.discard(conn)
        else:
            seat = self.seats[conn.seat]
            seat.conns.discard(conn)
            if not seat.conns and seat.kind == "human":
                seat.away_since = time.monotonic()
        if not self.closed:
            self.snapshots.broadcast_info()
            self.scheduler.schedule()
            if self.status == "over" and not self.connections():
                self.lobby.forget(self)

    async def write(self, op: Op[Any]) -> Any:
        """Commit one of this table's writes; on a cluster, only while this node holds the table's lease."""
        try:
            return await self.storage.run(fenced(self.id, self.fence, op))
        except LeaseLost:
            self.lobby.lost(self)  # another node owns the table now: this copy of it goes
            raise Refused("moved", "this table has moved to another server; connect again", 503) from None

    # -- acting ------------------------------------------------------------------
    async def act(self, index: int, action: Action, source: str, conn: Conn | None = None, msg_id: Any = None) -> int:
        """Check, persist, apply and announce one action (see the module docstring)."""
        async with self.lock:
            started = time.perf_counter()  # for forsale.server.metrics: the check, the commit, the state
            if self.status == "waiting":
                raise Refused(
                    "not_started",
                    f"the game starts when every seat is taken (free seats: {free_seats_text(self.seats)})",
                    params={"free": [s.index for s in self.seats if s.kind == "open"]},
                )
            if self.state.why_illegal(index, action) is not None:
                reason = self.snapshots.view_of(index).why_illegal(action)  # worded from what this seat may know
                assert reason is not None  # a view's rules are the state's (tests/engine/test_legality.py)
                raise Refused(reason.code, reason.message, params=reason.params)
            state = self.state
            seq = self.seq + 1
            ack = None
            if conn is not None:  # written before the commit: once committed, every message must go out
                try:
                    ack = dumps({"type": "ack", "id": msg_id, "seq": seq})
                except (TypeError, ValueError):
                    raise Refused("bad_message", "this message's id cannot be sent back; see the protocol") from None
            finished = None
            if state.ends_game(action):
                finished = result_of(spectator_view(state.apply(index, action)))
            await self.write(Storage.op_append(self.id, seq, index, action_to_json(action), source, finished))
            # Committed: only now does the game move on (in place: a new state per action would be a
            # few dozen objects per table for the garbage collector to scan, for nothing).
            before = len(state.moves)
            state.push(index, action)
            resolved = action.__class__ is Sell and len(state.moves) > before
            self.seq = seq
            if finished is not None:
                self.status = "over"
                self.finished_at = time.time()
            if conn is not None and ack is not None:
                conn.send(ack)
            self._changed(self._event(index, action, source, resolved))
            count_action(source, time.perf_counter() - started)
            return seq

    def _event(self, index: int, action: Action, source: str, resolved: bool) -> dict[str, Any]:
        """The public description of an accepted action (a sale choice names no house until the reveal).

        A sale choice told before the reveal says only that the seat has chosen: its ``source`` is
        null, whoever made it. Hands are public, so "the clock chose for this absent seat" would
        narrow down its house for everyone still choosing (issue 36).
        """
        kind = action.__class__
        event: dict[str, Any] = {"seq": self.seq, "seat": index, "source": source}
        if kind is Bid:
            event.update(kind="bid", amount=action.amount)  # type: ignore[union-attr]
        elif kind is Pass:
            event["kind"] = "pass"
        else:
            event["kind"] = "commit"
            if resolved:  # every seat has chosen: the round is revealed, in the public history too
                event["reveal"] = list(self.state.moves[-1][1])
            else:
                event["source"] = None
        return event

    def _changed(self, event: dict[str, Any]) -> None:
        if self.status == "over":
            self.snapshots.broadcast_state(event)
            self.scheduler.cancel_timer()
            if self.config.rated:
                rate_finished(self.storage, self.id)  # queued right behind the last event: games rate in order
            self.lobby.finished(self)
            return
        # Schedule first: the new turn's deadlines must be in the snapshots that announce the turn,
        # or a page cannot show the countdown until some later message. (Bots only start thinking
        # once this returns: schedule spawns tasks, it does not run them.)
        self.scheduler.schedule()
        self.snapshots.broadcast_state(event)

    def close(self) -> None:
        self.closed = True
        self.scheduler.close()
        for conn in self.connections():
            conn.close()

    # -- records -----------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """The ``forsale-record/1`` record (finished games only: it holds the whole deal)."""
        if not self.state.is_over:
            raise Refused("not_finished", "the record is available once the game is over", 409)
        return to_record(
            self.state,
            players=[s.name for s in self.seats],
            table=self.id,
            bots={str(s.index): s.bot for s in self.seats if s.bot},
            finished_at=self.finished_at,
        )

    def replay(self) -> dict[str, Any]:
        """The record and the public view after each of its moves, for a replay viewer."""
        record = self.record()
        state = State(self.state.rules, self.state.deal)
        frames = [spectator_view(state).to_json()]
        for move in self.state.moves:
            play_moves(state, [move])
            frames.append(spectator_view(state).to_json())
        return {"record": record, "frames": frames}
