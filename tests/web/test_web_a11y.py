"""Accessibility: the axe-core audit of every screen, in both themes.

axe-core (bundled by ``axe-playwright-python``) is injected into the real page in
Debian's Chromium; a screen passes when axe finds no violation of impact
"serious" or "critical" (WCAG 2.x A/AA rules and axe's best practices). Each
screen is audited light and dark on the same walk (the themes are CSS alone,
switched on ``<html data-theme>``), rather than playing every walk twice.
"""

from __future__ import annotations

import re
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


# The page's own switch (main.js setTheme) without the button, which a modal dialog would make inert;
# then wait until no colour transition is running, so axe reads the settled colours. A redraw may
# replace an element mid-transition: its transition is cancelled and its ``finished`` promise
# rejects with an AbortError ("The user aborted a request", which failed this test), so each
# transition is awaited settled, not fulfilled, and the page is asked again until none is left
# (a replacement element is drawn in the new theme at once, with no transition of its own).
_SET_THEME = """async theme => {
  document.documentElement.dataset.theme = theme;
  let running;
  while ((running = document.getAnimations().filter(a => a instanceof CSSTransition)).length) {
    await Promise.allSettled(running.map(a => a.finished));
  }
  return getComputedStyle(document.body).backgroundColor;
}"""


def audit_themes(page: Page, where: str) -> list[str]:
    """:func:`audit` in the light theme, then in the dark one; the page is left light."""
    found, backgrounds = [], []
    for theme in ("light", "dark"):
        backgrounds.append(page.evaluate(_SET_THEME, theme))
        found += audit(page, f"{where} ({theme})")
    page.evaluate(_SET_THEME, "light")
    assert backgrounds[0] != backgrounds[1], f"{where}: the dark theme did not change the page ({backgrounds})"
    return found


def test_every_screen_passes_the_axe_audit(new_page: Callable[..., Page], player, start_solo, reveal_settled) -> None:
    page = new_page(theme="light")
    found: list[str] = []
    page.goto("/")
    page.wait_for_selector("#play-solo")
    found += audit_themes(page, "lobby")
    start_solo(page, hints=True)
    me = player(page)
    assert me.wait_turn() == "auction"
    found += audit_themes(page, "table, auction")
    page.click("#hint")
    page.wait_for_selector("#hint-line[data-reason]")
    found += audit_themes(page, "table, auction, a hint shown")
    audited_sale = False
    while True:
        phase = me.wait_turn()
        if phase == "sale" and not audited_sale:
            found += audit_themes(page, "table, sale")
            audited_sale = True
        if phase == "over":
            break
        me.act(phase)
    page.wait_for_selector("#end")
    reveal_settled(page)
    page.wait_for_selector("#analysis[data-ready=true]")
    page.click("#analysis .chart-data summary")  # the chart's numbers as a table, open
    found += audit_themes(page, "game over, with the analysis")
    page.click("#replay-link")
    page.wait_for_selector("#replay-stage .results")
    page.wait_for_selector("#analysis[data-ready=true]")
    found += audit_themes(page, "replay viewer, with the analysis")
    assert not found, "\n".join(found)


def test_the_account_pages_pass_the_axe_audit(new_page: Callable[..., Page], player) -> None:
    """The sign-up dialog, a profile with its rating plot, "my games" and the leaderboard (tests/web/test_web_accounts)."""
    from .test_web_accounts import PASSWORD, start_solo, unique

    page = new_page(theme="light")
    found: list[str] = []
    page.goto("/")
    page.wait_for_selector("#play-solo")
    page.click("#sign-up")
    found += audit_themes(page, "sign-up dialog")
    name = unique("Axe")
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.click("#signup-submit")
    page.wait_for_selector("#account-name-link")
    start_solo(page, rated=True)
    player(page).play_to_end()
    page.click("#account-name-link")
    page.wait_for_selector("#rating-plot")
    found += audit_themes(page, "profile")
    page.click("#my-games-link")
    page.wait_for_selector("#my-games")
    found += audit_themes(page, "my games")
    page.click("#leaderboard-link")
    page.wait_for_selector(f"#leaderboard tr[data-name='{name}']")
    found += audit_themes(page, "leaderboard")
    assert not found, "\n".join(found)


# Every text the announcer (#announce, the page's one polite live region for the table) has said.
_LISTEN = """() => {
  window.__said = [];
  const el = document.getElementById('announce');
  new MutationObserver(() => { if (el.textContent) window.__said.push(el.textContent); })
    .observe(el, {childList: true, characterData: true, subtree: true});
}"""


def focused(page: Page, selector: str) -> bool:
    return bool(page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector))


