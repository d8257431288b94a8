"""Quick pairing ("Play now with people"): the queue of accounts looking for a game, and its matcher.

An account joins with what it wants (:class:`Wish`: table sizes, rated or casual, bots after a wait or never); the
queue is a table of the database (:mod:`forsale.server.store.pairing`), so every node of a cluster sees it. Every
node runs :class:`Pairing`'s matcher every :data:`MATCH_EVERY` seconds and at once when someone joins here: it reads
the queue, asks :func:`forsale.server.lobby.matching.match` for the tables to make, and makes each with
:func:`forsale.server.lobby.seating.seat_entrants`, whose transaction also takes the members out of the queue
(all of them or the table is not made): so a person is seated once, and never after leaving.

**Presence.** An entry lives while its owner is there to be told it was seated: while the account has a reader of
its notices open on some node (the page's long poll of ``GET /api/me/notices``, a bot account's stream:
:meth:`forsale.server.people.notices.NoticeBoard.readers`), that node renews the entry every :data:`BEAT` seconds;
joining and ``GET /api/pairing`` renew it too (:meth:`Pairing.touch`). The matcher drops an entry not renewed for
:data:`HEARTBEAT_TTL` seconds before it matches, so a closed tab or a dropped connection (its poll ends within a
second: :mod:`forsale.server.http.routes.notices`) leaves the queue within a few seconds, and nobody is seated at a
table they will never see.

Person or bot account, the queue's entrant is an account id: :meth:`Pairing.join` and :meth:`Pairing.leave` are
what the REST endpoints (:mod:`forsale.server.http.routes.pairing`) and the Bot API call.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from ...arena.ratings import model
from ..errors import Refused
from ..store.pairing import Claimed, Entry, op_claim, op_counts, op_entry, op_join, op_leave, op_queue, op_touch
from .lobby import Lobby, TableRequest
from .matching import PLAYER_COUNTS, Match, Seeker, match
from .rounds import Rounds
from .seating import Entrant, seat_entrants

log = logging.getLogger("forsale.server")

MATCH_EVERY = 0.2
"""Seconds between two looks at the queue by a node's matcher (and at once when someone joins on that node)."""

BEAT = 1.0
"""Seconds between two renewals, by a node, of the entries of the accounts reading their notices there."""

HEARTBEAT_TTL = 6.0
"""Seconds an entry lives without a renewal: a page between two polls, or a node's beat late, is forgiven."""

TOUCH_CHUNK = 500
"""Accounts renewed per statement (an ``IN`` list of bounded length)."""

TIME_LIMIT = 60.0
"""Seconds per move at a table quick pairing makes: people who do not know each other need a clock."""

COUNTS_FOR = 1.0
"""Seconds the waiting and playing counts are reused on a node before they are counted again."""

BOTS_AFTER = (5.0, 600.0)
"""The wait before bots fill a table that a person may choose, in seconds (bounds of ``bots_after``)."""

DEFAULT_MU = float(model().rating().mu)
"""A newcomer's rating (openskill's 25): an account that has played no rated game is paired as one."""


@dataclass(frozen=True)
class Wish:
    """What an account waits for: table sizes (``PLAYER_COUNTS`` for any), rated or casual, bots after a wait."""

    players: tuple[int, ...]
    rated: bool = False
    bots_after: float | None = None

    def __post_init__(self) -> None:
        if not self.players or not set(self.players) <= set(PLAYER_COUNTS):
            raise ValueError(f"players: some of {PLAYER_COUNTS}")
        if self.bots_after is not None and not BOTS_AFTER[0] <= self.bots_after <= BOTS_AFTER[1]:
            raise ValueError(f"bots_after: {BOTS_AFTER[0]:g} to {BOTS_AFTER[1]:g} seconds, or never (null)")


GAMES_LIMIT = 3
"""Games under way an account may hold a person's seat at and still join the queue (``429 too_many_games``):
each join is one more table, perhaps with the server's bots, so without a limit one account could keep any
number of them playing."""

ALREADY_QUEUED = "this account is already waiting for a game: leave the queue first (DELETE /api/pairing)"
PLAYING_RATED = "this account is playing a rated game: finish it before waiting for another rated one"
TOO_MANY_GAMES = f"this account is playing {GAMES_LIMIT} games already: finish one of them before waiting for another"


def shown(entry: Entry) -> dict[str, Any]:
    """An entry as its account is shown it (``GET /api/pairing``'s ``pairing``)."""
    return {
        "players": list(entry.counts),
        "rated": entry.rated,
        "bots_after": entry.bots_after,
        "since": int(entry.joined_at * 1000),
    }


