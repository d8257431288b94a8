"""Bots built from public requests are bounded: refused beyond the server's budget, stopped if they overrun.

``POST /api/tables`` with ``"hard:time=1e9"`` (or ``time=inf``) used to be
accepted and pinned the only bot worker for good, so the bots of every other
table stopped. Now such specs are refused, and a bot that overruns anyway (a
stand-in that never returns) has its worker killed and replaced while the
clock's safe move is played for it; another table's worker bots play on.
"""

from __future__ import annotations

import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from forsale.bots.registry import PLAYER_BOTS, research_bot
from forsale.server import create_app
from forsale.server.ops.botrunner import MAX_SAMPLES

from .wire import recv

pytestmark = pytest.mark.timeout(180)

ANSWERS = 3
"""Decisions each medium bot makes, from its worker and in time, while another table's bots overrun."""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A server for measuring bots (``--research-bots``): every registered bot is offered."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'bots.sqlite3'}", max_bot_time=2, research_bots=True)) as client:
        yield client


def test_bot_specs_beyond_the_servers_budget_are_refused(client: TestClient) -> None:
    assert client.get("/api/bots").json()["max_time"] == 2
    for spec, why in (
        ("hard:time=1e9", "at most 2 s"),
        ("hard:time=3", "at most 2 s"),
        ("hard:time=inf", "not a finite number"),
        ("hard:time=nan", "not a finite number"),
        ("hard:time=-inf", "not a finite number"),
        (f"hard:samples={MAX_SAMPLES + 1}", f"at most {MAX_SAMPLES}"),
        ("hard:samples=1000000000", f"at most {MAX_SAMPLES}"),
        ("easy:blunder=nan", "not a finite number"),
        ("hard:time=0", "time must be a number above 0"),
        # Options of the wrong kind or out of range: refused when built, not a 500 or a traceback a move.
        ("hard:phases=0", "phases must be auction, sale or auction+sale"),
        ("hard-v1:phases=1", "phases must be"),
        ("hard:temperature=0", "temperature must be a number above 0"),
        ("hard:steps=0+1", "steps must be"),
        ("expert:alpha=-1", "alpha must be a number of at least 0"),
        ("ppo", "cannot play this table"),  # its network reads 4-player tables only
        ("ppo:weights=/etc/passwd", "weights= is not offered"),  # a path on the server's disk
    ):
        for path, body in (
            ("/api/tables", {"players": 3, "seats": [spec, None, None]}),
            ("/api/solo", {"players": 3, "bot": spec}),
            ("/api/solo", {"players": 3, "bots": ["random", spec]}),
        ):
            refused = client.post(path, json=body)
            assert refused.status_code == 400, (spec, refused.text)
            assert refused.json()["error"]["code"] == "bad_bot" and why in refused.json()["error"]["message"], spec
    for spec in ("hard:time=2", "hard:time=0.5", f"hard:samples={MAX_SAMPLES}", "medium"):
        assert client.post("/api/tables", json={"players": 3, "seats": [spec, None, None]}).status_code == 201
    assert client.post("/api/solo", json={"players": 4, "bot": "ppo"}).status_code == 201


