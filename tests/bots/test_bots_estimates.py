"""The bot's estimates for people (:mod:`forsale.bots.estimates`): every legal action's win chance, every seat's."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from forsale import View, new_game, view
from forsale.bots import make_agent
from forsale.bots.estimates import action_values, win_chances
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
