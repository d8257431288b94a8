"""Tables made for known players (:mod:`forsale.server.lobby.seating`) and account notices (``GET /api/me/notices``).

Through the real app (Starlette's TestClient: real HTTP semantics, real cookies, a real SQLite file): accounts are
seated by the server, learn it from their notices, take their seats with ``resume`` and play; an unclaimed seat is
an absent player the clock plays for.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.errors import Refused
from forsale.server.lobby.lobby import TableRequest
from forsale.server.lobby.seating import Entrant, seat_entrants
from forsale.server.store import challenges
from forsale.server.store import notices as store

from .signin import as_account, sign_up
from .social import SAME, code_of, hello

pytestmark = pytest.mark.timeout(60)

SOURCE = {"pairing": "casual"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'notices.sqlite3'}", grace=0.3, rest_rate=1e6, rest_burst=1e6)
    with TestClient(app) as client:
        yield client


def account_id(client: TestClient) -> str:
    return str(client.get("/api/me").json()["account"]["id"])


def seat(client: TestClient, request: TableRequest, entrants: list[Entrant], source: dict[str, Any] = SOURCE) -> Any:
    lobby = client.app.state.lobby  # type: ignore[attr-defined]
    return client.portal.call(seat_entrants, lobby, request, entrants, source)  # type: ignore[union-attr]


def people(client: TestClient, *names: str) -> tuple[dict[str, str], dict[str, str]]:
    """Sign up ``names``: their session cookies and account ids, by name."""
    sessions, ids = {}, {}
    for name in names:
        sessions[name] = sign_up(client, name)
        ids[name] = account_id(client)
    return sessions, ids


def test_accounts_are_seated_told_and_take_their_seats(client: TestClient) -> None:
    sessions, ids = people(client, "Ann", "Bob")
    entrants = [Entrant(ids["Ann"], "Ann"), Entrant(None, "", "random"), Entrant(ids["Bob"], "Bob")]
    table = seat(client, TableRequest(players=3, time_limit=30), entrants)
    assert table.status == "playing" and table.config.creator_account is None
    by_account = {s.account_id: s for s in table.seats if s.kind == "human"}
    assert set(by_account) == {ids["Ann"], ids["Bob"]}
    assert all(s.token_hash is None for s in by_account.values())  # nobody holds them until resume
    assert [s.name for s in table.seats if s.kind == "bot"] == ["random bot"]
    assert client.get(f"/api/tables/{table.id}").json()["table"]["status"] == "playing"
    for name in ("Ann", "Bob"):
        as_account(client, sessions[name])
        got = client.get("/api/me/notices", params={"after": 0}).json()
        (notice,) = got["notices"]
        assert notice["kind"] == "seated" and notice["table"] == table.id and notice["source"] == SOURCE
        assert notice["seat"] == by_account[ids[name]].index and got["last"] == notice["id"]
        assert client.get("/api/me/notices", params={"after": notice["id"]}).json()["notices"] == []
        resumed = client.post(f"/api/tables/{table.id}/resume", json={}, headers=SAME).json()
        assert resumed["seat"] == notice["seat"] and "creator_token" not in resumed
        with client.websocket_connect(f"/ws/tables/{table.id}") as ws:
            assert hello(ws, resumed["token"])["seat"] == notice["seat"]


def test_an_unclaimed_seat_is_an_absent_player_the_clock_plays_for(client: TestClient) -> None:
    _, ids = people(client, "Cid", "Dee")
    entrants = [Entrant(ids["Cid"], "Cid"), Entrant(ids["Dee"], "Dee"), Entrant(None, "", "random")]
    table = seat(client, TableRequest(players=3), entrants)
    public = {s["seat"]: s for s in client.get(f"/api/tables/{table.id}").json()["table"]["seats"]}
    assert [public[s.index]["connected"] for s in table.seats if s.kind == "human"] == [False, False]
    assert all(s.away_since is not None for s in table.seats if s.kind == "human")
    deadline = time.monotonic() + 30  # nobody ever connects: after the grace (0.3 s) the server plays for them
    while table.status != "over" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert table.status == "over"


def test_refusals_before_anything_is_stored(client: TestClient) -> None:
    _, ids = people(client, "Eve")
    one = Entrant(ids["Eve"], "Eve")
    bot = Entrant(None, "", "random")
    cases = [
        (TableRequest(players=3), [one, bot], "bad_seats"),
        (TableRequest(players=3), [one, one, bot], "already_seated"),
        (TableRequest(players=3, rules="nonsense"), [one, bot, bot], "bad_rules"),
        (TableRequest(players=3, time_limit=5, turn_limit=3600), [one, bot, bot], "bad_clock"),
        (TableRequest(players=3), [one, bot, Entrant(None, "", "no-such-bot")], "bad_bot"),
        (TableRequest(players=3, rated=True), [bot, bot, bot], "bad_seats"),
        (TableRequest(players=3, rated=True, hints=True), [one, bot, bot], "hints_off"),
    ]
    lobby = client.app.state.lobby  # type: ignore[attr-defined]
    before = set(lobby.tables)
    for request, entrants, code in cases:
        with pytest.raises(Refused) as refused:
            seat(client, request, entrants)
        assert refused.value.code == code, (request, code)
    assert set(lobby.tables) == before
    assert client.get("/api/me/notices").json() == {"notices": [], "last": 0}
    with pytest.raises(ValueError):
        Entrant("x", "x", "random")
    with pytest.raises(ValueError):
        Entrant(None, "nobody")


def test_the_seating_order_is_shuffled(client: TestClient) -> None:
    _, ids = people(client, "Fay", "Gus", "Hal")
    entrants = [Entrant(ids[n], n) for n in ("Fay", "Gus", "Hal")]
    firsts = {seat(client, TableRequest(players=3, private=True), entrants).seats[0].account_id for _ in range(24)}
    assert len(firsts) > 1  # the first entrant opening 24 times in a row: a chance of 1 in 3**23


def test_a_waiting_poll_wakes_at_once_and_a_quiet_one_ends_empty(client: TestClient) -> None:
    _, ids = people(client, "Ida")
    started = time.monotonic()
    assert client.get("/api/me/notices", params={"after": 0, "wait": 0.3}).json()["notices"] == []
    assert 0.3 <= time.monotonic() - started < 3
    got: dict[str, Any] = {}

    def poll() -> None:
        got["answer"] = client.get("/api/me/notices", params={"after": 0, "wait": 20}).json()
        got["at"] = time.monotonic()

    waiter = threading.Thread(target=poll)
    waiter.start()
    board = client.app.state.lobby.notices  # type: ignore[attr-defined]
    deadline = time.monotonic() + 10
    while board.waiting(ids["Ida"]) == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    posted = time.monotonic()
    table = seat(client, TableRequest(players=3), [Entrant(ids["Ida"], "Ida"), *[Entrant(None, "", "random")] * 2])
    waiter.join(15)
    assert got["answer"]["notices"][0]["table"] == table.id
    assert got["at"] - posted < 2  # woken, not found by the fallback look five seconds later
    assert board.waiting() == 0


def test_the_endpoint_checks_its_reader_and_its_numbers(client: TestClient) -> None:
    as_account(client, None)
    assert client.get("/api/me/notices").status_code == 401
    sign_up(client, "Jo")
    for params in ({"wait": 26}, {"wait": -1}, {"after": -2}, {"after": "x"}, {"wait": "nan"}):
        response = client.get("/api/me/notices", params=params)
        assert response.status_code == 400 and code_of(response) == "bad_request", params
    me = account_id(client)
    ids = client.portal.call(client.app.state.lobby.notices.post, [(me, "test", {"n": 1})])  # type: ignore[union-attr,attr-defined]
    assert client.get("/api/me/notices", params={"after": -1}).json() == {"notices": [], "last": ids[0]}


def test_old_notices_are_pruned(tmp_path: Path) -> None:
    from forsale.server.store.database import Storage

    storage = Storage(f"sqlite:///{tmp_path / 'prune.sqlite3'}")
    try:
        now = time.time()
        storage.call(store.op_post([("a", "seated", {"table": "t1"})], now=now - store.KEEP - 10))
        (kept,) = storage.call(store.op_post([("a", "seated", {"table": "t2"})], now=now))
        assert storage.call(store.op_prune(now - store.KEEP)) == 1
        assert [n["id"] for n in storage.call(store.op_read("a", 0))] == [kept]
        assert storage.call(store.op_read("b", 0)) == [] and storage.call(store.op_last_id("a")) == kept
    finally:
        storage.close()


def test_seating_prunes_the_notices_and_challenges_of_yesterday_now_and_then(client: TestClient) -> None:
    from forsale.server.people.notices import PRUNE_EVERY

    _, ids = people(client, "Old")
    lobby = client.app.state.lobby  # type: ignore[attr-defined]
    lobby.storage.call(store.op_post([(ids["Old"], "seated", {"table": "gone"})], now=time.time() - store.KEEP - 1))
    yesterday = time.time() - store.KEEP - 1
    old: dict[str, Any] = {"id": "old", "challenger_id": ids["Old"], "bot_id": "b", "terms": {}, "status": "cancelled",
           "table_id": None, "reason": None, "created_at": yesterday - 60, "expires_at": yesterday}  # fmt: skip
    lobby.storage.call(lambda conn: conn.execute(challenges.challenges.insert().values(**old)))
    lobby.notices._pruned_at = time.monotonic() - PRUNE_EVERY - 1  # the last pruning was long ago
    table = seat(client, TableRequest(players=3), [Entrant(ids["Old"], "Old"), *[Entrant(None, "", "random")] * 2])
    assert [n["table"] for n in client.get("/api/me/notices").json()["notices"]] == [table.id]
    assert lobby.storage.call(challenges.op_get("old")) is None  # the challenges of yesterday go with them


def test_a_posted_notice_is_announced_to_the_cluster(fresh_postgres: str) -> None:
    """On PostgreSQL the posting transaction NOTIFYs the accounts on the cluster's channel, at its commit."""
    import json

    import psycopg

    from forsale.server.store.cluster import CHANNEL, libpq_url
    from forsale.server.store.database import Storage

    storage = Storage(fresh_postgres)
    try:
        with psycopg.connect(libpq_url(fresh_postgres), autocommit=True) as listener:
            listener.execute(f"LISTEN {CHANNEL}")
            storage.call(store.op_post([("b", "seated", {}), ("a", "seated", {}), ("b", "x", {})]))
            heard = [json.loads(n.payload) for n in listener.notifies(timeout=5, stop_after=1)]
        assert heard == [{"t": "notice", "accounts": ["a", "b"]}]
    finally:
        storage.close()


