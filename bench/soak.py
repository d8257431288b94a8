"""Soak test: hundreds of tables for minutes, with churn, hostile clients and a ``kill -9`` in the middle.

Starts ``forsale serve`` in a subprocess (a fresh SQLite file; ``--db
postgresql`` for a throw-away cluster, or any database URL) and keeps
``--tables`` tables of four playing game after game over real WebSockets on
loopback, each seat a client with the fast heuristic of
``bench/server_load.py`` and a random pause before each decision (``--think``).
The server keeps its limit of WebSockets per client address (256): the seats
of each :data:`TABLES_PER_ADDRESS` tables connect from their own loopback
address (127.0.0.2, 127.0.0.3, ...), and a seat refused all the same waits
the ``retry_after`` it is told. Meanwhile:

- **churn**: after an acknowledged action a seat hangs up with probability
  ``--churn`` and reconnects with its token at once (a tab reloaded);
- **hostile clients** (``--hostile``) send malformed, mutated, out-of-turn,
  oversize, binary and flooding messages to live tables and hostile bodies to
  the REST API; any answer other than an error (or a pong to a valid ping) is
  counted as a violation, and so is any 5xx;
- **a crash**: at ``--kill-at`` of the run the server is killed with SIGKILL
  and restarted on the same database; every client reconnects with its token
  and plays on.

When the time is up no new game starts and the games under way are played
out without pauses, so that every game ends. Then every game is checked:
its record (``GET /api/tables/{id}/record``) referees as a complete game
(:func:`forsale.record.referee`, and ``forsale replay`` on a few of them),
its result is the referee's, and **every acknowledged action is in the
stored record at the position its ``seq`` says**. It reports actions per
second, the p50/p99 latency from sending an action to its acknowledgement,
the server's memory (RSS) over time (``--plot``), and exits 1 if any check
failed.

    python bench/soak.py                       # 300 tables, 10 minutes, SQLite
    python bench/soak.py --db postgresql --plot soak.png
    python bench/soak.py --tables 5 --minutes 0.33 --think 0.1   # the smoke test's run
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import uvloop

from forsale import referee
from harness.db import database
from harness.load import dumps, heuristic, loads
from harness.serve import ServeProcess
from harness.stats import percentile

BENCH = Path(__file__).resolve().parent


TABLES_PER_ADDRESS = 32
"""Tables whose seats connect from one loopback address (127.0.0.2, 127.0.0.3, ...): 128 sockets, half of
``forsale serve``'s limit per address (256), with room for the reconnections of churn. All 300 tables from one
address held 1,200 sockets: the server refused the rest, and their clients reconnected 1.4 million times."""


class Disconnected(Exception):
    """The connection dropped (churn, a server kill, or the server hanging up).

    ``retry_after``: seconds the server asked to wait (a ``too_many_connections`` refusal), else 0.
    """

    def __init__(self, why: str, retry_after: float = 0.0) -> None:
        super().__init__(why)
        self.retry_after = retry_after


@dataclass
class Ack:
    table: str
    seq: int
    seat: int
    action: dict[str, Any]
    at: float  # seconds since the start
    latency: float  # seconds from sending to the ack


@dataclass
class Soak:
    """The whole run: settings, the clients' shared state, and what was measured."""

    base: str
    args: argparse.Namespace
    server: ServeProcess
    start: float = field(default_factory=time.monotonic)
    end: float = 0.0
    draining: bool = False
    acks: list[Ack] = field(default_factory=list)
    games: list[str] = field(default_factory=list)  # every table created, in order
    live: set[str] = field(default_factory=set)  # tables with a game under way (for the hostile clients)
    tokens: dict[str, list[str]] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    rss: list[tuple[float, float]] = field(default_factory=list)  # (seconds, MiB)
    kill_at: float | None = None
    back_at: float | None = None
    http: aiohttp.ClientSession | None = None  # the lobby's and the hostile clients' (from 127.0.0.1)
    seats_http: list[aiohttp.ClientSession] = field(default_factory=list)  # the seats', one per loopback address

    @property
    def ws_base(self) -> str:
        return "ws" + self.base[len("http") :]

    def now(self) -> float:
        return time.monotonic() - self.start

    def problem(self, text: str) -> None:
        self.counts["problems"] += 1
        if len(self.problems) < 50:
            self.problems.append(text[:400])

    # -- the lobby, through a server that may be down ----------------------------------------
    async def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST, retried while the server is down (connection refused during the restart)."""
        assert self.http is not None
        while True:
            try:
                async with self.http.post(path, json=body) as response:
                    if response.status >= 500:
                        self.problem(f"POST {path}: {response.status}")
                    if response.status < 400:
                        return await response.json()  # type: ignore[no-any-return]
                    raise RuntimeError(f"POST {path} {body}: {response.status} {await response.text()}")
            except (TimeoutError, aiohttp.ClientConnectionError):
                self.counts["lobby_retries"] += 1
                await asyncio.sleep(0.2)  # the server is restarting: try again shortly

    async def new_table(self) -> str:
        created = await self.post("/api/tables", {"players": 4, "private": True})
        table_id = created["table"]["id"]
        self.games.append(table_id)
        self.tokens[table_id] = [(await self.post(f"/api/tables/{table_id}/join", {}))["token"] for _ in range(4)]
        return table_id

    # -- honest seats ------------------------------------------------------------------------
    async def slot(self, rng: random.Random, delay: float, http: aiohttp.ClientSession) -> None:
        """One of the N tables: game after game until the time is up (the last game is played out).

        Its seats connect through ``http``, bound to this table's loopback address.
        """
        await asyncio.sleep(delay)
        while time.monotonic() < self.end:
            table_id = await self.new_table()
            self.live.add(table_id)
            seats = [self.seat(table_id, s, random.Random(rng.random()), http) for s in range(4)]
            await asyncio.gather(*seats)
            self.live.discard(table_id)
            self.counts["games_finished"] += 1

    async def seat(self, table_id: str, seat: int, rng: random.Random, http: aiohttp.ClientSession) -> None:
        """Play one seat to the end of its game, reconnecting with its token whenever the connection drops."""
        token = self.tokens[table_id][seat]
        unacked = [False]  # an action was sent on a connection that dropped before its ack came
        while True:
            try:
                if await self.play(table_id, seat, token, rng, http, unacked):
                    return
            except (TimeoutError, Disconnected, aiohttp.ClientError, ConnectionError) as dropped:
                self.counts["reconnect_attempts"] += 1
                told = dropped.retry_after if isinstance(dropped, Disconnected) else 0.0
                await asyncio.sleep(max(told, rng.uniform(0.05, 0.3)))  # a reconnecting client's back-off

    async def play(
        self, table_id: str, seat: int, token: str, rng: random.Random, http: aiohttp.ClientSession, unacked: list[bool]
    ) -> bool:
        """One connection's share of the game: True once the game is over, False to reconnect (churn).

        ``unacked[0]``: an action sent on an earlier connection was never acknowledged. The server's welcome
        holds every action it has taken (a hello waits for an action being stored), but the dead connection's
        action may reach the server after this connection's hello: the welcome then asks this seat for a
        move it has in fact made, and the same decision sent again is refused (``not_your_turn``: "it is
        seat 2's turn", "you have already chosen"). That refusal is counted, not taken for a server fault;
        nothing is applied twice, and the acknowledged actions are checked against the records all the same.
        """
        async with http.ws_connect(f"{self.ws_base}/ws/tables/{table_id}", max_msg_size=0) as ws:
            await ws.send_str(dumps({"type": "hello", "token": token}))
            latest = await self.receive(ws, "welcome")
            resend = unacked[0]  # this connection's first action may repeat one whose fate we do not know
            acked = 0
            sent: tuple[float, dict[str, Any], int] | None = None
            while True:
                if latest["status"] == "over":
                    return True
                if sent is None and latest["seq"] >= acked and seat in latest["view"]["to_act"]:
                    if not self.draining:
                        await asyncio.sleep(rng.uniform(0, 2 * self.args.think))
                    action = heuristic(latest["view"], rng)
                    msg_id = rng.randrange(1, 2**53)
                    sent = (time.perf_counter(), action, msg_id)
                    unacked[0] = True
                    await ws.send_str(dumps({"type": "act", "action": action, "id": msg_id}))
                message = await self.next_message(ws)
                kind = message["type"]
                if kind in ("state", "welcome"):
                    if message["seq"] >= latest["seq"]:
                        latest = message
                elif kind == "ack":
                    if sent is None or message["id"] != sent[2]:
                        self.problem(f"table {table_id} seat {seat}: an ack for nothing sent: {message}")
                        continue
                    latency = time.perf_counter() - sent[0]
                    self.acks.append(Ack(table_id, message["seq"], seat, sent[1], self.now(), latency))
                    acked, sent = message["seq"], None
                    unacked[0] = resend = False
                    if not self.draining and rng.random() < self.args.churn:
                        self.counts["churn"] += 1
                        return False
                elif kind == "error":
                    if message["code"] == "game_over":
                        return True
                    if resend and message["code"] == "not_your_turn":
                        self.counts["resent_after_drop_refused"] += 1  # the dropped connection's action was applied
                    else:
                        self.problem(f"table {table_id} seat {seat}: an honest move refused: {message}")
                    sent = None
                    unacked[0] = resend = False

    async def next_message(self, ws: Any) -> dict[str, Any]:
        frame = await ws.receive(timeout=120)
        if frame.type != aiohttp.WSMsgType.TEXT:
            raise Disconnected(str(frame.type))
        return loads(frame.data)  # type: ignore[no-any-return]

    async def receive(self, ws: Any, kind: str) -> dict[str, Any]:
        while True:
            message = await self.next_message(ws)
            if message["type"] == kind:
                return message
            if message["type"] == "error":
                if message.get("code") == "too_many_connections":
                    self.counts["refused_too_many_sockets"] += 1
                raise Disconnected(f"refused: {message}", float(message.get("params", {}).get("retry_after", 0)))

    # -- hostile clients ---------------------------------------------------------------------
    async def hostile(self, rng: random.Random) -> None:
        """Bad messages and requests at random live tables until the time is up; counts what got through."""
        while time.monotonic() < self.end:
            await asyncio.sleep(rng.uniform(0, 2 * self.args.hostile_pause))
            if not self.live:
                continue
            table_id = rng.choice(sorted(self.live))
            try:
                if rng.random() < 0.25:
                    await self.hostile_rest(table_id, rng)
                else:
                    await self.hostile_socket(table_id, rng)
            except (TimeoutError, aiohttp.ClientError, ConnectionError, Disconnected):
                self.counts["hostile_disconnected"] += 1  # the server hung up (a flood) or was killed

    async def hostile_socket(self, table_id: str, rng: random.Random) -> None:
        assert self.http is not None
        async with self.http.ws_connect(f"{self.ws_base}/ws/tables/{table_id}", max_msg_size=0) as ws:
            role = rng.choice(["twin", "spectator", "stranger"])
            if role != "stranger":
                token = rng.choice(self.tokens[table_id]) if role == "twin" else None
                await ws.send_str(dumps({"type": "hello", "token": token}))
                await self.receive(ws, "welcome")
            frames = [hostile_frame(rng) for _ in range(rng.choice([1, 1, 3, 60]))]
            for frame in frames:
                if isinstance(frame, bytes):
                    await ws.send_bytes(frame)
                else:
                    await ws.send_str(frame)
            replies = 0
            while replies < len(frames):
                message = await self.next_message(ws)
                if message["type"] in ("state", "table"):
                    continue
                replies += 1
                self.counts["hostile_messages"] += 1
                if message["type"] != "error":
                    self.counts["hostile_violations"] += 1
                    self.problem(f"a hostile message to {table_id} got {message}")

    async def hostile_rest(self, table_id: str, rng: random.Random) -> None:
        assert self.http is not None
        path = rng.choice(["/api/tables", "/api/solo", f"/api/tables/{table_id}/join", f"/api/tables/{table_id}/leave"])
        body = rng.choice(HOSTILE_BODIES)
        async with self.http.post(path, data=body, headers={"Content-Type": "application/json"}) as response:
            self.counts["hostile_requests"] += 1
            if response.status >= 500 or response.status < 400:
                self.counts["hostile_violations"] += 1
                self.problem(f"POST {path} {body[:100]!r}: {response.status}")

    # -- the server: memory, and the crash ---------------------------------------------------
    async def watch(self) -> None:
        """Sample the server's RSS every second; kill it with SIGKILL at ``--kill-at`` and restart it."""
        kill_at = self.args.kill_at * (self.end - self.start)
        while time.monotonic() < self.end:
            pid = self.server.proc.pid if self.server.proc is not None else None
            with contextlib.suppress(OSError, ValueError):
                self.rss.append((self.now(), rss_mib(pid)))  # type: ignore[arg-type]
            if self.kill_at is None and self.args.kill_at > 0 and self.now() >= kill_at:
                self.kill_at = self.now()
                self.server.kill9()
                await asyncio.to_thread(self.server.start)
                self.back_at = self.now()
            await asyncio.sleep(1.0)

    async def main(self) -> None:
        rng = random.Random(self.args.seed)
        self.end = self.start + 60 * self.args.minutes
        connector = aiohttp.TCPConnector(limit=0)
        timeout = aiohttp.ClientTimeout(total=None, connect=60, sock_read=120)
        stagger = min(10.0, 60 * self.args.minutes / 4)
        async with aiohttp.ClientSession(self.base, connector=connector, timeout=timeout) as self.http:
            watcher = asyncio.create_task(self.watch())
            hostiles = [
                asyncio.create_task(self.hostile(random.Random(rng.random()))) for _ in range(self.args.hostile)
            ]
            self.seats_http = [
                aiohttp.ClientSession(
                    self.base,
                    connector=aiohttp.TCPConnector(limit=0, local_addr=(f"127.0.0.{2 + i}", 0)),
                    timeout=timeout,
                )
                for i in range(-(-self.args.tables // TABLES_PER_ADDRESS))
            ]
            slots = [
                self.slot(
                    random.Random(rng.random()), rng.uniform(0, stagger), self.seats_http[i // TABLES_PER_ADDRESS]
                )
                for i in range(self.args.tables)
            ]
            done = asyncio.gather(*slots)
            await asyncio.sleep(max(0.0, self.end - time.monotonic()))
            self.draining = True
            await asyncio.wait_for(done, timeout=self.args.drain)
            await watcher
            for task in hostiles:
                task.cancel()
            await asyncio.gather(*hostiles, return_exceptions=True)
            for http in self.seats_http:
                await http.close()


# -- hostile input -------------------------------------------------------------------------------
BAD_IDS = [10**30, 2**64, -(2**63) - 1, "\ud800", "x" * 65, 1.5, True, [1], {"a": 1}]
HOSTILE_BODIES = [
    b"[" * 1000, b'{"players": 4' + b"}" * 3, b'{"seats": ["hard:time=1e9", null, null, null]}', b"\xff\xfe",
    b'{"time_limit": "30"}', b'{"players": 1e400}', b'{"players": true}', b'{"token": 5}', b"null", b"[]",
    json.dumps({"name": "\ud800"}).encode(), json.dumps({"x": "y" * 70_000}).encode(),
]  # fmt: skip


def hostile_frame(rng: random.Random) -> str | bytes:
    """One frame the server must refuse with an error (never a legal move: every act has a broken field)."""
    choice = rng.randrange(10)
    if choice == 0:
        return json.dumps({"type": "act", "action": {"pass": True}, "id": rng.choice(BAD_IDS)})
    if choice == 1:
        return json.dumps({"type": "act", "action": {"bid": rng.choice([5.0, "5", True, None, 10**30, 0])}})
    if choice == 2:
        return json.dumps({"type": "act", "action": {"pass": rng.choice([1, 1.0, "true", False])}})
    if choice == 3:
        return json.dumps({"type": "act", "action": {"sell": rng.choice([0, 31, 5.5, "7"])}, "extra": 1})
    if choice == 4:
        return json.dumps({"type": rng.choice(["ACT", "", 1, None, "nope"]), "id": rng.choice(BAD_IDS)})
    if choice == 5:
        return "[" * rng.randrange(1, 60_000)
    if choice == 6:
        return json.dumps({"type": "ping", "pad": "z" * 70_000})
    if choice == 7:
        return bytes(rng.randrange(256) for _ in range(20))
    if choice == 8:
        return rng.choice(['{"type": "ping"', "nul", "{}", "[]", "17", '"act"'])
    return json.dumps({"type": "hello", "token": rng.choice([5, ["t"], "t" * 201]), "id": 1})


# -- the checks ------------------------------------------------------------------------------------
def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise ValueError("no VmRSS")


def event_slots(record: dict[str, Any]) -> list[Any]:
    """What each event of the game's log (seq 1, 2, ...) was, from its record.

    An auction move is one event, ``(seat, action)``; a sale round is one
    move in the record but one event per seat, in an order the record does
    not keep: each of those events is the round's ``{seat: house}`` map.
    """
    slots: list[Any] = []
    for move in record["moves"]:
        if "sell" in move:
            round_ = {seat: house for seat, house in enumerate(move["sell"])}
            slots.extend([round_] * len(move["sell"]))
        else:
            action = {"bid": move["bid"]} if "bid" in move else {"pass": True}
            slots.append((move["seat"], action))
    return slots


async def check_games(soak: Soak) -> dict[str, Any]:
    """Every game finished, referees, has the referee's result, and holds every acknowledged action."""
    by_table: dict[str, list[Ack]] = {}
    for ack in soak.acks:
        by_table.setdefault(ack.table, []).append(ack)
    out = Counter[str]()
    records: list[dict[str, Any]] = []
    async with aiohttp.ClientSession(soak.base, timeout=aiohttp.ClientTimeout(total=120)) as http:
        for table_id in soak.games:
            async with http.get(f"/api/tables/{table_id}") as response:
                table = await response.json()
            if table["table"]["status"] != "over":
                soak.problem(f"table {table_id} did not finish: {table['table']['status']}")
                out["unfinished"] += 1
                continue
            async with http.get(f"/api/tables/{table_id}/record") as response:
                record = await response.json()
            records.append(record)
            status, result = referee(json.dumps(record))
            if status != 0 or not result.get("complete"):
                soak.problem(f"table {table_id}: the record does not referee: {result}")
                out["records_refused"] += 1
                continue
            if result["scores"] != table["result"]["scores"] or result["winners"] != table["result"]["winners"]:
                soak.problem(f"table {table_id}: the server's result {table['result']} is not the referee's {result}")
                out["results_wrong"] += 1
            slots = event_slots(record)
            if table["table"]["seq"] != len(slots):
                soak.problem(f"table {table_id}: seq {table['table']['seq']} but {len(slots)} events in the record")
                out["seq_wrong"] += 1
            for ack in by_table.get(table_id, []):
                slot = slots[ack.seq - 1] if 0 < ack.seq <= len(slots) else None
                stored = slot.get(ack.seat) if isinstance(slot, dict) else slot
                expected = ack.action["sell"] if isinstance(slot, dict) else (ack.seat, ack.action)
                if stored != expected:
                    soak.problem(f"table {table_id}: acked seq {ack.seq} {ack.seat} {ack.action}, stored {slot}")
                    out["acks_lost"] += 1
                out["acks_checked"] += 1
            out["records_refereed"] += 1
    out["cli_replays"] = cli_replays(records[:5], soak)
    return dict(out)


def cli_replays(records: list[dict[str, Any]], soak: Soak) -> int:
    """``forsale replay FILE`` on a few records: the command a person would run says exit 0, complete."""
    done = 0
    with tempfile.TemporaryDirectory() as tmp:
        for record in records:
            path = Path(tmp) / f"{record['table']}.json"
            path.write_text(json.dumps(record))
            proc = subprocess.run(
                [sys.executable, "-m", "forsale", "replay", str(path)], capture_output=True, text=True
            )
            if proc.returncode != 0 or not json.loads(proc.stdout).get("complete"):
                soak.problem(f"forsale replay {record['table']}: exit {proc.returncode}: {proc.stdout} {proc.stderr}")
            done += 1
    return done


def summarise(soak: Soak, checks: dict[str, Any]) -> dict[str, Any]:
    duration = 60 * soak.args.minutes
    inside = [a for a in soak.acks if a.at <= duration]
    latencies = sorted(a.latency for a in inside)
    outage = (soak.kill_at or 0) - 1, (soak.back_at or 0) + 5
    steady = sorted(a.latency for a in inside if not outage[0] <= a.at <= outage[1])
    rss = [mib for _, mib in soak.rss]
    return {
        "db": soak.args.db,
        "tables": soak.args.tables,
        "minutes": soak.args.minutes,
        "think": soak.args.think,
        "actions": len(inside),
        "actions_per_s": round(len(inside) / duration, 1),
        "p50_ms": round(1000 * percentile(latencies, 0.5), 1) if latencies else None,
        "p99_ms": round(1000 * percentile(latencies, 0.99), 1) if latencies else None,
        "p99_ms_outside_restart": round(1000 * percentile(steady, 0.99), 1) if steady else None,
        "max_ms": round(1000 * latencies[-1], 1) if latencies else None,
        "kill_at_s": round(soak.kill_at, 1) if soak.kill_at is not None else None,
        "restart_s": round(soak.back_at - soak.kill_at, 2) if soak.kill_at is not None and soak.back_at else None,
        "rss_mib_start": round(rss[0], 1) if rss else None,
        "rss_mib_max": round(max(rss), 1) if rss else None,
        "rss_mib_end": round(rss[-1], 1) if rss else None,
        "games_created": len(soak.games),
        "refused_too_many_sockets": 0,  # said even when none: the seats' addresses keep each under the limit
        "resent_after_drop_refused": 0,
        **{k: v for k, v in sorted(soak.counts.items())},
        **checks,
        "server_log_tracebacks": soak.server.tracebacks(),
    }


def failed(out: dict[str, Any]) -> list[str]:
    """The checks that did not hold (empty: the soak passed)."""
    bad = [k for k in ("unfinished", "records_refused", "results_wrong", "seq_wrong", "acks_lost") if out.get(k)]
    bad += [k for k in ("problems", "hostile_violations", "server_log_tracebacks") if out.get(k)]
    if not out.get("acks_checked"):
        bad.append("no acknowledged action was checked")
    if out.get("kill_at_s") is None and out.get("kill_requested"):
        bad.append("the server was never killed")
    return bad


def plot(soak: Soak, out: dict[str, Any], path: str) -> None:
    """Actions per second, ack latency (p50, p99 per 5 s) and server RSS over the run; the crash marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    per_second = Counter(int(a.at) for a in soak.acks)
    buckets: dict[int, list[float]] = {}
    for a in soak.acks:
        buckets.setdefault(int(a.at // 5) * 5, []).append(1000 * a.latency)
    fig, (top, middle, bottom) = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    xs = sorted(per_second)
    top.plot(xs, [per_second[x] for x in xs], linewidth=0.8)
    top.set_ylabel("actions / s")
    bx = sorted(buckets)
    for q, style in ((0.5, "-"), (0.99, "--")):
        middle.plot(bx, [percentile(sorted(buckets[x]), q) for x in bx], style, label=f"p{int(q * 100)}")
    middle.set_yscale("log")
    middle.set_ylabel("ack latency (ms)")
    middle.legend()
    bottom.plot([t for t, _ in soak.rss], [m for _, m in soak.rss])
    bottom.set_ylabel("server RSS (MiB)")
    bottom.set_xlabel("seconds since the start")
    for axis in (top, middle, bottom):
        if soak.kill_at is not None:
            axis.axvline(soak.kill_at, color="red", linewidth=0.8)
        axis.axvline(60 * soak.args.minutes, color="grey", linewidth=0.8, linestyle=":")
    fig.suptitle(
        f"soak: {out['tables']} tables on {out['db']}, think {out['think']} s: {out['actions_per_s']} actions/s, "
        f"p99 {out['p99_ms']} ms (red: kill -9 and restart; dotted: end, then games played out)",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=300, help="concurrent tables of four (default 300)")
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to play (default 10)")
    parser.add_argument("--db", default="sqlite", help="sqlite (a fresh file), postgresql (a fresh cluster), or a URL")
    parser.add_argument("--think", type=float, default=1.0, help="mean pause before each decision, s (default 1)")
    parser.add_argument("--churn", type=float, default=0.02, help="chance a seat reconnects after an ack (0.02)")
    parser.add_argument("--hostile", type=int, default=10, help="hostile clients (default 10)")
    parser.add_argument("--hostile-pause", type=float, default=0.5, help="their mean pause between attacks, s")
    parser.add_argument("--kill-at", type=float, default=0.5, help="kill -9 at this fraction of the run; 0: never")
    parser.add_argument("--drain", type=float, default=300.0, help="seconds allowed to play out the last games")
    parser.add_argument("--seed", type=int, default=0, help="seed of the clients' choices and timings")
    parser.add_argument("--plot", help="save actions/s, latency and server RSS over time to this PNG")
    args = parser.parse_args()
    if args.tables < 1 or args.minutes <= 0 or args.think < 0 or not 0 <= args.kill_at < 1 or args.hostile < 0:
        parser.error("--tables >= 1, --minutes > 0, --think >= 0, 0 <= --kill-at < 1, --hostile >= 0")
    gc.disable()  # the clients' own collections would count against the server's latency (see server_load.py)
    with tempfile.TemporaryDirectory(prefix="forsale-soak-") as tmp, database(args.db, Path(tmp)) as url:
        server = ServeProcess(url, Path(tmp), "--rest-rate", "1000000", "--grace", "120", log_name="server.log").start()
        try:
            soak = Soak(server.base, args, server)
            uvloop.run(soak.main())
            checks = uvloop.run(check_games(soak))
            out = summarise(soak, checks)
            out["kill_requested"] = args.kill_at > 0
            if args.plot:
                plot(soak, out, args.plot)
        finally:
            server.stop()
            out_log = server.log.read_text(errors="replace")[-3000:] if server.log.exists() else ""
    bad = failed(out)
    print(json.dumps(out))
    for problem in soak.problems[:20]:
        print(f"  problem: {problem}")
    if out.get("server_log_tracebacks"):
        print(f"  server log (tail):\n{out_log}")
    print(
        f"soak db={out['db']} tables={out['tables']} minutes={out['minutes']}: {out['actions_per_s']} actions/s, "
        f"p50 {out['p50_ms']} ms, p99 {out['p99_ms']} ms, RSS {out['rss_mib_start']}-{out['rss_mib_max']} MiB, "
        f"{out.get('records_refereed', 0)} records refereed, {out.get('acks_checked', 0)} acks checked: "
        + ("PASS" if not bad else f"FAIL ({', '.join(bad)})")
    )
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
