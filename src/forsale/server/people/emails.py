"""Email addresses that are confirmed before they are mailed, and limits on what any address is sent.

An account's address (``POST /api/me/email``) is stored **unconfirmed**, and
the server sends it one message: a link with a one-time token (stored as its
hash, good for :data:`CONFIRM_HOURS` hours). Only once someone who reads that
mailbox opens the link and confirms (``POST /api/email/confirm``, sent by the
page the link opens: a mail scanner that fetches the link confirms nothing)
does the address get "your turn" emails (:mod:`forsale.server.people.turnmail`). So an
account cannot make the server write to somebody else's address, beyond that
one confirmation message, itself limited per address and per account.

Limits, counted in ``forsale_mails`` (so they hold across restarts and
across a cluster's nodes): :data:`CONFIRMS_PER_ADDRESS` and
:data:`CONFIRMS_PER_ACCOUNT` confirmation messages a day,
:data:`CONFIRMS_PER_DOMAIN` an hour to one domain, :data:`TURNS_PER_ADDRESS`
"your turn" messages an hour. A limit is checked and the message counted in
one transaction (:func:`_op_claim`), before the message is sent: requests
that arrive together cannot all pass the check before any is counted.
Addresses are counted without their ``+tag`` (:func:`address_key`), which
most hosts deliver to the same mailbox. Subjects are fixed
per kind of message: no user text (a table's or a player's name) reaches a
header; bodies are plain text.
"""

from __future__ import annotations

import asyncio
import gettext
import logging
import math
import time
from typing import Any

from ...catalogues import translation
from ..errors import Refused
from ..store import emails as rows
from ..store.database import Op, Storage
from ..store.emails import Limit
from ..tokens import hash_token, new_token
from .mailer import Mailer

log = logging.getLogger("forsale.server")

CONFIRM_HOURS = 48
"""How long a confirmation link works."""
CONFIRMS_PER_ADDRESS = 3
"""Confirmation messages one address may be sent a day (whichever accounts ask)."""
CONFIRMS_PER_ACCOUNT = 5
"""Confirmation messages one account may have sent a day (to whichever addresses)."""
CONFIRMS_PER_DOMAIN = 50
"""Confirmation messages to the addresses of one domain an hour: a ceiling on the mailboxes of one host that
tags, aliases or catch-alls reach together, whatever the per-address count sees."""
TURNS_PER_ADDRESS = 12
""""Your turn" messages one address may be sent an hour (a few tables over days, and no flood)."""
DAY, HOUR = 86400.0, 3600.0


def address_key(email: str) -> str:
    """The address as the limits count it: casefolded (few hosts care about case) and without a ``+tag``.

    ``victim+1@example.org``, ``victim+2@example.org``... reach the one mailbox ``victim@example.org`` at most
    hosts, so they share its count (an address whose local part starts with ``+`` keeps it).
    """
    local, _, domain = email.casefold().rpartition("@")
    plain = local.split("+", 1)[0]
    return f"{plain or local}@{domain}"


def domain_of(key: str) -> str:
    """The domain of an address key (what follows its last ``@``)."""
    return key.rpartition("@")[2]


def confirm_email(tr: gettext.NullTranslations, link: str) -> tuple[str, str]:
    """The subject and body of the message that asks to confirm an address.

    No account name in it: names are the users' text (``win at evil.example``), and this message goes to any
    address anyone types, before its owner has agreed to anything.
    """
    subject = tr.gettext("For Sale: confirm your email address")
    body = (
        tr.gettext("A player at For Sale would like to tell this address when it is their turn.")
        + "\n\n"
        + tr.gettext("To confirm, open this link within {hours} hours: {link}").format(hours=CONFIRM_HOURS, link=link)
        + "\n\n"
        + tr.gettext("If you did not ask for this, ignore this message: nothing more will be sent to you.")
        + "\n"
    )
    return subject, body


