"""The database's schema, every table in one place, and the one migration path (:func:`migrate`).

Every table the server keeps (games and their events, seats, accounts, sessions, mails, chat, ratings,
analyses, a cluster's leases and nodes) is declared here on one :data:`metadata`, so ``create_all`` makes
all of them whichever modules were imported, and a reader finds the whole schema on one page. The queries
live beside it, one module per concern (:mod:`forsale.server.store.database` the games and the writer,
:mod:`forsale.server.store.leases` a cluster's leases, :mod:`forsale.server.store.visibility` who sees what).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine

from ..names import skeleton

metadata = MetaData()

games = Table(
    "forsale_games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(100), nullable=False),
    Column("status", String(16), nullable=False, index=True),  # waiting | playing | over | expired
    Column("players", Integer, nullable=False),
    Column("config", JSON, nullable=False),  # rules, time_limit, memory_aid, private
    Column("deal", JSON, nullable=False),  # Deal.to_json() plus "removed": Deal.removed_to_json()
    Column("creator_hash", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("finished_at", Float, nullable=True),
    Column("result", JSON, nullable=True),  # scores, winners (finished games)
    # sha256 of an invitation-only table's invitation code (forsale.server.table.invites), null for every other
    # table. Added after the first release (see upgrade_schema).
    Column("invite_hash", String(64), nullable=True),
)

seats = Table(
    "forsale_seats",
    metadata,
    Column("game_id", String(32), ForeignKey("forsale_games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),  # open | human | bot
    Column("name", String(100), nullable=False),
    Column("bot", String(100), nullable=True),
    Column("token_hash", String(64), nullable=True),
    # The account the seat belongs to (null for guests and bots). Added after the first release, so
    # :func:`upgrade_schema` adds it to older databases; no foreign key, so that both forms are the same.
    Column("account_id", String(32), nullable=True, index=True),
)

accounts = Table(
    "forsale_accounts",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(100), nullable=False),  # as shown: NFKC-normalised (forsale.server.people.accounts)
    Column("name_key", String(200), nullable=False, unique=True),  # NFKC + casefold: unique per person
    Column("password_hash", String(200), nullable=False),  # argon2id, never the password
    Column("created_at", Float, nullable=False),
    # Where "your turn" emails go (forsale.server.people.turnmail); set by the account, never shown to others.
    # Added after the first release, like forsale_seats.account_id (see upgrade_schema).
    Column("email", String(254), nullable=True),
    # The language of those emails (one of forsale.catalogues.LANGUAGES; null: English), added after email.
    Column("language", String(8), nullable=True),
    # The name's look-alike skeleton (forsale.server.names): no two accounts share one, no guest takes one.
    # Added later (see upgrade_schema, which fills it for the accounts made before).
    Column("name_skeleton", String(200), nullable=True, index=True),
    # The address is mailed only once confirmed (forsale.server.people.emails): when, and the hash of the one-time
    # token of the confirmation link last mailed, with its expiry. Added with name_skeleton.
    Column("email_confirmed_at", Float, nullable=True),
    Column("email_token_hash", String(64), nullable=True, index=True),  # looked up by the confirmation
    Column("email_token_expires", Float, nullable=True),
    # When the account became a bot account (forsale.server.people.botaccounts), null for a person: it then
    # plays only through API tokens. Added with the Bot API (see upgrade_schema).
    Column("bot_since", Float, nullable=True),
)

mails = Table(
    "forsale_mails",
    metadata,
    # One row per email sent (forsale.server.people.emails), by casefolded address and kind ("confirm", "turn"): the
    # limits per address count these, so that they hold across restarts and across the nodes of a cluster.
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("address", String(254), nullable=False, index=True),
    Column("kind", String(16), nullable=False),
    Column("account_id", String(32), nullable=True),
    Column("at", Float, nullable=False),
)

sessions = Table(
    "forsale_sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),  # sha256 of the cookie's session id, never the id
    Column("account_id", String(32), ForeignKey("forsale_accounts.id"), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)


chat = Table(
    "forsale_chat",
    metadata,
    # A table's chat (forsale.server.table.chat): stored with the game, never part of its record or event log.
    Column("game_id", String(32), ForeignKey("forsale_games.id"), primary_key=True),
    Column("n", Integer, primary_key=True),  # 1, 2, 3, ... per game
    Column("seat", Integer, nullable=True),  # null: a spectator
    Column("name", String(100), nullable=False),
    Column("body", String(1200), nullable=False),  # plain text, at most 300 characters
    Column("at", Float, nullable=False),
)


ratings = Table(
    "forsale_ratings",
    metadata,
    # "account:<id>" or "bot:<name>" (forsale.server.people.skill): no foreign key, a bot has no row anywhere.
    Column("player", String(140), primary_key=True),
    Column("players", Integer, primary_key=True),  # 0: over every game; 2-6: over the games of that many players
    Column("mu", Float, nullable=False),  # openskill Plackett-Luce (forsale.arena.ratings.model)
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
)


analyses = Table(
    "forsale_analyses",
    metadata,
    # A finished game's post-game analysis (forsale.server.http.routes.analysis), computed once in a bot worker
    # and kept with the game. A table of its own, so create_all adds it to an older database as it is.
    Column("game_id", String(32), ForeignKey("forsale_games.id"), primary_key=True),
    Column("budget", Integer, nullable=False),  # sampled deals per evaluation (forsale.bots.analysis)
    Column("seed", Integer, nullable=False),
    Column("data", JSON, nullable=False),  # Analysis.to_json() of the human seats, with the chart
    Column("created_at", Float, nullable=False),
)

rating_changes = Table(
    "forsale_rating_changes",
    metadata,
    # One row per rated game, player and scope: the rating after the game (the profile's plot), and the
    # mark that the game was rated. forsale.server.people.skill can rebuild both tables from the games alone.
    Column("game_id", String(32), ForeignKey("forsale_games.id"), primary_key=True),
    Column("player", String(140), primary_key=True, index=True),
    Column("players", Integer, primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at", Float, nullable=False),
)

pairing = Table(
    "forsale_pairing",
    metadata,
    # Quick pairing's queue (forsale.server.lobby.pairing): one row per account waiting, in the database so that every
    # node of a cluster sees the same queue. The row lives while its owner is there (seen_at, refreshed by the
    # page's heartbeat) and goes in the transaction that seats it (forsale.server.store.pairing.op_claim).
    Column("account_id", String(32), primary_key=True),
    Column("name", String(100), nullable=False),  # the account's name, shown at the table
    Column("mu", Float, nullable=False),  # its rating when it joined (forsale.server.people.skill), 25 for a newcomer
    Column("counts", JSON, nullable=False),  # the table sizes it accepts: [3, 4, 5, 6] for any
    Column("rated", Integer, nullable=False),  # 1: rated games only; 0: casual only
    Column("bots_after", Float, nullable=True),  # seconds after which bots may fill its table; null: never
    Column("joined_at", Float, nullable=False),
    Column("seen_at", Float, nullable=False, index=True),
)

notices = Table(
    "forsale_notices",
    metadata,
    # What an account is told wherever it is signed in (forsale.server.people.notices): "seated" at a table made for
    # it (quick pairing, a tournament's round), a challenge to a bot account... Read in id order by a long poll
    # (GET /api/me/notices?after=<id>) or a bot's stream; pruned after a day (forsale.server.store.notices).
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", String(32), nullable=False, index=True),
    Column("kind", String(16), nullable=False),
    Column("body", JSON, nullable=False),
    Column("at", Float, nullable=False, index=True),
)


tournaments = Table(
    "forsale_tournaments",
    metadata,
    # A tournament (forsale.server.lobby.tournaments): Swiss rounds or an arena's time window, run by whichever node
    # advances it; "version" is bumped by every change of its state, compare-and-set, so two nodes never both act.
    Column("id", String(32), primary_key=True),
    Column("name", String(100), nullable=False),
    Column("kind", String(8), nullable=False),  # swiss | arena
    Column("status", String(12), nullable=False, index=True),  # open | running | over | cancelled
    Column("creator_account", String(32), nullable=False),
    Column("config", JSON, nullable=False),  # players, rules, time_limit, rated, bots, fill, rounds, minutes...
    Column("seed", String(32), nullable=False),  # the standings' coin flip (forsale.server.lobby.swiss.coin_flip)
    Column("starts_at", Float, nullable=True),  # null: when start_players have joined (or the creator starts it)
    Column("round", Integer, nullable=False),  # Swiss: the round under way (0 before the first)
    Column("version", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("started_at", Float, nullable=True),
    Column("ends_at", Float, nullable=True),  # an arena's end of pairing
    Column("finished_at", Float, nullable=True),
)

tournament_players = Table(
    "forsale_tournament_players",
    metadata,
    Column("tournament_id", String(32), ForeignKey("forsale_tournaments.id"), primary_key=True),
    Column("account_id", String(32), primary_key=True),
    Column("name", String(100), nullable=False),
    Column("bot", Integer, nullable=False),  # 1: a bot account (forsale.server.people.botaccounts)
    Column("joined_at", Float, nullable=False),
    Column("withdrawn_at", Float, nullable=True),  # no longer paired; its past games still count
)

tournament_games = Table(
    "forsale_tournament_games",
    metadata,
    # One table of a tournament: planned first (game_id null, with its entrants), then seated by one node, whose
    # game's transaction fills game_id (forsale.server.store.tournaments.op_claim_table), so a round interrupted by
    # a restart is finished by whichever node looks next, and no table is made twice.
    Column("tournament_id", String(32), ForeignKey("forsale_tournaments.id"), primary_key=True),
    Column("round", Integer, primary_key=True),  # an arena counts its tables 1, 2, 3...
    Column("n", Integer, primary_key=True),  # the table's number in its round
    Column("entrants", JSON, nullable=False),  # [account id, ..., null for each server bot seat]
    Column("game_id", String(32), nullable=True, index=True),
    Column("points", JSON, nullable=True),  # once over: {account id: [placement points, money]}
)


def upgrade_schema(conn: Connection) -> None:
    """Bring a database made by an older release up to :data:`metadata` (new tables are made by ``create_all``).

    Only additive changes, each idempotent: a column that is missing is added, nullable, so the rows
    already there keep their meaning (a seat with no account is a guest's seat, as it always was).
    """
    present = {c["name"] for c in inspect(conn).get_columns("forsale_seats")}
    if "account_id" not in present:
        conn.execute(text("ALTER TABLE forsale_seats ADD COLUMN account_id VARCHAR(32)"))
    present = {c["name"] for c in inspect(conn).get_columns("forsale_accounts")}
    if "email" not in present:
        conn.execute(text("ALTER TABLE forsale_accounts ADD COLUMN email VARCHAR(254)"))
    if "language" not in present:
        conn.execute(text("ALTER TABLE forsale_accounts ADD COLUMN language VARCHAR(8)"))
    for column, kind in (("name_skeleton", "VARCHAR(200)"), ("email_confirmed_at", "FLOAT"),
                         ("email_token_hash", "VARCHAR(64)"), ("email_token_expires", "FLOAT")):  # fmt: skip
        if column not in present:
            conn.execute(text(f"ALTER TABLE forsale_accounts ADD COLUMN {column} {kind}"))
    if "bot_since" not in present:
        conn.execute(text("ALTER TABLE forsale_accounts ADD COLUMN bot_since FLOAT"))
    for index in accounts.indexes:
        index.create(conn, checkfirst=True)
    for row in conn.execute(select(accounts.c.id, accounts.c.name).where(accounts.c.name_skeleton.is_(None))).all():
        conn.execute(update(accounts).where(accounts.c.id == row.id).values(name_skeleton=skeleton(row.name)))
    if "invite_hash" not in {c["name"] for c in inspect(conn).get_columns("forsale_games")}:
        conn.execute(text("ALTER TABLE forsale_games ADD COLUMN invite_hash VARCHAR(64)"))
    for index in seats.indexes:
        index.create(conn, checkfirst=True)


SCHEMA_LOCK = 0x666F7273616C65  # "forsale" as a number: the advisory lock that serialises schema changes
"""The key of the PostgreSQL transaction-level advisory lock :func:`migrate` holds (any constant will do, as
long as every release uses the same one)."""


def migrate(engine: Engine) -> None:
    """Create a new database's tables, or bring an older one up to :data:`metadata`: safe with many at once.

    This is the one migration path: every server and every node runs it at
    start-up, and nodes of a cluster often start together on an empty
    database. Without a lock, two of them both see no ``forsale_games`` and
    both create it; the second fails (``UniqueViolation`` on ``pg_type``).

    Why a lock around :func:`upgrade_schema` rather than Alembic: every change
    so far is additive and idempotent (a missing table or nullable column is
    added, nothing is renamed or dropped), so the migration needs no version
    history, only mutual exclusion. It is provably safe because:

    - **PostgreSQL**: the whole check-and-create runs in one transaction that
      first takes ``pg_advisory_xact_lock(SCHEMA_LOCK)``. A second node blocks
      on that statement until the first commits (or rolls back: the lock goes
      with the transaction, also when the process dies). Under READ COMMITTED
      each later statement takes a new snapshot, so everything the second node
      inspects afterwards (``create_all``'s ``checkfirst``, the column lists)
      includes the first node's committed DDL: it finds the tables there and
      creates nothing. PostgreSQL's DDL is transactional, so a failed
      migration leaves nothing half made.
    - **SQLite**: the same transaction starts with ``BEGIN IMMEDIATE``, which
      takes the database's write lock at once (SQLite's DDL is transactional
      too); a second process waits for it (the driver's busy timeout) and then
      reads the committed schema. Without it the driver would run each
      ``CREATE TABLE`` outside any transaction, after an unlocked check.

    A future change that is not additive (a rename, a new constraint over old
    rows) needs versioned steps: that is when Alembic, run under this same
    lock, becomes worth its weight.
    """
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        elif conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
        metadata.create_all(conn)
        upgrade_schema(conn)
        conn.commit()


events = Table(
    "forsale_events",
    metadata,
    Column("game_id", String(32), ForeignKey("forsale_games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),  # 1, 2, 3, ... per game, no gaps
    Column("seat", Integer, nullable=False),
    Column("action", JSON, nullable=False),  # {"bid": b} | {"pass": true} | {"sell": h}
    Column("source", String(16), nullable=False),  # player | bot | clock | away
    Column("at", Float, nullable=False),
)

leases = Table(
    "forsale_leases",
    metadata,
    # Who may write a live table's events in a cluster (forsale.server.lobby.cluster): one row per table,
    # taken by one node at a time. ``owner`` is a node's incarnation (name plus a random part, new at
    # every start), ``epoch`` grows at every taking (the fencing token), ``expires_at`` is in the
    # database's clock (seconds since the epoch), so that the nodes' clocks never matter.
    Column("game_id", String(32), primary_key=True),
    Column("owner", String(100), nullable=False),
    Column("node", String(64), nullable=False),
    Column("epoch", Integer, nullable=False),
    Column("expires_at", Float, nullable=False, index=True),
)


nodes = Table(
    "forsale_nodes",
    metadata,
    # One row per node name (forsale.server.store.leases): its latest heartbeat (database clock) and what it
    # serves, for the lobby's players online and the cluster page; a node is live while its heartbeat is
    # recent. Defined here with the others, so that migrate() makes it whichever modules were imported.
    Column("name", String(64), primary_key=True),
    Column("owner", String(100), nullable=False),
    Column("heartbeat_at", Float, nullable=False),
    Column("tables", Integer, nullable=False),
    Column("online", Integer, nullable=False),
)


api_tokens = Table(
    "forsale_api_tokens",
    metadata,
    # A bot account's API tokens (forsale.server.people.apitokens): the sha256 of the secret, never the secret,
    # its name and scopes, and its last use. Revoking deletes the row.
    Column("id", String(16), primary_key=True),  # public: how the owner names a token to revoke it
    Column("account_id", String(32), ForeignKey("forsale_accounts.id"), nullable=False, index=True),
    Column("name", String(100), nullable=False),
    Column("scopes", JSON, nullable=False),  # ["bot:read", "bot:play"]
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created_at", Float, nullable=False),
    Column("last_used_at", Float, nullable=True),
)


challenges = Table(
    "forsale_challenges",
    metadata,
    # A person's challenge to a bot account (forsale.server.lobby.challenges): pending until the bot accepts,
    # declines, or it expires; in the database so that any node of a cluster answers it.
    Column("id", String(16), primary_key=True),
    Column("challenger_id", String(32), nullable=False, index=True),
    Column("bot_id", String(32), nullable=False, index=True),
    Column("terms", JSON, nullable=False),  # players, rules, time_limit, rated, bots
    Column("status", String(16), nullable=False),  # pending | accepted | declined | expired | cancelled
    Column("table_id", String(32), nullable=True),
    Column("reason", String(32), nullable=True),  # why a bot declined (its own word, one of DECLINE_REASONS)
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)
