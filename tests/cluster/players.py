"""Players for the cluster tests (a helper module): one WebSocket client per seat, through the load balancer.

A :class:`Player` plays its seat to the end of the game as a person's page
would: it reconnects with its token whenever its connection drops (a node
killed, paused or stopping, a table handed over) and decides afresh from the
snapshot it is welcomed with, never resending an action whose fate it did not
learn. It writes down what it saw: every acknowledgement ``(seq, action)``
and every public event, so the test can check the event log against them.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import httpx


def choose(v: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A quick legal move from a seat's view: raise by one now and then, else pass; sell a random house."""
    if v["phase"] == "auction":
        seat = v["seat"]
        if v["coins"][seat] > v["high"] and rng.random() < 0.35:
            return {"bid": v["high"] + 1}
        return {"pass": True}
    return {"sell": rng.choice(v["hands"][v["seat"]])}


@dataclass
class Seen:
    """What one player saw of its game."""

    acks: dict[int, dict[str, Any]] = field(default_factory=dict)  # seq -> the action it sent
    events: dict[int, dict[str, Any]] = field(default_factory=dict)  # seq -> the public event
    reconnects: int = 0
    unknown: int = 0  # actions sent whose acknowledgement never came (the connection dropped first)
    refusals: list[dict[str, Any]] = field(default_factory=list)
    final_seq: int | None = None


class Player:
    """One seat of one table, played through ``ws_base`` until the game is over."""

    def __init__(self, ws_base: str, table: str, seat: int, token: str, seed: int, think: float = 0.03) -> None:
        self.url = f"{ws_base}/ws/tables/{table}"
        self.table, self.seat, self.token = table, seat, token
        self.rng = random.Random(seed)
        self.think = think
        self.seen = Seen()

    async def play(self, deadline: float) -> Seen:
        async with aiohttp.ClientSession() as http:
            while time.monotonic() < deadline:
                try:
                    if await self.session(http):
                        return self.seen
                except (TimeoutError, aiohttp.ClientError, ConnectionError):
                    pass
                self.seen.reconnects += 1
                await asyncio.sleep(0.1 + 0.2 * self.rng.random())
        raise TimeoutError(f"table {self.table} seat {self.seat}: the game did not end in time")

    async def session(self, http: aiohttp.ClientSession) -> bool:
        """One connection: True once the game is over, False when the connection ends first."""
        async with http.ws_connect(self.url, heartbeat=None, timeout=aiohttp.ClientWSTimeout(ws_close=2)) as ws:
            await ws.send_str(json.dumps({"type": "hello", "token": self.token}))
            pending: dict[str, Any] | None = None
            latest: dict[str, Any] | None = None
            acked = 0  # act only on a snapshot from after this connection's last acknowledged action
            while True:
                if (
                    latest is not None
                    and pending is None
                    and latest["seq"] >= acked
                    and self.seat in latest["view"]["to_act"]
                ):
                    await asyncio.sleep(self.rng.uniform(0, 2 * self.think))
                    pending = choose(latest["view"], self.rng)
                    await ws.send_str(json.dumps({"type": "act", "action": pending, "id": latest["seq"]}))
                message = await ws.receive(timeout=10)  # a quiet connection may be to a paused node
                if message.type != aiohttp.WSMsgType.TEXT:
                    if pending is not None:
                        self.seen.unknown += 1
                    return False
                m = json.loads(message.data)
                kind = m["type"]
                if kind in ("welcome", "state"):
                    if m.get("event"):
                        self.seen.events[m["event"]["seq"]] = m["event"]
                    if latest is None or m["seq"] >= latest["seq"]:
                        latest = m
                    if m["status"] == "over":
                        self.seen.final_seq = m["seq"]
                        return True
                    if kind == "welcome" and pending is not None:  # cannot happen: one hello per connection
                        raise AssertionError("welcomed twice")
                elif kind == "ack":
                    assert pending is not None, m
                    self.seen.acks[m["seq"]] = pending
                    acked, pending = m["seq"], None
                elif kind == "error":
                    self.seen.refusals.append(m)
                    if m["code"] in ("moved", "busy", "unavailable"):  # changing hands, or the database away: again
                        return False
                    raise AssertionError(f"table {self.table} seat {self.seat} refused: {m}")


