"""What a server (or a node of a cluster) is doing, for Prometheus: ``GET /metrics``.

Two kinds of numbers:

- **counted where they happen**, on hot paths: each action committed and
  how long it took (:func:`action`), each writer transaction's size
  (:data:`BATCHES`), how long each bot decision waited for a worker
  process (:data:`BOT_WAITS`). These are plain integers and floats in this module,
  updated without a lock or a library call (the event loop and the writer
  thread each own what they update), so counting costs next to nothing;
- **read when scraped**: live tables, connections, leases, the bot queue,
  the database's failures, from the objects that already keep them.

Both are turned into Prometheus' text format only when ``/metrics`` is
scraped, by a collector for ``prometheus-client`` (the server extra's;
:class:`forsale.server.http.routes.metrics.ServerCollector`); the
library is imported then, not at start-up. The process-wide counters are per
process, as Prometheus expects of one target; the read-when-scraped numbers
come from the app that answers the scrape.

The endpoint is for the operator's Prometheus, not for players:
``deploy/haproxy.cfg`` refuses it from outside, and Prometheus scrapes each
node directly (``docs/deploy.md``, "Metrics").
"""

from __future__ import annotations

import bisect

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Seconds: an action from its check to its commit is a few milliseconds when all is well."""

BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
"""Calls per writer transaction (group commit groups up to 512)."""

WAIT_BUCKETS = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
"""Seconds a bot decision waits for a worker: nothing while workers are free, a decision's length or more behind
a queue (the default bots think for about a second)."""


class Histogram:
    """Counts per bucket (non-cumulative), a sum and a count: the cheap half of a Prometheus histogram."""

    __slots__ = ("bounds", "counts", "sum", "count")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last: above every bound
        self.sum = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.sum += value
        self.count += 1

    def cumulative(self) -> list[tuple[str, float]]:
        """``(le, count)`` pairs as Prometheus wants them, ``+Inf`` last."""
        out, running = [], 0
        for bound, n in zip(self.bounds, self.counts):
            running += n
            out.append((_number(bound), float(running)))
        out.append(("+Inf", float(self.count)))
        return out


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


ACTIONS: dict[str, Histogram] = {}
"""Committed actions by source (player, bot, clock, away): seconds from the check to the commit."""

BATCHES = Histogram(BATCH_BUCKETS)
"""Calls per transaction of the storage's writer thread (all storages of the process)."""

BOT_WAITS = Histogram(WAIT_BUCKETS)
"""Seconds each decision or analysis run in a bot worker waited for one (on the event loop, by
:class:`forsale.server.ops.botrunner.BotRunner`): the queue's cost to the people at bots' tables."""


def action(source: str, seconds: float) -> None:
    """An action was committed (called on the event loop by :meth:`forsale.server.table.live.LiveTable.act`)."""
    hist = ACTIONS.get(source)
    if hist is None:
        hist = ACTIONS[source] = Histogram(LATENCY_BUCKETS)
    hist.observe(seconds)
