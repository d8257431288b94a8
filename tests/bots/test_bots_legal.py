"""Every registered bot plays only legal moves, at every player count and under several rulesets."""

from __future__ import annotations

import random

import pytest

from forsale import Ruleset, new_game, view
from forsale.bots import agent_names, make_agent

# Search bots get a tiny budget here: legality, not strength, is under test.
FAST = {"hard": "hard:time=0.002", "hard-v1": "hard-v1:time=0.002"}
RULESETS = [
    (2, "two-player"),
    (3, "official"),
    (3, "first-edition"),
    (4, "official"),
    (4, "refund-up"),
    (4, "first-edition"),
    (5, "official"),
    (6, "official"),
    (6, "first-edition"),
]


def play(specs: list[str], rules: Ruleset, seed: int) -> list[int]:
    """One game in which every action is checked against the view's legal actions before it is pushed."""
    state = new_game(rules, seed=seed)
    agents = [make_agent(spec) for spec in specs]
    rng = random.Random(seed)
    while not state.is_over:
        for seat in state.seats_to_act():
            seen = view(state, seat)
            action = agents[seat].act(seen, rng, None)
            assert action in seen.legal_actions(), f"{specs[seat]} played {action} in {seen.phase}"
            assert action in state.legal_actions(seat)
            state.push(seat, action)
    return state.scores()


@pytest.mark.parametrize(("players", "preset"), RULESETS)
def test_every_bot_plays_legally(players: int, preset: str) -> None:
    rules = Ruleset.preset(preset, players)
    names = [FAST.get(name, name) for name in agent_names(rules)]
    for game in range(3):
        # Rotate so every bot meets every other bot and sits in every seat over the games.
        start = game * players
        specs = [names[(start + i) % len(names)] for i in range(players)]
        scores = play(specs, rules, seed=1000 * players + game)
        assert len(scores) == players


@pytest.mark.parametrize("name", ["random", "value", "smart", "prudent", "cheapskate", "bigspender", "expert", "easy"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_fast_bots_over_many_games(name: str, players: int) -> None:
    """Many whole games of one bot against itself and the random bot: never an illegal move."""
    rules = Ruleset.default(players)
    for game in range(4):
        specs = [name if (seat + game) % 2 == 0 else "random" for seat in range(players)]
        play(specs, rules, seed=game)


def test_custom_ruleset_with_few_coins() -> None:
    """Knobs far from the presets (1 coin each, refunds rounded up) do not trip any bot."""
    rules = Ruleset.custom(5, starting_coins=1, removed=0, refund="up")
    names = [FAST.get(name, name) for name in agent_names(rules)]
    for game in range(2):
        specs = [names[(game * 5 + i) % len(names)] for i in range(5)]
        play(specs, rules, seed=game)


def test_unknown_bot_and_bad_options_fail_clearly() -> None:
    with pytest.raises(ValueError, match=r"unknown bot 'nope'; known bots: .*hard"):
        make_agent("nope")
    with pytest.raises(ValueError, match="bad options for bot 'expert'"):
        make_agent("expert:speed=3")
    with pytest.raises(ValueError, match="time must be a number above 0"):
        make_agent("hard:time=0")
    with pytest.raises(ValueError, match="sale must be 'game' or 'v1', not 'best'"):
        make_agent("hard:sale=best")
    with pytest.raises(ValueError, match=r"futures must be positive multiples of alpha joined by '\+'"):
        make_agent("hard:futures=0.5+x")
    with pytest.raises(ValueError, match="futures must be positive multiples of alpha"):
        make_agent("hard:futures=0+1")
    with pytest.raises(ValueError, match="spread must be a positive number, not 0"):
        make_agent("hard:spread=0")
    with pytest.raises(ValueError, match="spread must be a positive number, not 'wide'"):
        make_agent("hard:spread=wide")
    with pytest.raises(ValueError, match="fit_self and futures are two ways"):
        make_agent("hard:fit_self=1:futures=1+2")


def test_registry_has_every_level_and_baseline() -> None:
    assert set(agent_names()) >= {
        "random", "value", "smart", "prudent", "cheapskate", "bigspender", "expert", "easy", "medium", "hard",
    }  # fmt: skip
    assert make_agent("hard:time=0.3").time == 0.3  # type: ignore[attr-defined]
