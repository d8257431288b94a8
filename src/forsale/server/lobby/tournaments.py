"""Tournaments on the server: Swiss rounds and arenas, created and joined by accounts, run by the server itself.

The rules (who plays whom, points, standings) are :mod:`forsale.server.lobby.swiss`, pure; the rows are
:mod:`forsale.server.store.tournaments`. This module is the part that acts:

- **What accounts do**: create, join, withdraw, start early, cancel (:class:`Tournaments`' methods, called by
  :mod:`forsale.server.http.routes.tournaments`), and read a tournament as JSON (:meth:`Tournaments.view`).
- **The runner**: every node looks at the open and running tournaments every :data:`TICK` seconds
  (:meth:`Tournaments.tick`) and does what is due: starts a tournament at its time or when enough have joined,
  scores the games that ended (placement points), plans the next Swiss round once every game of the round is
  over (or an arena's next tables for its free players), seats each planned table with
  :func:`forsale.server.lobby.seating.seat_entrants` (so every seated account gets a ``seated`` notice with
  ``source: {"tournament": id, "round": r, "table": n}``), and ends the tournament after its last round or its
  window. The database is the truth (see :mod:`forsale.server.store.tournaments` for how two nodes never act
  twice): a restarted server, or another node, carries on where it stopped.
- **Rounds wait for every table.** A Swiss round starts when every game of the previous one is over; the tables'
  clocks (a tournament always has one) bound that wait, since an absent player's moves are made by the clock.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any

from ...errors import ForSaleError
from ...rules import Ruleset
from ..errors import Refused
from ..ops.botrunner import validate_spec
from ..people.skill import check_rated_table
from ..store.outage import Unavailable
from ..store.tournaments import (
    CANCELLED,
    OPEN,
    OVER,
    RUNNING,
    Player,
    Table,
    TableTaken,
    Tournament,
    op_active,
    op_advance,
    op_claim_table,
    op_create,
    op_join,
    op_list,
    op_load,
    op_open_count,
    op_plan,
    op_results,
    op_score,
    op_void,
    op_withdraw,
)
from . import swiss
from .lobby import Lobby, TableRequest
from .rounds import Rounds
from .seating import Entrant, seat_entrants

log = logging.getLogger("forsale.server")

TICK = 1.0
"""Seconds between two looks at the tournaments by a node's runner."""

ARENA_WAIT = 10.0
"""Seconds one or two free players of an arena with bots filling wait for others before bots complete their table."""

MAX_PLAYERS = 256
"""The most entries a tournament may allow."""

OPEN_PER_ACCOUNT = 5
"""The most tournaments one account may have announced and not over, not yet started or under way (429
``too_many_tournaments``)."""

LIST_LIMIT = 50

AHEAD = 30 * 86400.0
"""How far ahead a tournament may be announced (``starts_at``), in seconds."""

ID_MAX = 32
"""An id longer than the column holds names no tournament (404 before any query)."""
"""Tournaments listed per status."""


@dataclass(frozen=True)
class Settings:
    """A new tournament's settings, already checked at the boundary (:class:`forsale.server.http.schemas.CreateTournament`)."""

    name: str
    kind: str = "swiss"  # swiss | arena
    players: int = 4  # seats per table, 3 to 6
    rules: str | dict[str, Any] | None = None
    time_limit: float = 30.0
    rated: bool = False
    bots: bool = True  # bot accounts may enter
    fill: str | None = None  # a server bot's level to fill the seats a round cannot fill with players
    rounds: int = 3  # Swiss
    minutes: float = 30.0  # arena: the window
    starts_at: float | None = None
    start_players: int | None = None  # start as soon as this many have joined
    max_players: int = 64
    bot_delay: float | None = None
    join: bool = True  # the creator enters too


def min_entries(config: dict[str, Any]) -> int:
    """The fewest players a tournament starts with: 3 (one table), or 2 when bots fill the free seats."""
    return 2 if config.get("fill") else swiss.MIN_SEATS


