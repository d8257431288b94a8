"""Accessibility: the axe-core audit of every screen, in both themes.

axe-core (bundled by ``axe-playwright-python``) is injected into the real page in
Debian's Chromium; a screen passes when axe finds no violation of impact
"serious" or "critical" (WCAG 2.x A/AA rules and axe's best practices).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

_AXE = Axe()
_OPTIONS = {
    "resultTypes": ["violations"],
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]},
}


def audit(page: Page, where: str) -> list[str]:
    """axe's own words for every serious or critical violation on the page as it is now."""
    results = _AXE.run(page, options=_OPTIONS).response
    bad = [v for v in results["violations"] if v["impact"] in ("serious", "critical")]
    lines = []
    for v in bad:
        for node in v["nodes"][:5]:
            lines.append(
                f"{where}: {v['id']} ({v['impact']}): {v['help']}: {node['target']} {node['failureSummary'][:300]}"
            )
    return lines


def start_solo(page: Page, players: int = 4) -> None:
    page.goto("/")
    page.wait_for_selector("#play-solo")
    page.fill("#solo-name", "Ann")
    page.select_option("#solo-players", str(players))
    page.select_option("#solo-bot", "random")
    page.click("#play-solo")
    page.wait_for_selector(".game[data-phase=auction]")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_screen_passes_the_axe_audit(new_page: Callable[..., Page], player, reveal_settled, theme: str) -> None:
    page = new_page(theme=theme)
    found: list[str] = []
    page.goto("/")
    page.wait_for_selector("#play-solo")
    found += audit(page, "lobby")
    start_solo(page)
    me = player(page)
    assert me.wait_turn() == "auction"
    found += audit(page, "table, auction")
    audited_sale = False
    while True:
        phase = me.wait_turn()
        if phase == "sale" and not audited_sale:
            found += audit(page, "table, sale")
            audited_sale = True
        if phase == "over":
            break
        me.act(phase)
    page.wait_for_selector("#end")
    reveal_settled(page)
    found += audit(page, "game over")
    page.click("#replay-link")
    page.wait_for_selector("#replay-stage .results")
    found += audit(page, "replay viewer")
    assert not found, "\n".join(found)
