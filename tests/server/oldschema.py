"""Databases as earlier releases left them, for the tests that the server upgrades them in place.

Each release added columns or tables (accounts: ``forsale_seats.account_id``,
``forsale_accounts`` and ``forsale_sessions``; invitations: ``forsale_games.invite_hash``
and ``forsale_chat``; turn emails: ``forsale_accounts.email``; their language:
``forsale_accounts.language``). A test builds the database of the release before
its feature with :func:`create_old_database` and starts today's server on it.
"""

from __future__ import annotations

from sqlalchemy import JSON, Column, Float, ForeignKey, Integer, MetaData, String, Table, create_engine

from forsale.server.store.database import normalize_url


def create_old_database(db_url: str, *, with_accounts: bool) -> None:
    """The three tables of the first release; ``with_accounts``: the release before invitations.

    That release had the seats' ``account_id`` and the accounts and sessions tables, the accounts without
    the ``email`` and ``language`` of the releases after it.
    """
    engine = create_engine(normalize_url(db_url))
    old = MetaData()
    Table("forsale_games", old, Column("id", String(32), primary_key=True), Column("name", String(100)),
          Column("status", String(16)), Column("players", Integer), Column("config", JSON), Column("deal", JSON),
          Column("creator_hash", String(64)), Column("created_at", Float), Column("updated_at", Float),
          Column("finished_at", Float), Column("result", JSON))  # fmt: skip
    seat_columns = [Column("account_id", String(32))] if with_accounts else []
    Table("forsale_seats", old, Column("game_id", String(32), primary_key=True), Column("seat", Integer, primary_key=True),
          Column("kind", String(8)), Column("name", String(100)), Column("bot", String(100)),
          Column("token_hash", String(64)), *seat_columns)  # fmt: skip
    Table("forsale_events", old, Column("game_id", String(32), primary_key=True), Column("seq", Integer, primary_key=True),
          Column("seat", Integer), Column("action", JSON), Column("source", String(16)), Column("at", Float))  # fmt: skip
    if with_accounts:
        Table("forsale_accounts", old, Column("id", String(32), primary_key=True), Column("name", String(100)),
              Column("name_key", String(200), unique=True), Column("password_hash", String(200)),
              Column("created_at", Float))  # fmt: skip
        Table("forsale_sessions", old, Column("id_hash", String(64), primary_key=True),
              Column("account_id", String(32), ForeignKey("forsale_accounts.id")), Column("created_at", Float),
              Column("expires_at", Float))  # fmt: skip
    old.create_all(engine)
    engine.dispose()
