"""Load test of the game server over real WebSockets on loopback.

Starts ``forsale serve`` in a subprocess (SQLite file, or PostgreSQL: a URL, or
``--db postgresql`` to start a throw-away cluster like the test suite does),
creates N tables of four seats, connects four clients per table, and has every
client play a fast heuristic bot on the client side (no server-side bots)
until every game is over. Prints actions per second and the p50/p99 latency
from sending an action to receiving its acknowledgement (which the server
sends only after the action is committed to the database).

    python bench/server_load.py --tables 500 --db sqlite
    python bench/server_load.py --tables 500 --db postgresql --think 0.5

Clients are spread over ``--procs`` processes. ``--think`` adds a pause (in
seconds, uniformly 0 to twice the value) before each decision, like a person
or a slow bot; with ``--think 0`` the clients act as fast as the server lets
them, so the figures measure saturation (latency is then mostly queueing).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import glob
import json
import multiprocessing
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvloop
from websockets.asyncio.client import connect

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


async def open_seat(base: str, table_id: str, token: str, gate: asyncio.Semaphore) -> tuple[Any, dict[str, Any]]:
    """Connect and say hello (a few at a time: thousands of handshakes at once would time out)."""
    async with gate:
        ws = await connect(f"{base}/ws/tables/{table_id}", max_size=None, ping_interval=None, open_timeout=120)
        await ws.send(json.dumps({"type": "hello", "token": token}))
        while True:
            message = loads(await ws.recv())
            if message["type"] == "welcome":
                return ws, message


async def play_seat(ws: Any, latest: dict[str, Any], think: float, latencies: list[float], rng: random.Random) -> int:
    """Play one seat to the end; returns the number of actions it took."""
    actions = 0
    acked = 0
    sent_at: float | None = None
    try:
        while True:
            if latest["status"] == "over":
                return actions
            if sent_at is None and latest["seq"] >= acked and latest["seat"] in latest["view"]["to_act"]:
                if think:
                    await asyncio.sleep(rng.uniform(0, 2 * think))
                action = heuristic(latest["view"], rng)
                sent_at = time.perf_counter()
                await ws.send(dumps({"type": "act", "action": action}))
            message = loads(await ws.recv())
            kind = message["type"]
            if kind == "state":
                if message["seq"] >= latest["seq"]:
                    latest = message
            elif kind == "ack":
                assert sent_at is not None
                latencies.append(time.perf_counter() - sent_at)
                acked, sent_at = message["seq"], None
                actions += 1
            elif kind == "error":
                raise RuntimeError(f"the server refused a move: {message}")
    finally:
        await ws.close()


async def client_main(base: str, jobs: list[tuple[str, list[str]]], think: float, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    latencies: list[float] = []
    gate = asyncio.Semaphore(32)
    seats = await asyncio.gather(*(open_seat(base, t, tok, gate) for t, tokens in jobs for tok in tokens))
    started, cpu = time.perf_counter(), time.process_time()
    counts = await asyncio.gather(
        *(play_seat(ws, welcome, think, latencies, random.Random(rng.random())) for ws, welcome in seats)
    )
    return {
        "actions": sum(counts),
        "latencies": latencies,
        "seconds": time.perf_counter() - started,
        "cpu": time.process_time() - cpu,
    }


def client_process(args: tuple[str, list[tuple[str, list[str]]], float, int]) -> dict[str, Any]:
    """One process of clients, as light as it can be made so that the server gets the CPU.

    The load generator shares the machine's two cores with the server, so its
    own costs show up in the latencies it measures: it parses with orjson,
    runs on uvloop, and collects garbage rarely (like the server).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    return uvloop.run(client_main(*args))


def run(db: str, tables: int, procs: int, think: float, label: str) -> dict[str, Any]:
    port = free_port()
    prefix = os.environ.get("FORSALE_BENCH_SERVER_PREFIX", "").split()  # e.g. "-m cProfile -o server.prof"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    workdir = Path(tempfile.mkdtemp(prefix="forsale-bench-"))
    cmd = [sys.executable, *prefix, "-m", "forsale", "serve", "--port", str(port), "--db", db, "--bot-delay", "0"]
    cmd += ["--rest-rate", "100000", "--log-level", "warning"]
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
        jobs: list[tuple[str, list[str]]] = []
        with httpx.Client(base_url=http_base, timeout=60) as http:
            for _ in range(tables):
                table_id = http.post("/api/tables", json={"players": 4, "private": True}).json()["table"]["id"]
                tokens = [http.post(f"/api/tables/{table_id}/join", json={}).json()["token"] for _ in range(4)]
                jobs.append((table_id, tokens))
        shares = [jobs[i::procs] for i in range(procs)]
        server_cpu0 = cpu_seconds(server.pid)
        with multiprocessing.get_context("spawn").Pool(procs) as pool:
            results = pool.map(client_process, [(ws_base, share, think, i) for i, share in enumerate(shares)])
        seconds = max(r["seconds"] for r in results)  # play only, after every client has connected
        server_cpu = cpu_seconds(server.pid) - server_cpu0
        latencies = sorted(x for r in results for x in r["latencies"])
        actions = sum(r["actions"] for r in results)
        with httpx.Client(base_url=http_base) as http:
            over = http.get("/api/tables", params={"status": "over", "limit": tables}).json()["tables"]
        assert len(over) == tables, f"{len(over)} of {tables} games finished"
        out = {
            "db": label,
            "tables": tables,
            "think": think,
            "actions": actions,
            "seconds": round(seconds, 2),
            "actions_per_s": round(actions / seconds, 1),
            "p50_ms": round(1000 * latencies[len(latencies) // 2], 2),
            "p99_ms": round(1000 * latencies[int(len(latencies) * 0.99)], 2),
            "max_ms": round(1000 * latencies[-1], 2),
            "mean_ms": round(1000 * statistics.fmean(latencies), 2),
            "server_cpu_s": round(server_cpu, 2),
            "client_cpu_s": round(sum(r["cpu"] for r in results), 2),
            "load_average": os.getloadavg()[0],
        }
        return out
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(15)
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=500, help="concurrent tables of four clients (default 500)")
    parser.add_argument(
        "--db", default="sqlite", help="sqlite (a fresh file), postgresql (a fresh cluster), or a database URL"
    )
    parser.add_argument("--procs", type=int, default=1, help="client processes (default 1)")
    parser.add_argument("--think", type=float, default=0.0, help="mean pause before each decision, seconds (default 0)")
    args = parser.parse_args()
    if args.db == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            out = run(f"sqlite:///{tmp}/bench.sqlite3", args.tables, args.procs, args.think, "sqlite")
    elif args.db in ("postgresql", "postgres"):
        with postgres() as url:
            out = run(url, args.tables, args.procs, args.think, "postgresql")
    else:
        out = run(args.db, args.tables, args.procs, args.think, args.db.split(":", 1)[0])
    print(json.dumps(out))
    print(
        f"server_load db={out['db']} tables={out['tables']} think={out['think']}s: "
        f"{out['actions_per_s']} actions/s, ack latency p50 {out['p50_ms']} ms, p99 {out['p99_ms']} ms"
    )


if __name__ == "__main__":
    main()
