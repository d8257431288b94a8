"""The server's garbage-collector policy: short pauses, and cycles still reclaimed on a timer."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from forsale.server import create_app
from forsale.server.ops import gctuning as collector


@pytest.fixture
def restore_gc() -> Iterator[None]:
    """The policy is process-wide: put CPython's back after each test."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def old_cycle() -> weakref.ref[Node]:
    """A two-object reference cycle that lived long enough to leave the young generations, then became
    garbage that only the cyclic collector can free (as a closed connection's objects do); a weak
    reference to it."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    gc.collect(1)  # alive: promoted to the oldest generation
    return weakref.ref(a)


def test_tune_freezes_what_is_alive_and_never_starts_a_full_collection(restore_gc: None) -> None:
    collector.tune()
    assert gc.get_threshold() == collector.THRESHOLDS
    assert gc.get_freeze_count() > 0  # everything alive at start-up is out of every scan
    young, middle, full = collector.THRESHOLDS
    assert young < 1000 and middle <= 5  # frequent, short collections of the young generations
    assert full >= 10**9  # CPython would need a billion middle collections to start a full one


def churn() -> int:
    """Allocate and keep many lists for a moment: enough automatic collections, and enough survivors,
    that CPython's default policy starts a full collection (it does once the survivors of middle
    collections outnumber a quarter of the older objects, so the churn grows with the test process)."""
    keep = [[i] for i in range(max(300_000, len(gc.get_objects())))]
    return len(keep)


def test_cpython_default_policy_would_free_the_cycle_during_the_churn(restore_gc: None) -> None:
    """The control for the next test: the churn is enough to make CPython's own heuristic collect everything."""
    gc.set_threshold(700, 10, 10)
    ref = old_cycle()
    churn()
    assert ref() is None


def test_a_cycle_that_reached_the_oldest_generation_waits_for_the_timer(restore_gc: None) -> None:
    collector.tune()
    ref = old_cycle()
    churn()  # many young and middle collections run by themselves; none of them is a full one
    assert ref() is not None

    async def a_while_with_the_timer() -> None:
        task = asyncio.create_task(collector.full_collections(every=0.01))
        deadline = time.monotonic() + 30  # a condition, not a fixed wait: a loaded machine may run the timer late
        while ref() is not None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(a_while_with_the_timer())
    assert ref() is None


@pytest.mark.parametrize("every", [None, 0.01])
def test_the_server_runs_full_collections_when_asked(tmp_path: Path, restore_gc: None, every: float | None) -> None:
    app = create_app(f"sqlite:///{tmp_path}/t.sqlite3", full_gc_every=every)
    with TestClient(app) as client:
        gc.set_threshold(0)  # no automatic collections: only the server's timer can free the cycle
        ref = old_cycle()
        # With the timer, wait (up to a generous deadline) until it has freed the cycle; without it, a fixed
        # stretch of requests shows that nothing else frees it (a wait that cannot fail by being slow).
        deadline = time.monotonic() + (30 if every is not None else 0.2)
        while ref() is not None and time.monotonic() < deadline:
            assert client.get("/api/health").status_code == 200
            time.sleep(0.01)
        assert (ref() is None) == (every is not None)
