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
from forsale.bots.search_v1 import SearchAgent
from forsale.bots.searchers import (
    GAMES_KEPT,
    SEARCHER_ERROR,
    SEARCHER_PRIOR,
    SaleMemory,
    searcher_blend,
    searcher_sale,
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
    game = _to_sales(4, 3)
    for s in (1, 2, 3):
        move = SearchAgent(samples=6).act(view(game, s), random.Random(9))
        assert searcher_sale(view(game, 0), s, random.Random(9), samples=6) == move.house  # type: ignore[union-attr]


def _learnt_odds(opponents: str, seed: int) -> tuple[list[float], list[int]]:
    """``hard``'s odds that each opponent is a searcher at its last sale decision of a game."""
    game = _to_sales(4, seed, opponents)
    hard = make_agent("hard:samples=2")
    agents = [hard] + [make_agent(opponents) for _ in range(3)]
    rngs = [random.Random(seed * 10 + s) for s in range(4)]
    odds: tuple[list[float], list[int]] = ([], [])
    while not game.is_over:
        for seat in game.seats_to_act():
            v = view(game, seat)
            if seat == 0 and len(v.hand) > 1:
                odds = hard._memory.odds(v)  # type: ignore[attr-defined]
            game.push(seat, agents[seat].act(v, rngs[seat]))
    return odds


def test_hard_learns_which_opponents_sell_as_searchers_and_which_do_not() -> None:
    searchers, sellers = [], []
    for seed in (5, 6):
        share, seen = _learnt_odds("hard-v1:samples=40", seed)
        assert seen == [0, 5, 5, 5] and share[0] == SEARCHER_PRIOR  # the bot does not model itself
        searchers += share[1:]
        share, seen = _learnt_odds("cheapskate", seed)  # always sells its lowest house: a type, not a search
        assert seen == [0, 5, 5, 5]
        sellers += share[1:]
    assert sum(searchers) / len(searchers) > 0.75 and min(searchers) > SEARCHER_PRIOR
    assert max(sellers) < SEARCHER_PRIOR / 4


def test_the_odds_are_bayes_rule_over_the_sales_seen() -> None:
    game = _to_sales(4, 11)
    memory = SaleMemory()
    first = view(game, 0)
    assert memory.odds(first) == ([SEARCHER_PRIOR] * 4, [0] * 4)
    hands = first.hands
    predicted = {
        1: (hands[1][-1], {h: 1 / len(hands[1]) for h in hands[1]}),
        2: (hands[2][0], {h: 0.5 if h in (hands[2][0], hands[2][-1]) else 0.0 for h in hands[2]}),
    }
    memory.remember(first, predicted)
    rng = random.Random(0)
    plays = {1: hands[1][-1], 2: hands[2][-1]}  # seat 1 sells as predicted, seat 2 does not
    for seat in game.seats_to_act():
        game.push(seat, SELLS[plays[seat]] if seat in plays else make_agent("expert").act(view(game, seat), rng))
    share, seen = memory.odds(view(game, 0))
    k1, k2 = len(hands[1]), len(hands[2])
    hit = SEARCHER_PRIOR * (1 - SEARCHER_ERROR + SEARCHER_ERROR / k1)
    assert share[1] == pytest.approx(hit / (hit + (1 - SEARCHER_PRIOR) / k1))
    miss = SEARCHER_PRIOR * SEARCHER_ERROR / k2
    assert share[2] == pytest.approx(miss / (miss + (1 - SEARCHER_PRIOR) * 0.5))
    assert seen == [0, 1, 1, 0]


def test_a_memory_forgets_the_oldest_games_first() -> None:
    game = _to_sales(4, 2)
    memory = SaleMemory()
    base = view(game, 0)
    views = [dataclasses.replace(base, auction_tables=((g,),)) for g in range(GAMES_KEPT + 5)]
    for v in views:
        memory.remember(v, {1: (base.hands[1][0], {})})
    assert len(memory._games) == GAMES_KEPT
    assert (0, ((0,),)) not in memory._games and (0, ((GAMES_KEPT + 4,),)) in memory._games


def test_blending_mixes_the_two_models_by_the_odds() -> None:
    hand, model = (3, 8, 20), [2.0, 1.0, 1.0]  # unnormalised chances from the type model
    mixed, trust = searcher_blend(hand, 20, model, 0.3, 0.0, 4)
    assert mixed == pytest.approx([0.5, 0.25, 0.25]) and trust == pytest.approx(0.3)
    mixed, trust = searcher_blend(hand, 20, model, 0.3, 1.0, 4)
    assert mixed == pytest.approx([0.1 / 3, 0.1 / 3, 0.9 + 0.1 / 3]) and trust == pytest.approx(0.8)
    mixed, _ = searcher_blend(hand, 8, model, 0.3, 0.5, 1)
    assert sum(mixed) == pytest.approx(1.0)
