"""Colour is never the only carrier of meaning: the table through colour-blind eyes.

The page is drawn through SVG colour matrices that simulate protanopia,
deuteranopia and tritanopia (Viénot, Brettel & Mollon's dichromat
projections, as colour-blindness simulators use them); a screenshot of each
stage under each filter goes to ``test-artifacts/web/`` for people to look at.
What the test asserts is read from the DOM, not from pixels: every state the
page marks with a colour (whose turn it is, who passed, which seat is yours,
the house chosen to sell, the winners, the connection, a tutorial tip) also
differs in words, a symbol, a shape or an accessible name from the same thing
without that state. The English table's screenshot is saved here too (the other
languages' are saved by test_web_i18n.py).
"""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from .test_web_i18n import catalogue

# Rows of the 3x3 RGB matrices (linear approximations, applied by feColorMatrix in sRGB).
SIMULATIONS = {
    "protanopia": [[0.567, 0.433, 0], [0.558, 0.442, 0], [0, 0.242, 0.758]],
    "deuteranopia": [[0.625, 0.375, 0], [0.7, 0.3, 0], [0, 0.3, 0.7]],
    "tritanopia": [[0.95, 0.05, 0], [0, 0.433, 0.567], [0, 0.475, 0.525]],
}

_INSTALL = """(sims) => {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('aria-hidden', 'true');
  svg.style.cssText = 'position:absolute;width:0;height:0';
  for (const [name, m] of Object.entries(sims)) {
    const filter = document.createElementNS(ns, 'filter');
    filter.id = `sim-${name}`;
    filter.setAttribute('color-interpolation-filters', 'sRGB');
    const matrix = document.createElementNS(ns, 'feColorMatrix');
    matrix.setAttribute('type', 'matrix');
    matrix.setAttribute('values', m.map((row) => [...row, 0, 0].join(' ')).join(' ') + ' 0 0 0 1 0');
    filter.append(matrix);
    svg.append(filter);
  }
  document.body.append(svg);
}"""


def see_as(page: Page, name: str | None) -> None:
    """Draw the whole page through the simulation ``name`` (None: as it is)."""
    page.evaluate("f => { document.documentElement.style.filter = f; }", f"url(#sim-{name})" if name else "")


def shoot_all(page: Page, shoot: Callable[..., object], stage: str) -> None:
    for name in SIMULATIONS:
        see_as(page, name)
        shoot(page, f"colourblind-{name}-{stage}")
    see_as(page, None)


def text_of(page: Page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "els => els.map(e => e.innerText.trim())")


def test_every_coloured_state_is_also_told_without_colour(
    new_page: Callable[..., Page], player, shoot, reveal_settled
) -> None:
    en = catalogue("en")
    page = new_page()
    page.goto("/")
    page.wait_for_selector("#play-solo")
    page.evaluate(_INSTALL, SIMULATIONS)
    shoot_all(page, shoot, "lobby")
    page.fill("#solo-name", "Ann")
    page.select_option("#solo-players", "4")
    page.select_option("#solo-bot", "random")
    page.click("#play-solo")
    me = player(page)
    assert me.wait_turn() == "auction"
    shoot(page, "table-en")
    shoot_all(page, shoot, "auction")

    # Whose turn: the seat to bid says so in words; the others do not.
    expect(page.locator(".seat.turn .status")).to_contain_text(en["status.yourTurn"])
    others = text_of(page, ".seat:not(.turn) .status")
    assert all(en["status.yourTurn"] not in s for s in others), others
    # Your seat: a "you" badge, which no other seat has.
    expect(page.locator(".seat.me .badge.you")).to_have_text(en["seat.badge.you"])
    expect(page.locator(".seat:not(.me) .badge.you")).to_have_count(0)
    # The prompt that is yours is words, not a colour.
    expect(page.locator("#prompt.yours")).to_have_text(en["prompt.auction"])
    # The connection: its state is a word.
    expect(page.locator("#conn")).to_have_text(en["conn.open"])

    while (phase := me.wait_turn()) == "auction":
        # Passed seats say "passed" (with the house taken); seats still bidding never do.
        passed = text_of(page, ".seat.passed .status")
        bidding = text_of(page, ".seat:not(.passed) .status")
        assert all(s.startswith(en["status.passed"]) for s in passed), passed
        assert all(en["status.passed"] not in s for s in bidding), bidding
        me.act(phase)
    assert phase == "sale"

    # The chosen house: a tick, a lift and aria-pressed, besides its colour; the others have none.
    page.locator(".hand button.card.house").first.click()
    page.wait_for_selector(".hand button.card.chosen")
    marks = page.evaluate(
        """() => [...document.querySelectorAll('.hand button.card.house')].map(c => ({
          chosen: c.classList.contains('chosen'),
          pressed: c.getAttribute('aria-pressed'),
          tick: getComputedStyle(c, '::after').content,
        }))"""
    )
    for mark in marks:
        if mark["chosen"]:
            assert mark["pressed"] == "true" and mark["tick"] == '"✓"', mark
        else:
            assert mark["pressed"] == "false" and mark["tick"] in ("none", "normal", '""'), mark
    shoot_all(page, shoot, "sale-chosen")
    page.click("button[data-focus=sell]")

    me.play_to_end()
    page.wait_for_selector("#end")
    reveal_settled(page)
    shoot_all(page, shoot, "game-over")
    # The winners: a star with an accessible name in their row; no other row has one.
    rows = page.locator(".results tbody tr")
    assert rows.count() == 4
    for i in range(rows.count()):
        row = rows.nth(i)
        winner = "winner" in (row.get_attribute("class") or "")
        stars = row.get_by_role("img", name=en["results.winner"])
        expect(stars).to_have_count(1 if winner else 0)
        assert ("★" in row.inner_text()) == winner


def test_a_tutorial_tip_is_marked_by_its_words_not_its_colour(new_page: Callable[..., Page], shoot) -> None:
    en = catalogue("en")
    page = new_page()
    page.goto("/")
    page.evaluate(_INSTALL, SIMULATIONS)
    page.click("#learn-to-play")
    tip = page.get_by_role("dialog", name=en["tutorial.intro.title"])
    expect(tip).to_be_visible()
    expect(tip.locator(".tip-step")).to_have_text(en["tutorial.step"].replace("{step}", "1").replace("{steps}", "8"))
    # Its frame is a border as wide as a line of type, which a filter cannot take away.
    assert (
        page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#tutorial-tip')).borderLeftWidth)")
        >= 6
    )
    shoot_all(page, shoot, "tutorial-tip")
