"""A real SMTP server for the tests that send email: aiosmtpd on loopback, and a handler that keeps what it gets."""

from __future__ import annotations

import re
import threading
from email import message_from_bytes
from email.message import Message
from typing import Any


class Inbox:
    """aiosmtpd's handler: every message it is given, and waits for them (the server runs in its own thread)."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.arrived = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # the name aiosmtpd calls
        with self.arrived:
            self.messages.append(message_from_bytes(envelope.content))
            self.arrived.notify_all()
        return "250 OK"

    def wait(self, count: int, timeout: float = 30.0) -> list[Message]:
        """At least ``count`` messages (all of them, in the order they came)."""
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.messages) >= count, timeout), self.messages
            return list(self.messages)

    def wait_for(self, to: str, timeout: float = 120.0, subject: str = "") -> Message:
        """The first message to ``to`` (whose subject starts with ``subject``)."""

        def found() -> Message | None:
            return next((m for m in self.messages if m["To"] == to and m["Subject"].startswith(subject)), None)

        with self.arrived:
            assert self.arrived.wait_for(lambda: found() is not None, timeout), [m["To"] for m in self.messages]
            message = found()
            assert message is not None
            return message


def confirmation_token(message: Message) -> str:
    """The one-time token of the confirmation link a message carries (``.../#/confirm/TOKEN``)."""
    body = message.get_payload(decode=True)
    assert isinstance(body, bytes), message
    found = re.search(r"#/confirm/([A-Za-z0-9_-]+)", body.decode())
    assert found, body
    return found.group(1)
