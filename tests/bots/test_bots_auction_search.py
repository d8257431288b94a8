"""The shared auction search (:mod:`forsale.bots.auction_search`): ``hard-v1``'s moves from before the search bot
was split by concern are pinned, so a change to the search that ``hard`` inherits is seen where it moves them."""

from __future__ import annotations

import random

import pytest

from forsale import View, new_game, view
from forsale.actions import action_from_json
from forsale.bots import make_agent


def expert_decisions(players: int, seed: int) -> list[View]:
    """Every decision with a choice in one game between experts (the views the pins below were taken on)."""
    state = new_game(players, seed=seed)
    expert, rng = make_agent("expert"), random.Random(seed)
    out: list[View] = []
    while not state.is_over:
        seats = [state.current_seat] if state.phase == "auction" else list(state.seats_to_act())
        for seat in seats:
            v = view(state, seat)
            if len(v.legal_actions()) > 1:
                out.append(v)
            state.push(seat, expert.act(v, rng))
    return out


# (players, game seed, decision index, move) of ``hard:samples=6`` with ``random.Random(index)``, recorded
# from the search bot before it was split into valuation, opponents, rollout and search modules.
PINNED_V1 = [
    (3, 5, 0, {"pass": True}),
    (3, 5, 9, {"pass": True}),
    (3, 5, 18, {"bid": 3}),
    (3, 5, 27, {"bid": 4}),
    (3, 5, 36, {"sell": 2}),
    (3, 5, 45, {"sell": 13}),
    (4, 6, 0, {"pass": True}),
    (4, 6, 11, {"bid": 1}),
    (4, 6, 22, {"bid": 4}),
    (4, 6, 33, {"bid": 4}),
    (4, 6, 44, {"bid": 5}),
    (4, 6, 55, {"sell": 7}),
    (4, 6, 66, {"sell": 2}),
    (5, 7, 0, {"bid": 1}),
    (5, 7, 11, {"pass": True}),
    (5, 7, 22, {"bid": 1}),
    (5, 7, 33, {"pass": True}),
    (5, 7, 44, {"sell": 30}),
    (5, 7, 55, {"sell": 6}),
    (5, 7, 66, {"sell": 11}),
    (6, 8, 0, {"bid": 1}),
    (6, 8, 11, {"pass": True}),
    (6, 8, 22, {"pass": True}),
    (6, 8, 33, {"pass": True}),
    (6, 8, 44, {"sell": 1}),
    (6, 8, 55, {"sell": 24}),
    (6, 8, 66, {"sell": 15}),
]


@pytest.mark.parametrize(("players", "seed"), sorted({(p, s) for p, s, _, _ in PINNED_V1}))
def test_hard_v1_plays_the_moves_of_the_search_bot_before_the_split(players: int, seed: int) -> None:
    views = expert_decisions(players, seed)
    for p, s, index, move in PINNED_V1:
        if (p, s) == (players, seed):
            got = make_agent("hard-v1:samples=6").act(views[index], random.Random(index), None)
            assert got == action_from_json(move), (players, seed, index)
