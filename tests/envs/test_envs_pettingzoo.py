"""PettingZoo AEC and parallel environments: the official API and seed tests, and phase-2 secrecy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test
from pettingzoo.test.seed_test import parallel_seed_test

from forsale.envs import pettingzoo_env
from forsale.errors import IllegalActionError


@pytest.fixture(autouse=True)
def _quiet():
    # The API test warns that Dict observations are "not a NumPy array": that is the documented
    # {"observation", "action_mask"} shape PettingZoo's own classic games use.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("players", [2, 4])
def test_aec_api_and_seed(players):
    api_test(pettingzoo_env.env(players=players), num_cycles=200)
    seed_test(lambda: pettingzoo_env.env(players=players), num_cycles=200)


def test_parallel_api_and_seed():
    parallel_api_test(pettingzoo_env.parallel_env(players=5), num_cycles=200)
    # PettingZoo's parallel seed test samples actions without masks: let illegal ones be substituted.
    parallel_seed_test(lambda: pettingzoo_env.parallel_env(players=3, illegal="substitute"), num_cycles=200)


def play_aec_to_sale(seed: int):
    env = pettingzoo_env.env(players=4)
    env.reset(seed=seed)
    while env.game.phase == "auction":
        env.step(0)  # everyone passes
    return env


def test_aec_sale_round_hides_earlier_choices():
    low, high = play_aec_to_sale(1), play_aec_to_sale(1)
    assert low.agent_selection == "seat_0"
    hand = np.flatnonzero(low.observe("seat_0")["action_mask"])
    low.step(int(hand[0]))
    high.step(int(hand[-1]))
    assert low.agent_selection == high.agent_selection == "seat_1"
    for agent in ("seat_1", "seat_2", "seat_3"):
        a, b = low.observe(agent), high.observe(agent)
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])


def test_a_whole_aec_game_pays_the_winner():
    env = pettingzoo_env.env(players=3, reward="win")
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sum(totals.values()) == pytest.approx(1.0)
    winners = [int(a.split("_")[1]) for a, r in totals.items() if r > 0]
    assert winners == env.game.winners()


def test_illegal_actions_are_refused_with_the_rules_reason():
    env = pettingzoo_env.env(players=4)
    env.reset(seed=2)
    with pytest.raises(IllegalActionError, match="cannot sell a house during the auction phase"):
        env.step(30)  # id 30 is "sell house 12" when bids go up to 18
    env.step(5)
    with pytest.raises(IllegalActionError, match="the high bid is already 5"):
        env.step(3)
    env2 = pettingzoo_env.parallel_env(players=4)
    env2.reset(seed=2)
    with pytest.raises(IllegalActionError, match="must act"):
        env2.step({})


def test_illegal_actions_can_be_substituted():
    env = pettingzoo_env.env(players=4, illegal="substitute")
    env.reset(seed=2)
    agent = env.agent_selection
    env.step(30)
    assert env.infos[agent] == {"illegal_action": True}
    assert env.game.moves[-1][1].__class__.__name__ == "Pass"


def test_parallel_sale_is_one_simultaneous_step():
    env = pettingzoo_env.parallel_env(players=4)
    obs, _ = env.reset(seed=6)
    while env.game.phase == "auction":
        actor = f"seat_{env.game.current_seat}"
        obs, *_ = env.step({actor: 0})
    rounds_before = len(env.game.moves)
    choice = {a: int(np.flatnonzero(o["action_mask"])[-1]) for a, o in obs.items()}
    env.step(choice)
    assert len(env.game.moves) == rounds_before + 1  # the whole round revealed at once