def tab_to(page: Page, selector: str, limit: int = 150) -> None:
    """Press Tab until the element with the focus matches ``selector`` (the page may redraw meanwhile)."""
    for _ in range(limit):
        if focused(page, selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def choose_with_arrows(page: Page, selector: str, value: str) -> None:
    """A <select> set from the keyboard: focus it, then ArrowDown/ArrowUp until it holds ``value``."""
    tab_to(page, selector)
    for key in ("ArrowDown", "ArrowUp"):
        for _ in range(10):
            if page.eval_on_selector(selector, "e => e.value") == value:
                return
            page.keyboard.press(key)
    raise AssertionError(f"{selector} never became {value}")


def test_a_whole_game_with_the_keyboard_only_and_the_announcer_says_what_happens(
    new_page: Callable[..., Page], player, shoot
) -> None:
    page = new_page()
    page.goto("/")
    page.wait_for_selector("#play-solo")
    tab_to(page, "#solo-name")
    page.keyboard.press("Control+A")
    page.keyboard.type("Kim")
    choose_with_arrows(page, "#solo-players", "6")
    choose_with_arrows(page, "#solo-bot", "random")
    tab_to(page, "#play-solo")
    page.keyboard.press("Enter")
    page.wait_for_selector(".game[data-phase=auction]")
    page.evaluate(_LISTEN)
    me = player(page)  # only to wait for the turn: every move below is a key press
    bids = passes = sales = 0
    while (phase := me.wait_turn()) != "over":
        moves = me.moves()
        if phase == "auction":
            high = page.evaluate("() => Number(document.querySelector('#bid-amount')?.min || 1) - 1")
            if bids < 2 and high < 3 and page.locator("#bid-amount:not([disabled])").count():
                tab_to(page, "#bid-amount")
                page.keyboard.press("Control+A")
                page.keyboard.type(str(high + 1))
                page.keyboard.press("Enter")
                bids += 1
            else:
                tab_to(page, "button[data-focus=pass]:not([disabled])")
                page.keyboard.press("Enter" if passes % 2 else "Space")
                passes += 1
        else:
            # Tab reaches the hand once; the arrows walk it; Space chooses, Enter on the chosen house sells it.
            tab_to(page, ".hand button.card.house:not([disabled])")
            first = page.evaluate("() => document.activeElement.dataset.house")
            page.keyboard.press("ArrowRight")
            if page.locator(".hand button.card.house").count() > 1:
                assert page.evaluate("() => document.activeElement.dataset.house") != first
            house = page.evaluate("() => document.activeElement.dataset.house")
            page.keyboard.press("Space")
            page.wait_for_selector(f".hand button.card.house[data-house='{house}'][aria-pressed=true]")
            assert focused(page, f"[data-house='{house}']")  # the redraw kept the focus on the card
            page.keyboard.press("Enter")
            sales += 1
        page.wait_for_function(
            "n => Number(document.querySelector('.game').dataset.moves) > n || document.querySelector('.game').dataset.phase === 'over'",
            arg=moves,
        )
    page.wait_for_selector("#end")
    assert bids and passes and sales == 5  # 6 players: 5 sale rounds, each chosen from the keyboard
    shoot(page, "keyboard-game-over")
    # Each move was said, naming its seat and its action; and whose turn it was (the bots here act at
    # once, so the turn passes straight back to us: "random bot 3 is to bid" has no time to be drawn).
    said = " | ".join(page.evaluate("() => window.__said"))
    for pattern in (
        r"You bid \d+k\.",
        r"You pass",
        r"random bot \d (bids|passes)",
        r"You are to bid",
        r"You sold \d+ for \$",
        r"random bot \d sold \d+ for \$",
        r"Choose a house to sell\.",
    ):
        assert re.search(pattern, said), (pattern, said)
    assert "Game over." in page.locator("#announce").inner_text()
    # The end screen's links are reached by Tab too: the replay opens, and the arrows step it.
    tab_to(page, "#replay-link")
    page.keyboard.press("Enter")
    page.wait_for_selector("#replay-stage .results")
    step = page.locator("#replay-step").inner_text()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("s => document.querySelector('#replay-step').innerText !== s", arg=step)


# What marks each state, other than its colour: the words and shapes a person who cannot tell
# the colours apart still sees.
_STATE_MARKS = """() => {
  const seat = document.querySelector('.seat.turn');
  const chosen = document.querySelector('.hand button.card.chosen');
  return {
    turn: seat ? seat.querySelector('.status').innerText : null,
    chosenTick: chosen ? getComputedStyle(chosen, '::after').content : null,
    chosenLift: chosen ? getComputedStyle(chosen).transform : null,
    chosenPressed: chosen ? chosen.getAttribute('aria-pressed') : null,
  };
}"""

_GRAY = "document.documentElement.style.setProperty('filter', 'grayscale(1)', 'important')"
"""Through the CSSOM: the page's Content-Security-Policy refuses an added <style> (add_style_tag)."""


def test_colour_is_never_the_only_mark_of_a_state(
    new_page: Callable[..., Page], player, start_solo, shoot, reveal_settled
) -> None:
    """The page in grayscale (a colour-blind simulation, saved for people to look at) still tells every state."""
    page = new_page()
    start_solo(page, players=6)
    page.evaluate(_GRAY)
    me = player(page)
    assert me.wait_turn() == "auction"
    marks = page.evaluate(_STATE_MARKS)
    assert marks["turn"] and "your turn" in marks["turn"], marks
    shoot(page, "a11y-grayscale-auction")
    while (phase := me.wait_turn()) == "auction":
        me.act(phase)
    # The passed seats say so in words, with the house each took.
    passed = page.locator(".seat.passed .status")
    for i in range(passed.count()):
        assert "passed" in passed.nth(i).inner_text()
    assert phase == "sale"
    page.locator(".hand button.card.house").first.click()
    page.wait_for_selector(".hand button.card.chosen")
    marks = page.evaluate(_STATE_MARKS)
    assert marks["chosenTick"] == '"✓"' and marks["chosenLift"] != "none" and marks["chosenPressed"] == "true", marks
    shoot(page, "a11y-grayscale-sale-chosen")
    page.click("button[data-focus=sell]")
    me.play_to_end()
    page.wait_for_selector("#end")
    reveal_settled(page)
    # The winners carry a star as well as the gold row, the void cheque reads $0.
    winners = page.locator(".results tr.winner")
    assert winners.count() >= 1
    for i in range(winners.count()):
        assert "★" in winners.nth(i).inner_text()
    shoot(page, "a11y-grayscale-game-over")


# The reveal's animations, as CSS gives them to a freshly drawn reveal card (a flip), and as they run.
_FRESH_REVEAL = """() => {
  const pair = document.createElement('div');
  pair.className = 'pair';
  pair.innerHTML = '<div class="flip"><div class="card house small"></div></div>';
  const row = document.createElement('div');
  row.className = 'reveal';
  row.append(pair);
  document.querySelector('.felt').append(row);
  const card = pair.querySelector('.card');
  const out = {name: getComputedStyle(card).animationName, running: card.getAnimations().length};
  row.remove();
  return out;
}"""

_TOPS_OVER_FRAMES = """el => new Promise(done => {
  const tops = [];
  const look = () => { tops.push(el.getBoundingClientRect().top); tops.length < 12 ? requestAnimationFrame(look) : done(tops); };
  requestAnimationFrame(() => requestAnimationFrame(look));
})"""

_REVEAL_ANIMATIONS = """() => [...document.querySelectorAll('.felt .reveal .card, .waiting-dots')]
  .reduce((n, el) => n + el.getAnimations().length, 0)"""


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_animations_respect_prefers_reduced_motion(
    new_page: Callable[..., Page], player, start_solo, motion: str
) -> None:
    page = new_page(reduced_motion=motion)
    start_solo(page, players=6)
    assert page.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches") == (motion == "reduce")
    fresh = page.evaluate(_FRESH_REVEAL)
    if motion == "reduce":
        assert fresh == {"name": "none", "running": 0}
    else:
        assert fresh == {"name": "flip-in", "running": 1}  # the same card flips for everyone else
        return
    me = player(page)
    # Up to the first sale, not into it: the seat has not chosen yet, so below the one placeholder left is its own. (The
    # loop used to choose the first sale too; then the last placeholder could be a bot's, whose choice ended the round
    # and redrew the hand while the card was measured: a box of None, once in CI.)
    while (phase := me.wait_turn()) == "auction":
        me.act(phase)
    assert phase == "sale"
    # The first sale's reveal: not one card moves, from the moment it is drawn, nor the "waiting" dots.
    page.wait_for_selector(".felt .reveal .card")
    assert page.evaluate(_REVEAL_ANIMATIONS) == 0
    # A pointer resting on the bottom edge of a card in hand: the card lifts once and stays (it used to rise off
    # the pointer and fall back under it every frame, and a click there timed out on a card that never stood still).
    # Measured once every other seat has chosen: no message redraws the hand under the pointer meanwhile (a card drawn
    # anew there is hovered a frame late, and one drawn away has no box: 4 of 10 times with bots 0.25 s slower).
    page.wait_for_function("() => document.querySelectorAll('.felt .card.placeholder').length === 1")
    card = page.locator("button.card.house:not([disabled])").first
    box = card.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] - 2)
    assert len(set(card.evaluate(_TOPS_OVER_FRAMES))) == 1
    me.play_to_end()
    page.wait_for_selector("#end .results")
    assert page.evaluate("() => document.querySelectorAll('.felt .reveal .card').length") == 12
    assert page.evaluate(_REVEAL_ANIMATIONS) == 0
