"""A whole solo game against bots, played by clicking, to the final screen."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import expect

from forsale import from_record

SEATS_KEY = "forsale.seats"
"""Where the page keeps its seat tokens (js/api.js)."""


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


def table_info(page, base: str, table_id: str) -> dict:
    """A solo table's info, read with the seat's token from the page's storage (a solo table is private)."""
    token = page.evaluate(f"() => JSON.parse(localStorage.getItem({SEATS_KEY!r}))[{table_id!r}].token")
    answer = httpx.get(f"{base}/api/tables/{table_id}", params={"token": token}, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["table"]


def test_the_bots_pace_is_chosen_in_the_lobby_and_kept_for_the_next_game(new_page, web_server):
    """The lobby's "Bots' pace" sets the table's bot_delay (the server's own pace when left at Normal)."""
    page = new_page()
    page.goto("/")
    assert page.input_value("#solo-pace") == ""  # Normal: the server's --bot-delay
    page.fill("#solo-name", "Ann")
    page.select_option("#solo-players", "3")
    page.select_option("#solo-bot", "random")
    page.select_option("#solo-pace", "1.5")
    page.click("#play-solo")
    page.wait_for_selector(".game")
    table_id = page.evaluate("() => location.hash.split('/')[2]")
    assert table_info(page, web_server, table_id)["bot_delay"] == 1.5
    page.goto("/")
    assert page.input_value("#solo-pace") == "1.5"  # remembered, as the lobby's other choices are
    page.select_option("#solo-pace", "")
    page.click("#play-solo")
    page.wait_for_function(f"() => location.hash.startsWith('#/table/') && !location.hash.includes('{table_id}')")
    page.wait_for_selector(".game")
    second = page.evaluate("() => location.hash.split('/')[2]")
    assert "bot_delay" not in table_info(page, web_server, second)
