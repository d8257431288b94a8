"""The game server: online tables over WebSockets, durable in SQLite or PostgreSQL.

``create_app(db_url=...)`` builds the ASGI app; ``forsale serve`` runs it.
The wire protocol is documented in ``docs/protocol.md``. Needs the
``server`` extra (FastAPI, uvicorn, SQLAlchemy, psycopg, pydantic).

``create_app`` is imported when first asked for (PEP 562), not here: importing
one of the server's lower floors (``forsale.server.store``, ``.names``) then
loads that floor and what it imports, not the whole app above it, so the
floors of ``docs/architecture.md`` hold at run time as they do in the source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
