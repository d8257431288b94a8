"""Quick pairing through the real app (``/api/pairing``, the matcher, ``seated`` notices, ``resume``).

Starlette's TestClient runs the whole app in-process (its matcher task included) on a real SQLite file; the
cluster-safety test runs two apps, each with its matcher, on one PostgreSQL database.
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
from forsale.server.lobby.cluster import ClusterConfig
from forsale.server.people.sessions import COOKIE

from .signin import as_account, sign_up
from .social import PASSWORD, SAME, code_of

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'pairing.sqlite3'}", rest_rate=1e6, rest_burst=1e6)
    with TestClient(app) as client:
        yield client


def app_state(client: TestClient) -> Any:
    """The app's state (its lobby, its pairing), which the tests reach into to time or disable a part."""
    return client.app.state  # type: ignore[attr-defined]


def join(client: TestClient, body: dict[str, Any]) -> Any:
    return client.post("/api/pairing", json=body, headers=SAME)


def seated(client: TestClient, after: int = 0, wait: float = 10) -> dict[str, Any]:
    """The signed-in account's next ``seated`` notice (waiting up to ``wait`` seconds)."""
    notices = client.get("/api/me/notices", params={"after": after, "wait": wait}).json()["notices"]
    assert [n["kind"] for n in notices] == ["seated"], notices
    return dict(notices[0])


def test_guests_see_counts_and_are_asked_to_sign_in(client: TestClient) -> None:
    as_account(client, None)
    assert client.get("/api/pairing").json() == {
        "pairing": None,
        "counts": {"waiting": 0, "waiting_rated": 0, "playing": 0},
    }
    response = join(client, {})
    assert response.status_code == 401 and code_of(response) == "not_signed_in"


def test_bad_wishes_are_refused(client: TestClient) -> None:
    sign_up(client, "Val")
    bodies: list[dict[str, Any]] = [
        {"players": 2},
        {"players": 7},
        {"players": "all"},
        {"players": []},
        {"players": [3, 4, 5, 6, 3]},
        {"players": "4"},
        {"bots_after": 1},
        {"bots_after": 601},
        {"bots_after": "soon"},
        {"rated": 1},
        {"colour": "red"},
    ]
    for body in bodies:
        response = join(client, body)
        assert response.status_code == 400 and code_of(response) == "bad_request", body
    assert client.get("/api/pairing").json()["pairing"] is None


def test_three_people_are_seated_together_and_take_their_seats(client: TestClient) -> None:
    sessions = {name: sign_up(client, name) for name in ("Amy", "Ben", "Cat")}
    afters = {}
    for name, session in sessions.items():
        as_account(client, session)
        answer = join(client, {"players": 3})
        assert answer.status_code == 201, answer.text
        assert answer.json()["pairing"]["players"] == [3] and answer.json()["pairing"]["rated"] is False
        afters[name] = answer.json()["after"]
        if name == "Amy":
            again = join(client, {"players": 4})
            assert again.status_code == 409 and code_of(again) == "already_queued"
    tables = set()
    seats = set()
    for name, session in sessions.items():
        as_account(client, session)
        notice = seated(client, afters[name])
        assert notice["source"] == {"pairing": "casual"}
        tables.add(notice["table"])
        resumed = client.post(f"/api/tables/{notice['table']}/resume", json={}, headers=SAME).json()
        assert resumed["seat"] == notice["seat"] and resumed["token"]
        seats.add(notice["seat"])
        assert client.get("/api/pairing").json()["pairing"] is None  # out of the queue once seated
    assert len(tables) == 1 and seats == {0, 1, 2}
    info = client.get(f"/api/tables/{tables.pop()}").json()["table"]
    assert info["status"] == "playing" and sorted(s["name"] for s in info["seats"]) == ["Amy", "Ben", "Cat"]
    assert info["time_limit"] == 60
    assert client.get("/api/pairing").json()["counts"]["playing"] == 3