class Pairing:
    """One node's part of quick pairing: join, leave, heartbeat, state, and the matcher."""

    def __init__(
        self, lobby: Lobby, every: float = MATCH_EVERY, ttl: float = HEARTBEAT_TTL, time_limit: float = TIME_LIMIT
    ) -> None:
        self.lobby = lobby
        self.storage = lobby.storage
        self.every, self.ttl, self.time_limit = every, ttl, time_limit
        self.tables_made = 0
        self.rounds = Rounds(self._round, every, "quick pairing")
        self._beaten = 0.0
        self._counts: tuple[float, dict[str, int]] | None = None

    # -- what accounts do -------------------------------------------------------------
    async def join(self, account_id: str, name: str, wish: Wish) -> dict[str, Any]:
        """Queue the account (409 ``already_queued``; 409 ``already_playing`` for a rated wish while it plays a
        rated game); its state, with ``after``: the id of its latest notice before it joined, where a reader of
        ``GET /api/me/notices`` starts so as to miss no ``seated`` notice."""
        now = time.time()
        entry = Entry(account_id, name, DEFAULT_MU, wish.players, wish.rated, wish.bots_after, now, now)
        joined = await self.storage.run(op_join(entry, refuse_if_playing_rated=wish.rated, games_limit=GAMES_LIMIT))
        if joined.status == "queued_already":
            raise Refused("already_queued", ALREADY_QUEUED, 409)
        if joined.status == "playing_rated":
            raise Refused("already_playing", PLAYING_RATED, 409)
        if joined.status == "too_many_games":
            raise Refused("too_many_games", TOO_MANY_GAMES, 429)
        self.rounds.wake()
        self._count_join(wish.rated)
        return {"pairing": shown(joined.entry), "counts": await self.counts(), "after": joined.last_notice}

    async def leave(self, account_id: str) -> bool:
        """Take the account out of the queue; whether it was waiting."""
        left = await self.storage.run(op_leave(account_id))
        self._counts = None  # counted again: whether the entry was rated is not known here
        return left

    async def touch(self, *account_ids: str) -> set[str]:
        """The heartbeat of these accounts' entries; which of them are waiting."""
        return await self.storage.run(op_touch(account_ids))

    async def state(self, account_id: str) -> dict[str, Any]:
        """The account's entry (``pairing``: null when it is not waiting) and the counts."""
        entry = await self.storage.run(op_entry(account_id))
        return {"pairing": None if entry is None else shown(entry), "counts": await self.counts()}

    async def counts(self) -> dict[str, int]:
        """``waiting`` (of which ``waiting_rated``) and ``playing`` (people at games under way), on every node."""
        now = time.monotonic()
        if self._counts is None or now - self._counts[0] > COUNTS_FOR:
            self._counts = (now, await self.storage.run(op_counts(self.ttl)))
        return dict(self._counts[1])

    def _count_join(self, rated: bool) -> None:
        """Count a join in the counts kept (they are read again within a second anyway): a joining page sees itself
        among those waiting, and a storm of joins is not a storm of counting queries."""
        if self._counts is not None:
            counts = self._counts[1]
            counts["waiting"] += 1
            counts["waiting_rated"] += int(rated)

    # -- the matcher ----------------------------------------------------------------------
    def start(self) -> None:
        self.rounds.start()

    async def close(self) -> None:
        await self.rounds.close()

    async def _round(self) -> None:
        if time.monotonic() - self._beaten >= BEAT:
            self._beaten = time.monotonic()
            await self.beat()
        await self.tick()

    async def beat(self) -> None:
        """Renew the entries of the accounts that read their notices on this node now (see the module docstring)."""
        readers = self.lobby.notices.readers()
        for start in range(0, len(readers), TOUCH_CHUNK):
            await self.touch(*readers[start : start + TOUCH_CHUNK])

    async def tick(self, now: float | None = None) -> int:
        """One matching round: drop the entries whose owners are gone, make the tables; how many were made."""
        now = time.time() if now is None else now
        entries = await self.storage.run(op_queue(self.ttl))
        if not entries:
            return 0
        seekers = [
            Seeker(e.account_id, e.mu, frozenset(e.counts), e.rated, e.joined_at, e.bots_after, e.bot_account)
            for e in entries
        ]
        names = {e.account_id: e.name for e in entries}
        made = await asyncio.gather(*(self._seat(m, names) for m in match(seekers, now)))
        if any(made):
            self._counts = None  # people went from waiting to playing
        return sum(made)

    async def _seat(self, found: Match, names: dict[str, str]) -> bool:
        entrants = [Entrant(account_id, names[account_id]) for account_id in found.members]
        if found.bot is not None:
            entrants += [Entrant(None, "", found.bot)] * found.bots
        request = TableRequest(players=found.players, rated=found.rated, time_limit=self.time_limit)
        source = {"pairing": "rated" if found.rated else "casual"}
        try:
            table = await seat_entrants(self.lobby, request, entrants, source, op_claim(found.members))
        except Claimed:  # someone left meanwhile, or another node seated them first: the rest wait on
            return False
        except Refused as refused:
            if refused.code == "too_many_games":  # the table's owner, its first member, holds the most: it leaves,
                # or it would be matched (and refused, and logged) again at every round, holding the others back
                await self.storage.run(op_leave(found.members[0]))
                log.info("quick pairing: %s left the queue: %s", found.members[0], refused)
                return False
            log.warning("quick pairing: a table of %d could not be made: %s", found.players, refused)
            return False
        self.tables_made += 1
        log.info("quick pairing: table %s for %d people and %d bots", table.id, len(found.members), found.bots)
        return True
