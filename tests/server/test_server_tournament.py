"""Tournaments through the real app (``/api/tournaments``, the runner, ``seated`` notices, the standings).

Starlette's TestClient runs the whole app in-process (the runner's task included) on a real SQLite file. The
whole-tournament tests use ``grace=0``: a seated account nobody plays for is absent, and the server plays its
moves at once (as it does for anyone away past the grace period), so a tournament runs to its end in seconds
with no client at the tables: what is under test is the running of rounds, not the play.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.lobby.swiss import placement_points

from .signin import as_account, sign_up
from .social import SAME, code_of

pytestmark = pytest.mark.timeout(120)


def make_client(path: Path) -> TestClient:
    app = create_app(f"sqlite:///{path}", rest_rate=1e6, rest_burst=1e6, grace=0.0, bot_delay=0.0)
    return TestClient(app)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path / "tournaments.sqlite3") as client:
        yield client


def post(client: TestClient, path: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(path, json={} if body is None else body, headers=SAME)


def wait_for(client: TestClient, tid: str, status: str, seconds: float = 60) -> dict[str, Any]:
    """The tournament once it has ``status`` (read every 0.1 s, as a page polls)."""
    deadline = time.monotonic() + seconds
    while True:
        view: dict[str, Any] = client.get(f"/api/tournaments/{tid}").json()
        if view["status"] == status or time.monotonic() > deadline:
            assert view["status"] == status, view
            return view
        time.sleep(0.1)


def test_guests_read_but_do_not_create(client: TestClient) -> None:
    as_account(client, None)
    assert client.get("/api/tournaments").json() == {"upcoming": [], "running": [], "finished": []}
    response = post(client, "/api/tournaments", {"name": "Cup"})
    assert response.status_code == 401 and code_of(response) == "not_signed_in"
    response = client.get("/api/tournaments/nope")
    assert response.status_code == 404 and code_of(response) == "no_such_tournament"
    response = client.get("/api/tournaments/" + "x" * 5000)
    assert response.status_code == 404 and code_of(response) == "no_such_tournament"


def test_bad_settings_are_refused(client: TestClient) -> None:
    sign_up(client, "Org")
    bad: list[tuple[dict[str, Any], str]] = [
        ({}, "bad_request"),
        ({"name": ""}, "bad_request"),
        ({"name": "Cup", "players": 2}, "bad_request"),
        ({"name": "Cup", "players": 7}, "bad_request"),
        ({"name": "Cup", "rounds": 0}, "bad_request"),
        ({"name": "Cup", "rounds": 21}, "bad_request"),
        ({"name": "Cup", "kind": "knockout"}, "bad_request"),
        ({"name": "Cup", "time_limit": 1}, "bad_request"),
        ({"name": "Cup", "time_limit": "fast"}, "bad_request"),
        ({"name": "Cup", "colour": "red"}, "bad_request"),
        ({"name": "Cup", "starts_at": 1000}, "bad_start"),
        ({"name": "Cup", "starts_at": 4102444800000}, "bad_start"),  # 2100: more than 30 days ahead
        ({"name": "Cup", "start_players": 2}, "bad_start"),  # no table of two without bots
        ({"name": "Cup", "start_players": 10, "max_players": 8}, "bad_start"),
        ({"name": "Cup", "rules": "no-such-preset"}, "bad_rules"),
        ({"name": "Cup", "fill": "no-such-bot"}, "bad_bot"),
        ({"name": "Cup", "rated": True, "fill": "easy:samples=3"}, "bad_bot"),
    ]
    for body, code in bad:
        response = post(client, "/api/tournaments", body)
        assert response.status_code in (400, 403) and code_of(response) == code, (body, response.text)
    assert client.get("/api/tournaments").json()["upcoming"] == []


def test_join_withdraw_start_and_cancel_keep_their_rules(client: TestClient) -> None:
    org = sign_up(client, "Org")
    view = post(client, "/api/tournaments", {"name": "Spring Cup", "players": 3}).json()
    tid = view["id"]
    assert view["status"] == "open" and view["creator"] and view["entries"] == 1
    assert [s["name"] for s in view["standings"]] == ["Org"]
    response = post(client, f"/api/tournaments/{tid}/join")
    assert response.status_code == 409 and code_of(response) == "already_entered"
    response = post(client, f"/api/tournaments/{tid}/start")
    assert response.status_code == 409 and code_of(response) == "too_few_players"

    ann = sign_up(client, "Ann")
    assert post(client, f"/api/tournaments/{tid}/join").json()["you"] == {
        "entered": True,
        "withdrawn": False,
        "table": None,
    }
    for path in ("start", "cancel"):
        response = post(client, f"/api/tournaments/{tid}/{path}")
        assert response.status_code == 403 and code_of(response) == "not_creator"
    assert post(client, f"/api/tournaments/{tid}/withdraw").json()["entries"] == 1  # before the start: entry gone
    response = post(client, f"/api/tournaments/{tid}/withdraw")
    assert response.status_code == 409 and code_of(response) == "not_entered"
    assert post(client, f"/api/tournaments/{tid}/join").status_code == 200  # and back

    as_account(client, org)
    assert client.get("/api/tournaments").json()["upcoming"][0]["entries"] == 2
    assert post(client, f"/api/tournaments/{tid}/cancel").json()["status"] == "cancelled"
    as_account(client, ann)
    response = post(client, f"/api/tournaments/{tid}/join")
    assert response.status_code == 409 and code_of(response) == "tournament_closed"
    assert [t["id"] for t in client.get("/api/tournaments").json()["finished"]] == [tid]


def test_tournaments_under_way_count_against_the_limit_of_one_account(tmp_path: Path) -> None:
    """Five tournaments per account, not over: one started counts as one announced (starting each at once did
    not count, so an account could hold any number of running tournaments, each seating tables of bots)."""
    from forsale.server.lobby.tournaments import OPEN_PER_ACCOUNT

    app = create_app(f"sqlite:///{tmp_path / 't.sqlite3'}", rest_rate=1e6, rest_burst=1e6, grace=600.0)
    with TestClient(app) as client:  # a long grace: nobody's seat is played for them while the test runs
        org = sign_up(client, "Org")
        tid = post(client, "/api/tournaments", {"name": "Cup", "players": 3, "fill": "easy"}).json()["id"]
        sign_up(client, "Ann")
        post(client, f"/api/tournaments/{tid}/join")
        as_account(client, org)
        assert post(client, f"/api/tournaments/{tid}/start").json()["status"] == "running"
        for i in range(OPEN_PER_ACCOUNT - 1):
            assert post(client, "/api/tournaments", {"name": f"Cup {i}"}).status_code == 201
        response = post(client, "/api/tournaments", {"name": "One too many"})
        assert response.status_code == 429 and code_of(response) == "too_many_tournaments"


def test_a_swiss_tournament_with_bots_filling_runs_to_its_final_standings(client: TestClient) -> None:
    """Five people at tables of three, bots filling the sixth seat, three rounds: every round seats everyone once,
    each game's points are placement points, and the standings are final when it is over."""
    sessions = {name: sign_up(client, name) for name in ("P1", "P2", "P3", "P4", "P5")}
    as_account(client, sessions["P1"])
    body = {"name": "Bots Cup", "players": 3, "fill": "random", "rounds": 3, "time_limit": 5, "start_players": 5}
    tid = post(client, "/api/tournaments", body).json()["id"]
    for name in ("P2", "P3", "P4", "P5"):
        as_account(client, sessions[name])
        post(client, f"/api/tournaments/{tid}/join")
    view = wait_for(client, tid, "over")
    assert view["round"] == 3 and [r["round"] for r in view["schedule"]] == [1, 2, 3]
    for r in view["schedule"]:
        names = [s["name"] for t in r["tables"] for s in t["seats"] if s["name"] is not None]
        assert sorted(names) == ["P1", "P2", "P3", "P4", "P5"]  # everyone once a round
        assert [len(t["seats"]) for t in r["tables"]] == [3, 3]  # five people and one bot
        for t in r["tables"]:
            assert t["status"] == "over" and t["replay"] == f"#/replay/{t['game']}"
            game = client.get(f"/api/tables/{t['game']}").json()
            placed = placement_points(game["result"]["scores"], game["result"]["coins"])
            by_name = {seat["name"]: i for i, seat in enumerate(game["table"]["seats"])}
            for s in t["seats"]:
                if s["name"] is not None:  # a person's placement points at that game (the bot's are nobody's)
                    assert s["points"] == placed[by_name[s["name"]]]
                    assert s["money"] == game["result"]["scores"][by_name[s["name"]]]
    lines = view["standings"]
    assert [line["rank"] for line in lines] == [1, 2, 3, 4, 5]
    assert all(line["games"] == 3 for line in lines)
    keys = [(-line["points"], -line["buchholz"], -line["money"]) for line in lines]
    assert keys == sorted(keys)
    record = client.get(view["schedule"][0]["tables"][0]["record"])
    assert record.status_code == 200


