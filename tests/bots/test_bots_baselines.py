"""The baseline bots follow their descriptions in BASELINES.md, decision by decision."""

from __future__ import annotations

import random

from forsale import PASS, bid, new_game, view
from forsale.actions import SELLS
from forsale.bots import make_agent
from forsale.state import Deal


def auction_view(houses: list[int], coins_high: tuple[int, int] | None = None):
    """A 4-player game whose first round shows ``houses``; optionally seat 0 faces a high bid."""
    rest = [h for h in range(1, 31) if h not in houses]
    deal = Deal(houses + rest[:24], list(range(28)), first=0)
    state = new_game(4, deal=deal)
    if coins_high is not None:
        state.coins[0] = coins_high[0]
        state.push(0, bid(1))
        for seat in (1, 2, 3):
            if state.high < coins_high[1]:
                state.push(seat, bid(state.high + 1))
            else:
                state.push(seat, PASS)
    return view(state, state.current_seat)


def act(name: str, v) -> object:
    return make_agent(name).act(v, random.Random(0), None)


def test_value_bids_up_to_top_half_minus_seven() -> None:
    # top 30, mean of (1, 2, 3, 30) = 9 <= 16.5: v = 15 - 7 + 1 = 9 > 0: raise.
    v = auction_view([1, 2, 3, 30])
    assert act("value", v) == bid(1)
    # top 16, mean 8.5: v = 8 - 7 + 1 = 2 > 0 but top 14 gives v = 1 > 0; top 12 gives v = 0: pass.
    assert act("value", auction_view([1, 2, 3, 12])) == PASS
    # high mean (27 > 16.5): v = 15 - 7 - 1 = 7.
    assert act("value", auction_view([26, 27, 28, 30])) == bid(1)


def test_cap_bots_compare_the_raise_with_their_cap() -> None:
    v = auction_view([1, 2, 3, 30])  # 18 coins, high 0: the raise is 1
    assert act("smart", v) == bid(1)  # 1 < 9
    assert act("cheapskate", v) == bid(1)  # 1 < max(4.5, 2)
    assert act("bigspender", v) == bid(1)
    assert act("prudent", v) == bid(1)  # 1 < 0.6 * 18


def test_sales_follow_the_descriptions() -> None:
    state = new_game(4, seed=5)
    while state.phase == "auction":
        state.push(state.current_seat, PASS)
    v = view(state, 0)
    hand = sorted(v.hand)
    assert act("smart", v) == SELLS[hand[len(hand) // 2]]
    assert act("cheapskate", v) == SELLS[hand[0]]
    assert act("bigspender", v) == SELLS[hand[-1]]
    mean = sum(hand) / len(hand)
    assert act("prudent", v) == SELLS[min(hand, key=lambda h: (abs(h - mean), h))]
    m = sum(v.table) / len(v.table)
    assert act("value", v) == SELLS[min(hand, key=lambda p: (abs(p / 2 - m), p))]
