"""Every WebSocket's memory is freed when it closes: a real ``forsale serve`` after thousands of them.

A client in a reconnect loop used to grow the server by megabytes a second,
whether its sockets were refused (``too_many_connections``) or opened and
closed without a ``hello``: each upgraded connection left its HTTP protocol
object (about 7 KB with its parser, transport and headers) in a reference
cycle, which ``forsale serve`` frees only at its full garbage collection every
ten minutes (:mod:`forsale.server.ops.slowclients`, :mod:`forsale.server.ops.gctuning`).
The test warms the server up, then opens and drops thousands of sockets of
both kinds and reads the server's resident memory from ``/proc``: it must come
back near where it was, far below what the leak would have kept.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from forsale.server.http.ws import RETRY_AFTER

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the server's memory from /proc"),
]

PER_ADDRESS = 32
"""The server's limit of sockets per address here: small, so that refusals are quick to reach, with room for
the few plain sockets whose end the server has not yet counted when the next one comes."""
LEAKED_PER_SOCKET = 7_000
"""Bytes each socket kept before the fix (measured: 3,000 sockets, refused or plain, took the server from 92 to 113 MiB)."""


def rss(pid: int) -> int:
    """The process's resident memory in bytes (``VmRSS`` of ``/proc/<pid>/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for process {pid}")


async def churn(url: str, plain: int, refused: int, workers: int = 4) -> Counter[str]:
    """Open and close ``plain`` sockets that never say hello, then ``refused`` ones past the address's limit.

    Returns what the sockets were told: ``"pong"`` for a plain one (it pings),
    the error's code and when to retry for a refused one.
    """
    seen: Counter[str] = Counter()

    async def plain_one() -> None:
        async with connect(url, open_timeout=20) as ws:
            seen[await answer(ws)] += 1  # served (a pong), and closed without a hello

    async def refused_one() -> None:
        async with connect(url, open_timeout=20) as ws:
            message = json.loads(await asyncio.wait_for(ws.recv(), 20))
            retry = message.get("params", {}).get("retry_after")
            seen[f"{message['code']} retry_after={retry}"] += 1

    async def run(count: int, one: Any) -> None:
        queue = iter(range(count))

        async def worker() -> None:
            for _ in queue:
                await one()

        await asyncio.gather(*(worker() for _ in range(workers)))

    await run(plain, plain_one)
    held = [await connect(url, open_timeout=20) for _ in range(PER_ADDRESS)]  # the address's every slot
    try:
        await run(refused, refused_one)
    finally:
        for ws in held:
            await ws.close()
    await until_served(url)
    return seen


async def until_served(url: str) -> None:
    """Wait until the server has counted the released sockets gone: a new one is answered, not refused."""
    while True:
        async with connect(url, open_timeout=20) as ws:
            if await answer(ws) == "pong":
                return


async def answer(ws: ClientConnection) -> str:
    """The server's answer to a ping before any hello: ``"pong"``, or the error's code."""
    await ws.send(json.dumps({"type": "ping"}))
    message = json.loads(await asyncio.wait_for(ws.recv(), 20))
    return str(message.get("code") or message["type"])


def test_thousands_of_refused_and_dropped_sockets_leave_the_servers_memory_where_it_was(
    serve: Any, tmp_path: Path
) -> None:
    server = serve(
        f"sqlite:///{tmp_path / 'memory.sqlite3'}", tmp_path, "--sockets-per-address", str(PER_ADDRESS),
        "--bot-workers", "0",
    ).start()  # fmt: skip
    assert server.proc is not None
    table = httpx.post(server.base + "/api/tables", json={"players": 2}).json()["table"]["id"]
    url = f"{server.ws}/ws/tables/{table}"
    asyncio.run(churn(url, 150, 150))  # warm up: the allocator's arenas, the log's first lines, caches
    start = rss(server.proc.pid)
    plain = refused = 750
    seen = asyncio.run(churn(url, plain, refused))
    assert seen == {"pong": plain, f"too_many_connections retry_after={RETRY_AFTER}": refused}
    leak = (plain + refused) * LEAKED_PER_SOCKET
    deadline = time.monotonic() + 15  # the last connections' ends may still be on their way
    while (grown := rss(server.proc.pid) - start) > 0.3 * leak and time.monotonic() < deadline:
        time.sleep(0.2)
    assert grown < 0.3 * leak, f"the server grew {grown / 2**20:.1f} MiB after {plain + refused} sockets"
