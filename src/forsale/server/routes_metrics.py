"""``GET /metrics``: the server's numbers in Prometheus' text format (see :mod:`forsale.server.metrics`)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from .metrics import ServerCollector

router = APIRouter()


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    """Prometheus' scrape: one registry per app, made at the first scrape (the library is imported then)."""
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
