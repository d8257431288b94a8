"""Challenges: a person asks a bot account for a game, the bot accepts or declines, or it expires.

A signed-in person challenges a bot account from its profile, naming the table (players, rules, clock, rated,
and server bots for the seats beyond the two of them). The challenge is a row (:mod:`forsale.server.store.challenges`)
and a ``challenge`` notice to the bot (:mod:`forsale.server.people.notices`), so that the bot hears it on
whichever node it streams from. The bot answers within :data:`EXPIRES` seconds; after that the challenge has
expired and no answer counts. On accept the table is made with :func:`~forsale.server.lobby.seating.seat_entrants`
(``source: {"challenge": id}``), which tells both accounts they are ``seated``; the challenger is also sent the
challenge's new state as a ``challenge`` notice, on accept and on decline.

Every state change is one conditional update (pending and unexpired → its new state), so a bot's accept racing
the challenger's cancel, or two copies of the bot, settle it once.
"""

from __future__ import annotations

import math
import secrets
import time
from dataclasses import dataclass
from typing import Any

from ...errors import ForSaleError
from ...rules import MAX_PLAYERS, MIN_PLAYERS, Ruleset
from ..errors import Refused
from ..ops.botrunner import default_bot, validate_spec
from ..people.accounts import Account, name_key, refuse_bot_account
from ..people.skill import check_rated_table
from ..store import challenges as store
from ..store.apitokens import op_find_bot
from .lobby import Lobby, TableRequest
from .seating import Entrant, seat_entrants

KIND = "challenge"
"""The notice's kind, to the bot (a new challenge) and to the challenger (its answer)."""
EXPIRES = 60.0
"""Seconds a bot has to answer a challenge."""
PENDING_LIMIT = 3
"""Challenges one person may have pending at once (each is a notice some bot must read)."""
PER_MINUTE = 10
"""Challenges one person may make in a minute, cancelled ones included (each tells its bot twice: made, cancelled);
past it ``429 rate_limited`` with ``Retry-After``."""
DECLINE_REASONS = ("generic", "later", "players", "rules", "clock", "rated", "casual")
"""What a bot may say when it declines (as Lichess's bots do): not now, or which term it does not play."""


@dataclass(frozen=True)
class Terms:
    """The table a challenge asks for: the challenger and the bot account at two seats, server ``bots`` at the
    others (one spec each; None: the server's default bot)."""

    players: int = 2
    rules: str | dict[str, Any] | None = None
    time_limit: float | None = 60.0
    rated: bool = False
    bots: tuple[str, ...] | None = None

    def checked(self, lobby: Lobby) -> Terms:
        """These terms with their bots filled in, or :class:`Refused` saying what no table could be made of."""
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise Refused("bad_request", f"players: {MIN_PLAYERS} to {MAX_PLAYERS}")
        bots = self.bots if self.bots is not None else (default_bot(),) * (self.players - 2)
        if len(bots) != self.players - 2:
            raise Refused("bad_seats", f"a table of {self.players} has {self.players - 2} seats for server bots")
        try:
            rules = Ruleset.parse(self.rules, self.players)
        except ForSaleError as error:
            raise Refused("bad_rules", str(error)) from None
        for spec in bots:
            try:
                validate_spec(spec, lobby.options.max_bot_time, rules, research_bots=lobby.options.research_bots)
            except ValueError as error:
                raise Refused("bad_bot", f"{spec[:40]}: {error}") from None
        check_rated_table(self.rated, False, [None, None, *bots])
        return Terms(self.players, self.rules, self.time_limit, self.rated, tuple(bots))


def shown(row: dict[str, Any], now: float | None = None) -> dict[str, Any]:
    """A challenge as both sides read it (times in epoch milliseconds); a pending one past its time is ``expired``."""
    terms = row["terms"]
    status = row["status"]
    if status == store.PENDING and row["expires_at"] <= (time.time() if now is None else now):
        status = "expired"
    return {
        "id": row["id"],
        "from": terms["from"],
        "to": terms["to"],
        "players": terms["players"],
        "rules": terms["rules"],
        "time_limit": terms["time_limit"],
        "rated": terms["rated"],
        "bots": terms["bots"],
        "status": status,
        "reason": row["reason"],
        "table": row["table_id"],
        "created_at": int(row["created_at"] * 1000),
        "expires_at": int(row["expires_at"] * 1000),
    }


