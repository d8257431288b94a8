"""The load benchmark's clients, and the measurement of a running server under their load.

Each table is a *slot* (:class:`Slot`) that creates a private table through
the lobby API, joins its four seats, connects four WebSocket clients and
plays a whole game with a fast heuristic (:func:`heuristic`) on the client
side, then the next, until the measurement window closes. The window opens
only once every table has been seated (and the stagger is over): seating
thousands of tables is work of its own, and a window that opened while it
was still going measured the backlog of seating, not play (a PostgreSQL run
of 2,000 tables seated its last tables 9 s into the window, which made its
p99 480-540 ms, against 21 ms once the window waited). The clients run in
``procs`` spawned processes (:func:`client_process`), which find this code by
its module name, ``harness.load``: a spawned child inherits its parent's
import path, where ``bench/`` is (a script's own folder; pytest's
``pythonpath``). :func:`measure` plays the load against a server or a
cluster's load balancer and reports actions per second, the acknowledgement
latency and the server's CPU per action. ``bench/server_load.py`` measures
one server with it, ``bench/cluster_load.py`` a cluster.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import math
import multiprocessing
import multiprocessing.connection
import os
import random
import resource
import statistics
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import orjson
import uvloop

from .stats import percentile

loads = orjson.loads


def dumps(message: dict[str, Any]) -> str:
    return orjson.dumps(message).decode()


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def heuristic(v: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A fast bot: bid while the spread on the table is worth it, sell by rank in the sale phase."""
    if v["phase"] == "auction":
        seat = v["seat"]
        table = v["table"]
        worth = (max(table) - min(table)) // 5 + (1 if rng.random() < 0.3 else 0)
        if v["coins"][seat] > v["high"] and v["high"] + 1 <= worth:
            return {"bid": v["high"] + 1}
        return {"pass": True}
    hand = sorted(v["hands"][v["seat"]])
    return {"sell": hand[-1] if max(v["table"]) >= 10 else hand[0]}


class Slot:
    """One of the N concurrent tables: it plays game after game until the measurement window closes."""

    def __init__(self, run: Run, rng: random.Random) -> None:
        self.run = run
        self.rng = rng

    async def main(self, start: float) -> None:
        await asyncio.sleep(max(0.0, start - time.time()))
        first = True
        while time.time() < self.run.window_end:
            table_id, tokens = await self.run.new_table()
            seats = await asyncio.gather(*(self.run.open_seat(table_id, token) for token in tokens))
            if first:
                self.run.seated_one()
                first = False
            finished = await asyncio.gather(*(self.play_seat(ws, welcome) for ws, welcome in seats))
            if all(finished):
                self.run.games.append(table_id)
            else:
                self.run.abandoned += 1

    async def play_seat(self, ws: Any, latest: dict[str, Any]) -> bool:
        """Play one seat until the game ends (True) or the window closes (False: the game is abandoned)."""
        run, rng = self.run, self.rng
        acked = 0
        sent_at: float | None = None
        try:
            while True:
                if latest["status"] == "over":
                    return True
                if sent_at is None and latest["seq"] >= acked and latest["seat"] in latest["view"]["to_act"]:
                    if run.think:
                        await asyncio.sleep(rng.uniform(0, 2 * run.think))
                    if time.time() >= run.window_end:
                        return False
                    action = heuristic(latest["view"], rng)
                    sent_at = time.perf_counter()
                    await ws.send_str(dumps({"type": "act", "action": action}))
                try:
                    message = loads(await ws.receive_str())
                except (TypeError, aiohttp.ClientError):  # closed: the window is over (see Run.main)
                    return False
                kind = message["type"]
                if kind == "state":
                    if message["seq"] >= latest["seq"]:
                        latest = message
                elif kind == "ack":
                    assert sent_at is not None
                    run.acks.append((time.time(), time.perf_counter() - sent_at))
                    acked, sent_at = message["seq"], None
                elif kind == "error":
                    raise RuntimeError(f"the server refused a move: {message}")
        finally:
            await ws.close()
            run.sockets.discard(ws)


