"""The referee of a fuzzed game: what the engine says every snapshot, event and REST answer must be.

The server's answers are checked against the engine, not against a copy of
the server's logic: :func:`replay_states` replays the honest moves on the
finished game's deal, :func:`snapshot_problem` compares every ``welcome`` and
``state`` a connection received with ``view(state, seat).to_json()`` and
:func:`expected_event`; :func:`rest_problem` checks a REST answer to hostile
input against the documented statuses and error envelope.
"""

from __future__ import annotations

from typing import Any

import httpx

from forsale import State, from_record, view
from forsale.actions import action_from_json

from .probes import REST_ERROR_STATUSES


def rest_problem(response: httpx.Response) -> str | None:
    """What is wrong with a REST answer to hostile input (None: a 2xx, or a documented 4xx with the envelope)."""
    if response.status_code >= 500:
        return f"{response.status_code} {response.text[:200]}"
    if response.status_code < 400:
        return None
    if response.status_code not in REST_ERROR_STATUSES:
        return f"undocumented status {response.status_code}"
    try:
        error = response.json()["error"]
    except (ValueError, KeyError, TypeError):
        return f"{response.status_code} without the error envelope: {response.text[:200]}"
    if not isinstance(error, dict) or set(error) != {"code", "message"} or not isinstance(error["message"], str):
        return f"{response.status_code} with a malformed envelope: {response.text[:200]}"
    return None


def replay_states(record: dict[str, Any], actions: list[tuple[int, dict[str, Any]]]) -> list[State]:
    """The game after 0, 1, 2, ... of ``actions`` (one per seat action), on the record's deal."""
    state = from_record({**record, "moves": []})
    states = [state.clone()]
    for seat, action in actions:
        state.push(seat, action_from_json(action))
        states.append(state.clone())
    return states


def snapshot_problem(
    message: dict[str, Any], seat: int | None, states: list[State], actions: list[tuple[int, dict[str, Any]]]
) -> str | None:
    """Why a received message is not the snapshot the engine gives (None: it is, or it is no snapshot)."""
    kind = message.get("type")
    if kind not in ("welcome", "state"):
        return f"not JSON: {message}" if kind == "<not JSON>" else None
    seq = message.get("seq")
    if type(seq) is not int or not 0 <= seq < len(states):
        return f"seq {seq!r} outside the {len(states) - 1} honest moves"
    if message.get("seat") != seat:
        return f"seq {seq}: seat {message.get('seat')!r} on a connection of seat {seat!r}"
    if message.get("view") != view(states[seq], seat).to_json():
        return f"seq {seq}: the view differs from view(state, {seat})"
    if kind == "state" and seq > 0 and message.get("event") != expected_event(states, seq, *actions[seq - 1]):
        return f"seq {seq}: event {message.get('event')} for move {actions[seq - 1]}"
    return None


def expected_event(states: list[State], seq: int, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    """The public description of honest move ``seq`` (a sale choice names no house until the reveal)."""
    event: dict[str, Any] = {"seq": seq, "seat": seat, "source": "player"}
    if "bid" in action:
        event.update(kind="bid", amount=action["bid"])
    elif "pass" in action:
        event["kind"] = "pass"
    else:
        event["kind"] = "commit"
        if len(states[seq].moves) > len(states[seq - 1].moves):
            event["reveal"] = list(states[seq].moves[-1][1])
        else:
            event["source"] = None  # before the reveal nobody is told who chose (docs/protocol.md)
    return event