async def create(lobby: Lobby, challenger: Account, bot: str, terms: Terms) -> dict[str, Any]:
    """Challenge the bot account named ``bot``: ``404 no_such_bot`` if no bot account has that name,
    ``403 bot_account`` from a bot account's session, ``429 too_many_challenges`` past :data:`PENDING_LIMIT`,
    ``429 rate_limited`` past :data:`PER_MINUTE`."""
    refuse_bot_account(challenger)
    found = await lobby.storage.run(op_find_bot(name_key(bot)))
    if found is None:
        raise Refused("no_such_bot", "no bot account has that name", 404)
    bot_id, bot_name = found
    terms = terms.checked(lobby)
    now = time.time()
    row = {
        "id": secrets.token_urlsafe(9),
        "challenger_id": challenger["id"],
        "bot_id": bot_id,
        "terms": {
            "from": challenger["name"], "to": bot_name, "players": terms.players, "rules": terms.rules,
            "time_limit": terms.time_limit, "rated": terms.rated, "bots": list(terms.bots or ()),
        },
        "status": store.PENDING,
        "table_id": None,
        "reason": None,
        "created_at": now,
        "expires_at": now + EXPIRES,
    }  # fmt: skip
    made = await lobby.storage.run(store.op_create(row, PENDING_LIMIT, PER_MINUTE))
    if made == "pending":
        raise Refused(
            "too_many_challenges", f"at most {PENDING_LIMIT} challenges pending at once: wait for an answer", 429
        )
    if isinstance(made, float):
        seconds = max(1, math.ceil(made))
        raise Refused(
            "rate_limited", f"at most {PER_MINUTE} challenges a minute; try again in {seconds} s", 429,
            {"Retry-After": str(seconds)},
        )  # fmt: skip
    challenge = shown(row, now)
    await lobby.notices.post([(bot_id, KIND, {"challenge": challenge})])
    return challenge


async def _mine(lobby: Lobby, account_id: str, challenge_id: str, *, as_bot: bool) -> dict[str, Any]:
    """The challenge, if ``account_id`` is its bot (``as_bot``) or its challenger; else 404 (it is none of theirs)."""
    row = await lobby.storage.run(store.op_get(challenge_id)) if len(challenge_id) <= 32 else None
    if row is None or row["bot_id" if as_bot else "challenger_id"] != account_id:
        raise Refused("not_found", "there is no such challenge of yours", 404)
    return row


async def _settled(lobby: Lobby, row: dict[str, Any], status: str, reason: str | None = None) -> dict[str, Any]:
    """Move the pending challenge ``row`` to ``status``, or ``409 challenge_over`` saying what it became first."""
    if not await lobby.storage.run(store.op_settle(row["id"], status, reason)):
        now = await lobby.storage.run(store.op_get(row["id"]))
        was = shown(now or row)["status"]
        raise Refused("challenge_over", f"this challenge is {was} already", 409, None)
    return {**row, "status": status, "reason": reason}


async def get(lobby: Lobby, account: Account, challenge_id: str) -> dict[str, Any]:
    """The challenge, to its challenger or its bot."""
    row = await lobby.storage.run(store.op_get(challenge_id)) if len(challenge_id) <= 32 else None
    if row is None or account["id"] not in (row["challenger_id"], row["bot_id"]):
        raise Refused("not_found", "there is no such challenge of yours", 404)
    return shown(row)


async def pending(lobby: Lobby, bot_id: str) -> list[dict[str, Any]]:
    """The bot's challenges still waiting for its answer."""
    return [shown(row) for row in await lobby.storage.run(store.op_pending_for(bot_id))]


async def cancel(lobby: Lobby, challenger: Account, challenge_id: str) -> dict[str, Any]:
    """The challenger takes a pending challenge back; the bot is told (a ``challenge`` notice, ``cancelled``)."""
    row = await _settled(lobby, await _mine(lobby, challenger["id"], challenge_id, as_bot=False), "cancelled")
    challenge = shown(row)
    await lobby.notices.post([(row["bot_id"], KIND, {"challenge": challenge})])
    return challenge


async def decline(lobby: Lobby, bot_id: str, challenge_id: str, reason: str) -> dict[str, Any]:
    """The bot says no (``reason``: one of :data:`DECLINE_REASONS`); the challenger is told."""
    row = await _settled(lobby, await _mine(lobby, bot_id, challenge_id, as_bot=True), "declined", reason)
    challenge = shown(row)
    await lobby.notices.post([(row["challenger_id"], KIND, {"challenge": challenge})])
    return challenge


async def accept(lobby: Lobby, bot_id: str, challenge_id: str) -> dict[str, Any]:
    """The bot says yes: the table is made at once (both accounts get ``seated``) and the challenger is told.

    Should the table not be made after all (the server's bots changed since the challenge was checked), the
    challenge ends ``failed`` and the bot gets the refusal.
    """
    row = await _settled(lobby, await _mine(lobby, bot_id, challenge_id, as_bot=True), "accepted")
    terms = row["terms"]
    request = TableRequest(
        players=terms["players"],
        rules=terms["rules"],
        time_limit=terms["time_limit"],
        rated=terms["rated"],
    )
    entrants = [
        Entrant(row["challenger_id"], terms["from"]),
        Entrant(bot_id, terms["to"]),
        *(Entrant(None, "", spec) for spec in terms["bots"]),
    ]
    try:
        table = await seat_entrants(lobby, request, entrants, {"challenge": row["id"]})
    except Refused:
        await lobby.storage.run(store.op_set_table(row["id"], None, "failed"))
        await lobby.notices.post([(row["challenger_id"], KIND, {"challenge": shown({**row, "status": "failed"})})])
        raise
    for seat in table.seats:  # marked at once, before the bot takes its seat
        seat.bot_account = seat.account_id == bot_id
    table.snapshots.broadcast_info()
    await lobby.storage.run(store.op_set_table(row["id"], table.id))
    challenge = shown({**row, "table_id": table.id})
    await lobby.notices.post([(row["challenger_id"], KIND, {"challenge": challenge})])
    return challenge
