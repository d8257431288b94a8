"""Tournaments in ``forsale_tournaments``, their players and their tables (run on the writer thread).

Every node of a cluster may advance a tournament (:mod:`forsale.server.lobby.tournaments`); the database keeps
them from acting twice:

- **A change of state is compare-and-set.** Starting, planning a round, finishing: each writes only where the
  tournament's ``version`` is still the one its node read (:func:`op_advance`, :func:`op_plan`), and bumps it.
  The node that loses finds nothing written and looks again next time.
- **A planned table is seated once.** A round's tables are stored first with their entrants and no game
  (:func:`op_plan`); a node seats one with :func:`forsale.server.lobby.seating.seat_entrants`, whose transaction
  also runs :func:`op_claim_table`: it fills the row's ``game_id`` only where it is still null, else fails
  (:class:`TableTaken`) and the game is not stored. A round cut short by a restart is finished by whoever looks
  next.
- **A game's points are written once** (:func:`op_score`: only where ``points`` is still null).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, delete, func, insert, select, update

from .schema import accounts, games, notices, seats, tournament_games, tournament_players, tournaments

OPEN, RUNNING, OVER, CANCELLED = "open", "running", "over", "cancelled"
"""A tournament's status: taking entries, under way, finished (standings final), called off before its start."""


class TableTaken(Exception):
    """A planned table was already seated (by another node, or before a restart): this game is not stored."""


@dataclass(frozen=True)
class Tournament:
    """One row of ``forsale_tournaments``."""

    id: str
    name: str
    kind: str
    status: str
    creator_account: str
    config: dict[str, Any]
    seed: str
    starts_at: float | None
    round: int
    version: int
    created_at: float
    started_at: float | None
    ends_at: float | None
    finished_at: float | None


@dataclass(frozen=True)
class Player:
    account_id: str
    name: str
    bot: bool
    joined_at: float
    withdrawn_at: float | None


@dataclass(frozen=True)
class Table:
    """One table of a tournament: its entrants (None for a server bot's seat), its game once seated, its points
    once over (``{account id: [placement points, money]}``)."""

    round: int
    n: int
    entrants: list[str | None]
    game_id: str | None
    points: dict[str, list[float]] | None
    status: str | None  # the game's: playing | over (None before it is seated)
    finished_at: float | None  # the game's end


def _tournament(row: Any) -> Tournament:
    return Tournament(**{c.name: getattr(row, c.name) for c in tournaments.columns})


def op_create(t: Tournament, creator_name: str, creator_bot: bool, join: bool) -> Callable[[Connection], None]:
    """Store a new tournament (and its creator as its first player when ``join``)."""

    def fn(conn: Connection) -> None:
        conn.execute(insert(tournaments).values({c.name: getattr(t, c.name) for c in tournaments.columns}))
        if join:
            conn.execute(
                insert(tournament_players).values(
                    tournament_id=t.id,
                    account_id=t.creator_account,
                    name=creator_name,
                    bot=int(creator_bot),
                    joined_at=t.created_at,
                    withdrawn_at=None,
                )
            )

    return fn


def op_list(statuses: Sequence[str], limit: int) -> Callable[[Connection], list[tuple[Tournament, int]]]:
    """Tournaments of these statuses, newest first, each with its count of players still in."""

    def fn(conn: Connection) -> list[tuple[Tournament, int]]:
        counted = (
            select(func.count())
            .where(
                tournament_players.c.tournament_id == tournaments.c.id,
                tournament_players.c.withdrawn_at.is_(None),
            )
            .scalar_subquery()
        )
        rows = conn.execute(
            select(tournaments, counted.label("entries"))
            .where(tournaments.c.status.in_(list(statuses)))
            .order_by(tournaments.c.created_at.desc())
            .limit(limit)
        ).all()
        return [(_tournament(row), int(row.entries)) for row in rows]

    return fn


def op_active() -> Callable[[Connection], list[Tournament]]:
    """The tournaments a node may have work to do for: open or running."""

    def fn(conn: Connection) -> list[Tournament]:
        rows = conn.execute(select(tournaments).where(tournaments.c.status.in_([OPEN, RUNNING]))).all()
        return [_tournament(row) for row in rows]

    return fn


