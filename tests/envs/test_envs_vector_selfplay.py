"""Batched self-play: every seat's observation and mask against the engine, rewards against PettingZoo's parallel env."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from forsale import from_record, referee, spectator_view, view
from forsale.envs.encoding import outcome
from forsale.envs.pettingzoo_env import ForSaleParallel
from forsale.envs.vector import ForSaleSelfPlay
from forsale.errors import IllegalActionError


def masked_random(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``(B, n)``: a random legal action for every seat that has one, 0 for the others."""
    out = np.zeros(mask.shape[:2], dtype=np.int64)
    for b, s in zip(*np.nonzero(mask.any(axis=2))):
        out[b, s] = rng.choice(np.flatnonzero(mask[b, s]))
    return out


def check_against_engine(env: ForSaleSelfPlay, obs: dict, to_act: np.ndarray) -> None:
    enc = env.encoding
    for i in range(env.num_envs):
        state = from_record(json.loads(json.dumps(env.record(i))))
        acting = set(state.seats_to_act())
        assert to_act[i].tolist() == [s in acting for s in range(env.n)]
        for seat in range(env.n):
            v = view(state, seat)
            assert np.array_equal(obs["observation"][i, seat], enc.observe(v)), (i, seat)
            assert np.array_equal(obs["action_mask"][i, seat], enc.mask(v)), (i, seat)


@pytest.mark.parametrize(("players", "reward"), [(2, "win"), (4, "score"), (6, "win")])
def test_every_seat_sees_its_own_encoding_and_finished_games_pay_pettingzoos_rewards(players, reward):
    env = ForSaleSelfPlay(5, players=players, reward=reward, record=True)
    rng = np.random.default_rng(players)
    obs, infos = env.reset(seed=players)
    assert obs["observation"].shape == (5, players, env.encoding.obs_size)
    assert obs["action_mask"].shape == (5, players, env.encoding.num_actions)
    finished = 0
    for _ in range(90):
        check_against_engine(env, obs, infos["to_act"])
        actions = masked_random(obs["action_mask"], rng)
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert rewards.shape == (5, players) and not truncated.any() and not rewards[~terminated].any()
        for i in np.flatnonzero(terminated):
            record = infos["final_info"]["record"][i]
            status, result = referee(json.dumps(record))
            assert status == 0 and result["scores"] == infos["final_info"]["scores"][i].tolist()
            state = from_record(record)
            assert rewards[i].tolist() == outcome(spectator_view(state), reward)
            for seat in range(players):
                assert np.array_equal(
                    infos["final_obs"][i]["observation"][seat], env.encoding.observe(view(state, seat))
                )
            # The same last sale round in PettingZoo's parallel environment pays the same rewards.
            parallel = ForSaleParallel(players=players, reward=reward)
            parallel.reset(seed=0)
            parallel.game = from_record({**record, "moves": record["moves"][:-1]})
            last = record["moves"][-1]["sell"]
            ids = {f"seat_{s}": env.encoding.max_bid + h for s, h in enumerate(last)}
            _, paid, done, _, _ = parallel.step(ids)
            assert all(done.values()) and [paid[f"seat_{s}"] for s in range(players)] == rewards[i].tolist()
            finished += 1
    assert finished >= 5


def test_seeding_next_step_autoreset_and_illegal_actions():
    def trace(seed: int) -> list:
        env = ForSaleSelfPlay(8, players=3, autoreset_mode=AutoresetMode.NEXT_STEP, record=True)
        rng = np.random.default_rng(0)
        obs, _ = env.reset(seed=seed)
        out, ended = [], 0
        pending = np.zeros(8, dtype=bool)
        for _ in range(80):
            obs, rewards, terminated, _, infos = env.step(masked_random(obs["action_mask"], rng))
            assert not terminated[pending].any() and not rewards[pending].any()  # the restart step
            for i in np.flatnonzero(terminated):
                assert from_record(infos["record"][i]).scores() == infos["scores"][i].tolist()
                assert not obs["action_mask"][i].any() and not infos["to_act"][i].any()
                ended += 1
            pending = terminated
            out += [obs["observation"].copy(), rewards.copy()]
        assert ended >= 8
        return out

    a, b, c = trace(1), trace(1), trace(2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))

    env = ForSaleSelfPlay(2, players=4, illegal="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"action id 48 is not legal for seat \d in game 0"):
        env.step(np.full((2, 4), 48))
    lenient = ForSaleSelfPlay(2, players=4, record=True)
    lenient.reset(seed=0)
    _, _, _, _, infos = lenient.step(np.full((2, 4), 48))
    assert infos["illegal_action"].sum() == 2  # only the bidder of each game acts in an auction
    assert all(lenient.record(i)["moves"][0]["pass"] for i in range(2))
