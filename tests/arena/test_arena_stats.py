"""Arena statistics on crafted results, where every figure can be worked out by hand."""

from __future__ import annotations

import math

import pytest

from forsale.arena import GameResult, mean_ci, summarize, wilson_interval
from forsale.arena.stats import to_json


def result(index: int, bots: list[str], scores: list[int], coins: list[int], shares: list[float]) -> GameResult:
    n = len(bots)
    return GameResult(index, bots, scores, coins, shares, decision_s=[0.5] * n, decisions=[10] * n)


def crafted() -> list[GameResult]:
    # A beats B twice, B beats A once, and one shared win.
    return [
        result(0, ["A", "B"], [60, 50], [3, 4], [1.0, 0.0]),
        result(1, ["B", "A"], [55, 52], [1, 1], [1.0, 0.0]),
        result(2, ["A", "B"], [70, 40], [5, 0], [1.0, 0.0]),
        result(3, ["B", "A"], [48, 48], [2, 2], [0.5, 0.5]),
    ]


def test_wins_shares_and_scores() -> None:
    stats = summarize(crafted())
    a, b = stats["A"], stats["B"]
    assert (a.games, b.games) == (4, 4)
    assert (a.wins, b.wins) == (2.5, 1.5)
    assert a.win_rate == 0.625
    assert a.scores == [60, 52, 70, 48]
    assert a.mean_score == pytest.approx(57.5)
    assert a.mean_decision_s == pytest.approx(2.0 / 40)
    assert a.decisions == 40


def test_wilson_interval_matches_the_formula() -> None:
    lo, hi = wilson_interval(2.5, 4)
    # p = 0.625, n = 4, z = 1.96: centre 0.5638, half-width 0.3443 (worked out by hand).
    assert lo == pytest.approx(0.2194, abs=1e-3)
    assert hi == pytest.approx(0.9082, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # A large sample shrinks towards the normal interval.
    lo, hi = wilson_interval(700, 1000)
    assert (lo, hi) == pytest.approx((0.6711, 0.7274), abs=1e-3)


def test_mean_interval_uses_the_sample_deviation() -> None:
    mean, lo, hi = mean_ci([60, 52, 70, 48])
    sd = math.sqrt(((2.5) ** 2 + 5.5**2 + 12.5**2 + 9.5**2) / 3)
    assert mean == 57.5
    assert hi - mean == pytest.approx(1.959964 * sd / 2)
    assert mean - lo == pytest.approx(hi - mean)
    assert mean_ci([7])[1:] == (7, 7)


def test_copies_of_one_bot_pool_their_seats() -> None:
    results = [result(0, ["X", "Y", "Y"], [50, 60, 40], [0, 0, 0], [0.0, 1.0, 0.0])]
    stats = summarize(results)
    assert stats["Y"].games == 2
    assert stats["Y"].wins == 1.0
    assert stats["Y"].win_rate == 0.5


def test_ratings_rank_the_better_bot_higher() -> None:
    results = [result(i, ["A", "B"] if i % 2 else ["B", "A"], [60, 50] if i % 2 else [50, 60], [0, 0],
                      [1.0, 0.0] if i % 2 else [0.0, 1.0]) for i in range(20)]  # fmt: skip
    stats = summarize(results)
    assert stats["A"].rating_mu > 25 > stats["B"].rating_mu
    assert stats["A"].rating > stats["B"].rating


def test_ranks_follow_score_then_coins() -> None:
    r = result(0, ["A", "B", "C"], [50, 50, 40], [3, 5, 9], [0.0, 1.0, 0.0])
    assert r.ranks() == [2, 1, 3]
    r = result(0, ["A", "B", "C"], [50, 50, 40], [5, 5, 9], [0.5, 0.5, 0.0])
    assert r.ranks() == [1, 1, 3]


def test_json_document_has_the_documented_keys() -> None:
    doc = to_json(summarize(crafted()), seed=3)
    assert doc["seed"] == 3
    entry = doc["bots"]["A"]
    assert {"games", "wins", "win_rate", "win_rate_ci", "mean_score", "mean_decision_s"} <= set(entry)
    assert entry["games"] == 4 and entry["wins"] == 2.5
    assert len(entry["win_rate_ci"]) == 2
