"""Predicting opponents that sell as a search bot does, and learning online which opponents do."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forsale import Ruleset, new_game, view
from forsale.actions import SELLS
from forsale.bots import make_agent
from forsale.bots.auction_search import AuctionSearchAgent
from forsale.bots.salemodels import fit_opponents
from forsale.bots.searchers import (
    CHAIRS,
    EXPERT_PRIOR,
    GAMES_KEPT,
    SEARCHER,
    SEARCHER_ERROR,
    SEARCHER_PRIOR,
    SaleMemory,
    expert_sale,
    searcher_blend,
    searcher_sale,
    searcher_share,
)


def _to_sales(players: int, seed: int, bots: str = "expert"):  # type: ignore[no-untyped-def]
    """A game played by ``bots`` to the first sale decision."""
    game = new_game(Ruleset.parse(None, players), rng=random.Random(seed))
    agents = [make_agent(bots) for _ in range(players)]
    rng = random.Random(seed)
    while game.phase == "auction":
        seat = game.seats_to_act()[0]
        game.push(seat, agents[seat].act(view(game, seat), rng))
    return game


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 6), st.integers(0, 10**6), st.data())
def test_in_the_sale_phase_a_seat_sees_what_any_other_seat_sees_but_its_own_commitment(
    players: int, seed: int, data: st.DataObject
) -> None:
    game = _to_sales(players, seed, "random")
    rng = random.Random(seed)
    sold = data.draw(st.integers(0, len(game.hands[0]) - 1))
    for _ in range(sold):  # some whole rounds sold at random, then some seats committed
        for seat in game.seats_to_act():
            game.push(seat, rng.choice(game.legal_actions(seat)))
    waiting = game.seats_to_act()
    for seat in data.draw(st.lists(st.sampled_from(waiting), unique=True, max_size=len(waiting) - 1)):
        game.push(seat, rng.choice(game.legal_actions(seat)))
    for s in range(players):
        own = view(game, s)
        for o in range(players):
            assert dataclasses.replace(view(game, o), seat=s, my_commit=own.my_commit) == own


def test_the_searcher_is_hard_v1_in_the_opponents_chair() -> None:
    assert CHAIRS[SEARCHER][1] is searcher_sale  # where a Prediction keeps the searcher's house
    game = _to_sales(4, 3)
    for s in (1, 2, 3):
        move = AuctionSearchAgent(samples=6).act(view(game, s), random.Random(9))
        assert searcher_sale(view(game, 0), s, random.Random(9), samples=6) == move.house  # type: ignore[union-attr]


def test_the_expert_chair_is_expert_in_the_opponents_seat() -> None:
    game = _to_sales(4, 4)
    for s in (1, 2, 3):
        move = make_agent("expert").act(view(game, s), random.Random(2))
        assert expert_sale(view(game, 0), s, random.Random(2)) == move.house  # type: ignore[union-attr]


def _learnt_odds(opponents: str, seed: int) -> tuple[list[list[float]], list[int]]:
    """``hard``'s odds over the models of each opponent at its last sale decision of a game."""
    game = _to_sales(4, seed, opponents)
    # model=0: the games the odds were pinned on (a best response to the fitted sale rules plays other games).
    hard = make_agent("hard:samples=2:model=0")
    agents = [hard] + [make_agent(opponents) for _ in range(3)]
    rngs = [random.Random(seed * 10 + s) for s in range(4)]
    odds: tuple[list[list[float]], list[int]] = ([], [])
    while not game.is_over:
        for seat in game.seats_to_act():
            v = view(game, seat)
            if seat == 0 and len(v.hand) > 1:
                odds = hard._memory.odds(v)  # type: ignore[attr-defined]
            game.push(seat, agents[seat].act(v, rngs[seat]))
    return odds


PRIOR = [1 - SEARCHER_PRIOR - EXPERT_PRIOR, SEARCHER_PRIOR, EXPERT_PRIOR]
"""The odds before any sale: the sale types, the searcher, the expert."""


def test_hard_learns_which_opponents_sell_from_their_chair_and_which_by_a_type() -> None:
    searchers, experts, sellers = [], [], []
    for seed in (5, 6):
        shares, seen = _learnt_odds("hard-v1:samples=40", seed)
        assert seen == [0, 5, 5, 5] and shares[0] == pytest.approx(PRIOR)  # the bot does not model itself
        searchers += [row[1] + row[2] for row in shares[1:]]
        shares, seen = _learnt_odds("expert", seed)
        experts += [row[1] + row[2] for row in shares[1:]]
        shares, seen = _learnt_odds("cheapskate", seed)  # always sells its lowest house: a type, not a chair
        assert seen == [0, 5, 5, 5]
        sellers += [row[0] for row in shares[1:]]
    # A noisy search (40 samples) is read less surely than the deterministic expert, whose two chair
    # models (the expert itself, and the searcher that mostly agrees with it) take all the odds.
    assert sum(searchers) / len(searchers) > 2 * (SEARCHER_PRIOR + EXPERT_PRIOR)
    assert min(experts) > 0.99
    assert min(sellers) > 0.95


