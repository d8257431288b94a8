"""The Gymnasium single-agent environment: Gymnasium's checker, whole episodes, illegal actions."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from forsale import view
from forsale.envs import register_gymnasium
from forsale.envs.gym_env import ForSaleEnv
from forsale.errors import IllegalActionError


@pytest.mark.parametrize(
    "kwargs", [{}, {"players": 3, "seat": "random", "reward": "score"}, {"players": 2, "opponents": ["random"]}]
)
def test_gymnasium_env_checker(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "no spec, cannot test other render modes"
        check_env(ForSaleEnv(**kwargs), skip_render_check=True)


def play(env: ForSaleEnv, seed: int) -> tuple[float, dict, int]:
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    steps = 0
    while True:
        assert np.array_equal(obs["action_mask"].astype(bool), env.action_masks())
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        assert not truncated
        if terminated:
            return reward, info, steps
        assert reward == 0.0


def test_whole_episodes_end_with_the_win_reward_and_the_learner_sees_its_view():
    env = ForSaleEnv(players=4, seat="random")
    seats = set()
    for seed in range(6):
        reward, info, steps = play(env, seed)
        seats.add(info["seat"])
        winners = env.game.winners()
        assert reward == (1.0 / len(winners) if info["seat"] in winners else 0.0)
        assert info["scores"] == env.game.scores()
        assert steps >= env.rules.rounds  # at least one sale choice per round
        # The last observation is exactly the encoding of the learner's own view.
        assert np.array_equal(env._observation()["observation"], env.encoding.observe(view(env.game, env.seat)))
    assert len(seats) > 1


def test_same_seed_same_episode():
    a, b = ForSaleEnv(players=3), ForSaleEnv(players=3)
    assert play(a, 12) == play(b, 12)
    assert a.game.moves == b.game.moves


def test_illegal_actions_substitute_or_raise():
    env = ForSaleEnv(players=4)
    env.reset(seed=1)
    _, _, _, _, info = env.step(48)  # "sell house 30" during an auction
    assert info["illegal_action"] is True
    strict = ForSaleEnv(players=4, illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalActionError, match="cannot sell a house during the auction phase"):
        strict.step(48)


def test_bad_configuration_is_refused():
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        ForSaleEnv(opponents="nobody")
    with pytest.raises(ValueError, match="needs 3 opponents, not 2"):
        ForSaleEnv(players=4, opponents=["random", "random"])
    with pytest.raises(ValueError, match="seat must be"):
        ForSaleEnv(seat=4)


def test_registered_with_gymnasium():
    register_gymnasium()
    env = gymnasium.make("forsale/ForSale-v0", players=5, render_mode="ansi")
    obs, _ = env.reset(seed=3)
    assert obs["observation"].shape == (428,)
    assert "auction 1/6" in env.render()
