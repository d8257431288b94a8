"""``GET /metrics``: the server's numbers in Prometheus' text format (see :mod:`forsale.server.metrics`).

Only for the operator: the numbers (people online, the database's health) are nobody else's business, and a
scrape costs more than a page. HAProxy refuses ``/metrics`` from outside (``deploy/haproxy.cfg``); a server
without it answers only the addresses of ``--metrics-from`` (:func:`networks`; loopback by default), judged
by the connection's address (``X-Forwarded-For`` counts only from a ``--trusted-proxy``, as for every limit).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from ipaddress import IPv4Network, IPv6Network
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from ...errors import Refused
from ...lobby.cluster import ClusterLobby, people_online
from ...metrics import ACTIONS, BATCHES, BOT_WAITS

router = APIRouter()

Networks = tuple[IPv4Network | IPv6Network, ...]
LOOPBACK = "127.0.0.1,::1"
"""Who may scrape by default: this machine only (a Prometheus elsewhere is named with ``--metrics-from``)."""


def networks(spec: str) -> Networks:
    """``--metrics-from``: comma-separated addresses or networks (``10.0.0.5``, ``10.0.0.0/24``, ``::1``).

    ``0.0.0.0/0,::/0`` opens ``/metrics`` to everyone. A malformed entry is a ``ValueError`` (the command
    refuses to start rather than guess).
    """
    found = tuple(ipaddress.ip_network(part.strip(), strict=False) for part in spec.split(",") if part.strip())
    if not found:
        raise ValueError("name at least one address or network (127.0.0.1 for this machine only)")
    return found


def allowed(request: Request) -> bool:
    """Whether the request's client address is one ``--metrics-from`` names."""
    nets: Networks = getattr(request.app.state, "metrics_from", None) or networks(LOOPBACK)
    host = request.client.host if request.client is not None else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:127.0.0.1 on a dual-stack socket is 127.0.0.1
    return any(address.version == net.version and address in net for net in nets)


class ServerCollector:
    """The metrics of one app: the process-wide counters above, and what its lobby, storage and bots hold now."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def describe(self) -> list[Any]:
        return []  # no fixed description: the families depend on the app (a cluster node has more)

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

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
        waits = HistogramMetricFamily(
            "forsale_bot_wait_seconds", "Seconds a bot decision or analysis waited for a worker process"
        )
        waits.add_metric([], BOT_WAITS.cumulative(), BOT_WAITS.sum)
        yield waits

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


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    """Prometheus' scrape: one registry per app, made at the first scrape (the library is imported then)."""
    if not allowed(request):
        raise Refused("forbidden", "/metrics is for the operator: see --metrics-from", 403)
    try:
        from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
    except ImportError:  # an installation from before the server extra had it
        return PlainTextResponse("metrics need prometheus-client: pip install 'forsale[server]'\n", 503)
    state = request.app.state
    registry = getattr(state, "metrics_registry", None)
    if registry is None:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(ServerCollector(request.app))
        state.metrics_registry = registry
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