def new_game(
    base: str, players: int, seats: list[str | None] | None = None, name: str = "cluster", join: bool = True
) -> tuple[str, list[int], list[str]]:
    """Create a public table through ``base`` and (with ``join``) take every human seat: ``(table id, seats, tokens)``."""
    with httpx.Client(base_url=base, timeout=30) as http:
        created = http.post("/api/tables", json={"players": players, "seats": seats, "name": name})
        assert created.status_code == 201, created.text
        table = created.json()["table"]
        humans, tokens = [], []
        for seat in table["open_seats"] if join else []:
            joined = http.post(f"/api/tables/{table['id']}/join", json={"seat": seat})
            assert joined.status_code == 200, joined.text
            humans.append(seat)
            tokens.append(joined.json()["token"])
        return table["id"], humans, tokens


def event_matches(event: dict[str, Any], seat: int, action: dict[str, Any]) -> bool:
    """Whether a public event is this logged action (a sale choice is public only as a commit)."""
    if event["seat"] != seat:
        return False
    if "bid" in action:
        return event["kind"] == "bid" and event["amount"] == action["bid"]
    if "pass" in action:
        return event["kind"] == "pass"
    return event["kind"] == "commit"


def check_game(log: list[Any], players: list[Player], bot_seats: set[int]) -> None:
    """The event log of one game against what its players saw: nothing lost, nothing twice, in order.

    ``log`` is ``(seq, seat, action JSON text, source)`` ordered by seq.
    """
    seqs = [row[0] for row in log]
    assert seqs == list(range(1, len(log) + 1)), f"the log's seqs are not 1..n: {seqs}"
    by_seq = {row[0]: (row[1], json.loads(row[2]), row[3]) for row in log}
    for row in log:  # every move was made by whom it should be: no clock or absence played for a player
        assert row[3] == ("bot" if row[1] in bot_seats else "player"), row
    for player in players:
        seen = player.seen
        assert seen.final_seq == len(log), (player.table, player.seat, seen.final_seq, len(log))
        for seq, action in seen.acks.items():  # every acknowledged action is in the log, where it was acked
            assert by_seq[seq][:2] == (player.seat, action), (player.table, seq, by_seq[seq], action)
        for seq, event in seen.events.items():  # every event a player was shown is the log's
            seat, action, _ = by_seq[seq]
            assert event_matches(event, seat, action), (player.table, seq, event, by_seq[seq])
        logged = [seq for seq, (seat, _, _) in by_seq.items() if seat == player.seat]
        unacked = [seq for seq in logged if seq not in seen.acks]
        assert len(unacked) <= seen.unknown, (player.table, player.seat, unacked, seen.unknown)


class Games(threading.Thread):
    """Players for every human seat of some games, playing in a thread of their own while the test acts."""

    def __init__(self, ws_base: str, games: list[tuple[str, list[int], list[str]]], think: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.players = {
            table: [
                Player(ws_base, table, seat, token, hash((table, seat)), think) for seat, token in zip(seats, tokens)
            ]
            for table, seats, tokens in games
        }
        self.error: BaseException | None = None
        self.timeout = 150.0

    def run(self) -> None:
        deadline = time.monotonic() + self.timeout
        try:
            asyncio.run(self._all(deadline))
        except BaseException as error:  # handed to the test by finish()
            self.error = error

    async def _all(self, deadline: float) -> None:
        await asyncio.gather(*(p.play(deadline) for players in self.players.values() for p in players))

    def failed(self) -> bool:
        """Raise the players' error if they stopped on one (so a wait on the game fails at once)."""
        if self.error is not None:
            raise self.error
        return False

    def finish(self) -> dict[str, list[Player]]:
        """Wait for every game to end; the players of each table."""
        self.join(self.timeout + 10)
        assert not self.is_alive(), "the players did not finish"
        if self.error is not None:
            raise self.error
        return self.players
