"""The pieces the expert and the search bot are built from, checked against hand-worked cases."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from itertools import combinations

import pytest

from forsale import Ruleset, View, new_game, sample_state, view
from forsale.bots import auction_search, make_agent
from forsale.bots.expert import below_distribution, order_stat_means, sale_posteriors
from forsale.bots.opponents import fit_bidders
from forsale.bots.valuation import hand_values, quantile_stats
from forsale.rules import CHEQUES

Turns = Callable[..., tuple[list[View], list[View], list[View]]]


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


class TickingClock:
    """Stands in for ``time`` in :mod:`forsale.bots.search`: each reading is one tick later.

    The bot reads the clock once to set its deadline and once per sample to
    check it, so a budget of ``k`` ticks must buy exactly ``k`` samples: fewer
    means it stopped before its deadline, more that it went on after it.
    """

    TICK = 1 / 1024  # a power of two: tick arithmetic is exact in floating point

    def __init__(self) -> None:
        self.reads = 0

    def perf_counter(self) -> float:
        self.reads += 1
        return self.reads * self.TICK


def test_hard_spends_its_budget_sampling_until_the_deadline_and_not_after(
    monkeypatch: pytest.MonkeyPatch, expert_turns: Turns
) -> None:
    auctions, sales, forced = expert_turns()
    assert len(auctions) >= 3 and len(sales) >= 3 and forced
    clock = TickingClock()
    monkeypatch.setattr(auction_search, "time", clock)
    agent = make_agent("hard:time=0.03125")  # 32 ticks
    for v in auctions[:3] + sales[:3]:
        # A sale is solved, then played out (the best response to the fitted sellers): one more reading of
        # the clock splits the budget between the two, so it buys one sample fewer.
        split = v.phase == "sale"
        agent.act(v, random.Random(1), None)
        assert agent.samples_drawn == 32 - split, v.phase  # type: ignore[attr-defined]
        agent.act(v, random.Random(1), 16 * clock.TICK)  # a caller's budget (the arena's clock) wins
        assert agent.samples_drawn == 16 - split, v.phase  # type: ignore[attr-defined]
    # Without time= the default budget is spent: 0.2 s is 204.8 ticks, so the 205th check is the first past it.
    default = make_agent("hard")
    default.act(auctions[0], random.Random(1), None)
    assert default.samples_drawn == math.ceil(auction_search.DEFAULT_TIME / clock.TICK) == 205  # type: ignore[attr-defined]
    # With one legal action there is nothing to weigh: no sample, and the clock is not even read.
    reads = clock.reads
    assert agent.act(forced[0], random.Random(1), None) == forced[0].legal_actions()[0]
    assert agent.samples_drawn == 0 and clock.reads == reads  # type: ignore[attr-defined]


def test_hard_on_the_real_clock_thinks_at_least_its_budget(expert_turns: Turns) -> None:
    """The lower bound holds however loaded the machine (the bot samples until the clock passes the
    deadline); the upper bound is one sample (milliseconds) past it, asserted with seconds to spare."""
    auctions, sales, _ = expert_turns()
    budget = 0.02
    agent = make_agent(f"hard:time={budget}")
    elapsed = []
    for v in auctions[:4] + sales[:4]:
        started = time.perf_counter()
        agent.act(v, random.Random(1), None)
        elapsed.append(time.perf_counter() - started)
        assert agent.samples_drawn >= 1  # type: ignore[attr-defined]
    assert min(elapsed) >= budget
    assert sum(elapsed) <= len(elapsed) * budget + 10.0


def test_hard_with_fixed_samples_draws_that_many_and_is_deterministic(expert_turns: Turns) -> None:
    auctions, sales, _ = expert_turns()
    agent = make_agent("hard:samples=5")
    for v, searches in ((auctions[0], 1), (sales[0], 2)):  # a sale: 5 for the solve, 5 for the play-outs
        moves = set()
        for _ in range(3):
            moves.add(agent.act(v, random.Random(1), None))
            assert agent.samples_drawn == 5 * searches  # type: ignore[attr-defined]
        assert len(moves) == 1


@pytest.mark.parametrize(
    "rules",
    [Ruleset.preset("official", p) for p in (3, 4, 5, 6)]
    + [Ruleset.custom(4, starting_coins=5, removed=6, refund="up")],
    ids=lambda r: r.describe().split(":")[0],
)
def test_hard_plays_only_legal_moves(rules: Ruleset) -> None:
    """Whole games of ``hard`` (one sample, so they are quick) against the expert and random bots;
    one seat sells as ``hard-v1`` does (``sale=v1``), one plans its later rounds three ways with tempered
    bidder posteriors and one bids on as fitted to itself (the ablations in docs/strength.md)."""
    specs = (
        "hard:samples=1",
        "expert",
        "hard:samples=1:futures=0.6+1+1.6:spread=2",
        "random",
        "hard:samples=1:fit_self=1",
        "hard:samples=1:sale=v1",
    )
    agents = [make_agent(spec) for spec in specs]
    for game in range(3):
        state = new_game(rules, seed=game)
        rng = random.Random(game)
        while not state.is_over:
            for seat in state.seats_to_act():
                v = view(state, seat)
                action = agents[(seat + game) % len(agents)].act(v, rng, None)
                assert action in v.legal_actions()
                state.push(seat, action)


def test_v1sale_sells_as_hard_v1_at_tables_of_that_size_and_as_hard_below() -> None:
    """``hard:v1sale=6``: at 6 players every sale is ``sale=v1``'s (hard-v1's sampled best response), at 4 the
    solved game's, move for move for the same view and seed; a table size it cannot mean is refused."""
    for players, twin in ((6, "hard:samples=2:sale=v1"), (4, "hard:samples=2")):
        state = new_game(players, seed=players)
        rng = random.Random(3)
        agents = [make_agent("expert") for _ in range(players)]
        compared = 0
        while not state.is_over:
            for seat in state.seats_to_act():
                v = view(state, seat)
                if seat == 0 and v.phase == "sale" and len(v.hand) > 1:
                    mine = make_agent("hard:samples=2:v1sale=6").act(v, random.Random(compared), None)
                    assert mine == make_agent(twin).act(v, random.Random(compared), None)
                    compared += 1
                state.push(seat, agents[seat].act(v, rng, None))
        assert compared == state.rules.rounds - 1
    for bad in ("2", "7", "5.5"):
        with pytest.raises(ValueError, match="v1sale"):
            make_agent(f"hard:v1sale={bad}")
