"""The replay viewer: a finished game stepped through move by move, checked against the engine."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from forsale import from_record, new_game
from forsale.record import to_record
from forsale.rules import Ruleset


def finished_bot_game(base: str, players: int = 4) -> str:
    """A table of bots only: it plays itself to the end at once. Returns its id.

    Polled with a generous limit: on a loaded machine the bots' game takes longer, never forever.
    """
    created = httpx.post(f"{base}/api/tables", json={"players": players, "seats": ["random"] * players}).json()
    table_id = created["table"]["id"]
    deadline = time.monotonic() + 300
    while httpx.get(f"{base}/api/tables/{table_id}").json()["table"]["status"] != "over":
        assert time.monotonic() < deadline, "the bots did not finish their game"
        time.sleep(0.1)
    return table_id


def seats_shown(page, n):
    """Each seat's coins and hand as the replay shows them."""
    out = []
    for s in range(n):
        seat = page.locator(f".seat[data-seat='{s}']")
        text = seat.inner_text()
        coins = int(re.search(r"coins \$([\d,]+)", text).group(1).replace(",", "")) // 1000
        hand = [int(x) for x in seat.locator(".mini .card").evaluate_all("els => els.map(e => e.dataset.house)")]
        out.append((coins, hand))
    return out


def engine_after(record, k):
    state = from_record({**record, "moves": record["moves"][:k]})
    return [(state.coins[s], sorted(state.hands[s])) for s in range(state.n)], state


def test_replay_viewer_steps_through_a_finished_game(new_page, shoot, reveal_settled, web_server):
    table_id = finished_bot_game(web_server)
    record = httpx.get(f"{web_server}/api/tables/{table_id}/record").json()
    total = len(record["moves"])
    final = from_record(record)

    page = new_page()
    # Watching the table (public view): the end screen, nobody's corner, nothing to act on.
    page.goto(f"/#/watch/{table_id}")
    page.wait_for_selector("#end")
    assert page.locator(".me-area").count() == 0
    assert page.locator(".seat.me").count() == 0
    assert page.locator(".results tbody tr").count() == 4
    page.click("#replay-link")
    page.wait_for_selector("#replay-stage .seat")
    assert page.locator("#replay-step").inner_text() == f"move {total} of {total}"
    rows = page.locator(".results tbody tr")
    shown = {
        int(rows.nth(i).get_attribute("data-seat")): rows.nth(i).locator("td.score").inner_text() for i in range(4)
    }
    assert shown == {s: f"${score:,},000" if score else "$0" for s, score in enumerate(final.scores())}

    # Back to the deal: the first houses on offer, everyone's starting coins.
    page.click("#replay-start")
    assert page.locator("#replay-step").inner_text() == f"move 0 of {total}"
    # Auto-play steps on by itself (a move a second) until paused; any move of the reader's also stops it.
    page.click("#replay-play")
    expect(page.locator("#replay-play")).to_have_attribute("aria-label", "pause")
    expect(page.locator("#replay-step")).to_have_text(f"move 2 of {total}", timeout=5000)
    page.click("#replay-play")
    expect(page.locator("#replay-play")).to_have_attribute("aria-label", "play, a move a second")
    paused = page.locator("#replay-step").inner_text()
    page.wait_for_timeout(1300)  # longer than a step: a paused replay must not have moved
    assert page.locator("#replay-step").inner_text() == paused
    page.click("#replay-start")
    assert page.locator("#replay-step").inner_text() == f"move 0 of {total}"
    offer = page.eval_on_selector_all(".offer .card.house", "els => els.map(e => +e.dataset.house)")
    assert offer == sorted(record["deal"]["houses"][:4])
    assert seats_shown(page, 4) == engine_after(record, 0)[0]

    # Forward move by move (buttons and the keyboard) through the first auctions.
    for k in range(1, 13):
        if k % 2:
            page.click("#replay-forward")
        else:
            page.keyboard.press("ArrowRight")
        assert page.locator("#replay-step").inner_text() == f"move {k} of {total}"
        assert seats_shown(page, 4) == engine_after(record, k)[0], k
    page.click("#replay-back")
    assert page.locator("#replay-step").inner_text() == f"move 11 of {total}"
    shoot(page, "replay-auction")

    # Jump to the first sale round: its cheques are on the table.
    first_sale = next(i for i, m in enumerate(record["moves"]) if "sell" in m)
    page.click("#replay-rounds button:has-text('S1')")
    assert page.locator("#replay-step").inner_text() == f"move {first_sale} of {total}"
    cheques = page.eval_on_selector_all(".offer .card.cheque", "els => els.map(e => +e.dataset.cheque)")
    assert cheques == sorted(record["deal"]["cheques"][:4])
    page.click("#replay-forward")
    page.wait_for_selector("#replay-stage .reveal .pair")
    assert seats_shown(page, 4) == engine_after(record, first_sale + 1)[0]
    reveal_settled(page)  # the reveal's flips, for the picture
    shoot(page, "replay-sale")


