"""The post-game analysis in the browser: the chart and the mistakes are forsale.bots.analysis's, on the end
screen and in the replay viewer."""

from __future__ import annotations

import json

import httpx
import pytest
from playwright.sync_api import expect

from forsale.bots.analysis import analyse

BUDGET = 3


@pytest.fixture
def server(serve_process, tmp_path):
    s = serve_process(f"sqlite:///{tmp_path / 'analysis.sqlite3'}", tmp_path, "--analysis-budget", str(BUDGET)).start()
    yield s
    s.stop()


CHART = """() => [...document.querySelectorAll('#chance-table tbody tr')].map(
  tr => [...tr.querySelectorAll('td')].map(td => Number(td.dataset.chance)))"""
MISTAKES = "() => [...document.querySelectorAll('#mistakes li')].map(li => Number(li.dataset.move))"


def check_panel(page, expected, players: int) -> None:
    page.wait_for_selector("#analysis[data-ready=true]")
    assert page.evaluate(CHART) == [list(p) for p in expected.chances]
    # Only decisions that cost a point or more (rounded) are listed: "+0 points" is no mistake.
    assert page.evaluate(MISTAKES) == [d.move for d in expected.costliest(0, 5) if round(d.loss * 100) > 0]
    # The x-axis marks the rounds (as the replay's buttons: A1 … then the sales), not only "moves".
    marks = page.eval_on_selector_all("#chance-chart .round-mark", "ts => ts.map(t => t.lastChild.textContent)")
    assert marks[0] == "A1" and any(m.startswith("S") for m in marks), marks
    assert page.locator("#chance-chart .sale-band").count() == 1
    svg = page.locator("#chance-chart")
    assert svg.get_attribute("role") == "img"
    assert page.locator("#chance-chart > title").text_content() and page.locator("#chance-chart > desc").text_content()
    dashes = page.evaluate(
        "() => [...document.querySelectorAll('#chance-chart .seat-line polyline')].map(p => p.getAttribute('stroke-dasharray'))"
    )
    shapes = page.evaluate(
        "() => [...document.querySelectorAll('#chance-chart .seat-line')].map(g => g.children[1].tagName)"
    )
    assert len(dashes) == players and len(set(dashes)) == players  # a line style per seat, not colour alone
    assert len(set(shapes)) == players  # and a marker shape per seat


def check_the_numbers_fit_a_phone(page) -> None:
    """On a phone, the chart's numbers as a table scroll in their own box: the page stays as wide as the window (the
    end screen sits centred on the felt, and its content's width once made it 407 px wide at three seats)."""
    size = page.viewport_size
    page.set_viewport_size({"width": 390, "height": 844})
    page.click("#analysis .chart-data summary")
    expect(page.locator("#chance-table")).to_be_visible()
    widths = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert widths[0] <= widths[1], f"the table widens the page: {widths}"
    page.click("#analysis .chart-data summary")
    page.set_viewport_size(size)


def check_links_into_the_replay(page, table_id: str, costly: list, total: int) -> None:
    """Each costly decision links to the replay at its moment (the table before the move: step = the move's index).

    ``page`` is at the replay's end, come from the end screen: there a link moves the replay in place (no reload, no
    history entry to step back through) and brings its controls into view; back on the end screen, a link opens the
    replay at that move.
    """
    links = page.eval_on_selector_all("#mistakes a.replay-move", "as => as.map(a => a.getAttribute('href'))")
    assert links == [f"#/replay/{table_id}?step={d.move}&seat={d.seat}" for d in costly]
    if not costly:
        return
    entries = page.evaluate("() => history.length")
    page.locator("#mistakes a.replay-move").last.click()
    expect(page.locator("#replay-step")).to_have_text(f"move {costly[-1].move} of {total}")
    moved = page.evaluate("() => [location.hash, history.length]")
    assert moved == [f"#/replay/{table_id}?step={costly[-1].move}&seat={costly[-1].seat}", entries]
    # The decision is marked: its seat outlined, a line naming it (tests/web/test_web_replay.py has the words).
    expect(page.locator("#replay-decision")).to_be_visible()
    assert page.eval_on_selector_all(".seat.decision", "els => els.map(e => +e.dataset.seat)") == [costly[-1].seat]
    top = page.evaluate("() => document.querySelector('.replay-controls').getBoundingClientRect().top")
    assert 0 <= top < page.viewport_size["height"] / 2, top  # the controls are at the top of the window

    page.go_back()  # the table's end screen
    page.wait_for_selector("#end #analysis[data-ready=true]")
    page.locator("#mistakes a.replay-move").first.click()
    expect(page.locator("#replay-step")).to_have_text(f"move {costly[0].move} of {total}")
    assert page.input_value("#replay-slider") == str(costly[0].move)
    assert page.eval_on_selector_all(".seat.decision", "els => els.map(e => +e.dataset.seat)") == [costly[0].seat]


def test_the_end_screen_and_the_replay_show_the_analysis_of_the_game(server, new_page, player, start_solo, shoot):
    page = new_page()
    table_id = start_solo(page, 3, lobby=server.base + "/")
    player(page).play_to_end()
    page.wait_for_selector("#end")

    record = httpx.get(f"{server.base}/api/tables/{table_id}/record").json()
    expected = analyse(record, seat=0, budget=BUDGET, seed=0)
    check_panel(page, expected, 3)
    first = [d for d in expected.costliest(0, 5) if round(d.loss * 100) > 0]
    if first:  # the words name the better move and the gain
        text = page.locator("#mistakes li").first.inner_text()
        gain = round(first[0].loss * 100)
        assert f"+{gain} point{'' if gain == 1 else 's'}" in text  # "+1 point", "+2 points"
    else:
        assert page.locator("#mistakes-none").is_visible()
    legend = "() => [...document.querySelectorAll('#analysis .chart-legend li')].map(li => li.textContent.trim())"
    assert page.evaluate(legend)[0] == "You"
    shoot(page, "analysis-end")
    check_the_numbers_fit_a_phone(page)

    page.click("#replay-link")  # within the page, as a player goes: the end screen's panel must not come along
    page.wait_for_selector("#replay-stage")
    check_panel(page, expected, 3)
    assert page.evaluate(legend)[0] == "Ann"  # the replay names the seat; its chart's legend too
    shoot(page, "analysis-replay")
    check_the_numbers_fit_a_phone(page)
    check_links_into_the_replay(page, table_id, first, len(record["moves"]))

    spectator = new_page()
    spectator.goto(f"{server.base}/#/replay/{table_id}")
    spectator.wait_for_selector("#analysis[data-ready=true]")
    assert spectator.evaluate(CHART) == [list(p) for p in expected.chances]
    assert spectator.locator("#mistakes, #mistakes-none").count() == 0  # a spectator's view: the chart only
    assert json.loads(json.dumps(expected.to_json()))["chances"] == spectator.evaluate(CHART)
