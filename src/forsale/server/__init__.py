"""The game server: online tables over WebSockets, durable in SQLite or PostgreSQL.

``create_app(db_url=...)`` builds the ASGI app; ``forsale serve`` runs it.
The wire protocol is documented in ``docs/protocol.md``. Needs the
``server`` extra (FastAPI, uvicorn, SQLAlchemy, psycopg, pydantic).
"""

from .app import create_app

__all__ = ["create_app"]
