"""The tournament rules alone (:mod:`forsale.server.lobby.swiss`): placement points, standings and their tie-breaks,
table sizes, Swiss seatings (checked against every seating on small fields) and arena tables."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from forsale.server.lobby import swiss
from forsale.server.lobby.swiss import Game


def test_placement_points_follow_money_then_coins_and_ties_share() -> None:
    assert swiss.placement_points([40, 55, 30, 20], [0, 0, 0, 0]) == [2, 3, 1, 0]
    assert swiss.placement_points([50, 50, 30], [2, 1, 0]) == [2, 1, 0]  # coins left break a tie of money
    assert swiss.placement_points([50, 50, 30, 10], [1, 1, 0, 0]) == [2.5, 2.5, 1, 0]  # level on both: shared
    assert swiss.placement_points([7, 7, 7], [0, 0, 0]) == [1, 1, 1]


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2)), min_size=2, max_size=6))
def test_placement_points_always_hand_out_the_same_total(seats: list[tuple[int, int]]) -> None:
    n = len(seats)
    points = swiss.placement_points([s for s, _ in seats], [c for _, c in seats])
    assert sum(points) == n * (n - 1) / 2 and min(points) >= 0 and max(points) <= n - 1


def test_standings_break_ties_by_buchholz_then_money_then_a_fixed_coin_flip() -> None:
    games = [
        Game({"a": 2, "b": 1, "c": 0}, {"a": 60, "b": 50, "c": 40}),
        Game({"d": 2, "e": 1, "f": 0}, {"d": 45, "e": 44, "f": 43}),
        Game({"b": 2, "d": 1, "x": 0}, {"b": 50, "d": 40, "x": 30}),
    ]
    lines = swiss.standings(["a", "b", "c", "d", "e", "f", "x"], games, seed="s")
    order = [line.player for line in lines]
    assert order[:3] == ["b", "d", "a"]  # b and d 3 points each, b's opponents more (5 to 4); a 2
    by = {line.player: line for line in lines}
    assert by["d"].points == 3 and by["a"].points == 2 and by["e"].points == 1
    assert by["a"].buchholz == by["b"].points + by["c"].points == 3
    # x, c and f have no points: x met 6 points of opponents, c 5, f 4
    assert order[3:] == ["e", "x", "c", "f"]
    assert swiss.standings(["p", "q"], [], "seed") == swiss.standings(["q", "p"], [], "seed")  # a stable flip


def test_money_breaks_a_tie_that_buchholz_leaves() -> None:
    games = [Game({"a": 1, "b": 1}, {"a": 30, "b": 40})]
    assert [line.player for line in swiss.standings(["a", "b"], games, "s")] == ["b", "a"]


@given(st.integers(3, 200), st.integers(3, 6))
def test_table_sizes_seat_everyone_at_tables_of_three_to_six(n: int, size: int) -> None:
    sizes = swiss.table_sizes(n, size)
    assert sum(sizes) == n and all(3 <= s <= 6 for s in sizes)
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


@given(st.integers(2, 200), st.integers(3, 6))
def test_bots_fill_whole_tables_with_at_least_two_people_at_each(n: int, size: int) -> None:
    sizes = swiss.table_sizes(n, size, fill=True)
    bots = swiss.bot_seats(sizes, n)
    assert all(s == size for s in sizes) and sum(sizes) - sum(bots) == n
    assert all(s - b >= 2 for s, b in zip(sizes, bots, strict=True)) and max(bots) - min(bots) <= 1


def test_too_few_players_make_no_table() -> None:
    assert swiss.table_sizes(2, 4) == [] and swiss.table_sizes(0, 4, fill=True) == []
    assert swiss.table_sizes(7, 3) == [4, 3] and swiss.table_sizes(4, 3) == [4]


def brute_force_repeats(order: list[str], sizes: list[int], met: dict[frozenset[str], int]) -> int:
    """The fewest repeats of any seating, by trying every permutation."""
    best = None
    for perm in itertools.permutations(order):
        tables, i = [], 0
        for s in sizes:
            tables.append(perm[i : i + s])
            i += s
        r = swiss.repeats(tables, met)
        best = r if best is None else min(best, r)
    assert best is not None
    return best


history = st.lists(st.lists(st.integers(0, 6), min_size=2, max_size=4, unique=True), max_size=8)


@settings(max_examples=20, deadline=None)
@given(st.integers(6, 7), st.integers(3, 4), history)
def test_a_round_seats_everyone_once_with_the_fewest_repeats(n: int, size: int, past: list[list[int]]) -> None:
    order = [f"p{i}" for i in range(n)]
    met = swiss.meetings([[f"p{i}" for i in game if i < n] for game in past])
    sizes = swiss.table_sizes(n, size)
    tables = swiss.swiss_round(order, sizes, met)
    seated = [p for t in tables for p in t]
    assert sorted(seated) == sorted(order) and [len(t) for t in tables] == sizes
    assert swiss.repeats(tables, met) == brute_force_repeats(order, sizes, met)


@settings(max_examples=15, deadline=None)
@given(st.integers(14, 60), st.integers(3, 6), st.randoms(use_true_random=False))
def test_large_fields_are_seated_greedily_once_each(n: int, size: int, rng: object) -> None:
    order = [f"p{i}" for i in range(n)]
    shuffled = order[:]
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    met = swiss.meetings([shuffled[i : i + size] for i in range(0, n, size)])
    sizes = swiss.table_sizes(n, size)
    tables = swiss.swiss_round(order, sizes, met)
    assert sorted(p for t in tables for p in t) == sorted(order)
    assert sorted((len(t) for t in tables), reverse=True) == sizes
    natural, i = [], 0
    for s in sizes:
        natural.append(order[i : i + s])
        i += s
    assert swiss.repeats(tables, met) <= swiss.repeats(natural, met)  # never worse than plain neighbours


def test_without_history_neighbours_in_the_standings_sit_together() -> None:
    order = [f"p{i}" for i in range(9)]
    assert swiss.swiss_round(order, [3, 3, 3], {}) == [order[0:3], order[3:6], order[6:9]]


def test_a_second_round_splits_a_first_rounds_table() -> None:
    order = [f"p{i}" for i in range(9)]
    met = swiss.meetings([order[0:3], order[3:6], order[6:9]])
    tables = swiss.swiss_round(order, [3, 3, 3], met)
    assert swiss.repeats(tables, met) == 0 and tables[0][0] == "p0"


def test_arena_tables_seat_every_free_player_by_neighbours_and_leave_two_waiting() -> None:
    free = [f"p{i}" for i in range(10)]
    assert swiss.arena_tables(free[:8], 4) == [free[0:4], free[4:8]]
    assert swiss.arena_tables(free[:7], 4) == [free[0:4], free[4:7]]
    assert swiss.arena_tables(free[:4], 3) == [free[:4]]  # one table of four rather than one left out
    assert swiss.arena_tables(free[:2], 3) == []
