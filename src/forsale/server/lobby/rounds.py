"""A node's background rounds: one step every few tenths of a second, or at once when something asks for it.

Quick pairing's matcher and the tournaments' runner are both such a loop. Each node runs its own; the work itself is
made safe against the other nodes' rounds in the database (compare-and-set, advisory locks), so a round that runs
twice or late costs time, never correctness. What the loop itself must get right is the same for both, so it lives
here once: a database outage is waited out quietly (:mod:`forsale.server.store.outage` logs it once), any other
failure is logged and the next round runs as usual (one bad round must not stop pairing or tournaments for the
node's lifetime), and closing cancels the task and waits for it, so a stopping node does not write after its
storage closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from ..store.outage import Unavailable

log = logging.getLogger("forsale.server")


class Rounds:
    """Run ``step`` every ``every`` seconds, and at once after :meth:`wake`; ``what`` names it in the log."""

    def __init__(self, step: Callable[[], Awaitable[object]], every: float, what: str) -> None:
        self.step, self.every, self.what = step, every, what
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def wake(self) -> None:
        """Run the next round now rather than at the next tick (a join, a start, a finished table)."""
        self._wake.set()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.every)
            self._wake.clear()
            try:
                await self.step()
            except Unavailable:  # logged once per outage; the work waits in the database
                pass
            except Exception:
                log.exception("%s: a round failed", self.what)
