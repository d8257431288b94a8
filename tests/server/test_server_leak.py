"""No message to seat i, or to a spectator, holds anything outside that seat's view.

Many random games are played through the server's own message path; every
message each connection received is then checked against the engine: a
snapshot's ``view`` must be *exactly* ``view(state, i).to_json()`` for the
state after that many actions (rebuilt from the finished game's record), the
event must be exactly the public description of the action (a sale choice
names no house until the reveal), and every other part of every message has a
fixed set of keys with nothing secret in them. Errors may only mention
numbers the recipient's own view holds.

Most games run in-process against :class:`~forsale.server.lobby.lobby.Lobby` with
capturing connections (fast, so there can be many); a few run over real
WebSockets through the whole app.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from forsale import State, view
from forsale.actions import action_from_json
from forsale.server import create_app
from forsale.server.errors import Refused
from forsale.server.lobby.lobby import Lobby, Options, TableRequest
from forsale.server.ops.botrunner import BotRunner
from forsale.server.store.database import Storage
from forsale.server.table.connections import Conn
from harness.referee import expected_event, replay_states  # the fuzzer's replay of honest moves, its events

pytestmark = pytest.mark.timeout(300)

INFO_KEYS = {
    "id", "name", "status", "players", "rules", "rules_text", "seats", "open_seats", "time_limit", "grace",
    "memory_aid", "private", "invite_only", "spectator_chat", "spectators", "created_at", "seq", "turn_limit", "rated", "hints",
}  # fmt: skip
SEAT_KEYS = {"seat", "kind", "name", "bot", "connected", "account"}
CLOCK_KEYS = {"time_limit", "turn_limit", "grace", "deadlines", "now"}
SNAPSHOT_KEYS = {"type", "table", "seq", "status", "seat", "view", "clock", "result"}


def check_messages(
    received: dict[int | None, list[dict[str, Any]]],
    states: list[State],
    actions: list[tuple[int, dict[str, Any]]],
) -> int:
    """Check every message each recipient got; returns how many were checked."""
    checked = 0
    for seat, messages in received.items():
        current_view: dict[str, Any] | None = None
        for message in messages:
            kind = message["type"]
            checked += 1
            if kind in ("welcome", "state"):
                keys = SNAPSHOT_KEYS | ({"info"} if kind == "welcome" else {"event"})
                assert set(message) == keys
                seq = message["seq"]
                assert message["seat"] == seat
                expected = view(states[seq], seat).to_json()
                assert message["view"] == expected, f"seat {seat} at seq {seq}"
                current_view = message["view"]
                if kind == "state" and seq > 0:
                    assert message["event"] == expected_event(states, seq, *actions[seq - 1])
                elif kind == "state":
                    assert message["event"] == {"kind": "start"}
                else:
                    check_info(message["info"])
                check_clock(message["clock"], states[seq].n)
                if states[seq].is_over:
                    assert message["result"]["scores"] == states[seq].scores()
                    assert message["result"]["winners"] == states[seq].winners()
                else:
                    assert message["result"] is None
            elif kind == "table":
                assert set(message) == {"type", "table", "info", "clock"}
                check_info(message["info"])
                check_clock(message["clock"], states[0].n)
            elif kind == "ack":
                assert set(message) == {"type", "id", "seq"}
                assert isinstance(message["seq"], int)
            elif kind == "error":
                assert set(message) - {"params"} == {"type", "code", "message", "id"}
                known = set(re.findall(r"\d+", json.dumps(current_view) + str(message["id"])))
                said = message["message"] + json.dumps(message.get("params", {}))  # the facts, for a translation
                for number in re.findall(r"\d+", said):
                    assert number in known, f"error to seat {seat} mentions {number}: {said}"
            elif kind == "chat_history":  # nobody chats here: the history is empty, and names no card
                assert message == {"type": "chat_history", "table": message["table"], "messages": []}
            else:
                raise AssertionError(f"unexpected message {message}")
    return checked


def check_info(info: dict[str, Any]) -> None:
    assert set(info) == INFO_KEYS
    for seat in info["seats"]:
        assert set(seat) == SEAT_KEYS
        assert isinstance(seat["account"], bool)  # whether an account sits there: public, as its name is


def check_clock(clock: dict[str, Any], n: int) -> None:
    assert set(clock) == CLOCK_KEYS
    assert all(int(s) in range(n) and isinstance(t, int) for s, t in clock["deadlines"].items())


def drain(conn: Conn) -> list[dict[str, Any]]:
    out = []
    while conn.queue:
        text = conn.queue.popleft()
        if text is not None:
            out.append(json.loads(text))
    return out


def random_action(v: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    legal = v["legal"]
    if v["phase"] == "auction" and len(legal) > 1 and rng.random() < 0.55:
        return rng.choice(legal[1 : 1 + rng.randint(1, 4)])
    return legal[0] if v["phase"] == "auction" else rng.choice(legal)


async def play_in_process(lobby: Lobby, rng: random.Random) -> None:
    n = rng.choice([2, 3, 3, 4, 4, 4, 5, 6])
    rules = "two-player" if n == 2 else rng.choice(["official", "first-edition", "refund-up"])
    created = await lobby.create(TableRequest(players=n, rules=rules))
    table = lobby.tables[created["table"]["id"]]
    tokens = [(await table.join(None, f"P{i}"))[1] for i in range(n)]
    received: dict[int | None, list[dict[str, Any]]] = {s: [] for s in [*range(n), None]}
    conns: dict[int | None, Conn] = {}
    for seat in [*range(n), None]:
        conns[seat] = Conn(None)
        table.attach(conns[seat], table.seat_for_token(tokens[seat]) if seat is not None else None)
    actions: list[tuple[int, dict[str, Any]]] = []
    while not table.state.is_over:
        if rng.random() < 0.05:  # a reconnection: a new connection for a random seat
            seat = rng.randrange(n)
            received[seat] += drain(conns[seat])
            table.detach(conns[seat])
            conns[seat] = Conn(None)
            table.attach(conns[seat], seat)
        seats = table.state.seats_to_act()
        seat = rng.choice(seats)
        v = view(table.state, seat).to_json()
        if rng.random() < 0.1:  # a wrong move: out of turn, too high, a house not held
            wrong = rng.choice([{"bid": 99}, {"sell": rng.randint(1, 30)}, {"pass": True}])
            other = rng.choice([s for s in range(n) if s != seat] + [seat])
            try:
                await table.act(other, action_from_json(wrong), "player", conns[other])
            except Refused as refused:
                # the id carries the refused action: its own numbers may appear in the message
                conns[other].send(
                    {"type": "error", "code": refused.code, "message": str(refused), "id": json.dumps(wrong)}
                )
            else:
                actions.append((other, wrong))
                continue
        action = random_action(v, rng)
        await table.act(seat, action_from_json(action), "player", conns[seat])
        actions.append((seat, action))
    for seat in received:
        received[seat] += drain(conns[seat])
    states = replay_states(table.record(), actions)
    assert states[-1].scores() == table.state.scores()
    assert check_messages(received, states, actions) > len(actions) * n


def test_no_message_leaks_anything_outside_the_recipients_view_over_many_games(tmp_path: Path) -> None:
    async def main() -> None:
        storage = Storage(f"sqlite:///{tmp_path / 'leak.sqlite3'}")
        lobby = Lobby(storage, BotRunner(), Options())
        rng = random.Random(2024)
        try:
            for _ in range(30):
                await play_in_process(lobby, rng)
        finally:
            lobby.close()
            storage.close()

    asyncio.run(main())


def test_no_message_leaks_over_real_websockets(tmp_path: Path) -> None:
    rng = random.Random(7)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'leak-ws.sqlite3'}")) as client:
        for n in (3, 5):
            created = client.post("/api/tables", json={"players": n}).json()
            table_id = created["table"]["id"]
            tokens = [client.post(f"/api/tables/{table_id}/join", json={}).json()["token"] for _ in range(n)]
            received: dict[int | None, list[dict[str, Any]]] = {s: [] for s in [*range(n), None]}
            sockets = {s: client.websocket_connect(f"/ws/tables/{table_id}") for s in received}
            try:
                for seat, ws in sockets.items():
                    ws.__enter__()
                    ws.send_json({"type": "hello", "token": tokens[seat] if seat is not None else None})
                latest: dict[int | None, dict[str, Any]] = {}

                def take(
                    seat: int | None, until: str, sockets: Any = sockets, received: Any = received, latest: Any = latest
                ) -> dict[str, Any]:
                    while True:
                        message = sockets[seat].receive_json()
                        received[seat].append(message)
                        if message["type"] in ("welcome", "state"):
                            latest[seat] = message
                        if message["type"] == until:
                            return message

                for seat in received:
                    take(seat, "welcome")
                actions: list[tuple[int, dict[str, Any]]] = []
                while latest[None]["status"] != "over":
                    seat = rng.choice(latest[None]["view"]["to_act"])
                    action = random_action(latest[seat]["view"], rng)
                    sockets[seat].send_json({"type": "act", "action": action})
                    take(seat, "ack")
                    actions.append((seat, action))
                    for other in received:
                        if latest[other]["seq"] < len(actions):
                            take(other, "state")
            finally:
                for ws in sockets.values():
                    ws.__exit__(None, None, None)
            record = client.get(f"/api/tables/{table_id}/record").json()
            states = replay_states(record, actions)
            assert check_messages(received, states, actions) > len(actions) * n
