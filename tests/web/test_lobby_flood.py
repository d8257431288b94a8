"""A flooded lobby still shows a newcomer's table (issue 36, 15), in Chromium against a real ``forsale serve``.

One address used to open sixty waiting tables, and the lobby listed the
oldest fifty, so a table made afterwards never showed. Now one client may have
five waiting tables, and the lobby lists the newest first: here twelve other
addresses fill the lobby to its limit of fifty and beyond (sixty tables, five
each), and the table a person then makes on the page is in its list.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect

from .conftest import TIMEOUT_MS

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def own_server(tmp_path: Path, serve_process: type[Any]) -> Iterator[Any]:
    """A server of this test's own (the flood must not fill the shared one), at ``forsale serve``'s limits."""
    server = serve_process(f"sqlite:///{tmp_path / 'flood.sqlite3'}", tmp_path, table_limits=True).start()
    try:
        yield server
    finally:
        server.stop()


def test_a_newcomers_table_shows_in_a_flooded_lobby(browser: Browser, own_server: Any) -> None:
    flood = []
    for k in range(12):
        transport = httpx.HTTPTransport(local_address=f"127.0.0.{10 + k}")
        with httpx.Client(base_url=own_server.base, transport=transport, timeout=30) as other:
            for i in range(5):
                made = other.post("/api/tables", json={"players": 3, "name": f"Flood {k}.{i}"})
                assert made.status_code == 201, made.text
                flood.append(made.json()["table"]["id"])
            refused = other.post("/api/tables", json={"players": 3, "name": "one too many"})
            assert refused.status_code == 429 and refused.json()["error"]["code"] == "too_many_tables"
    assert len(flood) == 60
    context = browser.new_context(base_url=own_server.base, locale="en-US")
    problems: list[str] = []
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
        page.on("console", lambda m: m.type == "error" and problems.append(f"console error: {m.text}"))
        page.goto("/")
        expect(page.locator("#open-tables li[data-table]")).to_have_count(50)  # the lobby shows fifty
        page.select_option("#friends-players", "3")
        page.click("#create-table")
        page.wait_for_selector("#go-to-table")
        href = page.get_attribute("#go-to-table", "href") or ""
        mine = re.sub(r"^.*/", "", href)
        assert mine and mine not in flood
        # The lobby refreshes every few seconds: the new table comes first in its list.
        expect(page.locator("#open-tables li[data-table]").first).to_have_attribute("data-table", mine)
        assert page.locator("#open-tables li[data-table]").count() == 50
    finally:
        context.close()
    assert not problems, "\n".join(problems)