class Run:
    """One client process: its share of the slots, an HTTP client for the lobby, and what it measured.

    It tells its parent on ``conn`` once each of its slots has seated its first table, and learns the
    measurement window from it then (:func:`measure`); until then the window has no end.
    """

    def __init__(self, http_base: str, ws_base: str, think: float, conn: multiprocessing.connection.Connection) -> None:
        self.http_base, self.ws_base = http_base, ws_base
        self.think = think
        self.conn = conn
        self.window_end = math.inf
        self.slots = 0
        self.seated = 0
        self.acks: list[tuple[float, float]] = []  # (wall time of the ack, latency in seconds)
        self.games: list[str] = []
        self.abandoned = 0
        self.gate = asyncio.Semaphore(32)  # thousands of handshakes at once would time out
        self.http: aiohttp.ClientSession | None = None
        self.sockets: set[Any] = set()

    async def new_table(self) -> tuple[str, list[str]]:
        """A private table of four, every seat joined through the lobby API, as four people would."""
        assert self.http is not None
        async with self.gate:
            async with self.http.post("/api/tables", json={"players": 4, "private": True}) as created:
                table_id = (await created.json())["table"]["id"]
            tokens = []
            for _ in range(4):
                async with self.http.post(f"/api/tables/{table_id}/join", json={}) as joined:
                    tokens.append((await joined.json())["token"])
        return table_id, tokens

    async def open_seat(self, table_id: str, token: str) -> tuple[Any, dict[str, Any]]:
        """Connect and say hello; returns the socket and the welcome snapshot."""
        async with self.gate:
            assert self.http is not None
            ws = await self.http.ws_connect(f"{self.ws_base}/ws/tables/{table_id}", max_msg_size=0)
            self.sockets.add(ws)
            await ws.send_str(dumps({"type": "hello", "token": token}))
            while True:
                message = loads(await ws.receive_str())
                if message["type"] == "welcome":
                    return ws, message

    def seated_one(self) -> None:
        """A slot seated its first table; once all have, tell the parent (it opens the window)."""
        self.seated += 1
        if self.seated == self.slots:
            self.conn.send(("seated", time.time()))

    async def close_at_the_end(self) -> None:
        """Learn the window from the parent; once it has closed, hang up on the games still going (their seats
        may be waiting for a seat that has already stopped, and the server would wait out its grace period)."""
        loop = asyncio.get_running_loop()
        told: asyncio.Future[tuple[float, float]] = loop.create_future()

        def wait() -> None:  # a daemon thread: a process whose slot failed exits without waiting for the window
            with contextlib.suppress(EOFError, OSError, RuntimeError):
                window = self.conn.recv()
                loop.call_soon_threadsafe(told.set_result, window)

        threading.Thread(target=wait, daemon=True).start()
        _, self.window_end = await told
        await asyncio.sleep(max(0.0, self.window_end - time.time()) + 1.0)
        for ws in list(self.sockets):
            await ws.close()

    async def main(self, starts: list[float], seed: int) -> dict[str, Any]:
        rng = random.Random(seed)
        connector = aiohttp.TCPConnector(limit=0)
        timeout = aiohttp.ClientTimeout(total=None, connect=120)
        async with aiohttp.ClientSession(self.http_base, connector=connector, timeout=timeout) as self.http:
            cpu = time.process_time()
            slots = [Slot(self, random.Random(rng.random())) for _ in starts]
            self.slots = len(slots)
            if not slots:
                self.conn.send(("seated", time.time()))
            closer = asyncio.create_task(self.close_at_the_end())
            await asyncio.gather(*(slot.main(start) for slot, start in zip(slots, starts)))
            await closer  # the window has closed and every slot has stopped: the sockets are closed already
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        return {
            "acks": self.acks,
            "games": self.games,
            "abandoned": self.abandoned,
            "cpu": time.process_time() - cpu,
            "rss_mb": rss_mb,
        }


SEATING_GRACE_S = 120.0
"""Seconds after the stagger that :func:`measure` waits for the last tables to be seated before it opens the
window anyway (and says so)."""

# How long the client processes may take to start (a spawned interpreter importing aiohttp and
# uvloop): generous, for a loaded machine; the measured window is timed from their readiness.
CLIENTS_READY_S = 300.0


