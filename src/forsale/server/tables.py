"""Live tables: seats, connections, clocks, bots, and the one path every action takes.

An action - from a person, a bot, or a clock running out - goes through
:meth:`LiveTable.act`, under the table's lock:

1. it is checked against the acting seat's **view** (never the state), so the
   error a client gets says only what that seat may know;
2. its event is appended to the database and committed;
3. only then is the state advanced, the actor acknowledged, and every
   connection sent its own snapshot, built from ``view(state, seat)`` (or
   the spectator view).

Nothing else sends game information to clients, so the hidden-information
guarantee rests on :mod:`forsale.view` alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import random
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket

from ..actions import PASS, Action, Bid, Pass, Sell, action_from_json, action_to_json, move_to_json
from ..errors import ForSaleError
from ..record import to_record
from ..rules import Ruleset
from ..state import Deal, State, play_moves
from ..view import (
    PER_SEAT_FIELDS,
    View,
    seat_fields,
    spectator_view,
    take_to_json,
    view,
)
from .botrunner import DEFAULT_MAX_TIME, BotFailed, BotOverran, BotRunner, default_bot, validate_spec
from .messages import CreateTable, Solo
from .storage import Storage, StoredGame, StoredSeat, hash_token

log = logging.getLogger("forsale.server")

TOKEN_BYTES = 24
"""Seat and creator tokens: 192 random bits from :mod:`secrets` (the issue asks for at least 128)."""


try:  # orjson serialises snapshots several times faster; the standard library is the fallback
    import orjson

    def dumps(message: dict[str, Any]) -> str:
        return orjson.dumps(message).decode()

except ImportError:  # pragma: no cover - orjson is part of the server extra

    def dumps(message: dict[str, Any]) -> str:
        return json.dumps(message, separators=(",", ":"))


_KEPT_AS_TEXT = (*PER_SEAT_FIELDS, "history", "takes")
"""Keys of a view's JSON that :meth:`LiveTable._public_text` does not rebuild per action."""


def _grow(texts: list[str], items: tuple[Any, ...], to_text: Callable[[Any], str]) -> str:
    """``items`` as the inside of a JSON array, given ``texts`` for a prefix of them (extended in place)."""
    if len(texts) > len(items):  # cannot happen while the game only moves forward; start again if it does
        texts.clear()
    texts.extend(to_text(item) for item in items[len(texts) :])
    return ",".join(texts)


