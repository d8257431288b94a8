"""Sending email through the SMTP server the operator configured (``forsale serve --smtp URL``).

The standard library's :mod:`smtplib` does the work, in a thread, so a slow or
unreachable mail server never holds up the event loop; a message that cannot
be sent is one line in the log, never an error for a player. The URL names
the server the way such settings usually do:

- ``smtp://host:25`` — plain SMTP (a local relay);
- ``smtp://user:password@host:587?starttls=true`` — STARTTLS, then log in;
- ``smtps://user:password@host:465`` — SMTP over TLS.

>>> SmtpSettings.parse("smtps://me:s%40cret@mail.example.org").port
465
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import parse_qs, unquote, urlsplit

log = logging.getLogger("forsale.server")

TIMEOUT = 10.0
"""Seconds to wait for the mail server at each step."""


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int
    tls: bool  # SMTP over TLS from the first byte (smtps://)
    starttls: bool
    user: str | None = None
    password: str | None = None

    @classmethod
    def parse(cls, url: str) -> SmtpSettings:
        """An ``smtp://`` or ``smtps://`` URL; :class:`ValueError` with the reason for anything else."""
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps"):
            raise ValueError(f"an SMTP URL starts with smtp:// or smtps://, not {url.split(':')[0]!r}")
        if not parts.hostname:
            raise ValueError("the SMTP URL names no host: smtp://host[:port]")
        tls = parts.scheme == "smtps"
        options = parse_qs(parts.query)
        starttls = options.get("starttls", ["false"])[-1].lower() in ("1", "true", "yes")
        try:
            port = parts.port or (465 if tls else 25)
        except ValueError:
            raise ValueError("the SMTP URL's port is not a number from 1 to 65535") from None
        return cls(
            host=parts.hostname,
            port=port,
            tls=tls,
            starttls=starttls,
            user=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
        )


class Mailer:
    """Sends plain-text messages from ``sender`` through one SMTP server."""

    def __init__(self, settings: SmtpSettings, sender: str) -> None:
        self.settings = settings
        self.sender = sender
        self.sent = 0  # counted for /api/health and the tests' waits
        self.failed = 0

    def _send(self, message: EmailMessage) -> None:
        s = self.settings
        context = ssl.create_default_context()
        smtp: smtplib.SMTP
        if s.tls:
            smtp = smtplib.SMTP_SSL(s.host, s.port, timeout=TIMEOUT, context=context)
        else:
            smtp = smtplib.SMTP(s.host, s.port, timeout=TIMEOUT)
        with smtp:
            if s.starttls:
                smtp.starttls(context=context)
            if s.user is not None:
                smtp.login(s.user, s.password or "")
            smtp.send_message(message)

    async def send(self, to: str, subject: str, body: str) -> bool:
        """Send one message; False (and a line in the log) when the mail server would not take it."""
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = self.sender, to, subject
        message.set_content(body)
        try:
            await asyncio.to_thread(self._send, message)
        except (OSError, smtplib.SMTPException) as error:
            self.failed += 1
            log.warning("could not send email to an account through %s: %s", self.settings.host, error)
            return False
        self.sent += 1
        return True