def test_the_odds_are_bayes_rule_over_the_sales_seen() -> None:
    game = _to_sales(4, 11)
    memory = SaleMemory()
    first = view(game, 0)
    shares, seen = memory.odds(first)
    assert all(row == pytest.approx(PRIOR) for row in shares) and seen == [0] * 4
    hands = first.hands
    predicted = {  # (the searcher's house, the expert's house), the types' chances
        1: ((hands[1][-1], hands[1][0]), {h: 1 / len(hands[1]) for h in hands[1]}),
        2: ((hands[2][0], hands[2][0]), {h: 0.5 if h in (hands[2][0], hands[2][-1]) else 0.0 for h in hands[2]}),
    }
    memory.remember(first, predicted)
    rng = random.Random(0)
    plays = {1: hands[1][-1], 2: hands[2][-1]}  # seat 1 sells as the searcher predicted, seat 2 as neither chair
    for seat in game.seats_to_act():
        game.push(seat, SELLS[plays[seat]] if seat in plays else make_agent("expert").act(view(game, seat), rng))
    shares, seen = memory.odds(view(game, 0))
    k1, k2 = len(hands[1]), len(hands[2])
    hit, miss = 1 - SEARCHER_ERROR + SEARCHER_ERROR / k1, SEARCHER_ERROR / k1
    weights = [PRIOR[0] / k1, PRIOR[1] * hit, PRIOR[2] * miss]
    assert shares[1] == pytest.approx([w / sum(weights) for w in weights])
    weights = [PRIOR[0] * 0.5, PRIOR[1] * SEARCHER_ERROR / k2, PRIOR[2] * SEARCHER_ERROR / k2]
    assert shares[2] == pytest.approx([w / sum(weights) for w in weights])
    assert shares[3] == pytest.approx(PRIOR) and seen == [0, 1, 1, 0]
    chances = memory.searcher_chances(view(game, 0))  # the searcher's chance of each sale, by round
    assert chances == [{}, {0: pytest.approx(hit)}, {0: pytest.approx(miss)}, {}]


def test_a_searchers_share_weighs_the_chair_against_the_library_by_bayes_rule() -> None:
    assert searcher_share({}, []) == pytest.approx(SEARCHER_PRIOR)  # no sale seen: the prior
    assert searcher_share({0: 0.4}, [0.4]) == pytest.approx(SEARCHER_PRIOR)  # both predicted it alike
    odds = SEARCHER_PRIOR / (1 - SEARCHER_PRIOR) * (0.9 / 0.3) * (0.05 / 0.5)
    assert searcher_share({0: 0.9, 1: 0.05}, [0.3, 0.5]) == pytest.approx(odds / (1 + odds))
    # A round the library has not scored (a forced sale, or none yet) is not evidence.
    assert searcher_share({0: 0.9, 3: 0.9}, [0.3]) == searcher_share({0: 0.9}, [0.3])
    assert searcher_share({0: 0.9, 1: 0.9, 2: 0.9}, [0.2, 0.2, 0.2]) > 0.95


def _searcher_shares(opponents: str, seed: int) -> list[float]:
    """At ``hard``'s last sale decision with a choice, each opponent's share of selling as the searcher."""
    game = _to_sales(4, seed, opponents)
    hard = make_agent("hard:samples=2")
    agents = [hard] + [make_agent(opponents) for _ in range(3)]
    rngs = [random.Random(seed * 10 + s) for s in range(4)]
    shares: list[float] = []
    while not game.is_over:
        for seat in game.seats_to_act():
            v = view(game, seat)
            if seat == 0 and len(v.hand) > 1:
                fits, chances = fit_opponents(v), hard._memory.searcher_chances(v)  # type: ignore[attr-defined]
                shares = [searcher_share(chances[s], fits[s].chances) for s in (1, 2, 3)]
            game.push(seat, agents[seat].act(v, rngs[seat]))
    return shares


def test_hard_tells_a_field_of_searchers_from_a_field_of_a_rule_the_library_has() -> None:
    """``hard-v1`` sells as its search in its chair says, which no rule of the library predicts as well; a
    seller of its lowest house is a rule of the library, and the searcher adds nothing there."""
    searchers = [share for seed in (5, 6, 7) for share in _searcher_shares("hard-v1:samples=12", seed)]
    sellers = [share for seed in (5, 6, 7) for share in _searcher_shares("cheapskate", seed)]
    assert sum(searchers) / len(searchers) > 0.7  # a noisy search is missed now and then: not every seat
    assert max(sellers) < 0.1


def test_a_memory_forgets_the_oldest_games_first() -> None:
    game = _to_sales(4, 2)
    memory = SaleMemory()
    base = view(game, 0)
    views = [dataclasses.replace(base, auction_tables=((g,),)) for g in range(GAMES_KEPT + 5)]
    for v in views:
        memory.remember(v, {1: ((base.hands[1][0],) * len(CHAIRS), {})})
    assert len(memory._games) == GAMES_KEPT
    assert (0, ((0,),)) not in memory._games and (0, ((GAMES_KEPT + 4,),)) in memory._games


def test_blending_mixes_the_models_by_the_odds() -> None:
    hand, model = (3, 8, 20), [0.5, 0.25, 0.25]  # the type model's chances
    mixed, trust = searcher_blend(hand, (20, 3), model, 0.3, [1.0, 0.0, 0.0], 4)
    assert mixed == pytest.approx([0.5, 0.25, 0.25]) and trust == pytest.approx(0.3)
    mixed, trust = searcher_blend(hand, (20, 3), model, 0.3, [0.0, 1.0, 0.0], 4)
    assert mixed == pytest.approx([0.1 / 3, 0.1 / 3, 0.9 + 0.1 / 3]) and trust == pytest.approx(0.8)
    mixed, trust = searcher_blend(hand, (20, 3), model, 0.3, [0.0, 0.5, 0.5], 4)
    assert mixed == pytest.approx([0.45 + 0.1 / 3, 0.1 / 3, 0.45 + 0.1 / 3]) and trust == pytest.approx(0.8)
    mixed, _ = searcher_blend(hand, (8, 8), model, 0.3, [0.5, 0.25, 0.25], 1)
    assert sum(mixed) == pytest.approx(1.0)
