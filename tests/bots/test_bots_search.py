"""The pieces the expert and the search bot are built from, checked against hand-worked cases."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from forsale import new_game, sample_state, view
from forsale.bots import make_agent
from forsale.bots.expert import below_distribution, order_stat_means, sale_posteriors
from forsale.bots.search import fit_bidders, hand_values, quantile_stats
from forsale.rules import CHEQUES


def test_order_statistics_are_exact() -> None:
    pool = (0, 2, 5, 9, 15)
    draws = list(combinations(pool, 3))
    for k in range(3):
        brute = sum(sorted(d)[k] for d in draws) / len(draws)
        assert order_stat_means(pool, 3)[k] == pytest.approx(brute)
    # The quick stand-in used in rollouts stays close on the full deck.
    exact = order_stat_means(tuple(sorted(CHEQUES)), 4)
    assert quantile_stats(sorted(CHEQUES), 4) == pytest.approx(exact, abs=0.3)


def test_poisson_binomial() -> None:
    assert below_distribution([0.5, 0.5]) == pytest.approx([0.25, 0.5, 0.25])
    assert below_distribution([1.0, 0.0, 1.0]) == pytest.approx([0, 0, 1, 0])


def test_hand_values_reward_the_higher_houses() -> None:
    values = hand_values([[28, 29, 30], [1, 2, 3], [10, 11, 12]])
    assert values[0] > values[2] > values[1]
    # Houses above every other house always take the round's top cheque.
    assert values[0] == pytest.approx(3 * order_stat_means(CHEQUES, 3)[2])
    assert values[1] == pytest.approx(3 * order_stat_means(CHEQUES, 3)[0])


def test_fit_bidders_recognises_coin_share_and_value_gap_bidders() -> None:
    state = new_game(4, seed=8)
    agents = [make_agent(name) for name in ("expert", "smart", "bigspender", "expert")]
    rng = random.Random(0)
    while state.phase == "auction":
        seat = state.current_seat
        state.push(seat, agents[seat].act(view(state, seat), rng, None))
    fitted = fit_bidders(view(state, 0))
    # The experts bid on the value gap (their own values differ a little from the common ones fitted here).
    assert fitted[0][0] >= 0.5 and fitted[3][0] >= 0.5
    assert fitted[1][0] == 0.0 and 0.3 <= fitted[1][1] <= 0.6  # smart: half its coins
    assert fitted[2][0] == 0.0 and fitted[2][1] >= 0.6  # bigspender: three quarters


def test_sale_posteriors_find_a_seat_that_always_sells_its_lowest_house() -> None:
    state = new_game(4, seed=3)
    while state.phase == "auction":
        state.push(state.current_seat, make_agent("expert").act(view(state, state.current_seat), random.Random(0)))
    for _ in range(3):
        state.push_sale([min(h) if s == 2 else max(h) for s, h in enumerate(state.hands)])
    v = view(state, 0)
    posts = sale_posteriors(4, v.hands, v.history, v.sale_tables[:-1], v.unseen_cheques + v.table, v.rules.rounds)
    assert max(posts[2], key=posts[2].get) == "lowest"
    assert max(posts[1], key=posts[1].get) == "highest"


def test_sampled_states_agree_with_the_view_and_can_be_searched() -> None:
    state = new_game(3, seed=12)
    for _ in range(4):
        state.push(state.current_seat, make_agent("expert").act(view(state, state.current_seat), random.Random(0)))
    v = view(state, state.current_seat)
    rng = random.Random(4)
    for _ in range(20):
        sampled = sample_state(v, rng)
        assert view(sampled, v.seat) == v
        copy = sampled.clone()
        copy.push(v.seat, v.legal_actions()[0])


def test_hard_spends_its_budget_and_fixed_samples_are_deterministic() -> None:
    state = new_game(4, seed=21)
    v = view(state, state.current_seat)
    agent = make_agent("hard:samples=5")
    moves = {agent.act(v, random.Random(1), None) for _ in range(3)}
    assert len(moves) == 1
    assert make_agent("hard").time == 0.2  # type: ignore[attr-defined]
