"""What a server (or a node of a cluster) is doing, for Prometheus: ``GET /metrics``.

Two kinds of numbers:

- **counted where they happen**, on hot paths: each action committed and
  how long it took (:func:`action`), each writer transaction's size
  (:data:`BATCHES`). These are plain integers and floats in this module,
  updated without a lock or a library call (the event loop and the writer
  thread each own what they update), so counting costs next to nothing;
- **read when scraped**: live tables, connections, leases, the bot queue,
  the database's failures, from the objects that already keep them.

Both are turned into Prometheus' text format only when ``/metrics`` is
scraped, by a collector for ``prometheus-client`` (the server extra's); the
library is imported then, not at start-up. The process-wide counters are per
process, as Prometheus expects of one target; the read-when-scraped numbers
come from the app that answers the scrape.

The endpoint is for the operator's Prometheus, not for players:
``deploy/haproxy.cfg`` refuses it from outside, and Prometheus scrapes each
node directly (``docs/deploy.md``, "Metrics").
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import Any

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Seconds: an action from its check to its commit is a few milliseconds when all is well."""

BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
"""Calls per writer transaction (group commit groups up to 512)."""


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


def action(source: str, seconds: float) -> None:
    """An action was committed (called on the event loop by :meth:`forsale.server.table.live.LiveTable.act`)."""
    hist = ACTIONS.get(source)
    if hist is None:
        hist = ACTIONS[source] = Histogram(LATENCY_BUCKETS)
    hist.observe(seconds)


class ServerCollector:
    """The metrics of one app: the process-wide counters above, and what its lobby, storage and bots hold now."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def describe(self) -> list[Any]:
        return []  # no fixed description: the families depend on the app (a cluster node has more)

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        from .lobby.cluster import ClusterLobby, people_online

        state = self.app.state
        lobby, storage = state.lobby, state.storage

        latency = HistogramMetricFamily(
            "forsale_action_seconds", "Seconds from an action's check to its commit, by source", labels=["source"]
        )
        actions = CounterMetricFamily("forsale_actions", "Actions committed, by source", labels=["source"])
        for source, hist in sorted(ACTIONS.items()):
            latency.add_metric([source], hist.cumulative(), hist.sum)
            actions.add_metric([source], hist.count)
        yield actions
        yield latency

        tables = GaugeMetricFamily("forsale_tables", "Tables live in this process, by status", labels=["status"])
        counts = {"waiting": 0, "playing": 0}
        connections = 0
        for table in list(lobby.tables.values()):
            if table.status in counts:
                counts[table.status] += 1
            connections += len(table.spectators) + sum(len(s.conns) for s in table.seats)
        for status, n in counts.items():
            tables.add_metric([status], n)
        yield tables
        yield GaugeMetricFamily("forsale_connections", "WebSockets attached to a table here", value=connections)
        yield GaugeMetricFamily(
            "forsale_people_online", "People connected to a seat at a table here", value=people_online(lobby)
        )

        runner = lobby.runner
        yield GaugeMetricFamily(
            "forsale_bot_queue", "Bot decisions and analyses waiting for a worker process", value=len(runner._waiting)
        )
        yield GaugeMetricFamily(
            "forsale_bot_workers_busy", "Bot worker processes thinking now", value=len(runner._busy)
        )
        yield GaugeMetricFamily("forsale_bot_workers", "Bot worker processes", value=runner.size)

        outage = storage.outage
        yield CounterMetricFamily(
            "forsale_db_errors", "Database calls that failed because the database was out of reach",
            value=outage.total_failures,
        )  # fmt: skip
        yield CounterMetricFamily("forsale_db_outages", "Database outages (each logged once)", value=outage.outages)
        yield GaugeMetricFamily(
            "forsale_db_unavailable", "1 while the database does not answer", value=int(outage.since is not None)
        )
        yield CounterMetricFamily("forsale_db_commits", "Writer transactions committed", value=storage.commits)
        yield CounterMetricFamily("forsale_db_calls", "Database calls committed by the writer", value=storage.calls)
        batches = HistogramMetricFamily("forsale_db_batch_size", "Calls per writer transaction (group commit)")
        batches.add_metric([], BATCHES.cumulative(), float(BATCHES.sum))
        yield batches

        if isinstance(lobby, ClusterLobby):
            node = [lobby.node]
            healthy = GaugeMetricFamily(
                "forsale_node_healthy", "1 while this node serves (its health check's 200)", labels=["node"]
            )
            healthy.add_metric(node, int(lobby.healthy and not lobby.draining))
            yield healthy
            held = GaugeMetricFamily("forsale_leases_held", "Table leases this node holds", labels=["node"])
            held.add_metric(node, len(lobby.held))
            yield held
            taken = CounterMetricFamily(
                "forsale_leases_taken", "Tables this node took whose lease another node had held", labels=["node"]
            )
            taken.add_metric(node, lobby.takeovers)
            yield taken
            lost = CounterMetricFamily(
                "forsale_leases_lost", "Tables this node lost without releasing them (paused, cut off)", labels=["node"]
            )
            lost.add_metric(node, lobby.leases_lost)
            yield lost
