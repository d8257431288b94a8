"""The sentences of the terminal front end: answers to prompts, the log, the tie-break."""

from __future__ import annotations

import dataclasses

import pytest

from forsale import PASS, Sell, bid, new_game, view
from forsale.tui.text import BadAnswer, money, parse_bid, parse_sale, public_log, verdict

NAMES = ["You", "Ann", "Bob", "Cy"]


def auction_view(high: int = 3, coins: int = 7):
    v = view(new_game(4, seed=1), 0)
    return dataclasses.replace(v, seat=0, turn=0, high=high, coins=(coins, 18, 18, 18))


@pytest.mark.parametrize(
    ("answer", "action"),
    [
        ("p", PASS),
        ("PASS", PASS),
        ("4", bid(4)),
        ("4k", bid(4)),
        ("$5,000", bid(5)),
        ("7000", bid(7)),
        ("bid 6", bid(6)),
    ],
)
def test_bid_answers_in_every_spelling(answer, action):
    assert parse_bid(answer, auction_view()) == action


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("8", "you hold 7 coins; bid 4–7 or pass"),
        ("3", "the high bid is 3; bid 4–7 or pass"),
        ("lots", "'lots' is not a bid; bid 4–7 or pass"),
        ("4500", "is not a bid"),
        ("", "type a bid or p to pass"),
    ],
)
def test_bad_bids_are_explained(answer, message):
    with pytest.raises(BadAnswer, match=message):
        parse_bid(answer, auction_view())


def test_a_seat_that_cannot_raise_is_told_to_pass():
    with pytest.raises(BadAnswer, match="you hold 3 coins and the high bid is 5; you can only pass"):
        parse_bid("4", auction_view(high=5, coins=3))


def test_sale_answers():
    game = new_game(4, seed=3)
    while game.phase == "auction":
        game.push(game.current_seat, PASS)
    v = view(game, 0)
    house = v.hand[0]
    assert parse_sale(str(house), v) == Sell(house)
    assert parse_sale(f"sell {house}", v) == Sell(house)
    missing = next(h for h in range(1, 31) if h not in v.hand)
    with pytest.raises(BadAnswer, match=f"you do not hold house {missing}; choose one of"):
        parse_sale(str(missing), v)
    with pytest.raises(BadAnswer, match="there is no such house"):
        parse_sale("31", v)


def finished_view():
    game = new_game(4, seed=5)
    while game.phase == "auction":
        game.push(game.current_seat, PASS)
    while not game.is_over:
        game.push_sale([min(h) for h in game.hands])
    return view(game, 0)


def test_verdict_names_the_winner_and_explains_tie_breaks():
    v = finished_view()
    cheques = ((10, 10), (5, 15), (20,), (1,))
    clear = dataclasses.replace(v, cheques_won=cheques, coins=(5, 4, 1, 0))
    assert verdict(clear, NAMES) == "You win with $25,000; next best $24,000."
    tie = dataclasses.replace(v, cheques_won=((20,), (15,), (1,), (0,)), coins=(2, 7, 0, 0))
    assert verdict(tie, NAMES) == (
        "Ann and You tie on $22,000; the tie goes to the most coins left (Ann $7,000 and You $2,000), so Ann wins."
    )
    shared = dataclasses.replace(v, cheques_won=((20,), (20,), (1,), (0,)), coins=(2, 2, 0, 0))
    assert "cannot split You and Ann: they share the win" in verdict(shared, NAMES)


def test_the_log_tells_the_auction_in_order():
    game = new_game(4, seed=8)
    first = game.current_seat
    game.push(first, bid(3))
    second = game.current_seat
    game.push(second, PASS)
    log = [e.text for e in public_log(view(game, 0), NAMES)]
    assert log[0].startswith("Auction round 1: houses ")
    assert log[1] == f"{'You bid' if first == 0 else NAMES[first] + ' bids'} {money(3)}."
    low = min(game.deal.houses[:4])
    assert f"house {low} for nothing." in log[2]