class Refused(Exception):
    """A request the server turns down; ``code`` is machine-readable, the message is for people."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


def safe_action(v: View) -> Action:
    """What the clock plays for an absent seat: pass in an auction, the lowest house in a sale."""
    legal = v.legal_actions()
    if v.phase == "auction":
        return PASS
    return min(legal, key=lambda a: a.house)  # type: ignore[union-attr]


def result_of(v: View) -> dict[str, Any]:
    """Scores and winners (:meth:`View.winners`) of a finished game, from its public view."""
    return {"scores": list(v.scores()), "coins": list(v.coins), "winners": v.winners()}


class Conn:
    """One WebSocket session: who it is and its outgoing text frames.

    Messages are queued, not awaited, so one slow client never slows its
    table; a client that lets more than ``max_queue`` messages pile up is cut
    off. One task per connection (:meth:`pump`) sends them in order; it
    sends everything queued each time it wakes (an ``ack`` and the snapshot
    that follows it cost one wake-up, not two).
    """

    def __init__(self, ws: WebSocket | None, max_queue: int = 2000) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.table: LiveTable | None = None
        self.hello = False
        self.max_queue = max_queue
        self.queue: deque[str | None] = deque()
        self._wake: asyncio.Future[None] | None = None
        self.closed = False

    def _push(self, item: str | None) -> None:
        self.queue.append(item)
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        if len(self.queue) >= self.max_queue:
            log.warning("closing a connection that does not read its messages")
            self.close()
            return
        if not isinstance(message, str):
            try:
                message = dumps(message)
            except (TypeError, ValueError):  # our bug (input is validated before it gets here): this client only
                log.exception("a message to one connection could not be serialised; it was not sent")
                return
        self._push(message)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._push(None)

    async def pump(self) -> None:
        """Send queued frames until closed (one task per connection)."""
        assert self.ws is not None
        queue = self.queue
        while True:
            while queue:
                text = queue.popleft()
                if text is None:
                    return
                try:
                    await self.ws.send_text(text)
                except Exception:  # the client went away mid-send: stop queueing for it
                    self.closed = True
                    return
            self._wake = asyncio.get_running_loop().create_future()
            await self._wake


@dataclass
class Seat:
    index: int
    kind: str  # open | human | bot
    name: str
    bot: str | None = None
    token_hash: str | None = None
    conns: set[Conn] = field(default_factory=set)
    away_since: float | None = None  # monotonic time the last connection dropped

    def public(self) -> dict[str, Any]:
        return {
            "seat": self.index,
            "kind": self.kind,
            "name": self.name,
            "bot": self.bot,
            "connected": self.kind == "bot" or bool(self.conns),
        }

    def stored(self) -> StoredSeat:
        return StoredSeat(self.index, self.kind, self.name, self.bot, self.token_hash)


@dataclass
class Options:
    """Server-wide settings for tables (see :func:`forsale.server.app.create_app`)."""

    grace: float = 60.0
    bot_delay: float = 0.0
    bot_budget: float | None = None
    fallback_bot: str | None = None
    max_bot_time: float = DEFAULT_MAX_TIME


class LiveTable:
    """One table in memory: its game, seats, connections, clock and bots."""

    def __init__(self, stored: StoredGame, lobby: Lobby) -> None:
        self.id = stored.id
        self.name = stored.name
        self.lobby = lobby
        self.storage = lobby.storage
        self.options = lobby.options
        self.config = stored.config
        self.created_at = stored.created_at
        self.finished_at = stored.finished_at
        self.creator_hash = stored.creator_hash
        self.status = stored.status
        rules = Ruleset.parse(stored.config["rules"], stored.players)
        d = stored.deal
        removed = d.get("removed")
        if removed is None and "removed_houses" in d:  # a row written before Deal.to_json held the removed cards flat
            removed = {"houses": d["removed_houses"], "cheques": d["removed_cheques"]}
        self.state = State(rules, Deal.from_json(d, rules, removed))
        for e in stored.events:
            self.state.push(e["seat"], action_from_json(e["action"]))
        self.seq = len(stored.events)
        self.seats = [Seat(s.seat, s.kind, s.name, s.bot, s.token_hash) for s in stored.seats]
        self.spectators: set[Conn] = set()
        self.lock = asyncio.Lock()
        self.deadlines: dict[int, float] = {}
        self._turn_key: tuple[Any, ...] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._thinking: set[int] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._views: dict[int | None, View] = {}
        self._public: str | None = None
        self._history_json: list[str] = []  # JSON text of each entry of the public history so far
        self._takes_json: list[str] = []  # ... and of each house taken so far
        self._views_seq = -1
        self.closed = False
        now = time.monotonic()
        for seat in self.seats:
            if seat.kind == "human":
                seat.away_since = now  # nobody is connected yet (a fresh start or a restart)

    # -- settings ------------------------------------------------------------
    @property
    def time_limit(self) -> float | None:
        return self.config.get("time_limit")

    @property
    def memory_aid(self) -> bool:
        return bool(self.config.get("memory_aid", True))

    @property
    def private(self) -> bool:
        return bool(self.config.get("private", False))

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
            "grace": self.options.grace,
            "memory_aid": self.memory_aid,
            "private": self.private,
            "spectators": len(self.spectators),
            "created_at": self.created_at,
            "seq": self.seq,
        }

    def clock(self) -> dict[str, Any]:
        """Each seat's deadline (epoch milliseconds), when a clock or an absence will act for it."""
        now_wall, now_mono = time.time(), time.monotonic()
        out: dict[str, int] = {}
        for s, when in self._effective_deadlines().items():
            out[str(s)] = int((now_wall + (when - now_mono)) * 1000)
        return {
            "time_limit": self.time_limit,
            "grace": self.options.grace,
            "deadlines": out,
            "now": int(now_wall * 1000),
        }

    def view_of(self, seat: int | None) -> View:
        """``view(state, seat)`` for bots, clocks and error messages, computed at most once per seat and action."""
        self._fresh()
        v = self._views.get(seat)
        if v is None:
            v = self._views[seat] = view(self.state, seat)
        return v

    def _fresh(self) -> None:
        """Forget the views and texts of an earlier action."""
        if self._views_seq != self.seq:
            self._views.clear()
            self._public = None
            self._views_seq = self.seq

    def _public_text(self) -> str:
        """The spectator's view without its per-seat fields, as JSON text (serialised once per action).

        Only text is kept between messages: a view's JSON is a hundred or
        so small dicts and lists, and keeping one alive per table until the
        next action made them most of what the garbage collector scanned.
        ``history`` and ``takes`` only ever grow, so the JSON text of each of
        their entries is kept and only new entries are serialised; they were
        most of the cost of a snapshot late in a game.
        """
        self._fresh()
        if self._public is None:
            v = view(self.state, None)
            public = dumps(v.to_json(omit=_KEPT_AS_TEXT))
            history = _grow(self._history_json, v.history, lambda move: dumps(move_to_json(*move)))
            takes = _grow(self._takes_json, v.takes, lambda take: dumps(take_to_json(take)))
            self._public = f'{public[:-1]},"history":[{history}],"takes":[{takes}]}}'
        return self._public

    def result(self) -> dict[str, Any] | None:
        if not self.state.is_over:
            return None
        return {**result_of(self.view_of(None)), "record": f"/api/tables/{self.id}/record"}

    def _frame(self, kind: str, extra: dict[str, Any]) -> str:
        """A snapshot's text up to the per-seat fields of its view, shared by every seat.

        A snapshot is ``{type, table, seq, status, <extra>, clock, result,
        view, seat}`` where ``view`` is ``view(state, seat).to_json()``. The
        public part of the view is serialised once per action; each seat's
        text is this frame plus its own :func:`~forsale.view.seat_fields`
        (see :meth:`_for_seat`), so the cost per seat is a small dict.
        """
        head = {"type": kind, "table": self.id, "seq": self.seq, "status": self.status, **extra}
        head["clock"] = self.clock()
        head["result"] = self.result()
        return dumps(head)[:-1] + ',"view":' + self._public_text()[:-1] + ","

    def _for_seat(self, frame: str, seat: int | None) -> str:
        own = dumps(seat_fields(self.state, seat))
        return f'{frame}{own[1:]},"seat":{"null" if seat is None else seat}}}'

    def snapshot(self, kind: str, seat: int | None, event: dict[str, Any] | None = None) -> str:
        """One seat's (or a spectator's) snapshot as JSON text: ``welcome`` with the table info, or ``state``."""
        extra = {"info": self.info()} if kind == "welcome" else {"event": event}
        return self._for_seat(self._frame(kind, extra), seat)

    def broadcast_state(self, event: dict[str, Any] | None) -> None:
        """Send every connection its own snapshot: the shared frame plus its seat's own fields."""
        frame = None
        for seat in self.seats:
            if seat.conns:
                if frame is None:
                    frame = self._frame("state", {"event": event})
                text = self._for_seat(frame, seat.index)
                for conn in seat.conns:
                    conn.send(text)
        if self.spectators:
            text = self._for_seat(frame or self._frame("state", {"event": event}), None)
            for conn in self.spectators:
                conn.send(text)

    def broadcast_info(self) -> None:
        text = dumps({"type": "table", "table": self.id, "info": self.info(), "clock": self.clock()})
        for conn in self.connections():
            conn.send(text)

    def connections(self) -> list[Conn]:
        return [c for s in self.seats for c in s.conns] + list(self.spectators)

    # -- seats -----------------------------------------------------------------
    def seat_for_token(self, token: str) -> int | None:
        digest = hash_token(token)
        for seat in self.seats:
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, digest):
                return seat.index
        return None

    def is_creator(self, token: str) -> bool:
        return secrets.compare_digest(self.creator_hash, hash_token(token))

    async def join(self, index: int | None, name: str | None) -> tuple[int, str]:
        """Take a free seat (the lowest if ``index`` is None); returns ``(seat, token)``."""
        async with self.lock:
            if self.status == "over":
                raise Refused("game_over", "the game is over; there is no seat to take", 409)
            if index is None:
                free = [s.index for s in self.seats if s.kind == "open"]
                if not free:
                    raise Refused("table_full", "every seat at this table is taken; you can watch instead", 409)
                index = free[0]
            if not 0 <= index < len(self.seats):
                raise Refused("no_such_seat", f"this table has seats 0 to {len(self.seats) - 1}", 404)
            seat = self.seats[index]
            if seat.kind != "open":
                raise Refused("seat_taken", f"seat {index} is taken; free seats: {self._free_text()}", 409)
            token = secrets.token_urlsafe(TOKEN_BYTES)
            seat.kind, seat.name, seat.token_hash = "human", name or f"Player {index + 1}", hash_token(token)
            seat.away_since = time.monotonic()
            starts = self.status == "waiting" and all(s.kind != "open" for s in self.seats)
            await self.storage.run(Storage.op_update_seat(self.id, seat.stored(), "playing" if starts else None))
            if starts:
                self.status = "playing"
            self.broadcast_info()
            if starts:
                self._changed({"kind": "start"})
            return index, token

    def _free_text(self) -> str:
        free = [str(s.index) for s in self.seats if s.kind == "open"]
        return ", ".join(free) if free else "none"

    async def leave(self, index: int) -> None:
        """Give a seat up: before the game it becomes free again; during it, a bot plays it."""
        async with self.lock:
            seat = self.seats[index]
            if seat.kind != "human":
                return
            if self.status == "over":
                raise Refused("game_over", "the game is over; there is nothing to leave", 409)
            if self.status == "waiting":
                seat.kind, seat.name, seat.token_hash = "open", f"Seat {index + 1}", None
            else:
                seat.kind, seat.bot, seat.token_hash = "bot", self.lobby.fallback_bot(), None
                seat.name = f"{seat.name} (left; bot)"
            await self.storage.run(Storage.op_update_seat(self.id, seat.stored()))
            for conn in list(seat.conns):
                conn.seat = None
                self.spectators.add(conn)
            seat.conns.clear()
            seat.away_since = None
            self.broadcast_info()
            self._schedule()

    async def set_memory_aid(self, allowed: bool) -> None:
        async with self.lock:
            self.config = {**self.config, "memory_aid": allowed}
            await self.storage.run(Storage.op_update_game(self.id, config=self.config))
            self.broadcast_info()

    def attach(self, conn: Conn, index: int | None) -> None:
        conn.table, conn.seat, conn.hello = self, index, True
        if index is None:
            self.spectators.add(conn)
        else:
            seat = self.seats[index]
            seat.conns.add(conn)
            seat.away_since = None
        conn.send(self.snapshot("welcome", index))
        self.broadcast_info()
        self._schedule()

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
            self.broadcast_info()
            self._schedule()
            if self.status == "over" and not self.connections():
                self.lobby.forget(self)

    # -- acting ------------------------------------------------------------------
    async def act(self, index: int, action: Action, source: str, conn: Conn | None = None, msg_id: Any = None) -> int:
        """Check, persist, apply and announce one action (see the module docstring)."""
        async with self.lock:
            if self.status == "waiting":
                raise Refused("not_started", f"the game starts when every seat is taken (free: {self._free_text()})")
            if self.state.why_illegal(index, action) is not None:
                reason = self.view_of(index).why_illegal(action)  # worded from what this seat may know
                assert reason is not None  # a view's rules are the state's (tests/engine/test_legality.py)
                raise Refused(reason.code, reason.message)
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
            await self.storage.run(Storage.op_append(self.id, seq, index, action_to_json(action), source, finished))
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
            return seq

    def _event(self, index: int, action: Action, source: str, resolved: bool) -> dict[str, Any]:
        """The public description of an accepted action (a sale choice names no house until the reveal)."""
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
        return event

    def _changed(self, event: dict[str, Any]) -> None:
        if self.status == "over":
            self.broadcast_state(event)
            self._cancel_timer()
            self.lobby.finished(self)
            return
        # Schedule first: the new turn's deadlines must be in the snapshots that announce the turn,
        # or a page cannot show the countdown until some later message. (Bots only start thinking
        # once this returns: _schedule spawns tasks, it does not run them.)
        self._schedule()
        self.broadcast_state(event)

    # -- clocks and bots -------------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        return self.state.seats_to_act() if self.status == "playing" else ()

    def _effective_deadlines(self) -> dict[int, float]:
        """Seat -> monotonic time at which the server acts for it (move clock or absence)."""
        out: dict[int, float] = {}
        for s in self._to_act():
            seat = self.seats[s]
            if seat.kind != "human":
                continue
            when = self.deadlines.get(s)
            if seat.away_since is not None:
                away = seat.away_since + self.options.grace
                when = away if when is None else min(when, away)
            if when is not None:
                out[s] = when
        return out

    def _schedule(self) -> None:
        """After any change: reset move clocks for a new turn, arm the timer, wake the bots."""
        if self.closed or self.status != "playing":
            return
        state = self.state
        to_act = self._to_act()
        key = ("auction", len(state.moves)) if state.phase == "auction" else ("sale", state.round)
        now = time.monotonic()
        if key != self._turn_key:
            self._turn_key = key
            limit = self.time_limit
            self.deadlines = {s: now + limit for s in to_act} if limit else {}
        else:
            self.deadlines = {s: t for s, t in self.deadlines.items() if s in to_act}
        self._cancel_timer()
        due = self._effective_deadlines()
        if due:
            delay = max(0.0, min(due.values()) - now)
            self._timer = asyncio.get_running_loop().call_later(delay, self._spawn, self._on_clock)
        for s in to_act:
            if self.seats[s].kind == "bot" and s not in self._thinking:
                self._thinking.add(s)
                self._spawn(functools.partial(self._bot_move, s))

    def _spawn(self, factory: Callable[[], Any]) -> None:
        task = asyncio.get_running_loop().create_task(factory())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def _on_clock(self) -> None:
        """Play the safe action for every seat whose clock (or absence) has run out."""
        now = time.monotonic()
        for s, when in sorted(self._effective_deadlines().items()):
            if when <= now + 0.001:
                seat = self.seats[s]
                source = (
                    "away" if seat.away_since is not None and seat.away_since + self.options.grace <= now else "clock"
                )
                with contextlib.suppress(Refused):
                    await self.act(s, safe_action(self.view_of(s)), source)
        self._schedule()

    async def _bot_move(self, s: int) -> None:
        try:
            if self.options.bot_delay:
                await asyncio.sleep(self.options.bot_delay)
            seat = self.seats[s]
            if self.closed or s not in self._to_act() or seat.bot is None:
                return
            v = self.view_of(s)
            source = "bot"
            try:
                action = await self.lobby.runner.act(
                    seat.bot, v, secrets.randbits(64), self.options.bot_budget, self.id
                )
            except BotOverran as overran:  # the clock's move, as for a person who ran out of time
                log.warning("bot %s at table %s seat %d %s; playing the safe action", seat.bot, self.id, s, overran)
                action, source = safe_action(v), "clock"
            except BotFailed as failed:
                log.error("bot %s at table %s seat %d failed; playing the safe action: %s", seat.bot, self.id, s, failed)
                action = safe_action(v)
            except Exception:
                log.exception("bot %s at table %s seat %d failed; playing the safe action", seat.bot, self.id, s)
                action = safe_action(v)
            if self.closed:
                return
            try:
                await self.act(s, action, source)
            except Refused as refused:
                if s in self._to_act():
                    log.warning(
                        "bot %s at table %s seat %d: %s; playing the safe action", seat.bot, self.id, s, refused
                    )
                    await self.act(s, safe_action(self.view_of(s)), "bot")
        except Refused:
            pass
        except Exception:
            log.exception("bot move failed at table %s seat %d", self.id, s)
        finally:
            self._thinking.discard(s)
            if not self.closed and s in self._to_act() and self.seats[s].kind == "bot":
                self._schedule()

    def close(self) -> None:
        self.closed = True
        self._cancel_timer()
        for task in list(self._tasks):
            task.cancel()
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


