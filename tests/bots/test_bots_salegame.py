"""The sale round as a game: exact payoffs where the end is near, and a solver that finds what to play."""

from __future__ import annotations

import random
from itertools import combinations, product

import pytest

from forsale.bots.salegame import GUARD_PROFILES, PURIFY, SaleRound, blend, choose, expected_payoffs, solve
from forsale.rules import win_shares


def _runs(count: int):  # type: ignore[no-untyped-def]
    return lambda t: t < count


def test_the_last_round_pays_the_rules_win_shares() -> None:
    game = SaleRound([[5], [9], [2]], [0, 4, 10], [], [10, 3, 8], [2, 2, 1], None, 3.0, margin=0.0)
    # 9 takes 10, 5 takes 4, 2 takes 0: scores 16, 15, 9.
    assert game.payoffs((5, 9, 2)) == win_shares([16, 15, 9], [2, 2, 1])


def test_two_houses_each_weigh_every_way_the_last_cheques_can_fall() -> None:
    hands, table, unseen = [[3, 20], [7, 12], [1, 25]], [2, 5, 9], [0, 4, 6, 15]
    won, coins = [6, 6, 6], [1, 2, 3]
    game = SaleRound(hands, table, unseen, won, coins, None, 3.0, margin=0.0)
    plays = (20, 7, 1)
    expected = [0.0, 0.0, 0.0]
    draws = list(combinations(unseen, 3))
    for cheques in draws:
        last = sorted(cheques)
        scores = [6 + 1 + 9 + last[0], 6 + 2 + 5 + last[1], 6 + 3 + 2 + last[2]]  # 20>7>1 now; 3<12<25 later
        for s, share in enumerate(win_shares(scores, coins)):
            expected[s] += share / len(draws)
    assert game.payoffs(plays) == pytest.approx(expected)


def test_the_solver_best_responds_to_an_opponent_it_trusts() -> None:
    # Seat 1 is sure (weight 1) to play its 29: seat 0's 30 would be wasted on the middle cheque
    # only if it lost; against 29 the 30 wins the 15, so 30 is the move. Then against a seat trusted
    # to play 1, seat 0's cheapest winning house is 2, which saves the 30 for later.
    hands = [[2, 20, 30], [1, 29, 28]]
    game = SaleRound(hands, [0, 15], list(range(0, 16)), [0, 0], [0, 0], [2.0, 10.0], 3.0)
    strategies, values, runs = solve(game, [None, [0.0, 0.0, 1.0]], [0.0, 1.0], random.Random(0), _runs(400))
    assert runs == 400
    assert max(range(3), key=strategies[0].__getitem__) == 2
    assert values[0][2] > values[0][0]


def test_solving_is_reproducible_and_moves_are_drawn_from_the_strategy() -> None:
    hands = [[4, 11, 17], [6, 9, 22], [1, 13, 19]]
    make = lambda: SaleRound(hands, [2, 7, 12], [0, 3, 5, 8, 10, 14], [4, 2, 9], [3, 1, 0], [3.0, 7.0, 11.0], 3.0)  # noqa: E731
    one = solve(make(), [None, None, None], [0, 0, 0], random.Random(7), _runs(200))
    two = solve(make(), [None, None, None], [0, 0, 0], random.Random(7), _runs(200))
    assert one == two
    for strategy in one[0]:
        assert sum(strategy) == pytest.approx(1.0)
    strategy = [0.02, 0.49, 0.49]
    picks = {choose(strategy, random.Random(seed)) for seed in range(50)}
    assert picks == {1, 2} and strategy[0] < PURIFY
    assert blend([1.0, 0.0], 0.25, [0.0, 1.0]) == [0.25, 0.75] and blend(None, 0.9, [0.5, 0.5]) == [0.5, 0.5]


def test_expected_payoffs_weigh_every_profile_of_the_others_chances_and_drop_the_noise() -> None:
    """The guard of ``hard:gate=guard`` values each house against the others' predicted plays: exactly, over every
    profile, once chances under the floor are dropped and the rest renormalised."""
    hands = [[4, 11, 17], [6, 9, 22], [1, 13, 19]]
    game = SaleRound(hands, [2, 7, 12], [0, 3, 5, 8, 10, 14], [4, 2, 9], [3, 1, 0], [3.0, 7.0, 11.0], 3.0)
    plays = [[1.0, 0.0, 0.0], [0.2, 0.5, 0.3], [0.01, 0.09, 0.9]]
    kept = [[], [0.2, 0.5, 0.3], [0.0, 0.09 / 0.99, 0.9 / 0.99]]  # the 0.01 is under the floor
    want = [
        sum(
            kept[1][a] * kept[2][b] * game.payoffs((h, hands[1][a], hands[2][b]))[0]
            for a, b in product(range(3), range(3))
        )
        for h in hands[0]
    ]
    assert expected_payoffs(game, 0, plays) == pytest.approx(want)
    exact = expected_payoffs(game, 0, plays, floor=0.0)
    assert exact[0] == pytest.approx(
        sum(
            plays[1][a] * plays[2][b] * game.payoffs((4, hands[1][a], hands[2][b]))[0]
            for a, b in product(range(3), range(3))
        )
    )


def test_expected_payoffs_stay_within_their_profiles_at_six_players() -> None:
    """Five opponents each spread over four houses are 1024 profiles; the least likely plays are dropped until
    at most :data:`GUARD_PROFILES` weigh each house."""
    hands = [[s + 6 * i for i in range(4)] for s in range(6)]
    game = SaleRound(
        hands, [1, 2, 3, 4, 5, 6], list(range(7, 30)), [0] * 6, [2] * 6, [4.0, 8.0, 12.0, 16.0, 20.0, 24.0], 3.0
    )
    plays = [[0.4, 0.3, 0.2, 0.1]] * 6
    worth = expected_payoffs(game, 0, plays)
    assert len(worth) == 4 and len(game._cache) <= 4 * GUARD_PROFILES
