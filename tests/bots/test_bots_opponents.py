"""Opponent models: fitted from this game's moves, and trusted only as far as the evidence goes."""

from __future__ import annotations

import random
from math import exp

import pytest

from forsale import new_game, view
from forsale.bots import make_agent
from forsale.bots.expert import SALE_TYPE_PRIOR
from forsale.bots.opponents import (
    BIDDER_GRID,
    EXPERT_BIDDER,
    bidder_posteriors,
    fitted_prior,
    flat_prior,
    sale_confidence,
    sample_bidders,
    table_posteriors,
    table_prior,
)


def test_with_no_evidence_every_seat_is_modelled_as_an_expert_and_evidence_sharpens_the_posterior() -> None:
    state = new_game(4, seed=8)
    expert_index = BIDDER_GRID.index(EXPERT_BIDDER)
    start = bidder_posteriors(view(state, 0))
    assert all(max(range(len(p)), key=p.__getitem__) == expert_index for p in start)
    agents = [make_agent(name) for name in ("expert", "bigspender", "bigspender", "expert")]
    rng = random.Random(0)
    while state.phase == "auction":
        seat = state.current_seat
        state.push(seat, agents[seat].act(view(state, seat), rng, None))
    after = bidder_posteriors(view(state, 0))
    for post in start + after:
        assert sum(post) == pytest.approx(1.0)
    # The big spender's posterior leaves the expert's rule and concentrates on coin-share rules.
    assert after[1][expert_index] < 0.01 and max(after[1]) > max(start[1])
    drawn = [sample_bidders(after, random.Random(seed))[1] for seed in range(50)]
    assert all(rule[1] >= 0.45 for rule in drawn)
    # Tempered (``hard:spread=``), the same evidence counts for less: the likeliest rule stays, flatter.
    tempered = bidder_posteriors(view(state, 0), spread=2.5)
    assert bidder_posteriors(view(state, 0), spread=1.0) == after
    for sharp, flat in zip(after, tempered):
        assert sum(flat) == pytest.approx(1.0) and max(flat) < max(sharp)
        assert max(range(len(flat)), key=flat.__getitem__) == max(range(len(sharp)), key=sharp.__getitem__)
    with pytest.raises(ValueError, match="spread must be a positive number"):
        bidder_posteriors(view(state, 0), spread=0)


def test_sale_models_are_trusted_only_with_evidence_and_a_fit() -> None:
    assert sale_confidence(SALE_TYPE_PRIOR, 0) == 0.0  # nothing seen: play the robust strategy
    sure = {kind: 0.0 for kind in SALE_TYPE_PRIOR} | {"lowest": 1.0}
    assert sale_confidence(sure, 1) == 0.5 and sale_confidence(sure, 3) == 0.75
    random_seat = {kind: 0.0 for kind in SALE_TYPE_PRIOR} | {"uniform": 1.0}
    assert sale_confidence(random_seat, 5) == 0.0  # a seat that fits no type is not predicted


def test_the_table_prior_learns_from_every_opponent_how_the_table_bids() -> None:
    """Five cheapskates at a 6-player table: after one round the table's mixture leans their way, so a seat
    is expected to bid like the others even where its own few moves fit many rules."""
    state = new_game(6, seed=4)
    agents = [make_agent("expert")] + [make_agent("cheapskate") for _ in range(5)]
    rng = random.Random(1)
    while state.round == 0 and state.phase == "auction":
        seat = state.current_seat
        state.push(seat, agents[seat].act(view(state, seat), rng, None))
    seen = view(state, 0)
    base = flat_prior(head_start=True)
    table = table_prior(seen, base, seats=3.0, me=0)
    assert abs(sum(exp(x) for x in table) - 1.0) < 1e-9
    # The rules that bid a quarter of the coins or less, with no value-gap term, gain; the expert's loses.
    frugal = [i for i, (a, b) in enumerate(BIDDER_GRID) if a == 0.0 and b <= 0.3]

    def weight(logs: list[float], rules: list[int]) -> float:
        return sum(exp(logs[i]) for i in rules) / sum(exp(x) for x in logs)

    assert weight(table, frugal) > 2 * weight(base, frugal)
    expert = BIDDER_GRID.index(EXPERT_BIDDER)
    assert weight(table, [expert]) < weight(base, [expert])
    # Leaving out the searching seat: its own (expert) moves do not pull the table towards the expert's rule.
    assert table_prior(seen, base, seats=3.0, me=None) != table
    # Each seat's posterior from the table prior is a posterior: it adds up to one.
    for post in bidder_posteriors(seen, prior=table):
        assert sum(post) == pytest.approx(1.0)
    # table_posteriors, which hard and its estimates for people both read, is that posterior; with no
    # table pooling (hard:pool=0) it starts every seat from the prior itself, by default the fitted one.
    assert table_posteriors(seen, base, 3.0, me=0) == bidder_posteriors(seen, prior=table)
    assert table_posteriors(seen, seats=0) == bidder_posteriors(seen, prior=fitted_prior(6))
    pooled = table_posteriors(seen, me=0)
    alone = bidder_posteriors(seen)
    assert sum(pooled[3][i] for i in frugal) > sum(alone[3][i] for i in frugal)


def test_the_fitted_prior_is_shipped_for_every_table_size_and_spreads_over_the_whole_grid() -> None:
    for players in range(3, 7):
        logs = fitted_prior(players)
        assert len(logs) == len(BIDDER_GRID) and sum(exp(x) for x in logs) == pytest.approx(1.0, abs=1e-4)
        # No rule is ruled out, and the rules that bid three quarters of the coins on any house weigh less
        # than under the flat grid: few players bid like that.
        assert min(logs) > -20
        lavish = [i for i, (a, b) in enumerate(BIDDER_GRID) if b >= 0.75]
        assert sum(exp(logs[i]) for i in lavish) < len(lavish) / len(BIDDER_GRID)
