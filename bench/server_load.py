"""Load test of the game server over real WebSockets on loopback.

Starts ``forsale serve`` in a subprocess (a fresh SQLite file; or PostgreSQL:
a URL, or ``--db postgresql`` for a throw-away cluster like the test suite
starts) and keeps N tables of four busy: each table is a *slot* that creates a
private table through the lobby API, joins its four seats, connects four
WebSocket clients and plays a whole game with a fast heuristic bot on the
client side (no server-side bots), then starts the next game, until the
measurement window closes.

The clock starts once every client process says it is ready (spawning
them on a loaded machine can take many seconds). Then tables start at random
times over ``--stagger`` seconds, so that, as on a
real server, they are in different phases of their games; then the window
of ``--duration`` seconds opens, during which all N tables are playing. The
figures count only actions acknowledged inside the window: actions per
second and the p50/p99 latency from sending an action to receiving its
acknowledgement (which the server sends only after the action is committed
to the database), plus the server's CPU time per action.

    python bench/server_load.py --tables 500 --db sqlite
    python bench/server_load.py --tables 500 --db postgresql
    python bench/server_load.py --tables 100 --think 0 --plot load.png

``--think`` is the mean pause before each decision (uniform from 0 to twice
the value), like a quick person or a bot with a short delay; with
``--think 0`` the clients act as fast as the server answers, so the figures
measure saturation (latency is then queueing). Clients run in ``--procs``
processes on the same two cores as the server, so their own CPU use shows
in the latencies too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import glob
import json
import multiprocessing
import multiprocessing.connection
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import orjson
import uvloop

ROOT = Path(__file__).resolve().parent.parent
loads = orjson.loads


def dumps(message: dict[str, Any]) -> str:
    return orjson.dumps(message).decode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """A temporary PostgreSQL cluster (as the ``postgres`` user when run as root)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise SystemExit("PostgreSQL is not installed (/usr/lib/postgresql/*/bin)")
    bindir = Path(found[-1]).parent
    base = Path(tempfile.mkdtemp(prefix="forsale-bench-pg-"))
    prefix = []
    if os.geteuid() == 0:
        shutil.chown(base, "postgres", "postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    data = base / "data"
    quiet = {"check": True, "capture_output": True}
    subprocess.run([*prefix, str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"], **quiet)
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1"
    subprocess.run(
        [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "log"), "-w", "start"],
        **quiet,
    )
    try:
        subprocess.run(
            [*prefix, str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "bench"], **quiet
        )
        yield f"postgresql://postgres@127.0.0.1:{port}/bench"
    finally:
        subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


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
        while time.time() < self.run.window_end:
            table_id, tokens = await self.run.new_table()
            seats = await asyncio.gather(*(self.run.open_seat(table_id, token) for token in tokens))
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
    """One client process: its share of the slots, an HTTP client for the lobby, and what it measured."""

    def __init__(self, http_base: str, ws_base: str, think: float, window: tuple[float, float]) -> None:
        self.http_base, self.ws_base = http_base, ws_base
        self.think = think
        self.window_start, self.window_end = window
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

    async def close_at_the_end(self) -> None:
        """Once the window has closed, hang up on the games still going (their seats may be waiting for
        a seat that has already stopped, and the server would wait out its grace period)."""
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
            closer = asyncio.create_task(self.close_at_the_end())
            await asyncio.gather(*(slot.main(start) for slot, start in zip(slots, starts)))
            closer.cancel()
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        return {
            "acks": self.acks,
            "games": self.games,
            "abandoned": self.abandoned,
            "cpu": time.process_time() - cpu,
            "rss_mb": rss_mb,
        }


# How long the client processes may take to start (a spawned interpreter importing aiohttp and
# uvloop): generous, for a loaded machine; the measured window is timed from their readiness.
CLIENTS_READY_S = 300.0


def client_process(conn: multiprocessing.connection.Connection, http_base: str, ws_base: str, think: float) -> None:
    """One process of clients, as light as it can be made so that the server gets the CPU.

    It says "ready" on ``conn`` once started, then receives its window, its
    slots' start times and its seed, plays, and sends back what it measured
    (or ``{"error": traceback}``).

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
    window, starts, seed = conn.recv()
    try:
        result = uvloop.run(Run(http_base, ws_base, think, window).main(starts, seed))
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


def client_results(pipes: list[Any]) -> list[dict[str, Any]]:
    """What each client process measured (they send it once their games have closed)."""
    results = []
    for pipe in pipes:
        try:
            result = pipe.recv()
        except EOFError:
            raise SystemExit("a client process died during the run (its error is above)") from None
        if "error" in result:
            raise SystemExit(f"a client process failed:\n{result['error']}")
        results.append(result)
    return results


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]


def run(db: str, args: argparse.Namespace, label: str) -> dict[str, Any]:
    """Start ``forsale serve`` on ``db`` and :func:`measure` it."""
    port = free_port()
    # What python runs instead of "-m forsale", e.g. a script that wraps forsale.cli.main with a
    # gc.callbacks logger (how the GC pauses in the README were found).
    server_main = os.environ.get("FORSALE_BENCH_SERVER_MAIN", "-m forsale").split()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    workdir = Path(tempfile.mkdtemp(prefix="forsale-bench-"))
    cmd = [
        sys.executable,
        *server_main,
        "serve",
        "--port",
        str(port),
        "--db",
        db,
        "--bot-delay",
        "0",
    ]
    cmd += ["--rest-rate", "100000", "--sockets-per-address", "0", "--log-level", "warning"]
    cmd += ["--tables-per-client", "0", "--bot-tables-per-client", "0", "--games-per-client", "0"]  # one client
    cmd += args.server_arg
    server = subprocess.Popen(cmd, env=env, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    http_base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    try:
        for _ in range(300):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(http_base + "/api/health", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        else:
            raise SystemExit(f"the server did not start: {server.stderr.read().decode() if server.stderr else ''}")
        return measure(http_base, ws_base, [server.pid], args, label)
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(15)
        shutil.rmtree(workdir, ignore_errors=True)


def measure(http_base: str, ws_base: str, pids: list[int], args: argparse.Namespace, label: str) -> dict[str, Any]:
    """Play the load against a running server (or a cluster's load balancer); ``pids``: whose CPU to count."""
    tables, think, procs = args.tables, args.think, args.procs
    stagger = args.stagger if args.stagger is not None else max(5.0, 60.0 * think)
    pipes = start_clients(procs, http_base, ws_base, think)
    t0 = time.time()  # every client is ready: the stagger, then the window, are timed from now
    window = (t0 + stagger, t0 + stagger + args.duration)
    rng = random.Random(args.seed)
    starts = [t0 + rng.uniform(0, stagger) for _ in range(tables)]
    for i, pipe in enumerate(pipes):
        pipe.send((window, starts[i::procs], args.seed + i))
    with progress(window[1] - time.time()) as tick:
        while time.time() < window[0]:
            time.sleep(min(0.5, max(0.0, window[0] - time.time())))
            tick()
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
def progress(total: float) -> Iterator[Any]:
    """A progress bar to the end of the measurement window (rich, on stderr)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    start = time.time()
    columns = [TextColumn("load test"), BarColumn(), TextColumn("{task.completed:.0f}/{task.total:.0f} s")]
    with Progress(*columns, TimeRemainingColumn(), transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("run", total=total)
        yield lambda: bar.update(task, completed=min(total, time.time() - start))


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=500, help="concurrent tables of four clients (default 500)")
    parser.add_argument(
        "--db", default="sqlite", help="sqlite (a fresh file), postgresql (a fresh cluster), or a database URL"
    )
    parser.add_argument("--procs", type=int, default=1, help="client processes (default 1)")
    parser.add_argument(
        "--think", type=float, default=1.0, help="mean pause before each decision, seconds (default 1; 0: saturation)"
    )
    parser.add_argument("--duration", type=float, default=60.0, help="measurement window, seconds (default 60)")
    parser.add_argument(
        "--stagger",
        type=float,
        default=None,
        help="tables start at random times over this many seconds before the window opens (default 60 x think, >= 5)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the start times and of the clients' choices")
    parser.add_argument("--plot", help="save latency and throughput over time to this image file (PNG)")
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="pass ARG on to forsale serve (repeatable), e.g. --server-arg=--full-gc-every=20",
    )
    args = parser.parse_args()
    if args.tables < 1 or args.procs < 1 or args.duration <= 0 or args.think < 0:
        parser.error("--tables and --procs must be at least 1, --duration positive, --think not negative")
    if args.stagger is not None and args.stagger < 0:
        parser.error("--stagger must not be negative")
    if args.db == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            out = run(f"sqlite:///{tmp}/bench.sqlite3", args, "sqlite")
    elif args.db in ("postgresql", "postgres"):
        with postgres() as url:
            out = run(url, args, "postgresql")
    else:
        out = run(args.db, args, args.db.split(":", 1)[0])
    print(json.dumps(out))
    print(
        f"server_load db={out['db']} tables={out['tables']} think={out['think']}s: "
        f"{out['actions_per_s']} actions/s, ack latency p50 {out['p50_ms']} ms, p99 {out['p99_ms']} ms, "
        f"server CPU {out['server_cpu_ms_per_action']} ms/action"
    )


if __name__ == "__main__":
    main()
