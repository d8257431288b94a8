"""The cluster's endpoints: a node's health for the load balancer, and the cluster as the lobby sees it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from ...lobby.cluster import ClusterLobby, people_online
from ..deps import TheLobby

router = APIRouter()


@router.get("/api/cluster/health")
async def health(request: Request, lobby: TheLobby) -> JSONResponse:
    """200 while this node serves, 503 while it cannot (its leases could not be renewed, or it is stopping).

    The load balancer's check (``docs/deploy.md``): a node that answers 503
    gets no new requests. A single server is always healthy here.
    """
    if not isinstance(lobby, ClusterLobby):
        return JSONResponse({"status": "ok", "cluster": False})
    ok = lobby.healthy and not lobby.draining
    body = {"status": "ok" if ok else "unavailable", "cluster": True, "node": lobby.node, "tables": len(lobby.held)}
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get("/api/cluster")
async def cluster(request: Request, lobby: TheLobby) -> dict[str, Any]:
    """The live nodes, the tables each owns and the people connected to each; this node's name."""
    if not isinstance(lobby, ClusterLobby):
        return {"cluster": False, "node": None, "nodes": [], "online": people_online(lobby)}
    nodes = [{k: n[k] for k in ("name", "tables", "online")} for n in await lobby.nodes()]
    return {"cluster": True, "node": lobby.node, "nodes": nodes, "online": sum(n["online"] for n in nodes)}
