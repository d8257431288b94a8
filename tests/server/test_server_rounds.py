"""The background rounds quick pairing and the tournaments run on (:mod:`forsale.server.lobby.rounds`).

Each step here waits on an event the test sets, never on the clock, except ``every`` itself, set an hour long so
that only :meth:`Rounds.wake` can start a round.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from forsale.server.lobby.rounds import Rounds
from forsale.server.store.outage import Unavailable

HOUR = 3600.0


def test_a_woken_round_runs_at_once_and_a_failed_one_does_not_stop_the_next(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> list[str]:
        seen: list[str] = []
        ran = asyncio.Queue[str]()
        faults = [Unavailable(), ValueError("a bad round"), None]

        async def step() -> None:
            fault = faults.pop(0)
            seen.append(type(fault).__name__)
            await ran.put("ran")
            if fault is not None:
                raise fault

        rounds = Rounds(step, HOUR, "the test's rounds")
        rounds.start()
        rounds.start()  # a second start is no second loop
        for _ in range(3):
            rounds.wake()
            await asyncio.wait_for(ran.get(), 5)
        await rounds.close()
        await rounds.close()  # closing twice is harmless
        return seen

    with caplog.at_level(logging.ERROR, logger="forsale.server"):
        seen = asyncio.run(scenario())
    assert seen == ["Unavailable", "ValueError", "NoneType"]  # each woken round ran, after both failures
    logged = [r for r in caplog.records if r.name == "forsale.server"]
    assert [r.getMessage() for r in logged] == ["the test's rounds: a round failed"]  # the outage is not logged here
    assert logged[0].exc_info is not None and logged[0].exc_info[0] is ValueError


def test_close_cancels_a_round_under_way() -> None:
    async def scenario() -> bool:
        started, cancelled = asyncio.Event(), asyncio.Event()

        async def step() -> None:
            started.set()
            try:
                await asyncio.Event().wait()  # a round that would never end on its own
            except asyncio.CancelledError:
                cancelled.set()
                raise

        rounds = Rounds(step, HOUR, "the test's rounds")
        rounds.start()
        rounds.wake()
        await asyncio.wait_for(started.wait(), 5)
        await asyncio.wait_for(rounds.close(), 5)
        return cancelled.is_set()

    assert asyncio.run(scenario())
