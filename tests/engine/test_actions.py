"""Actions are well-formed values or do not exist; their JSON has one form, read and written in actions.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forsale import PASS, new_game
from forsale.actions import SELLS, Bid, Pass, Sell, action_from_json, action_to_json, bid, move_to_json
from forsale.errors import IllegalActionError


@pytest.mark.parametrize("amount", [-1, -64, True, False, 1.0, 2.5, "3", None])
def test_bid_refuses_what_is_not_a_whole_number_of_coins(amount):
    # bid(-1) used to be _BIDS[-1], i.e. Bid(63); bid(True) was Bid(1) in disguise.
    with pytest.raises(IllegalActionError, match="a bid is a whole number of coins"):
        bid(amount)
    with pytest.raises(IllegalActionError, match="a bid is a whole number of coins"):
        Bid(amount)


@pytest.mark.parametrize("house", [True, 1.0, "7", None])
def test_sell_refuses_what_is_not_a_whole_number(house):
    with pytest.raises(IllegalActionError, match="a house is a whole number"):
        Sell(house)


def test_a_true_house_can_no_longer_pass_for_house_one():
    game = new_game(4, seed=2)
    while game.phase == "auction":
        game.push(game.current_seat, PASS)
    holder = next(s for s in range(4) if 1 in game.hands[s])
    with pytest.raises(IllegalActionError):
        game.push(holder, Sell(True))  # True == 1 and True in [1, ...]: the rules alone would accept it
    assert game.commits == [0, 0, 0, 0]


def test_bids_are_shared_up_to_63_and_fresh_but_equal_beyond():
    assert bid(0) is bid(0) and bid(63) is bid(63) and bid(63).amount == 63
    big = bid(10**12)  # a hostile record's bid must not grow a cache to a trillion entries
    assert big == Bid(10**12) and big.amount == 10**12


@given(st.sampled_from([PASS, *(bid(b) for b in range(70)), *SELLS, Sell(31), Sell(-1)]))
def test_action_json_round_trips(action):
    assert action_from_json(action_to_json(action)) == action


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "pass",
        {},
        {"bid": -1},
        {"bid": True},
        {"bid": 2.0},
        {"bid": "3"},
        {"pass": False},
        {"pass": 1},
        {"sell": True},
        {"sell": 4.0},
        {"bid": 3, "pass": True},
        {"bid": 3, "extra": 1},
        {"move": 3},
    ],
)
def test_action_json_refuses_every_other_shape(data):
    with pytest.raises(IllegalActionError, match=r'an action is \{"bid": b\}'):
        action_from_json(data)


def test_moves_have_the_record_shape():
    assert move_to_json(2, bid(5)) == {"seat": 2, "bid": 5}
    assert move_to_json(0, Pass()) == {"seat": 0, "pass": True}
    assert move_to_json(None, (3, 9, 27)) == {"sell": [3, 9, 27]}