class Addresses:
    """Setting, confirming and rationing the addresses of one server's accounts."""

    def __init__(self, storage: Storage, mailer: Mailer | None, public_url: str | None) -> None:
        self.storage, self.mailer = storage, mailer
        self.public_url = (public_url or "").rstrip("/")
        self._tasks: set[asyncio.Task[Any]] = set()

    def link(self, token: str) -> str:
        """Where the confirmation is made: the page (the token in the fragment, which no server logs)."""
        return f"{self.public_url}/#/confirm/{token}" if self.public_url else f"#/confirm/{token}"

    async def set(self, account: Any, email: str | None, language: Any) -> dict[str, Any]:
        """Store ``email`` (None: none) for ``account``; a new address is unconfirmed and sent its link.

        The same address again, unconfirmed, sends a new link (the old one stops working), unless only the
        language changes while the link sent still works: then nothing is sent (a new language is no request
        for a new link, and must not use up the address's messages). Confirmed, it changes only the language.
        ``language`` is a code, None (English), or ``KEEP``.
        """
        from .accounts import KEEP

        now = time.time()
        current = await self.storage.run(rows.op_state(account["id"]))
        same = email is not None and current is not None and current["email"] == email
        if email is None or (same and current is not None and current["email_confirmed_at"] is not None):
            return await self.storage.run(_op_store(account["id"], email, language, keep_confirmation=same))
        if (
            same
            and current is not None
            and language is not KEEP
            and language != current["language"]
            and (current["email_token_expires"] or 0) > now
        ):  # only the language changes, and the link sent works: nothing to send
            stored = await self.storage.run(_op_store(account["id"], email, language, keep_confirmation=True))
            return stored | {"confirmation_sent": False}
        key = address_key(email)
        # Checked and counted in one transaction, before anything is sent: requests that arrive together
        # cannot all pass the check before one of them is counted.
        wait = await self.storage.run(_op_claim(key, account["id"], now, count=self.mailer is not None))
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise Refused("rate_limited", f"too many confirmation emails for this address, its domain or this "
                          f"account; try again in {seconds} s", 429, {"Retry-After": str(seconds)})  # fmt: skip
        token, token_hash = new_token()
        stored = await self.storage.run(
            _op_store(account["id"], email, language, token_hash=token_hash, expires=now + CONFIRM_HOURS * HOUR)
        )
        stored["confirmation_sent"] = False
        if self.mailer is not None:
            tr = translation(stored["language"])
            task = asyncio.get_running_loop().create_task(self.mailer.send(email, *confirm_email(tr, self.link(token))))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            stored["confirmation_sent"] = True
        return stored

    async def confirm(self, token: str) -> dict[str, Any]:
        """Confirm the address whose link carried ``token``; ``404 bad_confirmation`` for a wrong or old one."""
        found = await self.storage.run(rows.op_confirm(hash_token(token), time.time()))
        if found is None:
            raise Refused(  # 404: no link of the server's has this token (any more)
                "bad_confirmation", "this confirmation link is not valid (used already, replaced, or too old)", 404
            )
        return found

    async def may_send_turn(self, email: str) -> bool:
        """Whether ``email`` may be sent one more "your turn" message this hour; counts it if so."""
        return bool(await self.storage.run(_op_turn_allowed(address_key(email), time.time())))

    async def drain(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


# -- the rules, as the storage's operations ---------------------------------------------------------
CONFIRM_LIMITS: tuple[Limit, ...] = (
    ("address", CONFIRMS_PER_ADDRESS, DAY),
    ("account", CONFIRMS_PER_ACCOUNT, DAY),
    ("domain", CONFIRMS_PER_DOMAIN, HOUR),
)
"""The limits a confirmation message is held to, as :func:`forsale.server.store.emails.op_claim` counts them."""


def _op_store(
    account_id: str,
    email: str | None,
    language: Any,
    *,
    keep_confirmation: bool = False,
    token_hash: str | None = None,
    expires: float | None = None,
) -> Op[dict[str, Any]]:
    """Store an address (a new one unconfirmed, with its link's token hash), and read back what is shown."""
    from .accounts import KEEP

    values: dict[str, Any] = {"email": email}
    if language is not KEEP:
        values["language"] = language
    if not keep_confirmation:
        values.update(email_confirmed_at=None, email_token_hash=token_hash, email_token_expires=expires)
    return rows.op_store(account_id, values)


def _op_claim(key: str, account_id: str, now: float, *, count: bool) -> Op[float]:
    """Seconds until one more confirmation message may go to ``key`` for ``account_id`` (0: now, and counted)."""
    return rows.op_claim(key, domain_of(key), account_id, now, CONFIRM_LIMITS, count=count)


def _op_turn_allowed(key: str, now: float) -> Op[bool]:
    return rows.op_turn_allowed(key, now, TURNS_PER_ADDRESS, HOUR)