class Lobby:
    """Every table this server knows: live ones in memory, finished ones loaded on demand."""

    def __init__(self, storage: Storage, runner: BotRunner, options: Options) -> None:
        self.storage = storage
        self.runner = runner
        self.options = options
        self.tables: dict[str, LiveTable] = {}
        self._finished: OrderedDict[str, LiveTable] = OrderedDict()

    def fallback_bot(self) -> str:
        return self.options.fallback_bot or default_bot()

    async def start(self) -> int:
        """Resume every unfinished game from the database; returns how many."""
        stored = await self.storage.run(Storage.op_load_unfinished())
        for game in stored:
            try:
                table = LiveTable(game, self)
            except Exception:  # a damaged game must not keep the others from resuming
                log.exception("table %s could not be rebuilt from its event log; it stays offline", game.id)
                continue
            self.tables[table.id] = table
            if table.status == "playing":
                table._schedule()
        if stored:
            log.info("resumed %d unfinished tables", len(stored))
        return len(stored)

    def close(self) -> None:
        for table in list(self.tables.values()) + list(self._finished.values()):
            table.close()

    def finished(self, table: LiveTable) -> None:
        """A game ended: keep it live while people look at it; it is reloaded from the database later."""
        self._finished[table.id] = table
        while len(self._finished) > 200:
            old_id, old = self._finished.popitem(last=False)
            if not old.connections():
                self.tables.pop(old_id, None)

    def forget(self, table: LiveTable) -> None:
        """Drop a finished table nobody watches, unless it is among the recent ones kept at hand."""
        if table.id not in self._finished:
            self.tables.pop(table.id, None)

    async def get(self, table_id: str) -> LiveTable | None:
        table = self.tables.get(table_id)
        if table is not None:
            return table
        if len(table_id) > 32:
            return None
        stored = await self.storage.run(Storage.op_load(table_id))
        if stored is None:
            return None
        table = self.tables.get(table_id)  # loaded meanwhile by another request
        if table is None:
            table = LiveTable(stored, self)
            self.tables[table_id] = table
            if table.status == "over":
                self.finished(table)
        return table

    def listing(self) -> list[dict[str, Any]]:
        return [t.info() for t in self.tables.values() if t.status != "over" and not t.private]

    async def finished_games(self, limit: int) -> list[dict[str, Any]]:
        rows = await self.storage.run(Storage.op_list_finished(limit))
        return [
            {
                "id": r["id"],
                "name": r["name"],
                "players": r["players"],
                "names": r["names"],
                "rules": r["config"].get("rules"),
                "finished_at": r["finished_at"],
                **(r["result"] or {}),
                "record": f"/api/tables/{r['id']}/record",
            }
            for r in rows
        ]

    async def create(self, body: CreateTable) -> dict[str, Any]:
        """Create a table (see ``POST /api/tables``); the creator gets a token to manage it."""
        n = body.players
        rules_spec = body.rules.model_dump() if hasattr(body.rules, "model_dump") else body.rules  # type: ignore[union-attr]
        try:
            rules = Ruleset.parse(rules_spec, n)
        except ForSaleError as error:
            raise Refused("bad_rules", str(error)) from None
        specs = list(body.seats) if body.seats is not None else [None] * n
        if len(specs) != n:
            raise Refused("bad_seats", f"seats lists {len(specs)} entries for a table of {n}")
        for i, spec in enumerate(specs):
            if spec is not None and spec != "human":
                try:
                    validate_spec(spec, self.options.max_bot_time)
                except ValueError as error:
                    raise Refused("bad_bot", f"seat {i}: {error}") from None
        humans = [i for i, spec in enumerate(specs) if spec in (None, "human")]
        if body.join and not humans:
            raise Refused("bad_seats", "join asks for a seat, but every seat is a bot")
        creator_token = secrets.token_urlsafe(TOKEN_BYTES)
        seat_token: str | None = None
        seats: list[StoredSeat] = []
        for i, spec in enumerate(specs):
            if spec not in (None, "human"):
                seats.append(StoredSeat(i, "bot", f"{spec.split(':')[0]} bot", spec, None))
            elif body.join and i == humans[0]:
                seat_token = secrets.token_urlsafe(TOKEN_BYTES)
                seats.append(StoredSeat(i, "human", body.player_name or "You", None, hash_token(seat_token)))
            else:
                seats.append(StoredSeat(i, "open", f"Seat {i + 1}", None, None))
        deal = Deal.random(rules, random.SystemRandom())  # server deals come from the OS's secret source
        now = time.time()
        game = StoredGame(
            id=secrets.token_urlsafe(6),
            name=body.name or f"Table of {n}",
            status="playing" if all(s.kind != "open" for s in seats) else "waiting",
            players=n,
            config={
                "rules": rules.to_json(),
                "time_limit": body.time_limit,
                "memory_aid": body.memory_aid,
                "private": body.private,
            },
            deal={**deal.to_json(), "removed": deal.removed_to_json()},  # a record's deal, plus the removed cards
            creator_hash=hash_token(creator_token),
            created_at=now,
            finished_at=None,
            result=None,
            seats=seats,
        )
        await self.storage.run(Storage.op_create_game(game))
        table = LiveTable(game, self)
        self.tables[table.id] = table
        if table.status == "playing":
            table._schedule()
        out: dict[str, Any] = {"table": table.info(), "creator_token": creator_token}
        if seat_token is not None:
            out.update(seat=humans[0], token=seat_token)
        return out

    async def solo(self, body: Solo) -> dict[str, Any]:
        """One person at seat 0, bots everywhere else, the game under way at once."""
        n = body.players
        if body.bots is not None:
            if len(body.bots) != n - 1:
                raise Refused("bad_seats", f"bots lists {len(body.bots)} bots; a table of {n} needs {n - 1}")
            bots: list[str | None] = list(body.bots)
        else:
            bots = [body.bot or default_bot()] * (n - 1)
        return await self.create(
            CreateTable(
                name="Solo game",
                players=n,
                rules=body.rules,
                seats=[None, *bots],
                time_limit=body.time_limit,
                memory_aid=body.memory_aid,
                private=True,
                join=True,
                player_name=body.player_name,
            )
        )
