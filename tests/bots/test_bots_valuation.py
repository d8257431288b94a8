"""The search's valuation: the one-sweep :func:`hand_values` is :func:`seat_value` for every seat, exactly."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from forsale.bots.expert import order_stat_means
from forsale.bots.valuation import expected_shares, hand_values, quantile_stats, seat_value
from forsale.rules import CHEQUES


@st.composite
def hands_and_stats(draw: st.DrawFn) -> tuple[list[list[int]], list[float] | None]:
    n = draw(st.integers(3, 6))
    houses = draw(st.permutations(range(1, 31)))
    sizes = draw(st.lists(st.integers(0, 30 // n), min_size=n, max_size=n))
    hands, start = [], 0
    for size in sizes:
        hands.append(list(houses[start : start + size]))
        start += size
    if draw(st.booleans()):
        return hands, None
    pool = sorted(draw(st.lists(st.sampled_from(CHEQUES), min_size=n, max_size=20)))
    return hands, quantile_stats(pool, n)


@settings(max_examples=200, deadline=None)
@given(hands_and_stats())
def test_hand_values_is_seat_value_for_every_seat(case: tuple[list[list[int]], list[float] | None]) -> None:
    hands, stats = case
    n = len(hands)
    reference = order_stat_means(CHEQUES, n) if stats is None else stats
    ordered = [sorted(h) for h in hands]
    expected = [seat_value(h, [o for i, o in enumerate(ordered) if i != s], reference) for s, h in enumerate(ordered)]
    assert hand_values(hands, stats) == expected  # the same floats: the same sums in the same order


def test_a_higher_hand_is_worth_more_and_the_shares_add_up() -> None:
    rng = random.Random(3)
    houses = sorted(rng.sample(range(1, 31), 28))
    dealt = [houses[i::4] for i in range(4)]  # seat 3 holds the highest of every four
    top = [houses[-7:], *(houses[i * 7 : i * 7 + 7] for i in range(3))]  # seat 0 holds the seven highest
    values = hand_values(top)
    assert values[0] == max(values) > hand_values(dealt)[3] > hand_values(dealt)[0]
    shares = expected_shares([10.0, 20.0, 30.0, 40.0], 3.0)
    assert abs(sum(shares) - 1.0) < 1e-12 and shares == sorted(shares)
