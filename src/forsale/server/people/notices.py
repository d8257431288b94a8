"""Account notices: what an account is told wherever it is signed in, and the long poll that waits for them.

A server that seats accounts at a table they did not create (quick pairing, a tournament's round) or hands a bot
account a challenge has to tell them, on whichever node of a cluster they happen to ask. The notice is a row
(:mod:`forsale.server.store.notices`), so it survives a restart and is read the same everywhere; the board below
only decides *when* a waiting reader looks again:

- at once when this process posted a notice for its account (:meth:`NoticeBoard.post`, or :meth:`~NoticeBoard.wake`
  after a transaction that posted some, such as a new table's: :mod:`forsale.server.lobby.seating`);
- at once when another node of a cluster did: the posting transaction ``NOTIFY``\\ s the accounts, and the cluster's
  listener wakes them here (:meth:`forsale.server.lobby.cluster.ClusterLobby._on_notice`);
- otherwise every :data:`FALLBACK` seconds, so that a notice whose ``NOTIFY`` was lost (the listener reconnecting)
  is late by that much at worst, never missed.

Readers name the last id they saw (``after``), so nothing is lost between two polls and nothing is read twice.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from ..store import challenges
from ..store import notices as store
from ..store.database import Storage
from ..store.notices import Notice

log = logging.getLogger("forsale.server")

FALLBACK = 5.0
"""Seconds between two looks at the database by a waiting reader nobody woke (a lost ``NOTIFY``)."""

PRUNE_EVERY = 600.0
"""Seconds between two prunings of old notices (:data:`forsale.server.store.notices.KEEP`) and challenges, done by a
poster."""

Still = Callable[[], Awaitable[bool]]
"""Asked every ``every`` seconds while a reader waits: False ends the wait (the reader went away)."""


class NoticeBoard:
    """Posting notices, and waking the readers of this process that wait for them (one per server or node)."""

    def __init__(self, storage: Storage, fallback: float = FALLBACK) -> None:
        self.storage = storage
        self.fallback = fallback
        self._waiting: dict[str, set[asyncio.Event]] = {}
        self._pruned_at = time.monotonic()

    async def post(self, posted: Sequence[Notice]) -> list[int]:
        """Store notices (``(account_id, kind, body)`` each), then wake their readers; their ids."""
        ids = await self.storage.run(store.op_post(posted))
        await self.posted(account_id for account_id, _, _ in posted)
        return ids

    async def posted(self, account_ids: Iterable[str]) -> None:
        """Notices for these accounts were committed (by :meth:`post`, or in another transaction: a new table's,
        :mod:`forsale.server.lobby.seating`): wake their readers; every :data:`PRUNE_EVERY` seconds, prune."""
        self.wake(account_ids)
        await self._prune()

    def wake(self, account_ids: Iterable[str]) -> None:
        """Readers of these accounts that wait in this process look at the database again (notices were posted)."""
        for account_id in set(account_ids):
            for event in self._waiting.get(account_id, ()):
                event.set()

    def readers(self) -> list[str]:
        """The accounts with a reader waiting in this process now: they are there to be told (quick pairing's
        presence: :mod:`forsale.server.lobby.pairing`)."""
        return list(self._waiting)

    def waiting(self, account_id: str | None = None) -> int:
        """How many readers wait now: ``account_id``'s, or everyone's."""
        if account_id is not None:
            return len(self._waiting.get(account_id, ()))
        return sum(len(events) for events in self._waiting.values())

    async def read(self, account_id: str, after: int) -> list[dict[str, Any]]:
        """``account_id``'s notices after id ``after`` (at most :data:`~forsale.server.store.notices.MAX_READ`)."""
        return await self.storage.run(store.op_read(account_id, after))

    async def last_id(self, account_id: str) -> int:
        """The id of the account's latest notice (0: none), for a reader that wants only what comes next."""
        return await self.storage.run(store.op_last_id(account_id))

    async def wait(
        self, account_id: str, after: int, timeout: float, still: Still | None = None, every: float = 1.0
    ) -> list[dict[str, Any]]:
        """The account's notices after ``after``, waiting up to ``timeout`` seconds for one (``[]``: none came).

        ``still``, if given, is asked every ``every`` seconds; when it answers False the wait ends with ``[]``
        (an HTTP long poll whose client disconnected, :mod:`forsale.server.http.routes.notices`).
        """
        deadline = time.monotonic() + timeout
        event = asyncio.Event()
        self._waiting.setdefault(account_id, set()).add(event)
        try:
            next_look = 0.0
            while True:
                now = time.monotonic()
                if event.is_set() or now >= next_look:
                    event.clear()  # cleared before the read: a notice posted during it wakes the next wait
                    found = await self.read(account_id, after)
                    if found:
                        return found
                    next_look = time.monotonic() + self.fallback
                now = time.monotonic()
                if now >= deadline:
                    return []
                pause = min(deadline, next_look) - now
                if still is not None:
                    pause = min(pause, every)
                try:
                    await asyncio.wait_for(event.wait(), max(0.0, pause))
                except TimeoutError:
                    if still is not None and not await still():
                        return []
        finally:
            events = self._waiting.get(account_id)
            if events is not None:
                events.discard(event)
                if not events:
                    del self._waiting[account_id]

    async def _prune(self) -> None:
        if time.monotonic() - self._pruned_at < PRUNE_EVERY:
            return
        self._pruned_at = time.monotonic()
        try:  # housekeeping: a failure must not fail the post that happened to trigger it (tried again later)
            await self.storage.run(store.op_prune(time.time() - store.KEEP))
            # Challenges end within a minute; their rows, kept a day as the notices that told of them are, go too.
            await self.storage.run(challenges.op_prune(time.time() - store.KEEP))
        except Exception as failure:
            log.warning("old notices and challenges could not be pruned: %s", failure)
