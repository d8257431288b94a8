"""Every reason a move is refused, in both wordings: the referee's (records, replay) and the seat's (server, terminal)."""

from __future__ import annotations

import pytest

from forsale.actions import PASS, Bid, Sell
from forsale.refusals import bid_choices, refusal

AUCTION = {"phase": "auction", "seat": 1, "turn": 1, "coins": 7, "high": 3, "committed": False, "hand": ()}
SALE = {"phase": "sale", "seat": 2, "turn": None, "coins": 5, "high": 0, "committed": False, "hand": (9, 4, 20)}


@pytest.mark.parametrize(
    ("facts", "action", "code", "referee", "seat"),
    [
        ({**AUCTION, "phase": "over"}, PASS, "game_over", "the game is over; seat 1 cannot pass", "the game is over"),
        (AUCTION, Bid(8), "illegal", "seat 1 bid 8 but holds 7 coins", "you hold 7 coins; bid 4–7 or pass"),
        (
            AUCTION,
            Bid(3),
            "illegal",
            "seat 1 bid 3 but the high bid is already 3",
            "the high bid is 3; bid 4–7 or pass",
        ),
        (
            {**AUCTION, "high": 0},
            Bid(0),
            "illegal",
            "seat 1 bid 0 but a bid must be at least 1 coin",
            "a bid must be at least 1 coin; bid 1–7 or pass",
        ),
        (
            {**AUCTION, "coins": 3, "high": 5},
            Bid(4),
            "illegal",
            "seat 1 bid 4 but holds 3 coins",
            "you hold 3 coins and the high bid is 5; you can only pass",
        ),
        (
            {**AUCTION, "turn": 0},
            PASS,
            "not_your_turn",
            "it is seat 0's turn to bid or pass, not seat 1's",
            "it is seat 0's turn to bid or pass, not yours",
        ),
        (
            AUCTION,
            Sell(5),
            "illegal",
            "seat 1 cannot sell a house during the auction phase",
            "houses are sold in the sale phase; now is an auction: bid or pass",
        ),
        (
            SALE,
            Bid(2),
            "illegal",
            "seat 2 cannot bid during the sale phase",
            "the auctions are over: choose a house from your hand to sell",
        ),
        (
            SALE,
            PASS,
            "illegal",
            "seat 2 cannot pass during the sale phase",
            "the auctions are over: choose a house from your hand to sell",
        ),
        (
            {**SALE, "committed": True},
            Sell(9),
            "not_your_turn",
            "seat 2 has already chosen a house this sale round",
            "you have already chosen a house this sale round; wait for the others",
        ),
        (
            SALE,
            Sell(5),
            "illegal",
            "seat 2 sold house 5 but holds 4, 9, 20",
            "you do not hold house 5; choose one of 4, 9, 20",
        ),
        (
            SALE,
            Sell(31),
            "illegal",
            "seat 2 sold house 31 but holds 4, 9, 20",
            "there is no such house; choose one of 4, 9, 20",
        ),
        (
            SALE,
            "sell 9",
            "illegal",
            "'sell 9' is not a For Sale action (bid, pass or sell)",
            "'sell 9' is not a For Sale action (bid, pass or sell)",
        ),
    ],
)
def test_each_refusal_in_both_wordings(facts, action, code, referee, seat):
    assert refusal(**facts, action=action) == (code, referee, None)
    mine = refusal(**facts, action=action, you=True)
    assert mine is not None and mine[:2] == (code, seat)
    # The seat's own refusal says which explanation it is and the facts it names, as data for translations.
    assert mine.params is not None and mine.params["why"]
    for fact in ("coins", "high"):
        if fact in mine.params:
            assert mine.params[fact] == facts[fact]
    if "held" in mine.params:
        assert mine.params["held"] == sorted(facts["hand"])


@pytest.mark.parametrize(("facts", "action"), [(AUCTION, PASS), (AUCTION, Bid(4)), (AUCTION, Bid(7)), (SALE, Sell(20))])
def test_legal_actions_are_not_refused(facts, action):
    assert refusal(**facts, action=action) is None and refusal(**facts, action=action, you=True) is None


def test_bid_choices():
    assert [bid_choices(3, c) for c in (2, 3, 4, 9)] == ["pass", "pass", "bid 4 or pass", "bid 4–9 or pass"]
