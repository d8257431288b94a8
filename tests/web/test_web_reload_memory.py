"""Reload in the middle of a game and carry on; the memory aid's figures against the engine; the clock."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import expect

from forsale import from_record, view


def memory_snapshot(page):
    """What the memory aid shows now, read from the page, with the number of moves it reflects."""
    page.wait_for_selector("#memory-seats")
    rows = page.eval_on_selector_all(
        "#memory-seats tbody tr",
        "rows => rows.map(r => ({seat: +r.dataset.seat, coins: +r.dataset.coins, hand: r.dataset.hand,"
        " cheques: r.dataset.cheques, text: r.innerText}))",
    )
    houses = page.get_attribute("#memory-houses", "data-cards")
    cheques = page.get_attribute("#memory-cheques", "data-cards")
    heading = page.locator("#memory h3").all_inner_texts()
    return {
        "moves": int(page.get_attribute(".game", "data-moves")),
        "rows": rows,
        "houses": houses,
        "cheques": cheques,
        "houses_to_come": int(re.search(r"Houses to come: (\d+)", heading[0]).group(1)),
        "cheques_to_come": int(re.search(r"Cheques to come: (\d+)", heading[1]).group(1)),
    }


def cards(text):
    return [int(x) for x in text.split(",") if x]


def test_reload_mid_game_memory_aid_and_clock(new_page, player, shoot, web_server):
    page = new_page()
    page.goto("/")
    page.fill("#solo-name", "Cy")
    page.select_option("#solo-players", "3")
    page.select_option("#solo-clock", "60")
    page.check("#solo-memory")
    page.click("#play-solo")
    page.wait_for_selector(".game")
    table_id = page.evaluate("() => location.hash.split('/')[2]")
    me = player(page)
    seat = int(page.get_attribute(".game", "data-seat"))

    # The clock counts down for the seat to move.
    assert me.wait_turn() == "auction"
    # The clock's text is redrawn by a 250 ms ticker: it may still show the seat before us for a moment.
    expect(page.locator("#clock")).to_be_visible()
    expect(page.locator("#clock")).to_have_text(re.compile(r"^you: [01]:\d\d$"))

    # The memory aid: off until switched on, then every seat's coins and hand.
    assert page.locator("#memory-seats").count() == 0
    page.check("#memory-toggle")
    snapshots = [memory_snapshot(page)]
    shoot(page, "memory-aid")
    for _ in range(3):
        me.play_turn()
    me.wait_turn()
    snapshots.append(memory_snapshot(page))

    # Reload: the same seat comes back (token in localStorage), memory aid still on.
    my_hand = "() => [...document.querySelectorAll('.me-area .hand .card')].map(c => +c.dataset.house)"
    hand_before = page.evaluate(my_hand)
    moves_before = me.moves()
    page.reload()
    page.wait_for_selector(".game")
    assert int(page.get_attribute(".game", "data-seat")) == seat
    # It was our turn, so nothing moved meanwhile: the very same position is back.
    assert me.moves() == moves_before
    assert page.evaluate(my_hand) == hand_before
    assert me.wait_turn() == "auction"
    expect(page.locator("#memory-seats")).to_have_count(1)
    page.wait_for_selector("#conn[data-status=open]")
    shoot(page, "after-reload")

    # Carry on to the sale phase and take one more look there.
    while me.wait_turn() == "auction":
        me.act("auction")
    snapshots.append(memory_snapshot(page))
    shoot(page, "memory-aid-sale")
    me.play_to_end()
    page.wait_for_selector("#end")

    record = httpx.get(f"{web_server}/api/tables/{table_id}/record").json()
    for snap in snapshots:
        state = from_record({**record, "moves": record["moves"][: snap["moves"]]})
        v = view(state, seat)
        for row in snap["rows"]:
            s = row["seat"]
            assert row["coins"] == v.coins[s], (snap["moves"], s)
            assert cards(row["hand"]) == list(v.hands[s])
            assert cards(row["cheques"]) == list(v.cheques_won[s])
            assert f"${v.coins[s]:,},000" in row["text"] if v.coins[s] else "$0" in row["text"]
        assert len(snap["rows"]) == 3
        assert cards(snap["houses"]) == list(v.unseen_houses)
        assert cards(snap["cheques"]) == list(v.unseen_cheques)
        assert snap["houses_to_come"] == v.houses_to_come
        assert snap["cheques_to_come"] == v.cheques_to_come
    assert snapshots[-1]["houses_to_come"] == 0  # the last look was in the sale phase