class Tournaments:
    """One node's part of tournaments: the accounts' requests, the views, and the runner."""

    def __init__(self, lobby: Lobby, tick: float = TICK) -> None:
        self.lobby = lobby
        self.storage = lobby.storage
        self.rounds = Rounds(self.tick, tick, "tournaments")
        self._said: dict[str, str] = {}  # each tournament's last failure logged (see _failed)

    # -- what accounts do ---------------------------------------------------------------
    async def create(self, account: dict[str, Any], s: Settings) -> dict[str, Any]:
        """Store a new tournament made by ``account``; its view."""
        now = time.time()
        if s.starts_at is not None and not now < s.starts_at <= now + AHEAD:
            raise Refused("bad_start", "starts_at: a time to come, within 30 days (or give start_players)")
        least = min_entries({"fill": s.fill})
        if s.start_players is not None and not least <= s.start_players <= s.max_players:
            raise Refused("bad_start", f"start_players: from {least} (the fewest a table needs) to max_players")
        if account.get("bot_account") and not s.bots and s.join:
            raise Refused("bots_excluded", "a bot account cannot enter a tournament without bots", 403)
        self._check_tables(s)
        if await self.storage.run(op_open_count(account["id"])) >= OPEN_PER_ACCOUNT:
            raise Refused(
                "too_many_tournaments",
                f"an account may have {OPEN_PER_ACCOUNT} tournaments announced or under way at a time",
                429,
            )
        config = {
            "players": s.players,
            "rules": s.rules,
            "time_limit": s.time_limit,
            "rated": s.rated,
            "bots": s.bots,
            "fill": s.fill,
            "rounds": s.rounds if s.kind == "swiss" else None,
            "minutes": s.minutes if s.kind == "arena" else None,
            "start_players": s.start_players,
            "max_players": s.max_players,
            "bot_delay": s.bot_delay,
        }
        t = Tournament(
            id=secrets.token_urlsafe(6),
            name=s.name,
            kind=s.kind,
            status=OPEN,
            creator_account=account["id"],
            config=config,
            seed=secrets.token_hex(8),
            starts_at=s.starts_at,
            round=0,
            version=0,
            created_at=now,
            started_at=None,
            ends_at=None,
            finished_at=None,
        )
        await self.storage.run(op_create(t, account["name"], bool(account.get("bot_account")), s.join))
        self.rounds.wake()
        return await self.view(t.id, account["id"])

    def _check_tables(self, s: Settings) -> None:
        """Refuse now what would make every table of the tournament fail later: bad rules, a bad bot, a rated
        table that could not be rated. A dry run of :func:`seat_entrants`'s own checks, so they are the same."""
        try:
            rules = Ruleset.parse(s.rules, s.players)
            for n in range(swiss.MIN_SEATS, swiss.MAX_SEATS + 1):  # a round may need tables of any size 3-6
                Ruleset.parse(s.rules, n)
        except ForSaleError as error:
            raise Refused("bad_rules", str(error)) from None
        if s.fill is not None:
            try:
                validate_spec(
                    s.fill, self.lobby.options.max_bot_time, rules, research_bots=self.lobby.options.research_bots
                )
            except ValueError as error:
                raise Refused("bad_bot", f"{s.fill}: {error}") from None
        check_rated_table(s.rated, False, [None, s.fill])

    async def join(self, tournament_id: str, account: dict[str, Any]) -> dict[str, Any]:
        """Enter the account (see :func:`op_join` for the refusals, mapped to error codes here)."""
        loaded = await self.storage.run(op_load(tournament_id)) if len(tournament_id) <= ID_MAX else None
        max_players = loaded[0].config.get("max_players", MAX_PLAYERS) if loaded else MAX_PLAYERS
        status = await self.storage.run(
            op_join(tournament_id, account["id"], account["name"], max_players, time.time())
        )
        refusals = {
            "missing": Refused("no_such_tournament", "no tournament has this id", 404),
            "closed": Refused("tournament_closed", "this tournament has started, ended or been cancelled", 409),
            "already": Refused("already_entered", "this account has entered this tournament already", 409),
            "full": Refused("tournament_full", "this tournament has all the players it allows", 409),
            "bots_excluded": Refused("bots_excluded", "this tournament does not allow bot accounts", 403),
        }
        if status in refusals:
            raise refusals[status]
        self.rounds.wake()
        return await self.view(tournament_id, account["id"])

    async def withdraw(self, tournament_id: str, account_id: str) -> dict[str, Any]:
        """Take the account out: before the start its entry goes; later it is no longer paired, and a game it is
        playing plays on (the clock moves for an absent player, as at any table)."""
        status = await self.storage.run(op_withdraw(tournament_id, account_id, time.time()))
        if status == "missing":
            raise Refused("no_such_tournament", "no tournament has this id", 404)
        if status == "closed":
            raise Refused("tournament_closed", "this tournament is over or cancelled", 409)
        if status == "not_entered":
            raise Refused("not_entered", "this account is not in this tournament", 409)
        return await self.view(tournament_id, account_id)

    async def _mine(self, tournament_id: str, account_id: str) -> tuple[Tournament, list[Player]]:
        loaded = await self.storage.run(op_load(tournament_id)) if len(tournament_id) <= ID_MAX else None
        if loaded is None:
            raise Refused("no_such_tournament", "no tournament has this id", 404)
        t, players, _ = loaded
        if t.creator_account != account_id:
            raise Refused("not_creator", "only the tournament's creator may do this", 403)
        if t.status != OPEN:
            raise Refused("tournament_closed", "this tournament has started, ended or been cancelled", 409)
        return t, players

    async def start(self, tournament_id: str, account_id: str) -> dict[str, Any]:
        """Start now, before the start time (the creator only, with enough players)."""
        t, players = await self._mine(tournament_id, account_id)
        entries = sum(1 for p in players if p.withdrawn_at is None)
        if entries < min_entries(t.config):
            raise Refused(
                "too_few_players", f"{entries} entered; this tournament needs {min_entries(t.config)} to start", 409
            )
        if not await self.storage.run(op_advance(t.id, t.version, **self._starting(t))):
            raise Refused("tournament_closed", "this tournament changed meanwhile: look again", 409)
        self.rounds.wake()
        return await self.view(tournament_id, account_id)

    async def cancel(self, tournament_id: str, account_id: str) -> dict[str, Any]:
        """Call the tournament off before it starts (the creator only)."""
        t, _ = await self._mine(tournament_id, account_id)
        if not await self.storage.run(op_advance(t.id, t.version, status=CANCELLED, finished_at=time.time())):
            raise Refused("tournament_closed", "this tournament changed meanwhile: look again", 409)
        return await self.view(tournament_id, account_id)

    # -- reading -------------------------------------------------------------------------
    async def listing(self) -> dict[str, list[dict[str, Any]]]:
        """The upcoming, running and finished tournaments, newest first."""
        out: dict[str, list[dict[str, Any]]] = {}
        for key, statuses in (("upcoming", [OPEN]), ("running", [RUNNING]), ("finished", [OVER, CANCELLED])):
            rows = await self.storage.run(op_list(statuses, LIST_LIMIT))
            out[key] = [{**_summary(t), "entries": entries} for t, entries in rows]
        return out

    async def view(self, tournament_id: str, account_id: str | None = None) -> dict[str, Any]:
        """A tournament as JSON: settings, standings, ``schedule`` (every round's tables with their games), and ``you`` (the
        asking account's entry and the game it should be at now)."""
        loaded = await self.storage.run(op_load(tournament_id)) if len(tournament_id) <= ID_MAX else None
        if loaded is None:
            raise Refused("no_such_tournament", "no tournament has this id", 404)
        t, players, tables = loaded
        names = {p.account_id: p for p in players}
        lines = swiss.standings([p.account_id for p in players], _games(tables), t.seed)
        standings = [
            {
                "rank": i + 1,
                "name": names[line.player].name if line.player in names else "?",
                "bot": names[line.player].bot if line.player in names else False,
                "points": line.points,
                "buchholz": line.buchholz,
                "money": line.money,
                "games": line.games,
                "withdrawn": line.player in names and names[line.player].withdrawn_at is not None,
                "you": line.player == account_id,
            }
            for i, line in enumerate(lines)
        ]
        rounds: dict[int, list[dict[str, Any]]] = {}
        for table in tables:
            rounds.setdefault(table.round, []).append(_table_json(table, names, t.config.get("fill")))
        you = None
        if account_id is not None and account_id in names:
            me = names[account_id]
            playing = next(
                (
                    tb.game_id
                    for tb in tables
                    if account_id in tb.entrants and tb.game_id is not None and tb.status == "playing"
                ),
                None,
            )
            you = {"entered": True, "withdrawn": me.withdrawn_at is not None, "table": playing}
        return {
            **_summary(t),
            "entries": sum(1 for p in players if p.withdrawn_at is None),
            "creator": account_id is not None and account_id == t.creator_account,
            "standings": standings,
            "schedule": [{"round": r, "tables": tbs} for r, tbs in sorted(rounds.items())],
            "you": you,
        }

    # -- the runner ----------------------------------------------------------------------
    def start_runner(self) -> None:
        self.rounds.start()

    async def close(self) -> None:
        await self.rounds.close()

    async def tick(self, now: float | None = None) -> None:
        """Do what is due in every open or running tournament (see the module docstring)."""
        for t in await self.storage.run(op_active()):
            try:
                await self.advance(t.id, time.time() if now is None else now)
            except Unavailable:
                raise
            except Exception as failure:
                self._failed(t.id, failure)

    def _failed(self, tournament_id: str, failure: Exception, what: str = "could not advance") -> None:
        """Log a tournament's failure once while it repeats (the runner tries again every second: a lasting fault
        must not write a line a second), again when it changes."""
        said = f"{what}: {type(failure).__name__}: {failure}"
        if self._said.get(tournament_id) == said:
            return
        self._said[tournament_id] = said
        log.error("tournament %s: %s", tournament_id, what, exc_info=failure)

    async def advance(self, tournament_id: str, now: float) -> None:
        """One tournament's due work, each step compare-and-set against whatever another node does."""
        loaded = await self.storage.run(op_load(tournament_id))
        if loaded is None:
            return
        t, players, tables = loaded
        if t.status == OPEN:
            await self._maybe_start(t, players, now)
            return
        if t.status != RUNNING:
            return
        if await self._score(t):
            loaded = await self.storage.run(op_load(tournament_id))
            assert loaded is not None
            t, players, tables = loaded
        await self._seat_planned(t, players, tables)
        if t.kind == "swiss":
            await self._swiss(t, players, tables, now)
        else:
            await self._arena(t, players, tables, now)

    def _starting(self, t: Tournament) -> dict[str, Any]:
        now = time.time()
        ends = now + float(t.config.get("minutes") or 0) * 60 if t.kind == "arena" else None
        return {"status": RUNNING, "started_at": now, "ends_at": ends}

    async def _maybe_start(self, t: Tournament, players: list[Player], now: float) -> None:
        entries = sum(1 for p in players if p.withdrawn_at is None)
        wanted = t.config.get("start_players")
        timed = t.starts_at is not None and now >= t.starts_at
        enough = entries >= min_entries(t.config)
        if enough and ((wanted is not None and entries >= wanted) or timed):
            if await self.storage.run(op_advance(t.id, t.version, **self._starting(t))):
                log.info("tournament %s: started with %d players", t.id, entries)
                self.rounds.wake()
        elif timed:  # its time came without enough players
            await self.storage.run(op_advance(t.id, t.version, status=CANCELLED, finished_at=now))
            log.info(
                "tournament %s: cancelled at its start time, %d players of %d", t.id, entries, min_entries(t.config)
            )

    async def _score(self, t: Tournament) -> bool:
        """Write the placement points of the tournament's games that ended; whether there were any."""
        results = await self.storage.run(op_results(t.id))
        for round_, n, result, seat_accounts in results:
            scores = result.get("scores") or [0] * len(seat_accounts)
            coins = result.get("coins") or [0] * len(seat_accounts)
            placed = swiss.placement_points(scores, coins)
            points = {a: [placed[i], float(scores[i])] for i, a in enumerate(seat_accounts) if a is not None}
            await self.storage.run(op_score(t.id, round_, n, points))
        return bool(results)

    async def _seat_planned(self, t: Tournament, players: list[Player], tables: list[Table]) -> None:
        names = {p.account_id: p.name for p in players}
        for table in tables:
            if table.game_id is not None:
                continue
            accounts = [a for a in table.entrants if a is not None]
            if not accounts:
                continue
            entrants = [
                Entrant(a, names.get(a, "?")) if a is not None else Entrant(None, "", t.config["fill"])
                for a in table.entrants
            ]
            label = f"R{table.round} T{table.n + 1}" if t.kind == "swiss" else f"#{table.round}.{table.n + 1}"
            request = TableRequest(
                name=f"{t.name[: 40 - len(label) - 1]} {label}",
                players=len(entrants),
                rules=t.config.get("rules"),
                time_limit=t.config.get("time_limit"),
                rated=bool(t.config.get("rated")),
                bot_delay=t.config.get("bot_delay"),
            )
            source = {"tournament": t.id, "round": table.round, "table": table.n}
            claim = op_claim_table(t.id, table.round, table.n, accounts[0], source)
            try:
                made = await seat_entrants(self.lobby, request, entrants, source, claim)
            except TableTaken:  # another node (or this one before a restart) seated it
                continue
            except Refused as refused:
                if refused.status in (429, 503):  # busy or out of reach for now: tried again at the next look
                    self._failed(t.id, refused, f"table {table.n} of round {table.round} not made")
                elif await self.storage.run(op_void(t.id, table.round, table.n)):
                    # Refused for good (the same settings are refused again): left planned, it would hold its round
                    # (or its arena's players) for ever. Void, no game, nobody scores (docs/tournaments.md).
                    log.warning("tournament %s: table %d of round %d void: %s", t.id, table.n, table.round, refused)
                continue
            log.info("tournament %s: round %d table %d is %s", t.id, table.round, table.n, made.id)

    async def _swiss(self, t: Tournament, players: list[Player], tables: list[Table], now: float) -> None:
        if any(tb.round == t.round and tb.points is None for tb in tables):
            return  # the round is under way
        rounds = int(t.config.get("rounds") or 1)
        active = {p.account_id for p in players if p.withdrawn_at is None}
        order = [
            line.player
            for line in swiss.standings([p.account_id for p in players], _games(tables), t.seed)
            if line.player in active
        ]
        fill = t.config.get("fill")
        sizes = swiss.table_sizes(len(order), int(t.config["players"]), fill=bool(fill)) if len(order) > 1 else []
        if t.round >= rounds or not sizes:
            if await self.storage.run(op_advance(t.id, t.version, status=OVER, finished_at=now)):
                log.info("tournament %s: over after %d rounds", t.id, t.round)
            return
        bots = swiss.bot_seats(sizes, len(order)) if fill else [0] * len(sizes)
        met = swiss.meetings([a for a in tb.entrants if a is not None] for tb in tables)
        seating = swiss.swiss_round(order, [s - b for s, b in zip(sizes, bots, strict=True)], met)
        planned: list[list[str | None]] = [[*seat, *([None] * b)] for seat, b in zip(seating, bots, strict=True)]
        if await self.storage.run(op_plan(t.id, t.version, t.round + 1, planned, round=t.round + 1)):
            log.info("tournament %s: round %d planned, %d tables", t.id, t.round + 1, len(planned))
            self.rounds.wake()

    async def _arena(self, t: Tournament, players: list[Player], tables: list[Table], now: float) -> None:
        busy = {a for tb in tables if tb.points is None for a in tb.entrants if a is not None}
        if t.ends_at is not None and now >= t.ends_at:
            if not busy and await self.storage.run(op_advance(t.id, t.version, status=OVER, finished_at=now)):
                log.info("tournament %s: arena over", t.id)
            return
        active = {p.account_id for p in players if p.withdrawn_at is None}
        order = [
            line.player
            for line in swiss.standings([p.account_id for p in players], _games(tables), t.seed)
            if line.player in active and line.player not in busy
        ]
        size = int(t.config["players"])
        free_since = {a: t.started_at or now for a in order}
        for tb in tables:
            for a in tb.entrants:
                if a in free_since and tb.finished_at is not None:
                    free_since[a] = max(free_since[a], tb.finished_at)
        planned: list[list[str | None]] = [list(tb) for tb in swiss.arena_tables(order, size)]
        # A void table (seating refused for good) is most likely its fill bot refused: no more of those, or one
        # would be planned and voided every tick until the window closes.
        fill = t.config.get("fill") and not any(tb.game_id is None and tb.points is not None for tb in tables)
        if not planned and order and fill and max(now - free_since[a] for a in order) >= ARENA_WAIT:
            planned.append([*order, *([None] * (size - len(order)))])  # one or two alone: bots complete the table
        if not planned:
            return
        if await self.storage.run(op_plan(t.id, t.version, t.round + 1, planned, round=t.round + 1)):
            self.rounds.wake()


