"""Games played over days: telling a player it is their turn when they are not looking.

A table created with a long clock (``turn_limit``, an hour to 30 days a move)
is played turn by turn: people close the page between moves, absence never
makes the server act for them (:mod:`forsale.server.table.scheduling`), and only the
long clock does, with the same safe move as a live clock (pass, or a random
house). The phase-2 sale round works the same when the seats choose hours
apart: each choice is in the event log at once, and nobody learns it before
every seat has chosen.

:meth:`TurnNotices.turn` writes to a person whose turn it is and who has been
away for the server's grace period (so a reload is not an absence) — at once
when the turn begins if they left before, or once the grace period has passed
if they close the page during it — when their seat is linked to an account
with an email address and the server was given an SMTP server (``forsale
serve --smtp``). The scheduler (:mod:`forsale.server.table.scheduling`) decides
when; this module writes. A page that is open gets its snapshot instead, and
shows a browser notification itself. One message per person per turn: a turn
resumed after a restart sent its messages before it.

Each email is written in the language its account chose (``POST /api/me/email``'s
``language``; English when none), from the gettext catalogues the terminal uses
too (:mod:`forsale.catalogues`; ``babel.cfg`` extracts this module's messages).
"""

from __future__ import annotations

import asyncio
import gettext
import logging
import time
from collections.abc import Collection, Sequence
from typing import Any, Protocol

from ...catalogues import translation
from ..store.database import Storage
from ..store.emails import op_confirmed
from .emails import Addresses
from .mailer import Mailer

log = logging.getLogger("forsale.server")
ENGLISH = translation("en")


class WaitingSeat(Protocol):
    """What a turn email reads of a seat: who sits there, and whether they are looking."""

    @property
    def kind(self) -> str: ...
    @property
    def account_id(self) -> str | None: ...
    @property
    def conns(self) -> Collection[Any]: ...


class TurnTable(Protocol):
    """What a turn email reads of a live table (:class:`forsale.server.table.live.LiveTable` is one): the
    people's floor does not import the table's, which calls it."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def turn_limit(self) -> float | None: ...
    @property
    def seats(self) -> Sequence[WaitingSeat]: ...


def when_text(seconds: float, tr: gettext.NullTranslations = ENGLISH) -> str:
    """A time left in words, to the hour, in ``tr``'s language: ``2 days 3 hours``, ``5 hours``, ``under an hour``.

    >>> when_text(2 * 86400 + 3 * 3600 + 59), when_text(86400 + 3600, translation("fr"))
    ('2 days 3 hours', '1 jour 1 heure')
    """
    hours = int(seconds // 3600)
    days, hours = divmod(hours, 24)
    parts = [tr.ngettext("{n} day", "{n} days", days).format(n=days)] if days else []
    if hours:
        parts.append(tr.ngettext("{n} hour", "{n} hours", hours).format(n=hours))
    return " ".join(parts) or tr.gettext("under an hour")


def turn_email(tr: gettext.NullTranslations, name: str, seat: int, link: str, left: str) -> tuple[str, str]:
    """The subject and body telling the person at ``seat`` (from 0) of table ``name`` that it is their turn.

    The subject is the same for every table: a table's name is its creator's text, and in a subject it would
    be the first words of a message the server sends to somebody else (``Prize! claim at evil.example``)."""
    subject = tr.gettext("For Sale: your turn")
    body = (
        tr.gettext("It is your turn at {name} (seat {seat}).").format(name=name, seat=seat + 1)
        + "\n\n"
        + tr.gettext("Play your move: {link}").format(link=link)
        + "\n\n"
        + tr.gettext(
            "You have {left} left; then the safest move is played for you (a pass in an auction, "
            "a house drawn at random in a sale)."
        ).format(left=left)
        + "\n"
    )
    return subject, body


class TurnNotices:
    """Sends "your turn" emails for one server; does nothing without a :class:`Mailer`."""

    def __init__(self, storage: Storage, mailer: Mailer | None = None, public_url: str | None = None) -> None:
        self.storage = storage
        self.mailer = mailer
        self.public_url = (public_url or "").rstrip("/")
        self._tasks: set[asyncio.Task[Any]] = set()
        self.addresses = Addresses(
            storage, mailer, public_url
        )  # confirmed before mailed (forsale.server.people.emails)

    def turn(self, table: TurnTable, to_act: tuple[int, ...], deadlines: dict[int, float]) -> None:
        """Write to the people of seats ``to_act`` at ``table`` that it is their turn (in the background)."""
        if self.mailer is None or not table.turn_limit:
            return
        waiting = {
            s: table.seats[s].account_id
            for s in to_act
            if table.seats[s].kind == "human" and not table.seats[s].conns and table.seats[s].account_id
        }
        if waiting:
            task = asyncio.get_running_loop().create_task(self._write(table, waiting, deadlines))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _write(self, table: TurnTable, waiting: dict[int, str | None], deadlines: dict[int, float]) -> None:
        assert self.mailer is not None
        try:
            emails = await self.storage.run(op_confirmed([a for a in waiting.values() if a]))  # confirmed only
        except Exception:
            log.exception("could not look up the email addresses for table %s", table.id)
            return
        name = " ".join(table.name.split())  # a name's line breaks must not reach a mail header
        for seat, account_id in waiting.items():
            mailbox = emails.get(account_id or "")
            if mailbox is None:
                continue
            email, language = mailbox
            if not await self.addresses.may_send_turn(email):  # at most TURNS_PER_ADDRESS an hour
                log.warning("table %s: a turn email was not sent: its address had its hour's share", table.id)
                continue
            tr = translation(language)  # English for none, or for a code this release does not speak
            link = (
                f"{self.public_url}/#/table/{table.id}"
                if self.public_url
                else tr.gettext("table {id}").format(id=table.id)
            )
            left = when_text(max(0.0, deadlines.get(seat, time.monotonic()) - time.monotonic()), tr)
            await self.mailer.send(email, *turn_email(tr, name, seat, link, left))

    async def drain(self) -> None:
        """Wait for the messages being sent (at shutdown)."""
        await self.addresses.drain()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
