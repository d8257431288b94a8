"""Six seats with long names: every name is shown whole (wrapped), never cut to "rando…"."""

from __future__ import annotations

import contextlib

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

# Long names of every shape: several words, a hyphen, one long word, accents, a short one.
NAMES = [
    "Bartholomew Featherstonehaugh",
    "Maximiliana Wolkenstein-Rodenegg",
    "Przemysław Brzęczyszczykiewicz",
    "Supercalifragilisticexpialidocious",
    "Jean-Baptiste de La Salle",
    "Ann",
]

# Each seat's name element: its text, its title, and whether its box clips its text.
_NAME_BOXES = """() => [...document.querySelectorAll('.seat')].map(seat => {
  const nm = seat.querySelector('.name .nm');
  const r = nm.getBoundingClientRect();
  return {seat: +seat.dataset.seat, text: nm.innerText.replace(/\\s+/g, ' '), title: nm.title,
          clipped: nm.scrollHeight > nm.clientHeight + 1 || nm.scrollWidth > nm.clientWidth + 1,
          width: r.width, lines: Math.round(r.height / parseFloat(getComputedStyle(nm).lineHeight))};
})"""


def six_long_names(base: str) -> tuple[str, str]:
    """A table of six people (no bots), seat 0 created by NAMES[0]: (table id, seat 0's token)."""
    made = httpx.post(
        f"{base}/api/tables", json={"players": 6, "join": True, "player_name": NAMES[0], "time_limit": None}
    )
    assert made.status_code == 201, made.text
    table_id, token = made.json()["table"]["id"], made.json()["token"]
    for seat, name in enumerate(NAMES[1:], start=1):
        joined = httpx.post(f"{base}/api/tables/{table_id}/join", json={"seat": seat, "name": name})
        assert joined.status_code == 200, joined.text
    return table_id, token


@pytest.mark.parametrize("width", [1200, 1000, 390])
def test_six_long_names_are_shown_whole_with_the_full_name_on_hover(new_page, web_server, shoot, width):
    table_id, token = six_long_names(web_server)
    page = new_page(width=width, height=900)
    page.goto("/")
    page.evaluate(
        "([id, entry]) => localStorage.setItem('forsale.seats', JSON.stringify({[id]: entry}))",
        [table_id, {"token": token, "seat": 0}],
    )
    page.goto(f"/#/table/{table_id}")
    page.wait_for_selector(".game[data-phase=auction]")
    # Every name has arrived (the table's description comes with the first snapshot).
    page.wait_for_function("n => document.querySelectorAll('.seat .nm[title]').length === n", arg=len(NAMES))
    # The seats settle their layout after the names arrive: wait for it (the asserts say which box, if not).
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"() => ({_NAME_BOXES})().every(b => !b.clipped)", timeout=5000)
    boxes = page.evaluate(_NAME_BOXES)
    # The board fills its column whatever it holds: a board as wide as its content made the seats
    # (and so the names' room) depend on who was to bid, and the longest name was clipped now and then.
    board, column = page.evaluate(
        "() => { const g = document.querySelector('.game'); const cols = getComputedStyle(g).gridTemplateColumns;"
        " return [document.querySelector('.game > .board').getBoundingClientRect().width, parseFloat(cols)]; }"
    )
    assert abs(board - column) <= 1, (board, column)
    shoot(page, f"six-long-names-{width}")
    assert [b["seat"] for b in boxes] == list(range(6))
    for box, name in zip(boxes, NAMES, strict=True):
        assert box["title"] == name, box  # the whole name on hover
        assert box["text"] == name, box  # and the whole name on the page: no "…"
        assert not box["clipped"], box  # wrapped inside its box, not cut off by it
        assert box["lines"] <= 4, box
    assert page.locator(".seat[data-seat='0'] .badge.you").inner_text() == "you"
    # The seat's accessible name carries the whole name too.
    assert page.get_attribute(".seat[data-seat='3']", "aria-label") == f"seat 4: {NAMES[3]}"
    # The names fit the seats: a seat is no wider than its share of the row (nothing pushed out of view).
    overflow = page.evaluate(
        "() => { const s = document.querySelector('.seats'); return s.scrollWidth - s.clientWidth; }"
    )
    assert overflow <= 0


def test_people_who_give_no_name_are_their_seats_player_to_others_and_you_to_themselves(new_page, web_server, shoot):
    """The server names them "Player 1", "Player 2" (it named a table's maker "You" once, which a French page
    showed as "You (vous)" and in "You passe..."): each page says them in its language, and a person's own
    seat is "Vous", without a "(vous)" badge beside it."""
    made = httpx.post(
        f"{web_server}/api/tables",
        json={"players": 3, "join": True, "seats": [None, None, "random"], "time_limit": None},
    )
    assert made.status_code == 201, made.text
    table_id = made.json()["table"]["id"]
    joined = httpx.post(f"{web_server}/api/tables/{table_id}/join", json={"seat": 1})
    assert joined.status_code == 200, joined.text
    for seat, token, width, height in ((0, made.json()["token"], 390, 844), (1, joined.json()["token"], 1280, 800)):
        page = new_page(locale="fr-FR", width=width, height=height)
        page.goto("/")
        page.evaluate(
            "([id, entry]) => localStorage.setItem('forsale.seats', JSON.stringify({[id]: entry}))",
            [table_id, {"token": token, "seat": seat}],
        )
        page.goto(f"/#/table/{table_id}")
        page.wait_for_selector(".game[data-phase=auction]")
        other = 1 - seat
        expect(page.locator(f".seat[data-seat='{other}'] .nm")).to_have_text(f"Joueur {other + 1}")
        expect(page.locator(f".seat[data-seat='{seat}'] .nm")).to_have_text("Vous")
        assert page.locator(f".seat[data-seat='{seat}'] .badge.you").count() == 0  # not "Vous (vous)"
        # The chat names its authors as the table does: the first page's message reads "Joueur 1" on the second.
        page.fill("#chat-input", f"salut {seat}")
        page.press("#chat-input", "Enter")
        expect(page.locator("#chat-log li.mine .chat-name")).to_have_text("Vous")
        if seat == 1:
            expect(page.locator("#chat-log li:not(.mine) .chat-name")).to_have_text("Joueur 1")
        text = page.locator("main").inner_text() + page.locator("#chat-log").inner_text()
        assert "Player" not in text and "You" not in text, text
        shoot(page, f"names-unnamed-seat{seat}-fr")