def test_a_person_stays_while_reading_notices_and_leaves_by_leaving_or_going(client: TestClient) -> None:
    pairing = app_state(client).pairing
    pairing.ttl = 2.0  # 6 s on a server; the node renews a reader's entry every second
    others = {name: sign_up(client, name) for name in ("Hal", "Ian")}
    gone = sign_up(client, "Gil")
    assert join(client, {"players": 3}).status_code == 201
    left = client.delete("/api/pairing", headers=SAME).json()
    assert left["left"] is True and left["counts"]["waiting"] == 0
    assert client.delete("/api/pairing", headers=SAME).json()["left"] is False
    assert join(client, {"players": 3}).status_code == 201
    polling = threading.Thread(target=lambda: client.get("/api/me/notices", params={"wait": 3}))
    polling.start()  # the page's long poll: Gil is there to be told
    time.sleep(2.6)
    as_account(client, None)
    assert client.get("/api/pairing").json()["counts"]["waiting"] == 1  # past the 2 s, held by the reader
    polling.join()  # and now the tab is closed: no reader, no renewal
    time.sleep(2.5)
    for session in others.values():
        as_account(client, session)
        assert join(client, {"players": 3}).status_code == 201
    time.sleep(0.3)  # a few matcher rounds: Gil is gone, so Hal and Ian wait for a third
    as_account(client, gone)
    assert client.get("/api/pairing").json()["pairing"] is None
    assert client.get("/api/me/notices").json()["notices"] == []
    for session in others.values():
        as_account(client, session)
        state = client.get("/api/pairing").json()  # itself a renewal
        assert state["pairing"] is not None and state["counts"]["waiting"] == 2


def test_bots_fill_the_table_after_the_wait_asked_for(client: TestClient) -> None:
    sign_up(client, "Kim")
    answer = join(client, {"players": [3], "bots_after": 5})
    assert answer.status_code == 201
    pairing = app_state(client).pairing
    since = answer.json()["pairing"]["since"] / 1000
    assert client.portal.call(pairing.tick, since + 4.9) == 0  # type: ignore[union-attr]
    assert client.portal.call(pairing.tick, since + 5.1) == 1  # type: ignore[union-attr]
    notice = seated(client, answer.json()["after"])
    info = client.get(f"/api/tables/{notice['table']}").json()["table"]
    assert sorted(s["bot"] or "" for s in info["seats"]) == ["", "medium", "medium"]  # a newcomer's 25: medium


def test_a_bot_account_is_seated_only_with_people_who_accept_bots(client: TestClient) -> None:
    """The matcher reads who is a bot account from the accounts table: two people who said never to bots are not
    seated with a waiting bot account (they wait for a third person); two who accept bots are."""
    pairing = app_state(client).pairing
    assert client.portal is not None
    client.portal.call(pairing.close)  # the test runs the matching rounds itself
    sign_up(client, "Robo")
    assert client.post("/api/me/bot", json={"password": PASSWORD}, headers=SAME).status_code == 200
    made = client.post("/api/me/tokens", json={"name": "pairing", "password": PASSWORD}, headers=SAME)
    token = made.json()["token"]
    as_account(client, None)
    robot = client.post("/api/bot/pairing", json={"players": 3}, headers={"Authorization": f"Bearer {token}"})
    assert robot.status_code == 201, robot.text
    never = {name: sign_up(client, name) for name in ("Ned", "Ola")}
    for session in never.values():
        as_account(client, session)
        assert join(client, {"players": 3}).status_code == 201
    assert client.portal.call(pairing.tick) == 0  # three of a size, but the people said never
    for name in ("Wil", "Xan"):
        sign_up(client, name)
        assert join(client, {"players": 3, "bots_after": 600}).status_code == 201
    assert client.portal.call(pairing.tick) == 1
    info = client.get(f"/api/tables/{seated(client)['table']}").json()["table"]
    assert sorted(s["name"] for s in info["seats"]) == ["Robo", "Wil", "Xan"]
    for session in never.values():
        as_account(client, session)
        assert client.get("/api/pairing").json()["pairing"] is not None  # still waiting for people