def _games(tables: list[Table]) -> list[swiss.Game]:
    return [
        swiss.Game({a: float(v[0]) for a, v in tb.points.items()}, {a: float(v[1]) for a, v in tb.points.items()})
        for tb in tables
        if tb.points
    ]


def _summary(t: Tournament) -> dict[str, Any]:
    return {
        "id": t.id,
        "name": t.name,
        "kind": t.kind,
        "status": t.status,
        "players": t.config.get("players"),
        "rules": t.config.get("rules"),
        "time_limit": t.config.get("time_limit"),
        "rated": bool(t.config.get("rated")),
        "bots": bool(t.config.get("bots")),
        "fill": t.config.get("fill"),
        "rounds": t.config.get("rounds"),
        "minutes": t.config.get("minutes"),
        "start_players": t.config.get("start_players"),
        "max_players": t.config.get("max_players"),
        "round": t.round,
        "starts_at": _ms(t.starts_at),
        "started_at": _ms(t.started_at),
        "ends_at": _ms(t.ends_at),
        "finished_at": _ms(t.finished_at),
    }


def _ms(at: float | None) -> int | None:
    return None if at is None else int(at * 1000)


def _table_status(table: Table) -> str:
    """``planned`` (no game yet), ``playing``, ``over`` (scored), or ``void`` (could not be seated: :func:`op_void`)."""
    if table.points is not None:
        return "void" if table.game_id is None else "over"
    return table.status or "planned"


def _table_json(table: Table, names: dict[str, Player], fill: str | None) -> dict[str, Any]:
    seats: list[dict[str, Any]] = []
    for a in table.entrants:
        if a is None:
            seats.append({"name": None, "bot": True, "server_bot": fill, "points": None, "money": None})
        else:
            got = (table.points or {}).get(a)
            seats.append(
                {
                    "name": names[a].name if a in names else "?",
                    "bot": names[a].bot if a in names else False,
                    "points": None if got is None else got[0],
                    "money": None if got is None else got[1],
                }
            )
    game = table.game_id
    return {
        "n": table.n,
        "game": game,
        "status": _table_status(table),
        "replay": None if game is None else f"#/replay/{game}",
        "record": None if game is None else f"/api/tables/{game}/record",
        "seats": seats,
    }
