"""A real server process (``forsale serve`` under uvicorn) and real WebSocket clients.

The crash test: several games in progress, ``kill -9`` with actions in
flight, a restart on the same database; every client reconnects with its
token, every game resumes exactly at its last acknowledged action (or just
after the one in flight, if it was committed) and plays to the end, and the
records hold every acknowledged action and nothing else.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from forsale import Deal, Ruleset, State
from forsale.actions import action_from_json
from forsale.view import move_to_json

pytestmark = pytest.mark.timeout(240)


class Client:
    """One seat's (or a spectator's) WebSocket, keeping the newest snapshot."""

    def __init__(self, ws: ClientConnection, seat: int | None) -> None:
        self.ws, self.seat = ws, seat
        self.latest: dict[str, Any] = {}

    @classmethod
    async def open(cls, base: str, table_id: str, token: str | None, seat: int | None) -> Client:
        ws = await connect(f"{base}/ws/tables/{table_id}", max_size=None)
        client = cls(ws, seat)
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await client.until(lambda m: m["type"] == "welcome")
        return client

    async def until(self, done: Any) -> dict[str, Any]:
        while True:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
            assert message["type"] != "error", message
            if message["type"] in ("welcome", "state"):
                self.latest = message
            if done(message):
                return message

    async def close(self) -> None:
        await self.ws.close()


async def lockstep(clients: list[Client], rng: random.Random, acked: list[tuple[int, dict]], steps: int | None) -> None:
    """Play an all-human table: the seat to act acts, every client waits for that state."""
    done = 0
    while clients[0].latest["status"] != "over" and done != steps:
        seat = clients[0].latest["view"]["to_act"][0]
        legal = clients[seat].latest["view"]["legal"]
        action = rng.choice(legal[:3])
        await clients[seat].ws.send(json.dumps({"type": "act", "action": action}))
        ack = await clients[seat].until(lambda m: m["type"] == "ack")
        acked.append((seat, action))
        assert ack["seq"] == len(acked)
        for c in clients:
            await c.until(lambda m, seq=ack["seq"]: m["type"] == "state" and m["seq"] == seq)
        done += 1


def replay(record: dict[str, Any], actions: list[tuple[int, dict]]) -> State:
    rules = Ruleset.parse(record["rules"], len(record["players"]))
    state = State(rules, Deal(record["deal"]["houses"], record["deal"]["cheques"], record["deal"]["first"]))
    for seat, action in actions:
        state.push(seat, action_from_json(action))
    return state


async def new_table(http: httpx.AsyncClient, n: int) -> tuple[str, list[str]]:
    created = (await http.post("/api/tables", json={"players": n})).json()
    table_id = created["table"]["id"]
    tokens = [(await http.post(f"/api/tables/{table_id}/join", json={})).json()["token"] for _ in range(n)]
    return table_id, tokens


def test_a_real_server_plays_a_four_client_game_and_refuses_huge_frames(serve: Any, tmp_path: Path) -> None:
    server = serve(f"sqlite:///{tmp_path / 'real.sqlite3'}", tmp_path).start()

    async def main() -> None:
        async with httpx.AsyncClient(base_url=server.base) as http:
            table_id, tokens = await new_table(http, 4)
            clients = [await Client.open(server.ws, table_id, tokens[s], s) for s in range(4)]
            watcher = await Client.open(server.ws, table_id, None, None)
            acked: list[tuple[int, dict]] = []
            await lockstep(clients, random.Random(3), acked, None)
            await watcher.until(lambda m: m["type"] == "state" and m["status"] == "over")
            record = (await http.get(f"/api/tables/{table_id}/record")).json()
            assert replay(record, acked).scores() == clients[0].latest["result"]["scores"]
            # 70 KB: refused with an error, the connection stays; 300 KB: uvicorn closes it (code 1009).
            await watcher.ws.send(json.dumps({"type": "ping", "pad": "x" * 70_000}))
            refused = json.loads(await watcher.ws.recv())
            while refused["type"] == "table":
                refused = json.loads(await watcher.ws.recv())
            assert refused["code"] == "too_large"
            await clients[0].ws.send(json.dumps({"type": "ping", "pad": "x" * 300_000}))
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(clients[0].ws.recv(), 30)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
            assert (await http.get("/api/health")).status_code == 200  # and the server carries on
            for c in [*clients[1:], watcher]:
                await c.close()

    asyncio.run(main())


def test_kill_9_and_restart_loses_no_acknowledged_action(serve: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'crash.sqlite3'}"
    server = serve(db, tmp_path).start()
    rng = random.Random(11)

    async def before_crash() -> dict[str, Any]:
        games: dict[str, Any] = {}
        async with httpx.AsyncClient(base_url=server.base) as http:
            for n in (3, 4):
                table_id, tokens = await new_table(http, n)
                clients = [await Client.open(server.ws, table_id, tokens[s], s) for s in range(n)]
                games[table_id] = {"tokens": tokens, "acked": [], "clients": clients}
            await asyncio.gather(*(lockstep(g["clients"], rng, g["acked"], 25) for g in games.values()))
            solo = (await http.post("/api/solo", json={"players": 4, "bot": "random"})).json()
            games[solo["table"]["id"]] = {"tokens": [solo["token"]], "solo": True}
            for g in games.values():
                if g.get("solo"):
                    continue
                c0 = g["clients"][0]
                g["views"] = {c.seat: c.latest["view"] for c in g["clients"]}
                seat = c0.latest["view"]["to_act"][0]
                action = {"pass": True}  # in flight when the server dies: committed or not, never half
                g["in_flight"] = (seat, action)
                await g["clients"][seat].ws.send(json.dumps({"type": "act", "action": action}))
        return games

    async def after_restart(games: dict[str, Any]) -> None:
        async with httpx.AsyncClient(base_url=server2.base) as http:
            for table_id, g in games.items():
                if g.get("solo"):
                    me = await Client.open(server2.ws, table_id, g["tokens"][0], 0)
                    while me.latest["status"] != "over":
                        v = me.latest["view"]
                        if 0 in v["to_act"]:
                            await me.ws.send(json.dumps({"type": "act", "action": v["legal"][0]}))
                            seq = (await me.until(lambda m: m["type"] in ("ack", "error")))["seq"]
                            await me.until(lambda m, seq=seq: m["type"] == "state" and m["seq"] >= seq)
                        else:
                            await me.until(lambda m: m["type"] == "state")
                    await me.close()
                    continue
                n = len(g["tokens"])
                clients = [await Client.open(server2.ws, table_id, g["tokens"][s], s) for s in range(n)]
                seq = clients[0].latest["seq"]
                acked = g["acked"]
                assert seq in (len(acked), len(acked) + 1), (seq, len(acked))
                if seq == len(acked):  # the action in flight never committed: the same picture as before
                    assert {c.seat: c.latest["view"] for c in clients} == g["views"]
                else:
                    acked.append(g["in_flight"])
                await lockstep(clients, rng, acked, None)
                record = (await http.get(f"/api/tables/{table_id}/record")).json()
                state = replay(record, acked)
                assert state.is_over and state.scores() == clients[0].latest["result"]["scores"]
                # the record holds every acknowledged action, in order, and nothing else
                assert record["moves"] == [move_to_json(s, a) for s, a in state.moves]
                for c in clients:
                    await c.close()
            finished = (await http.get("/api/tables?status=over")).json()["tables"]
            assert {t["id"] for t in finished} == {t for t, g in games.items() if not g.get("solo")}  # solo: unlisted
            for table_id in games:
                assert (await http.get(f"/api/tables/{table_id}")).json()["table"]["status"] == "over"

    games = asyncio.run(before_crash())
    server.kill9()
    server2 = serve(db, tmp_path).start()
    asyncio.run(after_restart(games))