def test_a_seated_account_is_told_and_a_withdrawn_one_is_not_paired_again(tmp_path: Path) -> None:
    """The server's grace is long here, so round 1 is surely under way when W4 withdraws; then it is cut to 0 (as
    if the grace had passed) and the absent players' moves are made at once."""
    app = create_app(f"sqlite:///{tmp_path / 'w.sqlite3'}", rest_rate=1e6, rest_burst=1e6, grace=600.0)
    with TestClient(app) as client:
        sessions = {name: sign_up(client, name) for name in ("W1", "W2", "W3", "W4")}
        as_account(client, sessions["W1"])
        body = {"name": "Withdrawals", "players": 3, "rounds": 2, "time_limit": 600, "start_players": 4}
        tid = post(client, "/api/tournaments", body).json()["id"]
        for name in ("W2", "W3", "W4"):
            as_account(client, sessions[name])
            post(client, f"/api/tournaments/{tid}/join")
        notices = client.get("/api/me/notices", params={"after": 0, "wait": 10}).json()["notices"]
        seated = notices[0]
        assert seated["kind"] == "seated" and seated["source"] == {"tournament": tid, "round": 1, "table": 0}
        view = post(client, f"/api/tournaments/{tid}/withdraw").json()
        assert view["you"] == {"entered": True, "withdrawn": True, "table": seated["table"]}  # it plays on
        lobby = client.app.state.lobby  # type: ignore[attr-defined]

        async def grace_over() -> None:
            lobby.options.grace = 0.0
            for table in list(lobby.tables.values()):
                table.scheduler.schedule()

        client.portal.call(grace_over)  # type: ignore[union-attr]
        view = wait_for(client, tid, "over")
        first, second = view["schedule"]
        assert sum(len(t["seats"]) for t in first["tables"]) == 4  # one table of four
        assert sorted(s["name"] for t in second["tables"] for s in t["seats"]) == ["W1", "W2", "W3"]
        assert [line["name"] for line in view["standings"] if line["withdrawn"]] == ["W4"]
        assert {line["name"]: line["games"] for line in view["standings"]}["W4"] == 1  # its game counts