def op_load(
    tournament_id: str,
) -> Callable[[Connection], tuple[Tournament, list[Player], list[Table]] | None]:
    """A tournament, its players (in the order they joined) and its tables (by round and number)."""

    def fn(conn: Connection) -> tuple[Tournament, list[Player], list[Table]] | None:
        row = conn.execute(select(tournaments).where(tournaments.c.id == tournament_id)).first()
        if row is None:
            return None
        players = [
            Player(p.account_id, p.name, bool(p.bot), p.joined_at, p.withdrawn_at)
            for p in conn.execute(
                select(tournament_players)
                .where(tournament_players.c.tournament_id == tournament_id)
                .order_by(tournament_players.c.joined_at, tournament_players.c.account_id)
            ).all()
        ]
        tables = [
            Table(r.round, r.n, list(r.entrants), r.game_id, r.points, r.status, r.finished_at)
            for r in conn.execute(
                select(tournament_games, games.c.status, games.c.finished_at)
                .select_from(tournament_games.outerjoin(games, games.c.id == tournament_games.c.game_id))
                .where(tournament_games.c.tournament_id == tournament_id)
                .order_by(tournament_games.c.round, tournament_games.c.n)
            ).all()
        ]
        return _tournament(row), players, tables

    return fn


def op_join(
    tournament_id: str, account_id: str, name: str, max_players: int, now: float
) -> Callable[[Connection], str]:
    """Enter an account: ``"joined"``, or why not: ``"missing"``, ``"closed"`` (not open), ``"already"``, ``"full"``,
    ``"bots_excluded"`` (a bot account, at a tournament without bots). A withdrawn player of an open tournament has
    no row (:func:`op_withdraw` deletes it) and may come back.

    The tournament's row is read ``FOR UPDATE`` (PostgreSQL; SQLite has one writer): two joins at once, on two
    nodes, are serialised, so the count-then-insert cannot pass ``max_players`` and a double join of one account
    finds the first one's row (``"already"``) instead of failing on the primary key."""

    def fn(conn: Connection) -> str:
        row = conn.execute(select(tournaments).where(tournaments.c.id == tournament_id).with_for_update()).first()
        if row is None:
            return "missing"
        if row.status != OPEN:
            return "closed"
        bot = conn.execute(select(accounts.c.bot_since).where(accounts.c.id == account_id)).scalar() is not None
        if bot and not row.config.get("bots", True):
            return "bots_excluded"
        present = tournament_players.c.tournament_id == tournament_id
        if conn.execute(select(func.count()).where(present, tournament_players.c.account_id == account_id)).scalar():
            return "already"
        if (conn.execute(select(func.count()).where(present)).scalar() or 0) >= max_players:
            return "full"
        conn.execute(
            insert(tournament_players).values(
                tournament_id=tournament_id,
                account_id=account_id,
                name=name,
                bot=int(bot),
                joined_at=now,
                withdrawn_at=None,
            )
        )
        return "joined"

    return fn


def op_withdraw(tournament_id: str, account_id: str, now: float) -> Callable[[Connection], str]:
    """Take an account out: ``"withdrawn"`` (before the start its entry is deleted; later it is marked, and it is
    no longer paired), or ``"missing"``, ``"not_entered"``, ``"closed"`` (over or cancelled)."""

    def fn(conn: Connection) -> str:
        status = conn.execute(select(tournaments.c.status).where(tournaments.c.id == tournament_id)).scalar()
        if status is None:
            return "missing"
        if status not in (OPEN, RUNNING):
            return "closed"
        mine = and_(
            tournament_players.c.tournament_id == tournament_id,
            tournament_players.c.account_id == account_id,
            tournament_players.c.withdrawn_at.is_(None),
        )
        if status == OPEN:
            done = conn.execute(delete(tournament_players).where(mine)).rowcount
        else:
            done = conn.execute(update(tournament_players).where(mine).values(withdrawn_at=now)).rowcount
        return "withdrawn" if done else "not_entered"

    return fn


def op_advance(tournament_id: str, version: int, **values: Any) -> Callable[[Connection], bool]:
    """Change a tournament's state if nobody did since ``version`` was read; whether this write won."""

    def fn(conn: Connection) -> bool:
        where = and_(tournaments.c.id == tournament_id, tournaments.c.version == version)
        return bool(conn.execute(update(tournaments).where(where).values(version=version + 1, **values)).rowcount)

    return fn


def op_plan(
    tournament_id: str, version: int, round_: int, tables: Sequence[Sequence[str | None]], **values: Any
) -> Callable[[Connection], bool]:
    """Store the tables of round ``round_`` (numbered from 0, no game yet) and the tournament's new state, if nobody
    changed it since ``version``; whether this write won."""

    def fn(conn: Connection) -> bool:
        if not op_advance(tournament_id, version, **values)(conn):
            return False
        for n, entrants in enumerate(tables):  # points left out, so SQL NULL (a JSON column stores None as 'null')
            conn.execute(
                insert(tournament_games).values(
                    tournament_id=tournament_id, round=round_, n=n, entrants=list(entrants), game_id=None
                )
            )
        return True

    return fn


