"""The guided first game (web/static/js/tutorial.js) in Debian's Chromium.

One click in the lobby starts a short game against two gentle bots; each new
situation brings its tip the moment it happens (checked against what the table
shows then: the log's lines, the phase, the refund's arithmetic under the
table's rules), every tip is a labelled dialog that takes the focus, is said by
the page's live region, can be dismissed by its button or Escape and never comes
back (not even after a reload), and the game plays to its end. In English and in
French with no English left on the tutorial's screens, and with no serious or
critical axe violation on them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from .test_web_a11y import audit
from .test_web_i18n import LOCALES, assert_no_english, catalogue

TIPS = ["intro", "bid", "pass", "refund", "take", "sale", "reveal", "score"]

# What the page shows now: the open tip, else what the seat may do (the conftest's turn check).
_STATE = """() => {
  const tip = document.querySelector('#tutorial-tip');
  if (tip) return 'tip:' + tip.dataset.tip;
  const game = document.querySelector('.game');
  if (!game) return false;
  if (game.dataset.phase === 'over') return 'over';
  if (document.querySelector('button[data-focus=pass]:not([disabled])')) return 'auction';
  if (document.querySelector('button.card.house:not([disabled])')) return 'sale';
  return false;
}"""

# Everything the live region said, from the page's first moment (an init script: it runs again after a reload).
_LISTEN = """
window.__said = [];
new MutationObserver((records) => {
  const el = document.getElementById('announce');
  if (el && el.textContent && records.some((r) => el.contains(r.target))) window.__said.push(el.textContent);
}).observe(document, {childList: true, characterData: true, subtree: true});
"""

# The facts a tip's moment is checked against, read from the table as drawn.
_FACTS = """() => ({
  phase: document.querySelector('.game').dataset.phase,
  bids: document.querySelectorAll('.log li.bid').length,
  passes: document.querySelectorAll('.log li.pass').length,
  takes: document.querySelectorAll('.log li.take').length,
  sales: document.querySelectorAll('.log li.sale').length,
  focused: document.activeElement && document.activeElement.id,
})"""


def happened(tip: str, facts: dict, text: str) -> bool:
    """Whether the table, as drawn when ``tip`` opened, shows the situation the tip explains."""
    if tip == "intro":
        return facts["phase"] == "auction"
    if tip == "bid":
        return facts["bids"] >= 1
    if tip == "pass":
        return facts["passes"] >= 1
    if tip == "refund":
        # Half the bid back, rounded down (the tutorial's rules): the tip's own numbers say so.
        bid, back, paid = (int(n) for n in re.findall(r"\d+", text))
        return bid >= 1 and back == bid // 2 and paid == bid - back
    if tip == "take":
        return facts["takes"] >= 1
    if tip == "sale":
        return facts["phase"] in ("sale", "over")
    if tip == "reveal":
        return facts["sales"] >= 1
    return facts["phase"] == "over"


def told_of_the_table_shown(page: Page, words: dict, tip: str, text: str) -> None:
    """The tip speaks of the table beside it: the bid it names is the log's latest (yours said as yours), the house
    a pass or a take names is the latest one taken, and the bots wait: nothing newer is drawn while the tip is open."""
    moves = page.evaluate("() => document.querySelector('.game').dataset.moves")
    if tip == "bid":
        last = page.locator(".log li.bid").last.inner_text()
        mine = last.startswith(words["log.bid.you"].split("{")[0])
        template = words["tutorial.bid.mine" if mine else "tutorial.bid.text"]
        assert text.startswith(template.split("{")[0]), f"{last!r} told as {text!r}"
    if tip in ("pass", "take"):
        house = re.search(r"\d+", text)
        assert house, text
        # The latest pass; a take's tip is about paying, so the latest take that paid (any, to keep this short).
        lines = page.locator(f".log li.{tip}").all_inner_texts()
        named = [line for line in (lines[-1:] if tip == "pass" else lines) if re.search(rf"\b{house.group()}\b", line)]
        assert named, f"the {tip} tip names house {house.group()}; the log: {lines}"
    page.wait_for_timeout(300)  # time for a bot's move (they play at once on this server) to be drawn, were it shown
    assert page.evaluate("() => document.querySelector('.game').dataset.moves") == moves, (
        f"the table moved on under {tip}"
    )


def act(page: Page, phase: str) -> None:
    """Bid +1 when nothing of mine stands, pass once outbid (a refund), sell the first house."""
    if phase == "auction":
        mine = page.locator(".seat.me .status .chip")  # my bid stands
        plus1 = page.locator("button[data-focus=plus1]:not([disabled])")
        if mine.count() == 0 and plus1.count():
            plus1.click()
        else:
            page.click("button[data-focus=pass]")
    elif phase == "sale":
        page.locator("button.card.house:not([disabled])").first.click()
        page.click("button[data-focus=sell]")


# Whether the tip has stopped moving: its slide-in (a fade from transparent) is over, or there was none.
_SETTLED = """() => {
  const box = document.querySelector('#tutorial-tip');
  return !!box && box.getAnimations({subtree: true}).every(a => a.playState === 'finished');
}"""


def play_the_tutorial(page: Page, code: str, on_tip: Callable[[str], None] = lambda tip: None) -> list[str]:
    """Start the tutorial from the lobby and play it to the end; returns the tips in the order they opened."""
    words = catalogue(code)
    page.add_init_script(script=_LISTEN)
    page.goto("/")
    expect(page.locator("#learn-to-play")).to_have_text(words["tutorial.start"])
    page.fill("#solo-name", "Zoë")
    page.click("#learn-to-play")
    page.wait_for_selector(".game")
    shown: list[str] = []
    dismissals = 0
    for _ in range(600):
        state = str(page.wait_for_function(_STATE).json_value())
        if state.startswith("tip:"):
            tip = state[4:]
            assert tip not in shown, f"the tip {tip} came back"
            shown.append(tip)
            box = page.locator("#tutorial-tip")
            expect(box).to_have_attribute("role", "dialog")
            expect(page.get_by_role("dialog", name=words[f"tutorial.{tip}.title"])).to_be_visible()
            text = page.locator("#tip-text").inner_text()
            facts = page.evaluate(_FACTS)
            assert happened(tip, facts, text), f"{tip} opened before its moment: {facts} {text!r}"
            expect(page.locator("#tip-ok"), f"{tip} has the focus").to_be_focused()
            page.wait_for_function("t => window.__said.some(s => s.includes(t))", arg=words[f"tutorial.{tip}.title"])
            # Numbered in the order they open, whatever order the game brings the situations in.
            expect(page.locator("#tutorial-tip .tip-step")).to_have_text(
                words["tutorial.step"].replace("{step}", str(len(shown))).replace("{steps}", "8")
            )
            told_of_the_table_shown(page, words, tip, text)
            page.wait_for_function(_SETTLED)  # audits and pictures of a tip still fading in would see faded colours
            on_tip(tip)
            dismissals += 1
            if dismissals % 2:
                page.click("#tip-ok")
            else:
                page.keyboard.press("Escape")  # the dialog's own key
            page.wait_for_function(
                "t => (document.querySelector('#tutorial-tip') || {dataset: {}}).dataset.tip !== t", arg=tip
            )
            assert page.evaluate("() => document.activeElement !== document.body"), "the focus was lost"
            if tip == "intro":
                page.reload()  # a dismissed tip stays dismissed
                page.wait_for_selector(".game")
        elif state == "over":
            break
        else:
            act(page, state)
    else:
        raise AssertionError("the tutorial did not end")
    expect(page.locator("#end")).to_be_visible()
    expect(page.locator("#tutorial-tip")).to_have_count(0)
    return shown


def test_the_tutorial_explains_each_situation_as_it_happens(new_page: Callable[..., Page], shoot) -> None:
    page = new_page()
    found: list[str] = []

    def check(tip: str) -> None:
        if tip in ("intro", "sale", "score"):
            found.extend(audit(page, f"tutorial, tip {tip}"))
            shoot(page, f"tutorial-{tip}-en")

    shown = play_the_tutorial(page, "en", check)
    assert sorted(shown) == sorted(TIPS), shown
    assert shown[0] == "intro" and shown[-1] == "score"
    assert not found, "\n".join(found)
    # The table was a short game: five auctions, five sales, three players.
    expect(page.locator(".results tbody tr")).to_have_count(3)


def test_the_tutorial_in_french_has_no_english(new_page: Callable[..., Page], shoot) -> None:
    page = new_page(locale=LOCALES["fr"])

    def check(tip: str) -> None:
        assert_no_english(page, "fr", f"tutorial, tip {tip}")
        if tip in ("intro", "refund", "reveal"):
            shoot(page, f"tutorial-{tip}-fr")

    shown = play_the_tutorial(page, "fr", check)
    assert sorted(shown) == sorted(TIPS), shown
    assert_no_english(page, "fr", "tutorial, game over")


# How CSS animates a tip as it opens (a fresh one), measured on a fresh element so no redraw races it.
_FRESH_TIP = """() => {
  const tip = document.createElement('div');
  tip.className = 'tip fresh';
  document.getElementById('app').append(tip);
  const out = {name: getComputedStyle(tip).animationName, running: tip.getAnimations().length};
  tip.remove();
  return out;
}"""


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_a_tip_slides_in_only_without_reduced_motion(new_page: Callable[..., Page], motion: str) -> None:
    page = new_page(reduced_motion=motion)
    page.goto("/")
    page.click("#learn-to-play")
    page.wait_for_selector("#tutorial-tip[data-tip=intro]")
    if motion == "reduce":
        assert page.evaluate(_FRESH_TIP) == {"name": "none", "running": 0}
        assert page.evaluate("() => document.querySelector('#tutorial-tip').getAnimations().length") == 0
    else:
        assert page.evaluate(_FRESH_TIP) == {"name": "tip-in", "running": 1}
