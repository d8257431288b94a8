"""The table socket's view, decoded back into the engine's own :class:`~forsale.view.View`.

The server sends each seat ``view(state, seat).to_json()`` (docs/protocol.md, *The view*); this turns that JSON
into the very :class:`~forsale.view.View` a local bot is given, so one policy plays the same at home and online:
``view_from_json(v.to_json()) == v`` for every view of every game (the test suite checks it on random games).
Only the engine is needed here, no network library.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..actions import PASS, Action, action_from_json
from ..rules import Ruleset
from ..view import Take, View


class ViewError(ValueError):
    """The JSON is not a view this engine can read (another protocol version, or not a view at all)."""


def _ints(value: Any) -> tuple[int, ...]:
    return tuple(int(x) for x in value)


def move_from_json(move: Mapping[str, Any]) -> tuple[Any, Any]:
    """A history entry back to the engine's ``(seat, action)``, or ``(None, houses)`` for a revealed sale round."""
    if "seat" not in move:
        return None, _ints(move["sell"])
    seat = int(move["seat"])
    action: Action = (
        PASS if move.get("pass") is True else action_from_json({k: v for k, v in move.items() if k != "seat"})
    )
    return seat, action


def view_from_json(data: Mapping[str, Any]) -> View:
    """The :class:`~forsale.view.View` a snapshot's ``view`` object describes (:class:`ViewError` if it is none).

    The derived keys the server adds for web pages (``to_act``, ``legal``, ``scores``, ``houses_to_come``...)
    are not read: the view computes them itself, exactly as the server did.
    """
    try:
        rules = Ruleset.parse(data["rules"], int(data["players"]))
        seat = data["seat"]
        turn = data["turn"]
        my_commit = data["my_commit"]
        return View(
            rules=rules,
            seat=None if seat is None else int(seat),
            phase=str(data["phase"]),
            round=int(data["round"]),
            first=int(data["first"]),
            coins=_ints(data["coins"]),
            hands=tuple(_ints(h) for h in data["hands"]),
            cheques_won=tuple(_ints(c) for c in data["cheques_won"]),
            table=_ints(data["table"]),
            bids=_ints(data["bids"]),
            active=tuple(bool(a) for a in data["active"]),
            high=int(data["high"]),
            turn=None if turn is None else int(turn),
            committed=tuple(bool(c) for c in data["committed"]),
            my_commit=None if my_commit is None else int(my_commit),
            auction_tables=tuple(_ints(t) for t in data["auction_tables"]),
            sale_tables=tuple(_ints(t) for t in data["sale_tables"]),
            unseen_houses=_ints(data["unseen_houses"]),
            unseen_cheques=_ints(data["unseen_cheques"]),
            history=tuple(move_from_json(m) for m in data["history"]),
            takes=tuple(Take(int(t["round"]), int(t["seat"]), int(t["house"]), int(t["paid"])) for t in data["takes"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise ViewError(f"not a view this client can read: {type(err).__name__}: {err}") from None
