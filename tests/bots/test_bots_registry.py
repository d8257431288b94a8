"""The registry: every bot module registers on the first lookup, and the default bot is always there."""

from __future__ import annotations

import random

import pytest

from forsale import new_game, view
from forsale.bots import DEFAULT_BOT, agent_names, make_agent
from forsale.bots.registry import parse_spec
from forsale.server.ops.botrunner import default_bot as server_default
from forsale.tui.game import default_bot as play_default


def test_the_default_bot_is_registered_so_no_front_end_needs_a_fallback():
    assert DEFAULT_BOT in agent_names()
    assert server_default() == play_default() == DEFAULT_BOT
    agent = make_agent(DEFAULT_BOT)
    game = new_game(4, seed=9)
    seat = game.current_seat
    assert agent.act(view(game, seat), random.Random(1), None) in game.legal_actions(seat)


def test_specs_carry_typed_options():
    assert parse_spec("hard:time=0.2:samples=40:tag=x") == ("hard", {"time": 0.2, "samples": 40, "tag": "x"})
    with pytest.raises(ValueError, match="must look like key=value"):
        parse_spec("hard:time")
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        make_agent("nobody")
