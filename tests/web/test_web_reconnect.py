"""The server dies (kill -9) in the middle of a game and comes back: the page reconnects by itself."""

from __future__ import annotations

from playwright.sync_api import expect


def test_page_reconnects_after_the_server_is_killed_and_restarted(new_page, player, server_factory, shoot):
    server = server_factory().start()
    # Chromium reports the refused connections while the server is down; those are expected here.
    page = new_page(expect=r"WebSocket connection to .* failed|Failed to load resource")
    page.goto(f"{server.base}/")
    page.select_option("#solo-players", "3")
    page.click("#play-solo")
    page.wait_for_selector("#conn[data-status=open]")
    me = player(page)
    for _ in range(3):
        me.play_turn()
    assert me.wait_turn() in ("auction", "sale")
    moves = me.moves()
    hand = page.evaluate("() => [...document.querySelectorAll('.me-area .hand .card')].map(c => +c.dataset.house)")

    server.kill9()
    page.wait_for_selector("#conn.bad")  # the page says it is reconnecting
    expect(page.locator("#conn")).to_have_text("reconnecting…")
    shoot(page, "reconnecting")

    server_factory(server.port).start()  # the same database and port
    page.wait_for_selector("#conn[data-status=open]")  # the page's generous default: it retries with backoff
    assert me.moves() == moves
    assert (
        page.evaluate("() => [...document.querySelectorAll('.me-area .hand .card')].map(c => +c.dataset.house)") == hand
    )
    for _ in range(3):  # and the game goes on
        if me.play_turn() == "over":
            break
    assert me.moves() > moves
