"""``GET /metrics``: the server's numbers in Prometheus' text format (see :mod:`forsale.server.metrics`).

Only for the operator: the numbers (people online, the database's health) are nobody else's business, and a
scrape costs more than a page. HAProxy refuses ``/metrics`` from outside (``deploy/haproxy.cfg``); a server
without it answers only the addresses of ``--metrics-from`` (:func:`networks`; loopback by default), judged
by the connection's address (``X-Forwarded-For`` counts only from a ``--trusted-proxy``, as for every limit).
"""

from __future__ import annotations

import ipaddress
from ipaddress import IPv4Network, IPv6Network

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from ...errors import Refused
from ...metrics import ServerCollector

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
