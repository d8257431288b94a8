"""Rulesets: presets, knobs, and every rule description in shared/seeds expressible."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forsale import PRESETS, RulesError, Ruleset
from forsale.rules import CHEQUES, HOUSES, preset_rulesets, win_shares, winners


def test_decks():
    assert HOUSES == tuple(range(1, 31))
    assert len(CHEQUES) == 30
    assert 1 not in CHEQUES
    assert all(CHEQUES.count(v) == 2 for v in [0, *range(2, 16)])


@pytest.mark.parametrize(
    ("players", "coins", "removed", "rounds"),
    [(3, 18, 6, 8), (4, 18, 2, 7), (5, 14, 0, 6), (6, 14, 0, 5)],
)
def test_official_setup_table(players, coins, removed, rounds):
    rules = Ruleset.preset("official", players)
    assert (rules.starting_coins, rules.removed, rules.refund, rules.rounds) == (coins, removed, "down", rounds)
    assert rules.cards == 30 - removed
    assert Ruleset.default(players) == rules


def test_preset_rulesets_holds_every_preset_at_every_player_count_it_is_for():
    table = preset_rulesets()
    assert set(table) == set(PRESETS)
    assert set(table["two-player"]) == {2}
    assert all(set(table[name]) == {3, 4, 5, 6} for name in ("official", "first-edition", "refund-up"))
    assert table["first-edition"][4] == Ruleset.preset("first-edition", 4)
    assert table["first-edition"][4].starting_coins == 21


def test_two_player_preset_is_explicit_and_unofficial():
    rules = Ruleset.preset("two-player", 2)
    assert (rules.starting_coins, rules.removed, rules.refund, rules.rounds) == (18, 10, "down", 10)
    assert Ruleset.default(2) == rules
    with pytest.raises(RulesError, match="3 to 6 players.*two-player"):
        Ruleset.preset("official", 2)
    with pytest.raises(RulesError, match="for 2 players"):
        Ruleset.preset("two-player", 4)


@pytest.mark.parametrize("players", [0, 1, 7, 12])
def test_player_count_out_of_range(players):
    with pytest.raises(RulesError, match="2 to 6 players"):
        Ruleset.custom(players, starting_coins=18, removed=0)


def test_refund_rounding_both_ways():
    down = Ruleset.preset("official", 4)
    up = Ruleset.preset("refund-up", 4)
    assert [down.refund_of(b) for b in range(6)] == [0, 0, 1, 1, 2, 2]
    assert [up.refund_of(b) for b in range(6)] == [0, 1, 1, 2, 2, 3]


def test_seed_descriptions_are_expressible():
    # seed 001 and 004: official.
    assert Ruleset.preset("official", 3).removed == 6
    # seed 000: refund rounded up, otherwise unspecified.
    assert Ruleset.preset("refund-up", 5).refund == "up"
    # seed 002: 28/21/16/14 coins, 2 houses removed at 4 players (cheques matched), none at 3, refund up.
    coins = {n: Ruleset.preset("first-edition", n).starting_coins for n in range(3, 7)}
    assert coins == {3: 28, 4: 21, 5: 16, 6: 14}
    assert Ruleset.preset("first-edition", 4).removed == 2
    assert Ruleset.preset("first-edition", 3).removed == 0
    assert Ruleset.preset("first-edition", 3).rounds == 10
    assert all(Ruleset.preset("first-edition", n).refund == "up" for n in range(3, 7))
    # and the same through knobs
    assert Ruleset.custom(4, starting_coins=21, removed=2, refund="up").rounds == 7


def test_inconsistent_knobs_are_refused_with_a_clear_message():
    with pytest.raises(RulesError, match="29 houses cannot be dealt in rounds of 4"):
        Ruleset.custom(4, starting_coins=18, removed=1)
    with pytest.raises(RulesError, match="30 houses cannot be dealt in rounds of 4"):
        Ruleset.custom(4, starting_coins=18, removed=0)
    with pytest.raises(RulesError, match="refund must be 'down' or 'up'"):
        Ruleset.custom(4, starting_coins=18, removed=2, refund="sideways")
    with pytest.raises(RulesError, match="starting_coins must be at least 0"):
        Ruleset.custom(4, starting_coins=-1, removed=2)
    with pytest.raises(RulesError, match="whole number"):
        Ruleset.custom(4, starting_coins=18.5, removed=2)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="whole number"):
        Ruleset.custom(4, starting_coins=True, removed=2)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="between 0 and 29"):
        Ruleset.custom(3, starting_coins=18, removed=30)


def test_unknown_preset():
    with pytest.raises(RulesError, match="unknown ruleset 'house-rules'; known rulesets: "):
        Ruleset.preset("house-rules", 4)


def test_parse_and_json_round_trip():
    for name in PRESETS:
        for n in range(2, 7):
            try:
                rules = Ruleset.preset(name, n)
            except RulesError:
                continue
            assert Ruleset.parse(rules.to_json(), n) == rules
    knobs = Ruleset.parse({"starting_coins": 21, "removed": 2, "refund": "up"}, 4)
    assert knobs.to_json() == {"starting_coins": 21, "removed": 2, "refund": "up"}
    assert Ruleset.parse(None, 4).name == "official"
    with pytest.raises(RulesError, match="lacks refund"):
        Ruleset.parse({"starting_coins": 21, "removed": 2}, 4)
    with pytest.raises(RulesError, match="preset name or an object"):
        Ruleset.parse(7, 4)


def test_describe_is_readable():
    assert Ruleset.preset("official", 4).describe() == (
        "official, 4 players: 18 coins, 2 cards removed from each deck, refund rounded down"
    )


# -- who wins: the one statement of the rule (rules.winners), which every client calls ----------


@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 3)), min_size=2, max_size=6))
def test_winners_are_the_top_scorers_with_the_most_coins_among_them(seats):
    scores, coins = [s for s, _ in seats], [c for _, c in seats]
    top = [i for i, s in enumerate(scores) if s == max(scores)]
    most = max(coins[i] for i in top)
    assert winners(scores, coins) == [i for i in top if coins[i] == most]
    shares = win_shares(scores, coins)
    assert sum(shares) == pytest.approx(1.0)
    assert [i for i, share in enumerate(shares) if share] == winners(scores, coins)
    assert len({share for share in shares if share}) == 1  # a shared win is split evenly


def test_the_tie_break_and_the_shared_win():
    assert winners([50, 50, 30], [2, 5, 9]) == [1]  # level on score: most coins left
    assert winners([50, 50, 30], [5, 5, 9]) == [0, 1]  # level on both: shared
    assert win_shares([50, 50, 30], [5, 5, 9]) == [0.5, 0.5, 0.0]
