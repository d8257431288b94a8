"""Hints in the browser: the Hint button appears only at a table whose creator allows hints, and answers."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def server(serve_process, tmp_path):
    s = serve_process(f"sqlite:///{tmp_path / 'hints.sqlite3'}", tmp_path, "--grace", "600").start()
    yield s
    s.stop()


def test_the_hint_button_only_where_the_creator_allows_hints(server, new_page, player):
    page = new_page()
    page.goto(server.base + "/")
    page.fill("#solo-name", "Ann")
    page.select_option("#solo-players", "3")
    page.select_option("#solo-bot", "random")
    page.click("#play-solo")
    page.wait_for_selector(".game[data-phase=auction]")
    me = player(page)
    me.wait_turn()
    assert page.locator("#hint").count() == 0  # off by default

    page.click("#hints-allowed")  # the creator (this page) allows them
    page.wait_for_selector("#hint")
    page.click("#hint")
    page.wait_for_function("() => document.querySelector('#hint-line')?.dataset.action")
    action = json.loads(page.get_attribute("#hint-line", "data-action"))
    assert set(action) <= {"pass", "bid", "sell"}
    assert "The bot would" in page.locator("#hint-line").inner_text()

    page.click("#hints-allowed")  # and forbids them again
    page.wait_for_selector("#hint", state="detached")

    spectator = new_page()
    table_id = page.evaluate("() => location.hash.split('/')[2]")
    spectator.goto(f"{server.base}/#/watch/{table_id}")
    spectator.wait_for_selector(".game")
    assert spectator.locator("#hint, #hints-allowed").count() == 0
