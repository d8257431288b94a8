"""The bot's estimates for people (:mod:`forsale.bots.estimates`): every legal action's win chance, every seat's."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from forsale import View, new_game, view
from forsale.bots import make_agent
from forsale.bots.estimates import action_values, fitted_round, win_chances
from forsale.rules import win_shares

Turns = Callable[..., tuple[list[View], list[View], list[View]]]


def test_action_values_give_every_legal_action_a_win_chance_reproducibly(expert_turns: Turns) -> None:
    auctions, sales, _ = expert_turns(4, 6)
    for v in auctions[::8] + sales[::3]:
        values = action_values(v, random.Random(3), samples=2)
        assert [a for a, _ in values] == list(v.legal_actions())
        assert all(0.0 <= x <= 1.0 for _, x in values)
        assert values == action_values(v, random.Random(3), samples=2)
    # With one house each, the last sale round is known: the chance is the rules' win share, exactly.
    state = new_game(4, seed=6)
    expert = make_agent("expert")
    while not state.is_over and not (state.phase == "sale" and len(state.hands[0]) == 1):
        for seat in state.seats_to_act():
            state.push(seat, expert.act(view(state, seat), random.Random(0)))
    final = view(state, 0)
    scores = [sum(won) + c for won, c in zip(final.cheques_won, final.coins)]
    ((action, chance),) = action_values(final, random.Random(0), samples=1)
    plays = [h[0] for h in final.hands]
    order = sorted(plays)
    scores = [s + final.table[order.index(h)] for s, h in zip(scores, plays)]
    assert action == final.legal_actions()[0]
    assert chance == pytest.approx(win_shares(scores, final.coins)[0])


def test_win_chances_add_up_to_one_and_are_exact_at_the_end(expert_turns: Turns) -> None:
    auctions, sales, _ = expert_turns(5, 7)
    for v in auctions[::6] + sales[::3]:
        chances = win_chances(v, random.Random(1), samples=3)
        assert len(chances) == 5 and sum(chances) == pytest.approx(1.0)
        assert chances == win_chances(v, random.Random(1), samples=3)
    state = new_game(3, seed=2)
    while not state.is_over:
        for seat in state.seats_to_act():
            state.push(seat, state.legal_actions(seat)[0])
    assert win_chances(view(state, 1), random.Random(0)) == win_shares(state.scores(), state.coins)
    assert action_values(view(state, 1), random.Random(0)) == []


def test_in_the_sale_the_estimates_predict_the_opponents_as_hard_does_from_the_library_of_sale_rules() -> None:
    """Three ``cheapskate`` sell their lowest house: after two sales each, the round the estimates solve
    takes each of them to sell it (the fitted library's prediction, which ``hard`` best-responds to)."""
    state = new_game(4, seed=12)
    agents = [make_agent("expert"), *(make_agent("cheapskate") for _ in range(3))]
    rng = random.Random(0)
    while not (state.phase == "sale" and state.round == 2):
        for seat in state.seats_to_act():
            state.push(seat, agents[seat].act(view(state, seat), rng))
    v = view(state, 0)
    game, models, weights = fitted_round(v, margin=0.0)
    assert models[0] is None and weights[0] == 0.0
    for s in (1, 2, 3):
        model = models[s]
        assert model is not None and weights[s] > 0.8
        assert weights[s] * model[0] > 0.8  # hands are sorted: index 0 is the lowest house
    assert list(game.hands) == list(v.hands) and all(list(h) == sorted(h) for h in v.hands)
