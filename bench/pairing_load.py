"""Quick pairing under load: N people join the queue at once; how long until each has its ``seated`` notice.

Starts ``forsale serve`` in a subprocess (a fresh SQLite file; ``--db postgresql`` a throw-away PostgreSQL cluster
like the test suite's; or a database URL), makes N accounts in its database beforehand (the server's own sign-up,
from N addresses: its per-address sign-up limit is not what is measured), then runs N real HTTP clients in this
process (aiohttp, one connection and cookie jar each), as a page does:

1. sign in; read the id of the latest notice (``GET /api/me/notices?after=-1``);
2. all at once (a barrier): ``POST /api/pairing`` (casual, ``--players`` seats, no bots), then keep a long poll of
   ``GET /api/me/notices`` open until the ``seated`` notice comes.

A table is *fillable* once the last of its members' joins was acknowledged (the entry committed: the matcher could
have made it from then on). Each person's figure is the time from their table becoming fillable to their notice
arriving: the matcher's round (every 0.2 s, or at once on a join), the table's transaction with the notices, the
long poll's wake-up and the answer. Printed: p50, p99 and max over every person, the rate at which people were
seated (from the first join to the last notice), and whether everybody was seated exactly once, at a table of the
size asked for.

    python bench/pairing_load.py                      # 200 people, tables of 4, SQLite
    python bench/pairing_load.py --db postgresql
    python bench/pairing_load.py --people 600 --players 6
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import aiohttp

from harness.db import database
from harness.load import cpu_seconds
from harness.serve import ServeProcess
from harness.stats import percentile

PASSWORD = "correct horse battery staple"


async def make_accounts(db: str, n: int) -> list[str]:
    """N accounts made by the server's own sign-up, each from its own address (the limit is per address)."""
    from forsale.server.people.accounts import Accounts
    from forsale.server.store.database import Storage

    storage = await asyncio.to_thread(Storage, db)
    try:
        accounts = Accounts(storage)
        names = [f"load{i:05d}" for i in range(n)]
        for i, name in enumerate(names):
            await accounts.sign_up(name, PASSWORD, f"10.{i // 65536}.{i // 256 % 256}.{i % 256}")
        return names
    finally:
        await asyncio.to_thread(storage.close)


class Person:
    """One player's HTTP client (aiohttp: its own connection and cookie jar): its join and its notice."""

    def __init__(self, base: str, name: str) -> None:
        # The page's own origin; idle connections dropped after 1 s, before uvicorn's 5 s keep-alive ends them
        # (a request sent on a connection the server is closing fails, however fine the server).
        connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=1.0)
        jar = aiohttp.CookieJar(unsafe=True)  # the session cookie of a server on an IP address (loopback)
        timeout = aiohttp.ClientTimeout(total=60)
        self.http = aiohttp.ClientSession(
            base, headers={"Origin": base}, connector=connector, cookie_jar=jar, timeout=timeout
        )
        self.name = name
        self.last = 0
        self.joined = 0.0
        self.seated = 0.0
        self.notice: dict[str, Any] | None = None

    async def ready(self) -> None:
        async with self.http.post("/api/signin", json={"name": self.name, "password": PASSWORD}) as response:
            response.raise_for_status()
        async with self.http.get("/api/me/notices", params={"after": -1}) as response:
            response.raise_for_status()
            self.last = (await response.json())["last"]

    async def play(self, start: asyncio.Event, players: int) -> None:
        await start.wait()
        async with self.http.post("/api/pairing", json={"players": players}) as response:
            response.raise_for_status()
        self.joined = time.monotonic()
        while self.notice is None:
            async with self.http.get("/api/me/notices", params={"after": self.last, "wait": 25}) as response:
                got = await response.json()
            self.last = got["last"]
            for notice in got["notices"]:
                if notice["kind"] == "seated":
                    self.seated, self.notice = time.monotonic(), notice

    async def close(self) -> None:
        await self.http.close()


async def measure(base: str, names: list[str], players: int, server_pid: int) -> dict[str, Any]:
    people = [Person(base, name) for name in names]
    try:
        for start in range(0, len(people), 50):  # signing in hashes passwords: a few at a time
            await asyncio.gather(*(p.ready() for p in people[start : start + 50]))
        go = asyncio.Event()
        playing = [asyncio.create_task(p.play(go, players)) for p in people]
        cpu = cpu_seconds(server_pid)
        began = time.monotonic()
        go.set()
        await asyncio.wait_for(asyncio.gather(*playing), 120)
        cpu = cpu_seconds(server_pid) - cpu
    finally:
        await asyncio.gather(*(p.close() for p in people))
    tables: dict[str, list[Person]] = defaultdict(list)
    for p in people:
        assert p.notice is not None
        tables[p.notice["table"]].append(p)
    sizes = Counter(len(members) for members in tables.values())
    seats_ok = all(sorted(p.notice["seat"] for p in m if p.notice) == list(range(players)) for m in tables.values())
    waits = sorted(p.seated - max(q.joined for q in tables[p.notice["table"]]) for p in people if p.notice)
    last = max(p.seated for p in people)
    return {
        "people": len(people),
        "players": players,
        "tables": len(tables),
        "table_sizes": dict(sizes),
        "everyone_once": seats_ok and sizes == Counter({players: len(people) // players}),
        "p50_ms": round(percentile(waits, 0.5) * 1000, 1),
        "p99_ms": round(percentile(waits, 0.99) * 1000, 1),
        "max_ms": round(waits[-1] * 1000, 1),
        "mean_ms": round(statistics.fmean(waits) * 1000, 1),
        "joins_s": round(max(p.joined for p in people) - began, 3),
        "all_seated_s": round(last - began, 3),
        "seated_per_s": round(len(people) / (last - began), 1),
        "server_cpu_ms_per_person": round(cpu / len(people) * 1000, 2),  # joining, polling, matching, the tables
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=200, help="people joining at once (default 200)")
    parser.add_argument("--players", type=int, default=4, choices=(3, 4, 5, 6), help="table size asked for (4)")
    parser.add_argument("--db", default="sqlite", help="sqlite (a fresh file), postgresql (a fresh cluster), or a URL")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.people % args.players:
        parser.error("--people must be a multiple of --players (everyone is to be seated)")
    workdir = Path(tempfile.mkdtemp(prefix="forsale-pairing-"))
    try:
        with database(args.db, workdir) as url:
            names = asyncio.run(make_accounts(url, args.people))
            server = ServeProcess(url, workdir, "--rest-rate", "100000").start()
            try:
                assert server.proc is not None
                figures = asyncio.run(measure(server.base, names, args.players, server.proc.pid))
            finally:
                server.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    figures["db"] = args.db if args.db in ("sqlite", "postgresql") else "url"
    if args.json:
        print(json.dumps(figures))
        return
    print(
        f"{figures['people']} people, tables of {figures['players']} ({figures['db']}): "
        f"{figures['tables']} tables, everyone seated once: {figures['everyone_once']}\n"
        f"fillable -> seated notice: p50 {figures['p50_ms']} ms, p99 {figures['p99_ms']} ms, "
        f"max {figures['max_ms']} ms\n"
        f"all joins acknowledged in {figures['joins_s']} s, all seated in {figures['all_seated_s']} s "
        f"({figures['seated_per_s']} people/s); server CPU {figures['server_cpu_ms_per_person']} ms a person"
    )


if __name__ == "__main__":
    main()
