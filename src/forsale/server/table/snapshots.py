"""What a table sends: each seat's snapshot as JSON text, built from the views and cached per action.

Every snapshot holds ``view(state, seat)`` (or the spectator view) and
nothing else about the game, so the hidden-information guarantee rests on
:mod:`forsale.view` alone. Serialising a view per seat per action was most of
the server's cost under load, so :class:`Snapshots` keeps, per table, the
views of the current action, the public part of the view as text (built once
per action) and the text of each history entry and house taken (built once
per game); a seat's snapshot is that shared text plus its own few fields.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol

from ...actions import move_to_json
from ...state import State
from ...view import PER_SEAT_FIELDS, View, seat_fields, take_to_json, view
from .connections import Conn, dumps
from .seats import Seat


class Clock(Protocol):
    def clock(self) -> dict[str, Any]: ...


class Listing(Protocol):
    def changed(self, table: Any) -> None: ...


class SnapshotTable(Protocol):
    """What snapshots read of their table (:class:`forsale.server.table.live.LiveTable` is one): its game,
    seats and connections, its clock, and the lobby to tell when its listing changed."""

    @property
    def id(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def state(self) -> State: ...
    @property
    def seats(self) -> Sequence[Seat]: ...
    @property
    def spectators(self) -> Collection[Conn]: ...
    @property
    def scheduler(self) -> Clock: ...
    @property
    def lobby(self) -> Listing: ...
    def info(self) -> dict[str, Any]: ...
    def result(self) -> dict[str, Any] | None: ...
    def connections(self) -> list[Conn]: ...


_KEPT_AS_TEXT = (*PER_SEAT_FIELDS, "history", "takes")
"""Keys of a view's JSON that :meth:`Snapshots._public_text` does not rebuild per action."""


def _grow(texts: list[str], items: tuple[Any, ...], to_text: Callable[[Any], str]) -> str:
    """``items`` as the inside of a JSON array, given ``texts`` for a prefix of them (extended in place)."""
    if len(texts) > len(items):  # cannot happen while the game only moves forward; start again if it does
        texts.clear()
    texts.extend(to_text(item) for item in items[len(texts) :])
    return ",".join(texts)


class Snapshots:
    """One table's views and snapshot texts, and the sending of them to its connections."""

    def __init__(self, table: SnapshotTable) -> None:
        self.table = table
        self._views: dict[int | None, View] = {}
        self._public: str | None = None
        self._history_json: list[str] = []  # JSON text of each entry of the public history so far
        self._takes_json: list[str] = []  # ... and of each house taken so far
        self._views_seq = -1

    def view_of(self, seat: int | None) -> View:
        """``view(state, seat)`` for bots, clocks and error messages, computed at most once per seat and action."""
        self._fresh()
        v = self._views.get(seat)
        if v is None:
            v = self._views[seat] = view(self.table.state, seat)
        return v

    def _fresh(self) -> None:
        """Forget the views and texts of an earlier action."""
        seq = self.table.seq
        if self._views_seq != seq:
            self._views.clear()
            self._public = None
            self._views_seq = seq

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
            v = view(self.table.state, None)
            public = dumps(v.to_json(omit=_KEPT_AS_TEXT))
            history = _grow(self._history_json, v.history, lambda move: dumps(move_to_json(*move)))
            takes = _grow(self._takes_json, v.takes, lambda take: dumps(take_to_json(take)))
            self._public = f'{public[:-1]},"history":[{history}],"takes":[{takes}]}}'
        return self._public

    def _frame(self, kind: str, extra: dict[str, Any]) -> str:
        """A snapshot's text up to the per-seat fields of its view, shared by every seat.

        A snapshot is ``{type, table, seq, status, <extra>, clock, result,
        view, seat}`` where ``view`` is ``view(state, seat).to_json()``. The
        public part of the view is serialised once per action; each seat's
        text is this frame plus its own :func:`~forsale.view.seat_fields`
        (see :meth:`_for_seat`), so the cost per seat is a small dict.
        """
        table = self.table
        head = {"type": kind, "table": table.id, "seq": table.seq, "status": table.status, **extra}
        head["clock"] = table.scheduler.clock()
        head["result"] = table.result()
        return dumps(head)[:-1] + ',"view":' + self._public_text()[:-1] + ","

    def _for_seat(self, frame: str, seat: int | None) -> str:
        own = dumps(seat_fields(self.table.state, seat))
        return f'{frame}{own[1:]},"seat":{"null" if seat is None else seat}}}'

    def snapshot(self, kind: str, seat: int | None, event: dict[str, Any] | None = None) -> str:
        """One seat's (or a spectator's) snapshot as JSON text: ``welcome`` with the table info, or ``state``."""
        extra = {"info": self.table.info()} if kind == "welcome" else {"event": event}
        return self._for_seat(self._frame(kind, extra), seat)

    def broadcast_state(self, event: dict[str, Any] | None) -> None:
        """Send every connection its own snapshot: the shared frame plus its seat's own fields."""
        table = self.table
        frame = None
        for seat in table.seats:
            if seat.conns:
                if frame is None:
                    frame = self._frame("state", {"event": event})
                text = self._for_seat(frame, seat.index)
                for conn in seat.conns:
                    conn.send(text)
        if table.spectators:
            text = self._for_seat(frame or self._frame("state", {"event": event}), None)
            for conn in table.spectators:
                conn.send(text)

    def broadcast_info(self) -> None:
        """Send every connection the table's info and clock (after a seat or setting changed)."""
        table = self.table
        text = dumps({"type": "table", "table": table.id, "info": table.info(), "clock": table.scheduler.clock()})
        for conn in table.connections():
            conn.send(text)
        table.lobby.changed(table)
