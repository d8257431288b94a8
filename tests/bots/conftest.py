"""What the bots' tests share: the turns of one game between experts, sorted by what the seat had to decide."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from forsale import View, new_game, view
from forsale.bots import make_agent


def _turns(players: int = 4, seed: int = 21) -> tuple[list[View], list[View], list[View]]:
    """From one game between experts: auction turns with a choice, sale turns holding three or more
    houses (searched by sampling, not solved exactly), and turns with a single legal action."""
    state = new_game(players, seed=seed)
    expert, rng = make_agent("expert"), random.Random(0)
    auctions: list[View] = []
    sales: list[View] = []
    forced: list[View] = []
    while not state.is_over:
        seats = [state.current_seat] if state.phase == "auction" else list(state.seats_to_act())
        for seat in seats:
            v = view(state, seat)
            if len(v.legal_actions()) == 1:
                forced.append(v)
            elif v.phase == "auction":
                auctions.append(v)
            elif len(v.hand) >= 3:
                sales.append(v)
            state.push(seat, expert.act(v, rng))
    return auctions, sales, forced


@pytest.fixture
def expert_turns() -> Callable[..., tuple[list[View], list[View], list[View]]]:
    """``expert_turns(players=4, seed=21)``: (auction turns with a choice, sale turns holding three or more
    houses, turns with a single legal action) of one game between experts."""
    return _turns
