"""How the server process uses CPython's cyclic garbage collector.

Reference counting frees almost everything the server allocates; the cyclic
collector is only there for the few reference cycles (uvicorn's protocol
objects, tasks that ended with an exception). What matters for a game server
is how long the collector stops the event loop: every action that arrives
during a pause waits for it.

Measured under load (``bench/server_load.py``, 500 tables of four, 2,000
open WebSockets), CPython's collector behaves like this:

- a **young** collection scans what was allocated since the previous one and
  is still alive. That is mostly the pending receive of each connection, so
  it is about as large whether it runs often or rarely; running it often
  (every 600 net allocations) keeps each pause at 1-5 ms;
- a **middle** (generation 1) collection scans the survivors of the young
  collections since the last one: with 4 young collections between them,
  10-30 ms; with 20 (or CPython's 10 at a larger young threshold), 50-300 ms;
- a **full** collection scans every live object: every table and every
  connection, about 300 ms at that load. CPython starts one whenever the
  survivors since the last one reach a quarter of the heap, which with
  connections opening and closing all the time was every minute or so.

So the server freezes everything alive at start-up (it is never garbage),
collects the young and middle generations often to keep those pauses short,
and never lets CPython start a full collection: :func:`full_collections`
runs one on a timer instead, every ten minutes, so that cycles among
long-lived objects are still reclaimed.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger("forsale.server")

THRESHOLDS = (600, 4, 1_000_000_000)
"""``gc.set_threshold`` for the server: young every 600 net allocations, middle every 4 young, full never by itself."""

FULL_EVERY = 600.0
"""Seconds between the full collections that :func:`full_collections` runs."""


def tune() -> None:
    """Set the server's collection policy (process-wide: call once, before serving)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)


async def full_collections(every: float = FULL_EVERY) -> None:
    """Run a full collection every ``every`` seconds, forever (a task for the server's lifetime)."""
    while True:
        await asyncio.sleep(every)
        start = time.perf_counter()
        found = gc.collect()
        log.debug("full garbage collection: %d objects freed, %.0f ms", found, 1000 * (time.perf_counter() - start))
