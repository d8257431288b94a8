"""Games over days: the long clock, absence that never acts, and "your turn" emails (in the account's language) to a real SMTP server.

The mail server is aiosmtpd's, listening on loopback; the app is the real one (Starlette's TestClient
runs it in-process), on a SQLite file so that a restart can be checked against the same database.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from email.header import decode_header, make_header
from pathlib import Path
from typing import Any, get_args

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient

from forsale.catalogues import LANGUAGES, translation
from forsale.server import create_app
from forsale.server.http.schemas import Language
from forsale.server.people.mailer import SmtpSettings
from forsale.server.people.turnmail import ENGLISH, turn_email, when_text
from harness.serve import free_port

from .signin import as_account, sign_up
from .smtp import Inbox, confirmation_token

pytestmark = pytest.mark.timeout(120)

PASSWORD = "correct horse battery staple"
SAME = {"Origin": "http://testserver"}
HOUR = 3600.0


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    handler = Inbox()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield handler, port
    controller.stop()


def confirm(client: TestClient, handler: Inbox, address: str) -> None:
    """Post back the token of the confirmation message the address was sent (only then is it mailed turns)."""
    token = confirmation_token(handler.wait_for(address))
    assert client.post("/api/email/confirm", json={"token": token}, headers=SAME).json()["email_confirmed"] is True


def recv(ws: Any, *types: str) -> dict[str, Any]:
    """The next message of one of ``types``, skipping any other kind but errors (acks, table notices, chat)."""
    while True:
        message = ws.receive_json()
        if message["type"] in types:
            return message
        assert message["type"] != "error", message


def next_state(ws: Any) -> dict[str, Any]:
    return recv(ws, "state")


def safest(v: dict[str, Any]) -> Any:
    return {"pass": True} if {"pass": True} in v["legal"] else v["legal"][0]


def turn_table(client: TestClient, sessions: list[str | None], **body: Any) -> tuple[str, list[str]]:
    """A table of len(sessions) people with a long clock; seat i taken by sessions[i]'s account (None: a guest).

    The last seat is taken last: the game starts then (see :func:`join`).
    """
    as_account(client, sessions[0])
    created = client.post(
        "/api/tables", json={"players": 3, "turn_limit": HOUR, "name": "Slow  game", **body}, headers=SAME
    )
    assert created.status_code == 201, created.text
    table_id = created.json()["table"]["id"]
    tokens = []
    for seat, session in enumerate(sessions):
        tokens.append(join(client, table_id, seat, session))
    return table_id, tokens


def join(client: TestClient, table_id: str, seat: int, session: str | None) -> str:
    as_account(client, session)
    joined = client.post(f"/api/tables/{table_id}/join", json={"seat": seat}, headers=SAME)
    assert joined.status_code == 200, joined.text
    return str(joined.json()["token"])


def test_the_long_clock_is_validated_and_shown(tmp_path: Path) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}", static_dir="/nonexistent")) as client:
        for bad in (60, "3600", True, 31 * 86400.0):
            refused = client.post("/api/tables", json={"players": 3, "turn_limit": bad})
            assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_request", bad
        both = client.post("/api/tables", json={"players": 3, "turn_limit": HOUR, "time_limit": 30})
        assert both.status_code == 400 and both.json()["error"]["code"] == "bad_clock"
        made = client.post("/api/tables", json={"players": 3, "turn_limit": 2 * 86400})
        assert made.status_code == 201 and made.json()["table"]["turn_limit"] == 2 * 86400


def test_email_is_validated_and_private(tmp_path: Path) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}", static_dir="/nonexistent")) as client:
        assert client.post("/api/me/email", json={"email": "a@b.c"}, headers=SAME).status_code == 401
        sign_up(client, "Ann")
        for bad in ("no-at-sign", "a@b@c", "a b@c.d", "x@y.z\r\nBcc: victim@example.org", "a" * 250 + "@b.c", 5):
            refused = client.post("/api/me/email", json={"email": bad}, headers=SAME)
            assert refused.status_code == 400, bad
        assert client.post("/api/me/email", json={"email": "ann@example.org"}, headers=SAME).status_code == 200
        assert client.get("/api/me").json()["email"] == "ann@example.org"
        other = client.post("/api/me/email", json={"email": "ann@example.org"}, headers={"Origin": "http://evil"})
        assert other.status_code == 403  # a cookie from another site's page changes nothing
        assert client.post("/api/me/email", json={"email": None}, headers=SAME).json()["email"] is None
        assert client.get("/api/me").json()["email"] is None


def test_the_emails_language_is_one_of_the_five_and_kept_until_changed(tmp_path: Path) -> None:
    assert get_args(Language) == tuple(LANGUAGES)  # the API's codes are the catalogues' languages
    with TestClient(create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}", static_dir="/nonexistent")) as client:
        sign_up(client, "Ann")
        assert client.get("/api/me").json()["language"] is None  # English
        for bad in ("pt", "FR", "fr-FR", "", 5, True, ["fr"]):
            refused = client.post("/api/me/email", json={"email": "ann@example.org", "language": bad}, headers=SAME)
            assert refused.status_code == 400, bad
            error = refused.json()["error"]
            assert error["code"] == "bad_request" and error["message"].startswith("language: "), error
            assert "'en', 'fr', 'nl', 'it' or 'de'" in error["message"], error
        assert client.get("/api/me").json()["email"] is None  # a refused body changes nothing
        saved = client.post("/api/me/email", json={"email": "ann@example.org", "language": "fr"}, headers=SAME)
        assert saved.status_code == 200 and saved.json()["language"] == "fr"
        moved = client.post("/api/me/email", json={"email": "ann@example.net"}, headers=SAME).json()
        assert (moved["email"], moved["language"]) == ("ann@example.net", "fr")  # left out: kept
        me = client.get("/api/me").json()
        assert (me["email"], me["language"]) == ("ann@example.net", "fr")
        cleared = client.post("/api/me/email", json={"email": "ann@example.net", "language": None}, headers=SAME)
        assert cleared.json()["language"] is None and client.get("/api/me").json()["language"] is None


def test_the_time_left_and_the_email_in_each_language() -> None:
    week = 6 * 86400 + 5 * 3600
    assert [when_text(week, translation(code)) for code in LANGUAGES] == [
        "6 days 5 hours", "6 jours 5 heures", "6 dagen 5 uur", "6 giorni 5 ore", "6 Tage 5 Stunden",
    ]  # fmt: skip
    assert [when_text(86400 + 3600, translation(code)) for code in LANGUAGES] == [
        "1 day 1 hour", "1 jour 1 heure", "1 dag 1 uur", "1 giorno 1 ora", "1 Tag 1 Stunde",
    ]  # fmt: skip
    assert when_text(3599, translation("it")) == "meno di un'ora" and when_text(7200, translation("de")) == "2 Stunden"
    for code in LANGUAGES:
        subject, body = turn_email(translation(code), "Ours", 2, "http://play.example/#/table/t1", "3 h")
        assert "Ours" not in subject and subject.startswith("For Sale"), (code, subject)  # no user text in a header
        assert "Ours" in body and "3)" in body and "http://play.example/#/table/t1" in body and "3 h" in body
        assert ("your turn" in subject) == (code == "en") and ("safest move" in body) == (code == "en"), code
    # A code no catalogue has (a release that dropped a language, a hand-edited database) is English.
    english = turn_email(translation(None), "Ours", 0, "t1", "1 hour")
    assert (
        turn_email(translation("pt"), "Ours", 0, "t1", "1 hour")
        == english
        == turn_email(ENGLISH, "Ours", 0, "t1", "1 hour")
    )


IN_ENGLISH = ("For Sale: your turn", "It is your turn at Slow game (seat 2).", ("1 hour", "under an hour"))
IN_FRENCH = ("For Sale : à vous de jouer", "C'est à vous de jouer à Slow game (place 2).",
             ("1 heure", "moins d'une heure"))  # fmt: skip


@pytest.mark.parametrize(("language", "words"), [(None, IN_ENGLISH), ("fr", IN_FRENCH)], ids=["no language", "fr"])
def test_an_absent_player_is_emailed_at_their_turn_in_their_language_and_never_played_for(
    tmp_path: Path, inbox: tuple[Inbox, int], language: str | None, words: tuple[str, str, tuple[str, str]]
) -> None:
    subject, opening, time_left = words
    handler, port = inbox
    app = create_app(
        f"sqlite:///{tmp_path / 'db.sqlite3'}",
        static_dir="/nonexistent",
        grace=0.01,  # a live table would play for an absent seat at once
        smtp_url=f"smtp://127.0.0.1:{port}",
        mail_from="forsale@club.example",
        public_url="http://play.example/",
    )
    with TestClient(app) as client:
        ann, bob = sign_up(client, "Ann"), sign_up(client, "Bob")
        as_account(client, ann)
        assert client.post("/api/me/email", json={"email": "ann@example.org"}, headers=SAME).status_code == 200
        confirm(client, handler, "ann@example.org")
        as_account(client, bob)  # Bob's page is in French, or the client sends no language (English)
        chosen = {"email": "bob@example.org"} | ({"language": language} if language else {})
        assert client.post("/api/me/email", json=chosen, headers=SAME).status_code == 200
        confirm(client, handler, "bob@example.org")
        table_id, tokens = turn_table(client, [ann, bob])  # of three: the game starts when the guest sits down
        as_account(client, ann)  # the cookie goes with the WebSocket's handshake
        with contextlib.ExitStack() as sockets:
            ws0 = sockets.enter_context(client.websocket_connect(f"/ws/tables/{table_id}", headers=SAME))
            ws0.send_json({"type": "hello", "token": tokens[0]})
            recv(ws0, "welcome")
            tokens.append(join(client, table_id, 2, None))
            ws2 = sockets.enter_context(client.websocket_connect(f"/ws/tables/{table_id}", headers=SAME))
            ws2.send_json({"type": "hello", "token": tokens[2]})
            views = {0: next_state(ws0), 2: recv(ws2, "welcome")}  # the start, as each of them sees it
            # Ann and the guest play until it is Bob's turn; Bob has closed his page.
            while 1 not in views[0]["view"]["to_act"]:
                seat = views[0]["view"]["to_act"][0]
                (ws0 if seat == 0 else ws2).send_json({"type": "act", "action": safest(views[seat]["view"])})
                views = {0: next_state(ws0), 2: next_state(ws2)}
            latest = views[0]
            mail = handler.wait(3)[-1]  # after the two confirmation messages
            assert mail["To"] == "bob@example.org" and mail["From"] == "forsale@club.example"
            assert str(make_header(decode_header(mail["Subject"]))) == subject  # the name's line break is no header
            body = mail.get_payload(decode=True).decode()
            assert body.startswith(opening) and f"http://play.example/#/table/{table_id}" in body
            assert any(left in body for left in time_left), body
            assert ("your turn" in body) == (language is None), body  # nothing left in English
            time.sleep(0.3)  # thirty times the grace period: a live table would have played for Bob by now
            public = client.get(f"/api/tables/{table_id}/view").json()
            assert public["view"]["to_act"] == [1] and public["seq"] == latest["seq"]
            assert public["clock"]["turn_limit"] == HOUR and public["clock"]["deadlines"]["1"] > time.time() * 1000
            # Bob comes back (another device: his session and his seat's token) and moves.
            as_account(client, bob)
            with client.websocket_connect(f"/ws/tables/{table_id}", headers=SAME) as ws1:
                ws1.send_json({"type": "hello", "token": tokens[1]})
                ws1.send_json({"type": "act", "action": safest(recv(ws1, "welcome")["view"])})
                assert recv(ws1, "ack")["seq"] == latest["seq"] + 1
            # Ann was connected at each of her turns, the guest has no account: only Bob was written to.
            assert all(m["To"] == "bob@example.org" for m in handler.messages[2:])


def test_a_player_who_closes_the_page_during_their_turn_is_emailed_once_the_grace_period_passed(
    tmp_path: Path, inbox: tuple[Inbox, int]
) -> None:
    handler, port = inbox
    app = create_app(  # three seconds: time enough, on a loaded machine, to connect before the game's first turn
        f"sqlite:///{tmp_path / 'db.sqlite3'}",
        static_dir="/nonexistent",
        grace=3.0,
        smtp_url=f"smtp://127.0.0.1:{port}",
    )
    with TestClient(app) as client:
        ann = sign_up(client, "Ann")
        assert client.post("/api/me/email", json={"email": "ann@example.org"}, headers=SAME).status_code == 200
        confirm(client, handler, "ann@example.org")
        table_id, tokens = turn_table(client, [ann, None, None])
        as_account(client, ann)
        with contextlib.ExitStack() as stack:
            sockets = {}
            for seat in range(3):
                sockets[seat] = stack.enter_context(client.websocket_connect(f"/ws/tables/{table_id}", headers=SAME))
                sockets[seat].send_json({"type": "hello", "token": tokens[seat]})
            views = {seat: recv(ws, "welcome") for seat, ws in sockets.items()}
            while 0 not in views[0]["view"]["to_act"]:  # the guests play until it is Ann's turn
                seat = views[0]["view"]["to_act"][0]
                sockets[seat].send_json({"type": "act", "action": safest(views[seat]["view"])})
                views = {s: next_state(ws) for s, ws in sockets.items()}
            assert len(handler.messages) == 1  # the confirmation; connected at her turn: nobody writes to her
            sockets[0].close()  # ... and now she closes the page, during her turn
            mail = handler.wait(2)[-1]
            assert mail["To"] == "ann@example.org" and mail["Subject"] == "For Sale: your turn"


def test_the_long_clock_resumes_after_a_restart_and_then_plays_the_safe_move(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    with TestClient(create_app(db, static_dir="/nonexistent")) as client:
        table_id, tokens = turn_table(client, [None, None, None])
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            ws.send_json({"type": "hello", "token": tokens[0]})
            first = recv(ws, "welcome")["view"]["to_act"][0]
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            ws.send_json({"type": "hello", "token": tokens[first]})
            recv(ws, "welcome")
            ws.send_json({"type": "act", "action": {"bid": 1}})
            recv(ws, "ack")
    engine = create_engine(db)
    with engine.begin() as conn:  # the move was made half an hour ago: the next seat's clock has run that long
        conn.execute(text("UPDATE forsale_events SET at = :at"), {"at": time.time() - HOUR / 2})
    with TestClient(create_app(db, static_dir="/nonexistent")) as client:
        clock = client.get(f"/api/tables/{table_id}/view").json()["clock"]
        [(seat, deadline)] = clock["deadlines"].items()
        assert abs(deadline / 1000 - (time.time() + HOUR / 2)) < 60, clock  # not a fresh hour
    with engine.begin() as conn:  # ... and now two hours ago: the clock ran out while the server was down
        conn.execute(text("UPDATE forsale_events SET at = :at"), {"at": time.time() - 2 * HOUR})
    with TestClient(create_app(db, static_dir="/nonexistent")) as client:
        deadline_at = time.monotonic() + 30
        while client.get(f"/api/tables/{table_id}/view").json()["seq"] < 2:
            assert time.monotonic() < deadline_at, "the expired long clock did not play"
            time.sleep(0.02)
    with engine.begin() as conn:
        row = conn.execute(text("SELECT seat, action, source FROM forsale_events WHERE seq = 2")).one()
    assert row.seat == int(seat) and row.source == "clock" and '"pass"' in row.action
    engine.dispose()


def test_smtp_urls() -> None:
    s = SmtpSettings.parse("smtp://me:p%40ss@mail.example.org:587?starttls=true")
    assert (s.host, s.port, s.tls, s.starttls, s.user, s.password) == (
        "mail.example.org",
        587,
        False,
        True,
        "me",
        "p@ss",
    )
    assert SmtpSettings.parse("smtps://mail.example.org").port == 465
    assert SmtpSettings.parse("smtp://localhost").port == 25
    for bad in ("http://mail.example.org", "smtp://", "smtp://host:notaport"):
        with pytest.raises(ValueError):
            SmtpSettings.parse(bad)
    assert when_text(90000) == "1 day 1 hour" and when_text(600) == "under an hour"
