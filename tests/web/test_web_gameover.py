"""The game-over screen: a clean header, and the last sale's cards drawn whole however often the page redraws."""

from __future__ import annotations

import pytest

# The last sale's cards: each one's box and whether an animation is still playing on it.
_REVEAL = """() => [...document.querySelectorAll('.felt .reveal .card')].map(c => {
  const r = c.getBoundingClientRect();
  return {kind: c.classList.contains('house') ? 'house' : 'cheque', width: r.width, height: r.height,
          running: c.getAnimations().filter(a => a.playState === 'running').length};
})"""

# How far the page reaches past the right edge of the screen (0 when it fits).
_SPILL = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.mark.parametrize("players", [4, 6])
def test_game_over_header_has_no_null_and_the_last_sale_is_drawn_whole(
    new_page, player, start_solo, shoot, reveal_settled, players
):
    page = new_page()
    table_id = start_solo(page, players)
    player(page).play_to_end()
    page.wait_for_selector("#end")
    reveal_settled(page)
    shoot(page, f"game-over-{players}")

    # The header says where we are and that we are connected, and nothing else: no "null".
    tools = page.locator("#tools").inner_text()
    assert tools.strip() == "connected", tools
    header = page.locator("header.bar").inner_text()
    assert "null" not in header and "undefined" not in header, header
    assert "finished" in header

    # A redraw (here: switching the memory aid on) must not replay the reveal: every card of
    # the last sale keeps a card's shape at once, like the cheques in your corner.
    reference = page.locator(".me-area .won .card").first.bounding_box()
    assert reference and reference["width"] > 20
    ratio = reference["width"] / reference["height"]
    page.evaluate("() => { document.querySelector('.log').scrollTop = 40; }")  # reading back up the log
    page.click("#memory-toggle")
    page.wait_for_selector("#memory-seats", state="attached")
    assert page.evaluate("() => document.querySelector('.log').scrollTop") == 40  # the redraw kept the place
    cards = page.evaluate(_REVEAL)
    assert len(cards) == 2 * players  # a house and its cheque per seat
    for card in cards:
        assert card["running"] == 0, card
        assert card["height"] == pytest.approx(reference["height"], rel=0.1), card
        assert card["width"] / card["height"] == pytest.approx(ratio, rel=0.1), card
    shoot(page, f"game-over-{players}-redrawn")

    # A spectator's header is clean too (the seat's "Leave" button is the tool it lacks),
    # and on a phone neither the final screen nor the replay's last move is wider than the screen.
    watcher = new_page(width=390, height=844)
    watcher.goto(f"/#/watch/{table_id}")
    watcher.wait_for_selector("#end")
    watcher.wait_for_selector("#conn[data-status=open]")
    assert watcher.locator("#tools").inner_text().strip() == "connected"
    assert "null" not in watcher.locator("header.bar").inner_text()
    assert watcher.evaluate(_SPILL) <= 0
    watcher.click("#replay-link")
    watcher.wait_for_selector("#replay-stage .results")  # the replay opens on the last move
    assert watcher.evaluate(_SPILL) <= 0
