"""A table's configuration (:class:`TableConfig`), and the bot delay's bounds at the REST boundary."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.table.config import BOT_DELAY_MAX, TableConfig


def test_a_stored_config_is_read_with_defaults_for_what_it_lacks_and_keys_that_are_no_setting_left_out() -> None:
    config = TableConfig.of({"rules": "official", "hints": True, "time_limit": 30, "retired": 1})
    assert config == TableConfig(rules="official", time_limit=30, hints=True)
    assert (config.memory_aid, config.private, config.rated, config.bot_delay) == (True, False, False, None)
    assert TableConfig.of(config.stored()) == config  # what is written reads back the same


def test_a_bot_delay_is_stored_only_once_chosen() -> None:
    assert "bot_delay" not in TableConfig("official").stored()
    assert TableConfig("official", bot_delay=0.0).stored()["bot_delay"] == 0.0


def test_the_tables_bot_delay_wins_over_the_servers_and_zero_is_a_choice() -> None:
    assert TableConfig("official").bots_wait(0.6) == 0.6
    assert TableConfig("official", bot_delay=2.0).bots_wait(0.6) == 2.0
    assert TableConfig("official", bot_delay=0.0).bots_wait(0.6) == 0.0


def test_hints_are_never_shown_at_a_rated_table() -> None:
    assert TableConfig("official", hints=True).hints_shown
    assert not TableConfig("official", hints=True, rated=True).hints_shown


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'server.sqlite3'}")) as c:
        yield c


@pytest.mark.parametrize("delay", [-0.5, BOT_DELAY_MAX + 0.5, "2", True])
def test_a_bot_delay_out_of_bounds_or_not_a_number_is_refused_with_what_is_expected(
    client: TestClient, delay: object
) -> None:
    for path in ("/api/tables", "/api/solo"):
        answer = client.post(path, json={"players": 3, "bot_delay": delay})
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert error["code"] == "bad_request" and error["message"].startswith("bot_delay: ")


def test_a_bot_delay_is_chosen_when_the_table_is_made_and_changed_by_its_creator(client: TestClient) -> None:
    created = client.post("/api/tables", json={"players": 3, "seats": ["human", "human", "random"], "bot_delay": 2})
    assert created.status_code == 201, created.text
    assert created.json()["table"]["bot_delay"] == 2
    table, creator = created.json()["table"]["id"], created.json()["creator_token"]
    changed = client.post(f"/api/tables/{table}/settings", json={"creator_token": creator, "bot_delay": 0.5})
    assert changed.status_code == 200, changed.text
    assert changed.json()["table"]["bot_delay"] == 0.5
    too_long = client.post(f"/api/tables/{table}/settings", json={"creator_token": creator, "bot_delay": 60})
    assert too_long.status_code == 400
    assert client.get(f"/api/tables/{table}").json()["table"]["bot_delay"] == 0.5
    solo = client.post("/api/solo", json={"players": 3, "bot": "random", "bot_delay": 1})
    assert solo.status_code == 201 and solo.json()["table"]["bot_delay"] == 1