def test_an_accounts_notices_commit_in_id_order_on_postgres(fresh_postgres: str) -> None:
    """A post waits for an earlier, uncommitted post to the same account: a reader past the later id misses none."""
    import psycopg

    from forsale.server.store.cluster import libpq_url
    from forsale.server.store.database import Storage

    storage = Storage(fresh_postgres)
    try:
        with storage.engine.connect() as first:
            (early,) = store.op_post([("a", "seated", {"n": 1})])(first)  # not committed yet
            later: list[int] = []
            poster = threading.Thread(target=lambda: later.extend(storage.call(store.op_post([("a", "x", {})]))))
            poster.start()
            with psycopg.connect(libpq_url(fresh_postgres), autocommit=True) as watcher:
                waiting = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND NOT granted"
                deadline = time.monotonic() + 10
                while watcher.execute(waiting, (store.LOCK,)).fetchone() != (1,):  # the second post waits for it
                    assert time.monotonic() < deadline, "the second post did not wait for the account's lock"
                    time.sleep(0.01)
            with storage.engine.begin() as other:  # the writer thread waits: another connection
                assert store.op_post([("b", "x", {})])(other)  # another account's post does not wait
                assert store.op_read("a", 0)(other) == [] and not later
            first.commit()
        poster.join(10)
        assert [n["id"] for n in storage.call(store.op_read("a", 0))] == [early, *later] and later[0] > early
    finally:
        storage.close()