def test_one_rated_game_at_a_time(client: TestClient) -> None:
    sessions = {name: sign_up(client, name) for name in ("Lu", "Mo", "Ned")}
    for session in sessions.values():
        as_account(client, session)
        assert join(client, {"players": 3, "rated": True}).status_code == 201
    as_account(client, sessions["Lu"])
    notice = seated(client)
    info = client.get(f"/api/tables/{notice['table']}").json()["table"]
    assert info["rated"] is True
    again = join(client, {"players": 3, "rated": True})
    assert again.status_code == 409 and code_of(again) == "already_playing"
    assert join(client, {"players": 3}).status_code == 201  # a casual game meanwhile is the player's business


def test_an_account_playing_the_most_games_waits_for_no_other(client: TestClient) -> None:
    """Each join is one more table, perhaps with the server's bots: an account with GAMES_LIMIT games under way
    (any tables: solo games here) is refused until one is over."""
    from forsale.server.lobby.pairing import GAMES_LIMIT

    sign_up(client, "Pia")
    for _ in range(GAMES_LIMIT):
        assert client.post("/api/solo", json={"players": 3}, headers=SAME).status_code == 201
    refused = join(client, {"players": 3, "bots_after": 5})
    assert refused.status_code == 429 and code_of(refused) == "too_many_games"
    assert client.get("/api/pairing").json()["pairing"] is None


def test_two_cluster_nodes_seat_each_person_once_and_tell_them_on_either(fresh_postgres: str) -> None:
    """Two nodes of a cluster (in-process apps on one PostgreSQL database), each with its matcher, share the queue:
    six people joined through either are seated at two tables, each once, whichever node made which. Then with one
    matcher only, people reading their notices on the other node are woken by its NOTIFY (their fallback look is
    set beyond the poll's wait), and take their seat there: the table moves to that node."""
    nodes = [
        create_app(fresh_postgres, rest_rate=1e6, rest_burst=1e6, cluster=ClusterConfig(name, lease_ttl=5))
        for name in ("n1", "n2")
    ]
    with TestClient(nodes[0]) as one, TestClient(nodes[1]) as two:
        clients = [one, two]
        sessions = []
        for i in range(6):
            client = clients[i % 2]
            sessions.append(sign_up(client, f"Node{i}"))
            assert join(client, {"players": 3}).status_code == 201
        tables: dict[str, list[int]] = {}
        for i, session in enumerate(sessions):
            other = clients[(i + 1) % 2]  # each reads its notice on the node it did not join through
            as_account(other, session)
            notice = seated(other)
            tables.setdefault(notice["table"], []).append(notice["seat"])
            assert other.get("/api/me/notices", params={"after": notice["id"]}).json()["notices"] == []
        assert sorted(sorted(s) for s in tables.values()) == [[0, 1, 2], [0, 1, 2]]
        assert sum(app_state(c).pairing.tables_made for c in clients) == 2

        assert two.portal is not None
        two.portal.call(app_state(two).pairing.close)  # n1 matches alone now
        app_state(two).lobby.notices.fallback = 120  # a late look by a reader cannot pass for a wake
        later = [sign_up(one, f"Late{i}") for i in range(3)]
        got: dict[int, dict[str, Any]] = {}

        def read_on_two(i: int) -> None:  # the page's long poll, on n2, open before the table exists
            cookie = {"Cookie": f"{COOKIE}={later[i]}"}
            got[i] = two.get("/api/me/notices", params={"wait": 15}, headers=cookie).json()

        one.cookies.clear()
        two.cookies.clear()
        readers = [threading.Thread(target=read_on_two, args=(i,)) for i in range(3)]
        for reader in readers:
            reader.start()
        board = app_state(two).lobby.notices
        deadline = time.monotonic() + 10
        while board.waiting() < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        for session in later:
            assert (
                one.post(
                    "/api/pairing", json={"players": 3}, headers={**SAME, "Cookie": f"{COOKIE}={session}"}
                ).status_code
                == 201
            )
        for reader in readers:
            reader.join(20)
        (table,) = {got[i]["notices"][0]["table"] for i in range(3)}
        assert table in app_state(one).lobby.tables  # made on n1
        as_account(two, later[0])
        resumed = two.post(f"/api/tables/{table}/resume", json={}, headers=SAME)
        assert resumed.status_code == 200, resumed.text
        assert resumed.json()["seat"] == got[0]["notices"][0]["seat"]