def client_process(conn: multiprocessing.connection.Connection, http_base: str, ws_base: str, think: float) -> None:
    """One process of clients, as light as it can be made so that the server gets the CPU.

    It says "ready" on ``conn`` once started, then receives its slots' start
    times and its seed, plays, says ``("seated", time)`` once every slot has
    seated its first table, receives the measurement window, and once it has
    closed sends back what it measured (or ``{"error": traceback}``).

    The load generator shares the machine's two cores with the server, so its
    own costs show up in the latencies it measures: it uses aiohttp (whose
    WebSocket frames are parsed in C), parses JSON with orjson, and runs on
    uvloop. Its cyclic garbage collector is off: with 2,000 sockets open its
    collections paused the clients for tens of milliseconds (hundreds for a
    full one), and every acknowledgement that arrived meanwhile was counted
    as that much slower. Cycles it leaves behind are never freed, which a
    run of a few minutes can afford: its peak RSS is reported (about 130 MB
    for 500 tables over the default two minutes).
    """
    gc.disable()
    conn.send("ready")
    starts, seed = conn.recv()
    try:
        result = uvloop.run(Run(http_base, ws_base, think, conn).main(starts, seed))
    except Exception:
        result = {"error": traceback.format_exc()}
    conn.send(result)
    conn.close()


def start_clients(procs: int, http_base: str, ws_base: str, think: float) -> list[Any]:
    """Spawn the client processes and wait until every one is ready; returns a pipe to each."""
    context = multiprocessing.get_context("spawn")
    pipes = []
    for _ in range(procs):
        mine, theirs = context.Pipe()
        context.Process(target=client_process, args=(theirs, http_base, ws_base, think), daemon=True).start()
        theirs.close()
        pipes.append(mine)
    deadline = time.monotonic() + CLIENTS_READY_S
    for pipe in pipes:
        try:
            if not pipe.poll(max(0.0, deadline - time.monotonic())):
                raise SystemExit(f"the client processes were not ready within {CLIENTS_READY_S:.0f} s")
            assert pipe.recv() == "ready"
        except EOFError:
            raise SystemExit("a client process exited before it was ready (its error is above)") from None
    return pipes


def received(pipe: Any) -> Any:
    """The next message of a client process; a clear exit if it died or failed."""
    try:
        message = pipe.recv()
    except EOFError:
        raise SystemExit("a client process died during the run (its error is above)") from None
    if isinstance(message, dict) and "error" in message:
        raise SystemExit(f"a client process failed:\n{message['error']}")
    return message


def seat_all(pipes: list[Any], t0: float, stagger: float, tick: Callable[[], None]) -> float | None:
    """Wait for the stagger to end and every client process to say its tables are seated; the moment the last
    one was (None if some were still being seated after :data:`SEATING_GRACE_S` more)."""
    give_up = t0 + stagger + SEATING_GRACE_S
    seated: dict[int, float] = {}
    while time.time() < t0 + stagger or (len(seated) < len(pipes) and time.time() < give_up):
        for i, pipe in enumerate(pipes):
            if i not in seated and pipe.poll():
                _, seated[i] = received(pipe)
        time.sleep(0.1)
        tick()
    return max(seated.values()) if len(seated) == len(pipes) else None


def client_results(pipes: list[Any]) -> list[dict[str, Any]]:
    """What each client process measured (they send it once their games have closed)."""
    return [received(pipe) for pipe in pipes]


