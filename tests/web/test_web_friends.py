"""A table of two people and a bot, played from two browser contexts."""

from __future__ import annotations

import time

from playwright.sync_api import TimeoutError as PlaywrightTimeout


def test_two_people_and_a_bot_from_two_browsers(new_page, player, shoot):
    ann = new_page()
    ann.goto("/")
    ann.fill("#friends-name", "Ann")
    ann.select_option("#friends-players", "3")
    ann.select_option("#friends-seat-0", "me")
    ann.select_option("#friends-seat-1", "human")
    ann.select_option("#friends-seat-2", "random")
    ann.uncheck("#friends-memory")
    ann.click("#create-table")
    link = ann.locator("#share-links input[data-seat='1']")
    url = link.input_value()
    assert "#/table/" in url and url.endswith("?seat=1")
    assert ann.locator("#share-links input").count() == 1  # only seat 1 is open
    shoot(ann, "friends-lobby-links")
    ann.click("#go-to-table")
    ann.wait_for_selector(".game")
    assert ann.locator(".seat[data-seat='1'] .badge").inner_text() == "free seat"

    bob = new_page(width=390, height=844)  # Bob plays on a phone
    bob.goto(url)
    bob.fill("#join-name", "Bob")
    bob.click("text=Sit down")
    bob.wait_for_selector(".game[data-phase=auction]")
    assert bob.locator(".seat.me .name").inner_text().startswith("Bob")
    # Ann's page learns Bob's name as soon as he sits down.
    ann.wait_for_selector(".seat[data-seat='1'] .name:has-text('Bob')")
    # Someone else opening Bob's link now is told the seat is taken, and offered to watch.
    cy = new_page()
    cy.goto(url)
    cy.wait_for_selector("#seat-taken")
    assert "Seat 2 is taken" in cy.locator("#seat-taken h2").inner_text()
    cy.click("#seat-taken a:has-text('Watch')")
    cy.wait_for_selector(".game")
    assert cy.locator(".me-area").count() == 0  # a spectator has no corner of the table
    # The table's creator turned the memory aid off: nobody can switch it on.
    assert bob.locator("#memory-toggle").count() == 0
    assert "turned the memory aid off" in bob.locator(".memory").inner_text()

    a, b = player(ann), player(bob)
    saw_waiting = saw_reveal = False
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        before = a.moves()
        phase_a = a.try_turn()
        bob_choosing = "() => !!document.querySelector('button.card.house:not([disabled])')"
        if phase_a == "sale":
            # Ann's choice is on its way: wait until the server has taken it (or it ended the round).
            ann.wait_for_function(
                "before => document.querySelector('.game').dataset.moves != before"
                " || document.body.innerText.includes('You are selling house')",
                arg=before,
            )
        if not saw_waiting and ann.locator("text=You are selling house").count():
            # Ann has chosen; Bob lets her choose first (below). Ann's page says that others are
            # still choosing - Bob alone once the bot has chosen - and Bob's place stays empty.
            try:
                ann.wait_for_function(
                    "() => document.querySelector('.actions').innerText.endsWith('Others are still choosing: Bob')",
                    timeout=5000,
                )
                ann.wait_for_function("() => document.querySelectorAll('.felt .card.placeholder').length === 1")
                saw_waiting = True
                shoot(ann, "friends-waiting")
            except PlaywrightTimeout:
                pass  # Bob had chosen first this round (his page was quicker than Ann's)
        # In a sale round Bob waits until Ann has chosen, so that Ann is the one who waits for him.
        phase_b = False if ann.evaluate(bob_choosing) else b.try_turn()
        if not saw_reveal and ann.locator(".felt .reveal:not(.chosen) .pair").count() == 3:
            saw_reveal = True
            ann.wait_for_timeout(1500)  # let the reveal's flips finish for the picture
            shoot(ann, "friends-reveal")
            shoot(bob, "friends-phone")
        if phase_a == "over" and phase_b == "over":
            break
        if not phase_a and not phase_b:
            time.sleep(0.05)
    else:
        raise AssertionError("the game did not finish in time")
    assert saw_waiting, "Ann never saw Bob still choosing"
    assert saw_reveal, "Ann never saw a reveal"
    ann.wait_for_selector("#end")
    bob.wait_for_selector("#end")

    def totals(page):
        rows = page.locator(".results tbody tr")
        return {rows.nth(i).get_attribute("data-seat"): rows.nth(i).locator("td.score").inner_text() for i in range(3)}

    assert totals(ann) == totals(bob)  # both people see the same result
    assert ann.locator("#verdict").inner_text()
    shoot(ann, "friends-end")
