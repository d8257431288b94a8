"""Email addresses confirmed by a link before they are mailed, limits per address, and no user text in subjects.

With the real app and a real SMTP server (aiosmtpd on loopback):

- an address with a control, format or zero-width character, a comma, a second recipient or a display name is
  refused, and the mail server is handed nothing;
- a new address is sent one confirmation message (a fixed subject, a link to the page with a one-time token)
  and nothing else: its "your turn" emails start only once the link's token is posted back;
- confirmation messages are limited per address and per account (429 with Retry-After), turn emails per
  address and hour;
- a table's name (its creator's text) is never in a subject.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from email.header import decode_header, make_header
from email.message import Message
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.people.emails import (
    CONFIRMS_PER_ACCOUNT,
    CONFIRMS_PER_ADDRESS,
    CONFIRMS_PER_DOMAIN,
    TURNS_PER_ADDRESS,
    Addresses,
    _op_claim,
)
from forsale.server.store.database import Storage
from harness.serve import free_port

from .signin import as_account, sign_up
from .smtp import Inbox, confirmation_token

pytestmark = pytest.mark.timeout(120)

PASSWORD = "correct horse battery staple"
SAME = {"Origin": "http://testserver"}
LURE = "Prize! claim at evil.example/win"


@pytest.fixture
def mail(tmp_path: Path) -> Iterator[tuple[TestClient, Inbox]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    app = create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}", static_dir="/nonexistent", grace=0.01,
                     smtp_url=f"smtp://127.0.0.1:{port}", mail_from="forsale@club.example",
                     public_url="http://play.example")  # fmt: skip
    try:
        with TestClient(app) as client:
            yield client, inbox
    finally:
        controller.stop()


def subject(message: Message) -> str:
    return str(make_header(decode_header(message["Subject"])))


def settled(client: TestClient) -> None:
    """Wait (polling, with a deadline) until the server has no email left to send: then the inbox is complete."""
    turns = client.app.state.lobby.turns  # type: ignore[attr-defined]
    deadline = time.monotonic() + 30
    while turns._tasks or turns.addresses._tasks:
        assert time.monotonic() < deadline, "emails still being sent after 30 s"
        time.sleep(0.02)


def told(client: TestClient, table: str, seat: int) -> None:
    """Wait until the server has decided whether to write to ``seat`` at this turn, and has written (or not)."""
    scheduler = client.app.state.lobby.tables[table].scheduler  # type: ignore[attr-defined]
    deadline = time.monotonic() + 30
    while seat not in scheduler._noticed:
        assert time.monotonic() < deadline, f"seat {seat} was never told it is its turn"
        time.sleep(0.01)
    settled(client)


def confirm(client: TestClient, inbox: Inbox, address: str) -> None:
    """Open the link of the latest confirmation message to ``address`` (as the page it opens does)."""
    settled(client)
    [message] = [m for m in inbox.messages if m["To"] == address and "confirm" in subject(m)][-1:]
    confirmed = client.post("/api/email/confirm", json={"token": confirmation_token(message)}, headers=SAME)
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json() == {"email": address, "email_confirmed": True}


BAD = ["ann@example.org\x00", "ann\x1b@example.org", "ann@exam\x07ple.org", "ann\u200b@example.org",
       "ann@example.org\u2060", "postmaster,someone@example.org", "a@example.org, b@example.org",
       "Ann <ann@example.org>", "ann@example.org\r\nBcc: x@example.org", "ann @example.org", "ann@localhost",
       "\"ann\"@example.org", "ann@example.org;b@example.org", "ann@ex ample.org", "ánn@example.org"]  # fmt: skip


def test_an_address_that_is_not_one_plain_address_is_refused_and_never_mailed(
    mail: tuple[TestClient, Inbox],
) -> None:
    client, inbox = mail
    sign_up(client, "Ann")
    for bad in BAD:
        refused = client.post("/api/me/email", json={"email": bad}, headers=SAME)
        assert refused.status_code == 400, bad
        assert client.get("/api/me").json()["email"] is None
    saved = client.post("/api/me/email", json={"email": "ann@example.org"}, headers=SAME).json()
    assert (saved["email"], saved["email_confirmed"], saved["confirmation_sent"]) == ("ann@example.org", False, True)
    settled(client)
    assert [m["To"] for m in inbox.messages] == ["ann@example.org"]  # the good one only


def test_a_new_address_gets_only_its_confirmation_until_the_link_is_opened(mail: tuple[TestClient, Inbox]) -> None:
    client, inbox = mail
    ann, bob = sign_up(client, "Ann"), sign_up(client, "Bob")
    for session, address in ((ann, "ann@example.org"), (bob, "bob@example.org")):
        as_account(client, session)
        assert client.post("/api/me/email", json={"email": address}, headers=SAME).status_code == 200
    settled(client)
    for message in inbox.messages:  # one each, with a fixed subject and the page's link
        assert subject(message) == "For Sale: confirm your email address"
        assert "http://play.example/#/confirm/" in message.get_payload(decode=True).decode()
    assert sorted(m["To"] for m in inbox.messages) == ["ann@example.org", "bob@example.org"]
    as_account(client, bob)
    confirm(client, inbox, "bob@example.org")
    assert client.get("/api/me").json()["email_confirmed"] is True
    as_account(client, ann)
    assert client.get("/api/me").json()["email_confirmed"] is False
    # A game over days: Ann and Bob are away at each of their turns, the guest stays. Ann (unconfirmed) gets
    # nothing, Bob (confirmed) is written to; then Ann opens her link, and her next turn is written to her.
    turns = play_away(client, ann, bob, until=lambda turns: turns["bob"] >= 1 and turns["ann"] >= 1)
    settled(client)
    turn_mails = [m for m in inbox.messages if "confirm" not in subject(m)]
    assert {m["To"] for m in turn_mails} == {"bob@example.org"}, [m["To"] for m in turn_mails]
    assert len(turn_mails) == turns["bob"]
    assert all(subject(m) == "For Sale: your turn" for m in turn_mails)  # the table's name is in no subject
    assert all(LURE in m.get_payload(decode=True).decode() for m in turn_mails)  # in the body, as text
    as_account(client, ann)
    confirm(client, inbox, "ann@example.org")
    used = client.post("/api/email/confirm", json={"token": confirmation_token(inbox.messages[0])}, headers=SAME)
    assert (used.status_code, used.json()["error"]["code"]) == (404, "bad_confirmation")  # once only
    before = len(inbox.messages)
    # Two turns: the first may be the one under way, whose email (none) was decided before the confirmation.
    play_away(client, ann, bob, until=lambda turns: turns["ann"] >= 2, table=turns["table"], tokens=turns["tokens"])
    settled(client)
    assert "ann@example.org" in [m["To"] for m in inbox.messages[before:]]


def play_away(client: TestClient, ann: str, bob: str, until: Any, table: str | None = None,
              tokens: list[str] | None = None) -> dict[str, Any]:  # fmt: skip
    """Play a long-clock table (Ann, Bob, a guest) where Ann and Bob come back only to move, then leave.

    Counts the turns that began while Ann or Bob was away; stops when ``until(counts)`` holds at a turn.
    """
    if table is None or tokens is None:
        as_account(client, ann)
        made = client.post("/api/tables", json={"players": 3, "turn_limit": 3600.0, "name": LURE, "join": True},
                           headers=SAME).json()  # fmt: skip
        table, tokens = made["table"]["id"], [made["token"]]
        as_account(client, bob)
        tokens.append(client.post(f"/api/tables/{table}/join", json={"seat": 1}, headers=SAME).json()["token"])
        as_account(client, None)
        tokens.append(client.post(f"/api/tables/{table}/join", json={"seat": 2}, headers=SAME).json()["token"])
    counts: dict[str, Any] = {"ann": 0, "bob": 0, "table": table, "tokens": tokens}
    sessions = {0: ("ann", ann), 1: ("bob", bob)}
    with client.websocket_connect(f"/ws/tables/{table}", headers=SAME) as guest:
        guest.send_json({"type": "hello", "token": tokens[2]})
        view = receive(guest, "welcome")
        for _ in range(200):
            to_act = view["view"]["to_act"]
            if view.get("status") == "over" or not to_act:
                break
            seat = to_act[0]
            if seat == 2:
                guest.send_json({"type": "act", "action": safest(view["view"])})
            else:
                who, session = sessions[seat]
                counts[who] += 1
                told(client, table, seat)  # the turn's email (or none) is sent before the seat comes back
                if until(counts):
                    break
                as_account(client, session)
                with client.websocket_connect(f"/ws/tables/{table}", headers=SAME) as ws:
                    ws.send_json({"type": "hello", "token": tokens[seat]})
                    ws.send_json({"type": "act", "action": safest(receive(ws, "welcome")["view"])})
                    receive(ws, "ack")
            view = receive(guest, "state")
    return counts


def receive(ws: Any, *types: str) -> dict[str, Any]:
    while True:
        message = ws.receive_json()
        if message["type"] in types:
            return dict(message)
        assert message["type"] != "error", message


def safest(view: dict[str, Any]) -> Any:
    return {"pass": True} if {"pass": True} in view["legal"] else view["legal"][0]


def test_confirmation_emails_are_limited_per_address_and_per_account(mail: tuple[TestClient, Inbox]) -> None:
    client, inbox = mail
    mallory = sign_up(client, "Mallory")
    for _ in range(CONFIRMS_PER_ADDRESS):  # the same address again: a new link each time, up to the limit
        assert client.post("/api/me/email", json={"email": "victim@example.org"}, headers=SAME).status_code == 200
    refused = client.post("/api/me/email", json={"email": "victim@example.org"}, headers=SAME)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 3600
    sign_up(client, "Trudy")  # another account: the address's limit holds for everyone
    assert client.post("/api/me/email", json={"email": "VICTIM@example.org"}, headers=SAME).status_code == 429
    as_account(client, mallory)
    spare = CONFIRMS_PER_ACCOUNT - CONFIRMS_PER_ADDRESS
    for n in range(spare):
        assert client.post("/api/me/email", json={"email": f"v{n}@example.org"}, headers=SAME).status_code == 200
    assert client.post("/api/me/email", json={"email": "fresh@example.org"}, headers=SAME).status_code == 429
    settled(client)
    assert len(inbox.messages) == CONFIRMS_PER_ACCOUNT
    assert sum(m["To"] == "victim@example.org" for m in inbox.messages) == CONFIRMS_PER_ADDRESS


def test_turn_emails_are_limited_per_address_and_hour(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        addresses = Addresses(storage, None, None)

        async def tries() -> list[bool]:
            return [await addresses.may_send_turn("Ann@Example.org") for _ in range(TURNS_PER_ADDRESS + 2)]

        allowed = asyncio.run(tries())
        assert allowed == [True] * TURNS_PER_ADDRESS + [False, False]
        assert asyncio.run(addresses.may_send_turn("bob@example.org")) is True  # per address
    finally:
        with contextlib.suppress(Exception):
            storage.close()


def test_confirmation_limits_hold_for_requests_that_arrive_together(serve_process: type[Any], tmp_path: Path) -> None:
    """A real ``forsale serve`` and SMTP server: many requests at once get no more messages than the limits.

    The check of a limit and the count of the message are one transaction: 15 requests of one account at once
    send 5 messages (its limit), 6 accounts at once to one address 3 (the address's), however they interleave.
    """
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    server = serve_process(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path, "--rest-rate", "1000000",
                           "--smtp", f"smtp://127.0.0.1:{port}", "--public-url", "http://play.example").start()  # fmt: skip
    try:
        origin = {"Origin": server.base}

        async def accounts(names: list[str]) -> list[httpx.AsyncClient]:
            clients = [httpx.AsyncClient(base_url=server.base, timeout=60, headers=origin) for _ in names]
            for client, name in zip(clients, names):
                signed = await client.post("/api/signup", json={"name": name, "password": PASSWORD})
                assert signed.status_code == 201, signed.text
            return clients

        async def at_once() -> tuple[list[int], list[int]]:
            [mallory] = await accounts(["Mallory"])
            many = await asyncio.gather(
                *(mallory.post("/api/me/email", json={"email": f"v{n}@example.org"}) for n in range(15))
            )
            others = await accounts([f"Trudy {chr(65 + n)}" for n in range(6)])
            same = await asyncio.gather(
                *(c.post("/api/me/email", json={"email": "victim@example.org"}) for c in others)
            )
            for client in [mallory, *others]:
                await client.aclose()
            return [r.status_code for r in many], [r.status_code for r in same]

        many, same = asyncio.run(at_once())
        assert sorted(many) == [200] * CONFIRMS_PER_ACCOUNT + [429] * (15 - CONFIRMS_PER_ACCOUNT)
        assert sorted(same) == [200] * CONFIRMS_PER_ADDRESS + [429] * (6 - CONFIRMS_PER_ADDRESS)
        inbox.wait(CONFIRMS_PER_ACCOUNT + CONFIRMS_PER_ADDRESS)
        to = [m["To"] for m in inbox.messages]
        assert len(to) == CONFIRMS_PER_ACCOUNT + CONFIRMS_PER_ADDRESS, to
        assert to.count("victim@example.org") == CONFIRMS_PER_ADDRESS
    finally:
        server.stop()
        controller.stop()


def test_tagged_addresses_share_their_mailboxs_limit(mail: tuple[TestClient, Inbox]) -> None:
    """``victim+1@``, ``victim+2@``... reach one mailbox at most hosts: they count as ``victim@``."""
    client, inbox = mail
    for n in range(2):
        sign_up(client, f"Mallory {chr(65 + n)}")
        for k in range(CONFIRMS_PER_ACCOUNT):
            answer = client.post("/api/me/email", json={"email": f"Victim+{n}{k}@example.org"}, headers=SAME)
            assert answer.status_code == (200 if n == 0 and k < CONFIRMS_PER_ADDRESS else 429), (n, k)
    settled(client)
    assert len(inbox.messages) == CONFIRMS_PER_ADDRESS


def test_one_domain_gets_a_ceiling_of_confirmation_emails_an_hour(db_url: str) -> None:
    """Aliases and catch-alls of one host escape a per-address count; its domain's hourly ceiling holds them.

    On SQLite and PostgreSQL (where each count takes the mails' advisory lock, for a cluster's nodes)."""
    storage = Storage(db_url)
    try:
        now = time.time()

        async def claim(address: str, account: str) -> float:
            return await storage.run(_op_claim(address, account, now, count=True))

        async def claims() -> list[float]:
            return [await claim(f"u{n}@catch.example", f"account{n}") for n in range(CONFIRMS_PER_DOMAIN + 1)]

        waits = asyncio.run(claims())
        assert waits[:-1] == [0.0] * CONFIRMS_PER_DOMAIN
        assert 3500 < waits[-1] <= 3600
        assert asyncio.run(claim("u@other.example", "account0x")) == 0.0  # per domain
        assert asyncio.run(claim("u@xcatch.example", "account0y")) == 0.0  # a domain that ends the same is another
    finally:
        with contextlib.suppress(Exception):
            storage.close()


def test_changing_only_the_language_of_an_unconfirmed_address_sends_nothing(mail: tuple[TestClient, Inbox]) -> None:
    """A new language is no request for a new link: no message, and the address's count is not used up."""
    client, inbox = mail
    sign_up(client, "Ann")
    assert client.post("/api/me/email", json={"email": "ann@example.org", "language": "en"}, headers=SAME).json()[
        "confirmation_sent"
    ]
    for language in ("de", "fr", "it", "nl", "de"):
        changed = client.post("/api/me/email", json={"email": "ann@example.org", "language": language}, headers=SAME)
        assert changed.status_code == 200 and changed.json()["confirmation_sent"] is False, changed.text
        assert changed.json()["language"] == language
    settled(client)
    assert len(inbox.messages) == 1
    confirm(client, inbox, "ann@example.org")  # the link sent first still works
    again = client.post("/api/me/email", json={"email": "ann@example.org"}, headers=SAME)  # asked again: a new link
    assert again.status_code == 200


def test_the_confirmation_message_carries_no_account_name(mail: tuple[TestClient, Inbox]) -> None:
    """Names are users' text (dots allowed: ``win at evil.example``): none goes to an address nobody confirmed."""
    client, inbox = mail
    sign_up(client, "win at evil.example")
    for language in ("en", "de", "fr", "it", "nl"):
        client.post("/api/me/email", json={"email": "x@example.org", "language": language}, headers=SAME)
        client.post("/api/me/email", json={"email": None}, headers=SAME)
    settled(client)
    assert len(inbox.messages) == CONFIRMS_PER_ADDRESS
    for message in inbox.messages:
        body = message.get_payload(decode=True).decode()
        assert "evil" not in body and "#/confirm/" in body