def op_claim_table(
    tournament_id: str, round_: int, n: int, account_id: str, source: dict[str, Any]
) -> Callable[[Connection], None]:
    """Link a planned table to the game being stored in this transaction, or fail (:class:`TableTaken`) if it has
    a game already. The game's id is read from the ``seated`` notice that :func:`seat_entrants` has just written
    for ``account_id`` (one of the table's accounts) with this table's ``source``."""

    def fn(conn: Connection) -> None:
        recent = conn.execute(
            select(notices.c.body)
            .where(notices.c.account_id == account_id, notices.c.kind == "seated")
            .order_by(notices.c.id.desc())
            .limit(20)
        ).scalars()
        game_id = next(
            (body["table"] for body in map(_json, recent) if body.get("source") == source),
            None,
        )
        if game_id is None:
            raise TableTaken("the new game's seated notice was not found")
        claimed = conn.execute(
            update(tournament_games)
            .where(
                tournament_games.c.tournament_id == tournament_id,
                tournament_games.c.round == round_,
                tournament_games.c.n == n,
                tournament_games.c.game_id.is_(None),
                tournament_games.c.points.is_(None),  # not voided (op_void) meanwhile
            )
            .values(game_id=game_id)
        ).rowcount
        if not claimed:
            raise TableTaken(f"table {n} of round {round_} was seated already")

    return fn


def op_void(tournament_id: str, round_: int, n: int) -> Callable[[Connection], bool]:
    """Settle a planned table that cannot be seated (its seating refused for good: a fill bot this server no longer
    runs, say) with no game and empty points, ``{}``: its players score nothing, and its round (or its arena's
    players) is not left waiting for it. Only while it has neither game nor points; whether this write did it."""

    def fn(conn: Connection) -> bool:
        where = and_(
            tournament_games.c.tournament_id == tournament_id,
            tournament_games.c.round == round_,
            tournament_games.c.n == n,
            tournament_games.c.game_id.is_(None),
            tournament_games.c.points.is_(None),
        )
        return bool(conn.execute(update(tournament_games).where(where).values(points={})).rowcount)

    return fn


def _json(body: Any) -> dict[str, Any]:
    value = json.loads(body) if isinstance(body, str) else body
    return value if isinstance(value, dict) else {}


def op_results(tournament_id: str) -> Callable[[Connection], list[tuple[int, int, dict[str, Any], list[str | None]]]]:
    """The finished games of the tournament not scored yet: ``(round, n, result, account of each seat)``."""

    def fn(conn: Connection) -> list[tuple[int, int, dict[str, Any], list[str | None]]]:
        rows = conn.execute(
            select(tournament_games.c.round, tournament_games.c.n, games.c.id, games.c.result)
            .join(games, games.c.id == tournament_games.c.game_id)
            .where(
                tournament_games.c.tournament_id == tournament_id,
                tournament_games.c.points.is_(None),
                games.c.status != "playing",
            )
        ).all()
        out = []
        for row in rows:
            who = conn.execute(
                select(seats.c.seat, seats.c.account_id, seats.c.kind).where(seats.c.game_id == row.id)
            ).all()
            accounts_by_seat: list[str | None] = [None] * len(who)
            for seat, account_id, kind in who:
                accounts_by_seat[seat] = account_id if kind == "human" else None
            out.append((row.round, row.n, row.result or {}, accounts_by_seat))
        return out

    return fn


def op_score(tournament_id: str, round_: int, n: int, points: dict[str, list[float]]) -> Callable[[Connection], None]:
    """Write a finished table's points (once: a table already scored keeps its points)."""

    def fn(conn: Connection) -> None:
        conn.execute(
            update(tournament_games)
            .where(
                tournament_games.c.tournament_id == tournament_id,
                tournament_games.c.round == round_,
                tournament_games.c.n == n,
                tournament_games.c.points.is_(None),
            )
            .values(points=points)
        )

    return fn


def op_open_count(creator_account: str) -> Callable[[Connection], int]:
    """How many of this account's tournaments are not over: not started yet or under way (the limit on how many one
    may hold at once; a running one counts too, or starting each at once would leave no limit on them)."""

    def fn(conn: Connection) -> int:
        mine = and_(tournaments.c.creator_account == creator_account, tournaments.c.status.in_((OPEN, RUNNING)))
        return int(conn.execute(select(func.count()).where(mine)).scalar() or 0)

    return fn
