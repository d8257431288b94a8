"""Hints in the browser: off by default, allowed from the lobby form or by the creator's switch, and worded in the
page's language from the server's reason code (hard's move and why)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

CATALOGUES = Path(__file__).parents[2] / "src" / "forsale" / "web" / "static" / "i18n"
REASON_KEYS = {"only": "hint.only", "pass_close": "hint.passClose", "better": "hint.line", "mixed": "hint.mixed",
               "close": "hint.close"}  # fmt: skip


@pytest.fixture
def server(serve_process, tmp_path):
    s = serve_process(f"sqlite:///{tmp_path / 'hints.sqlite3'}", tmp_path, "--grace", "600").start()
    yield s
    s.stop()


def catalogue(lang: str) -> dict[str, str]:
    return json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))


def start(page, base: str, hints: bool | None = None) -> None:
    page.goto(base + "/")
    page.fill("#solo-name", "Ann")
    page.select_option("#solo-players", "3")
    page.select_option("#solo-bot", "random")
    assert not page.is_checked("#solo-hints")  # off by default
    if hints:
        page.check("#solo-hints")
    page.click("#play-solo")
    page.wait_for_selector(".game[data-phase=auction]")


def ask(page) -> dict:
    """Click Hint; the server's answer (hard's move, the reason code and its numbers)."""
    with page.expect_response(lambda r: r.url.endswith("/hint") and r.request.method == "POST") as answer:
        page.click("#hint")
    assert answer.value.ok, answer.value.text()
    page.wait_for_function("() => document.querySelector('#hint-line')?.dataset.reason")
    return answer.value.json()["hint"]


def test_the_hint_button_only_where_the_creator_allows_hints(server, new_page, player):
    page = new_page()
    start(page, server.base)
    me = player(page)
    me.wait_turn()
    assert page.locator("#hint").count() == 0  # off by default

    page.click("#hints-allowed")  # the creator (this page) allows them
    page.wait_for_selector("#hint")
    hint = ask(page)
    assert json.loads(page.get_attribute("#hint-line", "data-action")) == hint["action"]
    assert page.get_attribute("#hint-line", "data-reason") == hint["reason"]
    assert page.locator("#hint-line").inner_text().startswith("The hard bot would")

    page.click("#hints-allowed")  # and forbids them again
    page.wait_for_selector("#hint", state="detached")

    spectator = new_page()
    table_id = page.evaluate("() => location.hash.split('/')[2]")
    spectator.goto(f"{server.base}/#/watch/{table_id}")
    spectator.wait_for_selector(".game")
    assert spectator.locator("#hint, #hints-allowed").count() == 0


def test_the_lobby_checkbox_allows_hints_and_the_line_is_in_the_pages_language(server, new_page, player):
    page = new_page(locale="fr-FR")
    start(page, server.base, hints=True)
    player(page).wait_turn()
    page.wait_for_selector("#hint")  # allowed at creation: no switch needed
    hint = ask(page)
    fr = catalogue("fr")
    text = page.locator("#hint-line").inner_text()
    template = fr[REASON_KEYS[hint["reason"]]]
    assert text.startswith(template.split("{")[0]) and fr["hint.line"] != catalogue("en")["hint.line"]
    assert str(round(hint["chance"] * 100)) in text  # the numbers behind the reason
    if "alternative_chance" in hint:
        assert str(round(hint["alternative_chance"] * 100)) in text
    assert "hard bot" not in text and hint["line"] not in text  # never the server's English line


def ask_when_allowed(page) -> dict:
    """Click Hint until it is answered: a click within the cooldown is refused, and its words go when it ends."""
    for _ in range(5):
        with page.expect_response(lambda r: r.url.endswith("/hint") and r.request.method == "POST") as answer:
            page.click("#hint")
        if answer.value.ok:
            page.wait_for_function("() => document.querySelector('#hint-line')?.dataset.reason")
            return answer.value.json()["hint"]
        assert answer.value.status == 429, answer.value.text()
        expect(page.locator("#hint-line")).to_have_text("", timeout=10_000)  # cleared after Retry-After
    raise AssertionError("no hint in five tries")


def test_a_hint_goes_with_its_decision_and_a_refusal_is_worded_and_cleared(server, new_page, player):
    """A hint is about one decision: at the seat's next one (a new bid, a new auction or sale round) the
    line is empty. Asking again too soon is refused in the page's words (not the server's English) and
    that refusal goes too, giving back the hint it stood in for."""
    page = new_page(locale="fr-FR", expect=r"status of 429")  # the refusals this test asks for
    start(page, server.base, hints=True)
    me = player(page)
    assert me.wait_turn() == "auction"
    ask(page)
    line = page.locator("#hint-line")
    first = line.get_attribute("data-decision")
    given = line.inner_text()
    with page.expect_response(lambda r: r.url.endswith("/hint") and r.request.method == "POST") as answer:
        page.click("#hint")
    assert answer.value.status == 429 and answer.value.json()["error"]["code"] == "rate_limited"
    expect(line).to_have_text(catalogue("fr")["error.rate_limited"])
    expect(line).to_have_attribute("data-refused", "rate_limited")
    # The wait the server named is over: the refusal goes, and the hint this decision had comes back.
    expect(line).to_have_text(given, timeout=10_000)

    page.click("button[data-focus=pass]")  # the decision is past
    seen = {"auction"}
    while True:
        phase = me.wait_turn()
        assert phase != "over", f"the game ended before {seen} were all checked"
        line = page.locator("#hint-line")
        expect(line).not_to_have_attribute("data-decision", first or "")
        expect(line).to_have_text("")  # no hint left over from the last decision
        if phase == "sale" and "sale-2" in seen:
            break
        if phase == "sale":
            seen.add("sale-2" if "sale" in seen else "sale")
            ask_when_allowed(page)
            first = line.get_attribute("data-decision")
            assert line.inner_text()
            me.act(phase)
        else:
            page.click("button[data-focus=pass]")