def test_replay_of_a_record_file_folds_like_the_engine(new_page, tmp_path):
    # A record from the engine alone (not from the server): the page folds it itself.
    game = new_game(3, seed=7, rules=Ruleset.preset("first-edition", 3))
    while not game.is_over:
        for seat in game.seats_to_act():
            legal = game.legal_actions(seat)
            game.push(seat, legal[min(len(legal) - 1, (game.round + seat) % 3)])
    record = to_record(game, players=["Ann", "Bob", "Cy"])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    page = new_page()
    page.goto("/")
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#replay-stage .seat")
    total = len(record["moves"])
    page.click("#replay-start")
    # The deal, a middle and the end, stepped to by the keyboard; the fold after every move of many games is
    # tests/js/ledger.test.mjs's (the same ledger.js, under node, in milliseconds).
    checked = {0, total // 2, total}
    for k in range(total + 1):
        if k in checked:
            expected, _ = engine_after(record, k)
            assert seats_shown(page, 3) == expected, k
        if k < total:
            page.keyboard.press("ArrowRight")
    rows = page.locator(".results tbody tr")
    shown = {
        int(rows.nth(i).get_attribute("data-seat")): rows.nth(i).locator("td.score").inner_text() for i in range(3)
    }
    assert shown == {s: f"${score:,},000" if score else "$0" for s, score in enumerate(game.scores())}
    winners = sorted(
        int(rows.nth(i).get_attribute("data-seat"))
        for i in range(3)
        if "winner" in (rows.nth(i).get_attribute("class") or "")
    )
    assert winners == game.winners()


LOCALES = {"en": "en-US", "fr": "fr-FR", "nl": "nl-NL", "it": "it-IT", "de": "de-DE"}
CATALOGUES = Path(__file__).resolve().parents[2] / "src" / "forsale" / "web" / "static" / "i18n"


def said(code: str, key: str, **params: object) -> str:
    """A catalogue's message with its placeholders filled (small numbers read the same in every language)."""
    text = json.loads((CATALOGUES / f"{code}.json").read_text(encoding="utf-8"))[key]
    return re.sub(r"\{(\w+)\}", lambda m: str(params[m.group(1)]), text)


def action_said(code: str, move: dict, seat: int) -> str:
    """The move ``seat`` is about to make, in the analysis's words in ``code``."""
    if "sell" in move:
        return said(code, "analysis.action.sell", house=move["sell"][seat])
    if move.get("pass"):
        return said(code, "analysis.action.pass")
    return said(code, "analysis.action.bid", amount=said(code, "money.k", n=move["bid"]))


@pytest.mark.parametrize("code", list(LOCALES))
def test_a_replay_opened_at_a_decision_marks_whose_it_is_and_the_move(new_page, shoot, web_server, code):
    """The analysis's "See this moment in the replay" opens it at ``?step=k&seat=s``: seat s is outlined and a line
    names it and the move it is about to make, in the page's language, at that moment only; at a sale round (every
    seat chooses at once) the seat is the one the link is for."""
    table_id = finished_bot_game(web_server, players=3)
    record = httpx.get(f"{web_server}/api/tables/{table_id}/record").json()
    moves = record["moves"]
    bid = next(k for k, m in enumerate(moves) if "bid" in m)
    sale = next(k for k, m in enumerate(moves) if "sell" in m)
    phone = code in ("en", "fr")
    page = new_page(locale=LOCALES[code], **({"width": 390, "height": 844} if phone else {}))
    for step, seat in ((bid, moves[bid]["seat"]), (sale, 2)):
        page.goto(f"/#/replay/{table_id}?step={step}&seat={seat}")
        page.wait_for_selector("#replay-stage .seat")
        note = page.locator("#replay-decision")
        expect(note).to_be_visible()
        name = page.locator(f".seat[data-seat='{seat}'] .nm").inner_text()
        assert note.inner_text() == said(
            code, "replay.decision", name=name, action=action_said(code, moves[step], seat)
        )
        assert page.eval_on_selector_all(".seat.decision", "els => els.map(e => +e.dataset.seat)") == [seat]
        outline = page.eval_on_selector(".seat.decision", "e => getComputedStyle(e).outlineStyle")
        assert outline == "dashed"
        houses = page.eval_on_selector_all(".seat .card.decision", "els => els.map(e => +e.dataset.house)")
        assert houses == ([moves[step]["sell"][seat]] if step == sale else [])  # the house about to be sold
        if phone:
            widths = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
            assert widths[0] <= widths[1], f"the marked decision widens the page: {widths}"
            shoot(page, f"replay-decision-{'auction' if step == bid else 'sale'}-{code}-phone")
        page.keyboard.press("ArrowRight")  # a move on: another moment, nothing marked
        expect(note).to_be_hidden()
        assert page.locator(".seat.decision").count() == 0
        page.keyboard.press("ArrowLeft")  # back at the decision: marked again
        expect(note).to_be_visible()
        assert page.locator(".seat.decision").count() == 1
    if code in ("en", "fr"):
        page.set_viewport_size({"width": 1280, "height": 800})
        shoot(page, f"replay-decision-sale-{code}-laptop")