def measure(http_base: str, ws_base: str, pids: list[int], args: argparse.Namespace, label: str) -> dict[str, Any]:
    """Play the load against a running server (or a cluster's load balancer); ``pids``: whose CPU to count."""
    tables, think, procs = args.tables, args.think, args.procs
    stagger = args.stagger if args.stagger is not None else max(5.0, 60.0 * think)
    pipes = start_clients(procs, http_base, ws_base, think)
    t0 = time.time()  # every client is ready: the stagger, then the seating, then the window, are timed from now
    rng = random.Random(args.seed)
    starts = [t0 + rng.uniform(0, stagger) for _ in range(tables)]
    for i, pipe in enumerate(pipes):
        pipe.send((starts[i::procs], args.seed + i))
    with progress(stagger, args.duration) as (tick, opened):
        all_seated = seat_all(pipes, t0, stagger, tick)
        if all_seated is None:
            print(
                f"load: some tables were still being seated {SEATING_GRACE_S:.0f} s after the stagger; "
                "the window opens anyway (the server cannot keep up with seating this many)",
                file=sys.stderr,
            )
        now = time.time()
        window = (now, now + args.duration)
        for pipe in pipes:
            pipe.send(window)
        opened()
        server_cpu0 = sum(cpu_seconds(pid) for pid in pids)
        while time.time() < window[1]:
            time.sleep(min(0.5, max(0.0, window[1] - time.time())))
            tick()
        server_cpu = sum(cpu_seconds(pid) for pid in pids) - server_cpu0
    results = client_results(pipes)
    acks = [a for r in results for a in r["acks"]]
    inside = sorted(latency for at, latency in acks if window[0] <= at < window[1])
    if not inside:
        raise SystemExit("no action was acknowledged inside the measurement window")
    games = [g for r in results for g in r["games"]]
    with httpx.Client(base_url=http_base, timeout=60) as http:
        missing = [g for g in games if http.get(f"/api/tables/{g}").json()["table"]["status"] != "over"]
    assert not missing, f"{len(missing)} games the clients finished are not over on the server"
    out = {
        "db": label,
        "server_args": args.server_arg,
        "tables": tables,
        "think": think,
        "duration": args.duration,
        "stagger": stagger,
        "all_seated_s": None if all_seated is None else round(all_seated - t0, 1),
        "window_opened_s": round(window[0] - t0, 1),
        "actions": len(inside),
        "actions_per_s": round(len(inside) / args.duration, 1),
        "p50_ms": round(1000 * percentile(inside, 0.5), 2),
        "p99_ms": round(1000 * percentile(inside, 0.99), 2),
        "max_ms": round(1000 * inside[-1], 2),
        "mean_ms": round(1000 * statistics.fmean(inside), 2),
        "server_cpu_s": round(server_cpu, 2),
        "server_cpu_ms_per_action": round(1000 * server_cpu / len(inside), 3),
        "client_cpu_s": round(sum(r["cpu"] for r in results), 2),
        "client_peak_rss_mb": max(r["rss_mb"] for r in results),
        "games_finished": len(games),
        "games_abandoned_at_the_end": sum(r["abandoned"] for r in results),
        "load_average": os.getloadavg()[0],
    }
    if args.plot:
        plot(acks, window, out, args.plot)
    return out


@contextlib.contextmanager
def progress(stagger: float, duration: float) -> Iterator[tuple[Callable[[], None], Callable[[], None]]]:
    """A progress bar over the stagger and the seating, then over the measurement window (rich, on stderr):
    ``(tick, opened)``, ``opened()`` once the window has opened (the seating's length is not known before)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    columns = [TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed:.0f}/{task.total:.0f} s")]
    with Progress(*columns, TimeRemainingColumn(), transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("load test: seating", total=stagger)
        start, total = time.time(), stagger

        def tick() -> None:
            bar.update(task, completed=min(total, time.time() - start))

        def opened() -> None:
            nonlocal start, total
            start, total = time.time(), duration
            bar.update(task, description="load test: window", total=duration, completed=0)

        yield tick, opened


def plot(acks: list[tuple[float, float]], window: tuple[float, float], out: dict[str, Any], path: str) -> None:
    """Latency percentiles and throughput per second over the whole run, the measurement window shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    start = min(at for at, _ in acks)
    buckets: dict[int, list[float]] = {}
    for at, latency in acks:
        buckets.setdefault(int(at - start), []).append(1000 * latency)
    xs = sorted(buckets)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for q, style in ((0.5, "-"), (0.99, "--")):
        top.plot(xs, [percentile(sorted(buckets[x]), q) for x in xs], style, label=f"p{int(q * 100)}")
    top.axhline(100, color="red", linewidth=0.8, label="100 ms")
    top.set_yscale("log")
    top.set_ylabel("ack latency (ms)")
    top.legend()
    bottom.plot(xs, [len(buckets[x]) for x in xs])
    bottom.set_ylabel("actions / s")
    bottom.set_xlabel("seconds since the first action")
    for axis in (top, bottom):
        axis.axvspan(window[0] - start, window[1] - start, color="grey", alpha=0.15)
    fig.suptitle(
        f"{out['tables']} tables on {out['db']}, think {out['think']} s: {out['actions_per_s']} actions/s, "
        f"p50 {out['p50_ms']} ms, p99 {out['p99_ms']} ms (shaded: window)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