def test_a_rated_tournament_resumes_after_a_restart_and_rates_its_games(tmp_path: Path) -> None:
    path = tmp_path / "restart.sqlite3"
    with make_client(path) as client:
        sessions = {name: sign_up(client, name) for name in ("R1", "R2", "R3")}
        as_account(client, sessions["R1"])
        body = {"name": "Restart", "players": 3, "rounds": 2, "time_limit": 5, "start_players": 3, "rated": True}
        tid = post(client, "/api/tournaments", body).json()["id"]
        for name in ("R2", "R3"):
            as_account(client, sessions[name])
            post(client, f"/api/tournaments/{tid}/join")
        wait_for(client, tid, "running")
    with make_client(path) as client:
        view = wait_for(client, tid, "over")
        assert [r["round"] for r in view["schedule"]] == [1, 2]
        deadline = time.monotonic() + 10  # rated tables: each game enters its players' ratings, as any rated game
        while time.monotonic() < deadline:
            rated = {r["name"]: r["games"] for r in client.get("/api/leaderboard").json()["ratings"]}
            if rated == {"R1": 2, "R2": 2, "R3": 2}:
                break
            time.sleep(0.1)
        assert rated == {"R1": 2, "R2": 2, "R3": 2}


def test_an_arena_seats_free_players_again_until_its_window_closes(client: TestClient) -> None:
    """Six people at tables of three: each game's end frees its players, who are seated again at once, until the
    window closes (moved to now by the test, as an hour's wait would be); the games under way then finish."""
    from forsale.server.store.tournaments import op_advance, op_load

    sessions = {name: sign_up(client, name) for name in ("A1", "A2", "A3", "A4", "A5", "A6")}
    as_account(client, sessions["A1"])
    body = {"name": "Arena", "kind": "arena", "players": 3, "minutes": 60, "time_limit": 5, "start_players": 6}
    tid = post(client, "/api/tournaments", body).json()["id"]
    for name in ("A2", "A3", "A4", "A5", "A6"):
        as_account(client, sessions[name])
        post(client, f"/api/tournaments/{tid}/join")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until everyone has finished two games: then the window closes
        if all(line["games"] >= 2 for line in client.get(f"/api/tournaments/{tid}").json()["standings"]):
            break
        time.sleep(0.1)
    storage = client.app.state.storage  # type: ignore[attr-defined]

    async def close_window() -> None:
        while True:
            t = (await storage.run(op_load(tid)))[0]
            if await storage.run(op_advance(tid, t.version, ends_at=time.time())):
                return

    client.portal.call(close_window)  # type: ignore[union-attr]
    view = wait_for(client, tid, "over")
    waves = view["schedule"]
    assert len(waves) >= 2
    for wave in waves:
        assert [len(t["seats"]) for t in wave["tables"]] in ([3, 3], [3], [4], [5], [6])
        assert all(t["status"] == "over" for t in wave["tables"])
    lines = view["standings"]
    assert sum(line["games"] for line in lines) == sum(len(t["seats"]) for w in waves for t in w["tables"])
    assert all(line["games"] >= 2 for line in lines)


