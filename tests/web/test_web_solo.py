"""A whole solo game against bots, played by clicking, to the final screen."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import expect

from forsale import from_record


def test_solo_game_by_clicking_to_the_end(new_page, player, start_solo, shoot, web_server):
    page = new_page()
    page.goto("/")
    shoot(page, "lobby")
    table_id = start_solo(page, 6)  # 5 rounds: the fewest clicks

    me = player(page)
    assert me.wait_turn() == "auction"
    # The table shows the sorted offer and six seats, one of them ours.
    offer = [int(x) for x in page.eval_on_selector_all(".offer .card.house", "els => els.map(e => e.dataset.house)")]
    assert len(offer) == 6 and offer == sorted(offer)
    assert page.locator(".seat").count() == 6
    assert page.locator(".seat.me .name").inner_text().startswith("Ann")
    assert page.locator(".me-area .purse .amount").inner_text() == "$14,000"
    # Alone with bots, the table's settings are the ones that mean something here: the memory aid (one switch,
    # no "allow it at this table" beside it) and hints (unrated); no spectators' chat switch.
    expect(page.locator("#memory-toggle")).to_be_visible()
    expect(page.locator("#memory-allowed")).to_have_count(0)
    expect(page.locator("#spectator-chat-allowed")).to_have_count(0)
    expect(page.locator("#hints-allowed")).to_have_count(1)
    shoot(page, "table-auction")

    shot_sale = False
    while True:
        phase = me.play_turn()
        if phase == "sale" and not shot_sale:
            shot_sale = True
            shoot(page, "table-sale")
        if phase == "over":
            break

    page.wait_for_selector("#end")
    shoot(page, "end-screen")
    # The final screen agrees with the engine refereeing the game's record.
    record = httpx.get(f"{web_server}/api/tables/{table_id}/record").json()
    state = from_record(record)
    assert state.is_over
    rows = page.locator(".results tbody tr")
    assert rows.count() == 6
    shown = {}
    for i in range(6):
        row = rows.nth(i)
        seat = int(row.get_attribute("data-seat"))
        total = row.locator("td.score").inner_text()
        shown[seat] = int(re.sub(r"[$,]", "", total)) // 1000
    assert shown == dict(enumerate(state.scores()))
    winners = [
        int(rows.nth(i).get_attribute("data-seat"))
        for i in range(6)
        if "winner" in (rows.nth(i).get_attribute("class") or "")
    ]
    assert sorted(winners) == state.winners()
    verdict = page.locator("#verdict").inner_text()
    assert "won" in verdict or "share" in verdict
    # The log tells the whole story, ending with the scores.
    assert page.locator(".log li.end").inner_text().startswith("Game over.")
    href = page.locator("#download").get_attribute("href") or ""
    assert href.split("?")[0] == f"/api/tables/{table_id}/record"  # with the seat's token: private games need one