def test_a_bot_that_overruns_is_stopped_the_clock_plays_and_other_tables_bots_play_on(
    tmp_path: Path, waiting_bot: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(
        f"sqlite:///{tmp_path / 'overrun.sqlite3'}",
        bot_modules=("forsale_test_waiting_bot",),
        max_bot_time=0.5,  # the medium bots' decisions must fit in it (1.5 x 0.5 + 0.25 s) on a loaded machine
        bot_workers=2,
    )
    with TestClient(app) as client:
        # Both seats of this table think for ever (until the gate file appears, which it never does).
        slow = client.post("/api/tables", json={"players": 2, "rules": "two-player", "seats": ["waiting"] * 2})
        assert slow.status_code == 201, slow.text
        slow_id = slow.json()["table"]["id"]
        with client.websocket_connect(f"/ws/tables/{slow_id}") as ws:
            ws.send_json({"type": "hello"})
            recv(ws, "welcome")
            for _ in range(3):  # each of its moves is the clock's pass, once the bot's time is up
                event = recv(ws, "state")["event"]
                assert (event["source"], event["kind"]) == ("clock", "pass"), event
        killed = [int(r.getMessage().split("worker ")[1].split()[0]) for r in caplog.records if "stopped" in r.message]
        assert len(killed) >= 3 and len(set(killed)) == len(killed)  # a new worker each time
        # Meanwhile a table of medium bots (they think in the workers too) plays on: each bot answers in time, from
        # its worker, again and again, while the slow table's workers go on overrunning and being replaced. (Each
        # bot's third answer is enough: a whole game took a minute on a loaded machine and showed nothing more.)
        slow_seq = client.get(f"/api/tables/{slow_id}").json()["table"]["seq"]
        solo = client.post("/api/solo", json={"players": 3, "bot": "medium"}).json()
        answers: Counter[tuple[int, str]] = Counter()
        with client.websocket_connect(f"/ws/tables/{solo['table']['id']}") as ws:
            ws.send_json({"type": "hello", "token": solo["token"]})
            latest, pending, acked = recv(ws, "welcome"), False, 0
            while latest["status"] != "over" and min(answers[(1, "bot")], answers[(2, "bot")]) < ANSWERS:
                if not pending and latest["seq"] >= acked and 0 in latest["view"]["to_act"]:
                    ws.send_json({"type": "act", "action": latest["view"]["legal"][0]})
                    pending = True
                message = recv(ws, "state", "ack")
                if message["type"] == "ack":
                    pending, acked = False, message["seq"]
                else:
                    latest = message
                    answers[(latest["event"]["seat"], latest["event"]["source"])] += 1
        assert answers[(1, "bot")] >= ANSWERS and answers[(2, "bot")] >= ANSWERS, answers  # thought, answered in time
        assert (
            client.get(f"/api/tables/{slow_id}").json()["table"]["seq"] > slow_seq
        )  # the slow table overran meanwhile
    deadline = time.monotonic() + 30  # the stopped workers are gone (reaped off the event loop)
    while any(Path(f"/proc/{pid}").exists() for pid in killed) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(Path(f"/proc/{pid}").exists() for pid in killed)


def test_serve_refuses_a_non_finite_bot_budget(forsale_cmd: list[str], forsale_env: dict[str, str]) -> None:
    helped = subprocess.run(forsale_cmd + ["serve", "--help"], env=forsale_env, capture_output=True, text=True)
    assert "--max-bot-time" in helped.stdout
    for bad in ("inf", "nan", "0"):
        refused = subprocess.run(
            forsale_cmd + ["serve", "--max-bot-time", bad], env=forsale_env, capture_output=True, text=True, timeout=60
        )
        assert refused.returncode == 2 and "--max-bot-time" in refused.stderr, refused.stderr


def test_the_bot_list_offers_the_bots_that_can_play_here(client: TestClient) -> None:
    """Every listed bot can be seated at some table (ppo at 4 players only), and each one has its description."""
    listed = client.get("/api/bots").json()
    assert set(listed["bots"]) == set(listed["names"]) and {"random", "medium", "hard", "ppo"} <= set(listed["names"])
    for name in listed["names"]:
        seated = [client.post("/api/solo", json={"players": n, "bot": name}).status_code for n in (3, 4)]
        assert 201 in seated, name


def test_the_bot_list_says_which_bots_are_peoples_and_which_research(client: TestClient) -> None:
    """The page's menus come from here: people's levels first in the registry's order, research bots apart."""
    listed = client.get("/api/bots").json()
    assert listed["players"][: len(PLAYER_BOTS)] == list(PLAYER_BOTS)
    assert {"hard-v1", "ppo", "expert"} <= set(listed["research"])
    assert sorted(listed["players"] + listed["research"]) == listed["names"]
    assert all(research_bot(name) for name in listed["research"])


def test_a_public_server_offers_peoples_levels_only_and_refuses_a_research_bot_in_words(tmp_path: Path) -> None:
    """Without ``research_bots`` the list holds people's levels, and a seat for a research bot is refused by name."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'public.sqlite3'}")) as client:
        listed = client.get("/api/bots").json()
        assert listed["names"] == sorted(PLAYER_BOTS) and set(listed["bots"]) == set(PLAYER_BOTS)
        assert listed["players"] == list(PLAYER_BOTS) and listed["research"] == []  # the page's menus, in order
        assert listed["default"] in listed["names"]
        for spec in ("hard-v1", "expert", "value:seed=1", "ppo"):
            for path, body in (
                ("/api/tables", {"players": 4, "seats": [spec, None, None, None]}),
                ("/api/solo", {"players": 4, "bot": spec}),
                ("/api/solo", {"players": 4, "bots": ["random", spec, "medium"]}),
            ):
                refused = client.post(path, json=body)
                assert refused.status_code == 400, (spec, path, refused.text)
                error = refused.json()["error"]
                assert error["code"] == "bad_bot", error
                name = spec.split(":")[0]
                assert f"bot {name!r} is a research bot" in error["message"] and "--research-bots" in error["message"]
        assert (
            client.post("/api/solo", json={"players": 4, "bots": ["easy", "hard:time=0.1", "random"]}).status_code
            == 201
        )