def test_two_cluster_nodes_run_one_tournament_and_seat_each_table_once(fresh_postgres: str) -> None:
    """Two nodes of a cluster (in-process apps on one PostgreSQL database), each with its runner, advance the same
    tournament: every round is planned once, every table seated once (each player told once a round), on either
    node, and the tournament ends with its standings."""
    from forsale.server.lobby.cluster import ClusterConfig

    nodes = [
        create_app(
            fresh_postgres,
            rest_rate=1e6,
            rest_burst=1e6,
            grace=0.0,
            bot_delay=0.0,
            cluster=ClusterConfig(name, lease_ttl=5),
        )
        for name in ("n1", "n2")
    ]
    with TestClient(nodes[0]) as one, TestClient(nodes[1]) as two:
        clients = [one, two]
        sessions = [sign_up(clients[i % 2], f"Node{i}") for i in range(6)]
        as_account(one, sessions[0])
        body = {"name": "Cluster Cup", "players": 3, "rounds": 2, "time_limit": 5, "start_players": 6}
        tid = post(one, "/api/tournaments", body).json()["id"]
        for i in range(1, 6):
            as_account(clients[i % 2], sessions[i])
            assert post(clients[i % 2], f"/api/tournaments/{tid}/join").status_code == 200
        view = wait_for(two, tid, "over")
        assert [r["round"] for r in view["schedule"]] == [1, 2]
        assert all([len(t["seats"]) for t in r["tables"]] == [3, 3] for r in view["schedule"])
        for i, session in enumerate(sessions):
            as_account(clients[i % 2], session)
            notices = clients[i % 2].get("/api/me/notices").json()["notices"]
            rounds = sorted(n["source"]["round"] for n in notices if n["source"].get("tournament") == tid)
            assert rounds == [1, 2], notices  # one table a round, made once whichever node seated it


