"""Vectorised policies: legal, the documented rule exactly, and checked when not trusted."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from forsale import PASS, Ruleset, bid, new_game
from forsale.sim.batch import play, sort_rows
from forsale.sim.deals import DealBatch, shuffled_decks
from forsale.sim.policies import AuctionTurn, RandomPolicy, SaleTurn, ValuePolicy, make_policy

AVG = {2: 18.5, 3: 18.5, 4: 16.5, 5: 15.5, 6: 15.5}


def value_auction(state, seat):
    """BASELINES.md ``value`` auction rule, written plainly from the text (floats and all)."""
    n, r = state.n, state.round
    revealed = state.deal.houses[r * n : r * n + n]
    v = max(revealed) / 2 - 7 + (1 if sum(revealed) / n <= AVG[n] else -1)
    if v > state.high and state.coins[seat] > state.high:
        return bid(state.high + 1)
    return PASS


def value_sale(state, seat):
    m = sum(state.table) / len(state.table)
    return min(sorted(state.hands[seat]), key=lambda p: abs(p / 2 - m))


def _replay_checking(record, rules, decide_auction, decide_sale):
    state = new_game(rules, deal=_deal_of(record))
    for move in record["moves"]:
        if "sell" in move:
            for seat, house in enumerate(move["sell"]):
                assert decide_sale(state, seat) == house
            state.push_sale(move["sell"])
        else:
            action = bid(move["bid"]) if "bid" in move else PASS
            assert decide_auction(state, move["seat"]) == action
            state.push(move["seat"], action)
    assert state.is_over


def _deal_of(record):
    from forsale import Deal

    d = record["deal"]
    return Deal(d["houses"], d["cheques"], d["first"])


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_value_policy_is_exactly_the_baseline_rule(players: int) -> None:
    rules = Ruleset.default(players)
    rng = np.random.default_rng(players)
    result = play(rules, DealBatch.random(players, 60, rng), ValuePolicy(), rng, record=True)
    for g in range(result.games):
        _replay_checking(result.record(g), rules, value_auction, value_sale)


def test_value_policy_under_first_edition_coins_and_refund() -> None:
    rules = Ruleset.preset("first-edition", 4)
    rng = np.random.default_rng(11)
    result = play(rules, DealBatch.random(4, 60, rng), ValuePolicy(), rng, record=True)
    for g in range(result.games):
        _replay_checking(result.record(g), rules, value_auction, value_sale)


def test_random_policy_raises_by_one_half_the_time_it_can_and_sells_uniformly() -> None:
    rules = Ruleset.preset("official", 4)
    rng = np.random.default_rng(5)
    result = play(rules, DealBatch.random(4, 400, rng), RandomPolicy(), rng, record=True)
    raises = able = 0
    first_sale_slot: Counter[int] = Counter()
    for g in range(result.games):
        record = result.record(g)
        state = new_game(rules, deal=_deal_of(record))
        for move in record["moves"]:
            if "sell" in move:
                if state.round == 0:
                    for seat, house in enumerate(move["sell"]):
                        first_sale_slot[state.hands[seat].index(house)] += 1
                state.push_sale(move["sell"])
                continue
            seat = move["seat"]
            if "bid" in move:
                assert move["bid"] == state.high + 1, "the random policy only ever raises by one"
                assert state.can_raise(seat)
                raises += 1
            if state.can_raise(seat):
                able += 1
            state.push(seat, bid(move["bid"]) if "bid" in move else PASS)
    # ~7,000 decisions where a raise was possible: 1/2 within a few standard errors (0.6%).
    assert able > 5000
    assert abs(raises / able - 0.5) < 0.03
    # 1,600 first sales over 7 hand slots (order taken): each slot about 1/7.
    total = sum(first_sale_slot.values())
    assert set(first_sale_slot) == set(range(7))
    assert all(abs(count / total - 1 / 7) < 0.05 for count in first_sale_slot.values())


class _Overbidder(RandomPolicy):
    trusted = False

    def auction(self, turn: AuctionTurn, rng: np.random.Generator) -> np.ndarray:
        return turn.coins + 1


class _BadSeller(RandomPolicy):
    trusted = False

    def sale(self, turn: SaleTurn, rng: np.random.Generator) -> np.ndarray:
        return np.full(turn.table.shape, turn.held)


class _CheckedRandom(RandomPolicy):
    trusted = False


def test_untrusted_policies_are_checked_and_illegal_bids_explained() -> None:
    rules = Ruleset.default(4)
    deals = DealBatch.random(4, 10, np.random.default_rng(1))
    with pytest.raises(
        ValueError, match=r"bid 19 for seat \d in game \d, which is illegal: the high bid is 0 and the seat holds 18"
    ):
        play(rules, deals, _Overbidder(), np.random.default_rng(1))
    with pytest.raises(ValueError, match="chose slot 7"):
        play(rules, deals, _BadSeller(), np.random.default_rng(1))
    checked = play(rules, deals, _CheckedRandom(), np.random.default_rng(4))
    trusted = play(rules, deals, RandomPolicy(), np.random.default_rng(4))
    assert (checked.scores == trusted.scores).all()


def test_make_policy_names_the_known_policies() -> None:
    assert isinstance(make_policy("value"), ValuePolicy)
    with pytest.raises(ValueError, match="known policies: random, value"):
        make_policy("smart")


def test_shuffles_are_permutations_and_reproducible() -> None:
    deck = np.arange(1, 31, dtype=np.int8)
    a = shuffled_decks(deck, 2000, np.random.default_rng(7))
    b = shuffled_decks(deck, 2000, np.random.default_rng(7))
    assert (a == b).all()
    assert (np.sort(a, axis=0) == deck[:, None]).all()
    # Card 1 lands in each of the 30 positions about 2000/30 times.
    where = np.argmax(a == 1, axis=0)
    counts = np.bincount(where, minlength=30)
    assert counts.min() > 30 and counts.max() < 110


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_sort_rows_sorts_small_columns(n: int) -> None:
    a = np.random.default_rng(n).integers(0, 50, (n, 500)).astype(np.int16)
    expected = np.sort(a, axis=0)
    sort_rows(a)
    assert (a == expected).all()


def test_starting_coins_beyond_the_packed_range_are_refused() -> None:
    rules = Ruleset.custom(4, starting_coins=40_000, removed=2)
    with pytest.raises(ValueError, match="up to 32767 starting coins, not 40000"):
        play(rules, DealBatch.random(4, 2, np.random.default_rng(1)), RandomPolicy(), np.random.default_rng(1))


def test_seat_policies_give_each_seat_its_own_rule() -> None:
    from forsale.sim.policies import SeatPolicies

    rules = Ruleset.default(4)
    rng = np.random.default_rng(8)
    table = SeatPolicies([ValuePolicy(), RandomPolicy(), ValuePolicy(), RandomPolicy()])
    result = play(rules, DealBatch.random(4, 60, rng), table, rng, record=True)
    for g in range(result.games):
        record = result.record(g)
        state = new_game(rules, deal=_deal_of(record))
        for move in record["moves"]:
            if "sell" in move:
                for seat in (0, 2):
                    assert value_sale(state, seat) == move["sell"][seat]
                state.push_sale(move["sell"])
                continue
            seat = move["seat"]
            action = bid(move["bid"]) if "bid" in move else PASS
            if seat in (0, 2):
                assert value_auction(state, seat) == action
            else:
                assert action == PASS or move["bid"] == state.high + 1
            state.push(seat, action)
    with pytest.raises(ValueError, match="3 seat policies for a table of 4"):
        play(rules, DealBatch.random(4, 2, rng), SeatPolicies([RandomPolicy()] * 3), rng)