def test_a_lasting_failure_is_logged_once_while_it_repeats(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """The runner tries every second: a fault that lasts writes one line, and one more when it changes."""
    tournaments = client.app.state.tournaments  # type: ignore[attr-defined]
    with caplog.at_level("ERROR", logger="forsale.server"):
        for _ in range(5):
            tournaments._failed("t1", ValueError("broken"))
        tournaments._failed("t1", ValueError("broken otherwise"))
        tournaments._failed("t2", ValueError("broken"))
    assert [r.getMessage() for r in caplog.records] == [
        "tournament t1: could not advance",
        "tournament t1: could not advance",
        "tournament t2: could not advance",
    ]


def test_a_table_refused_for_good_is_void_and_its_round_goes_on(client: TestClient) -> None:
    """A planned table the server refuses to seat (its fill bot no longer runs here, as after a restart with other
    bot settings) is settled without a game: nobody scores, and the next round comes (before: stuck for ever)."""
    from forsale.server.store.tournaments import op_advance, op_load

    sessions = {name: sign_up(client, name) for name in ("V1", "V2")}
    as_account(client, sessions["V1"])
    body = {"name": "Void", "players": 3, "fill": "random", "rounds": 2, "time_limit": 5, "start_players": 3}
    tid = post(client, "/api/tournaments", body).json()["id"]
    as_account(client, sessions["V2"])
    post(client, f"/api/tournaments/{tid}/join")
    storage = client.app.state.lobby.storage  # type: ignore[attr-defined]
    t, _, _ = storage.call(op_load(tid))
    config = {**t.config, "fill": "no-such-bot", "start_players": 2}  # what this server refuses to seat
    assert storage.call(op_advance(tid, t.version, config=config))
    view = wait_for(client, tid, "over")
    assert [r["round"] for r in view["schedule"]] == [1, 2]
    for r in view["schedule"]:
        (table,) = r["tables"]
        assert table["status"] == "void" and table["game"] is None
        assert [s["points"] for s in table["seats"]] == [None, None, None]
    assert [line["games"] for line in view["standings"]] == [0, 0]


def test_joins_at_once_on_postgres_are_serialised(fresh_postgres: str) -> None:
    """Two nodes' joins at once: the second waits for the first's commit, then counts it. One account twice is
    ``already`` (before: a primary-key error, HTTP 500), and the last free place goes to one of two accounts."""
    import threading

    from forsale.server.store.database import Storage
    from forsale.server.store.tournaments import OPEN, Tournament, op_create, op_join

    storage = Storage(fresh_postgres)
    try:
        now = time.time()
        t = Tournament("t1", "Race", "swiss", OPEN, "c", {"players": 3}, "s", None, 0, 0, now, None, None, None)
        storage.call(op_create(t, "C", False, join=True))
        for first_account, second_account, max_players, second_answer in (
            ("a", "a", 3, "already"),  # one account twice
            ("b", "c2", 3, "full"),  # c, a, then b takes the last place
        ):
            with storage.engine.connect() as first:
                assert op_join("t1", first_account, first_account, max_players, now)(first) == "joined"
                answers: list[str] = []
                join = op_join("t1", second_account, "x", max_players, now)
                second = threading.Thread(target=lambda answers=answers, join=join: answers.append(storage.call(join)))
                second.start()
                second.join(0.5)  # it waits on the tournament's row while the first is not committed
                assert not answers
                first.commit()
            second.join(10)
            assert answers == [second_answer]
    finally:
        storage.close()


def test_an_arena_whose_fill_bot_is_refused_voids_one_table_not_one_a_tick(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two alone in an arena with bots filling: the bot-filled table is refused for good, void once, and not
    planned again at every look of the runner (a row and a log line a second for the whole window)."""
    from forsale.server.lobby import tournaments as lobby_tournaments
    from forsale.server.store.tournaments import op_advance, op_load

    monkeypatch.setattr(lobby_tournaments, "ARENA_WAIT", 0.0)  # bots complete a table at once
    sessions = {name: sign_up(client, name) for name in ("Z1", "Z2")}
    as_account(client, sessions["Z1"])
    body = {"name": "Lonely", "kind": "arena", "players": 3, "fill": "random", "minutes": 60, "start_players": 3}
    tid = post(client, "/api/tournaments", body).json()["id"]
    as_account(client, sessions["Z2"])
    post(client, f"/api/tournaments/{tid}/join")
    storage = client.app.state.lobby.storage  # type: ignore[attr-defined]
    t, _, _ = storage.call(op_load(tid))
    config = {**t.config, "fill": "no-such-bot", "start_players": 2}
    assert storage.call(op_advance(tid, t.version, config=config))
    wait_for(client, tid, "running")
    runner = client.app.state.tournaments  # type: ignore[attr-defined]
    for _ in range(3):  # the runner's looks, at once (its own ticks may come between: the same either way)
        client.portal.call(runner.advance, tid, time.time())  # type: ignore[union-attr]
    tables = storage.call(op_load(tid))[2]
    assert [(tb.game_id, tb.points) for tb in tables] == [(None, {})]
