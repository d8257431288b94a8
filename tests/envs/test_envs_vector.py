"""The batched Gymnasium environment agrees with the engine and the one-game adapter, game by game.

Every observation and mask is compared with what ``Encoding`` builds from
``view(state, seat)`` on the engine state rebuilt from the game's own
``forsale-record/1`` record (so the record, too, is checked move by move by
``from_record``); finished games must replay to the same scores, and their
rewards must be what :class:`~forsale.envs.gym_env.ForSaleEnv` pays.
"""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forsale import Ruleset, Sell, from_record, referee, spectator_view, view
from forsale.envs import register_gymnasium
from forsale.envs.encoding import outcome
from forsale.envs.gym_env import ForSaleEnv
from forsale.envs.vector import ForSaleVectorEnv
from forsale.errors import IllegalActionError
from forsale.sim.policies import BatchPolicy, RandomPolicy


def masked_random(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask``."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask])


def check_against_engine(env: ForSaleVectorEnv, obs: dict, rows=None) -> None:
    enc = env.encoding
    for i in range(env.num_envs) if rows is None else rows:
        state = from_record(json.loads(json.dumps(env.record(i))))
        v = view(state, int(env.seat[i]))
        assert np.array_equal(obs["observation"][i], enc.observe(v)), f"game {i}"
        assert np.array_equal(obs["action_mask"][i], enc.mask(v)), f"game {i}"
        assert np.array_equal(env.action_masks()[i], enc.mask(v).astype(bool))
        assert state.seats_to_act() and int(env.seat[i]) in state.seats_to_act()
        slots = env.games.slots[i]  # what the opponent policies are handed as hands, in no particular order
        assert [sorted(h for h in row if h) for row in slots.tolist()] == [sorted(h) for h in state.hands]


def check_finished(env: ForSaleVectorEnv, rewards, terminated, infos) -> int:
    """Finished games replay to the same results and pay the one-game reward; returns how many finished."""
    done = np.flatnonzero(terminated)
    if done.size and env.autoreset_mode is AutoresetMode.SAME_STEP:
        assert np.array_equal(infos["_final_obs"], terminated)
        final_info = infos["final_info"]
    else:
        final_info = infos
    for i in done:
        record = final_info["record"][i]
        status, result = referee(json.dumps(record))
        assert status == 0 and result["complete"] is True
        state = from_record(record)
        seat = int(final_info["seat"][i])
        assert result["scores"] == final_info["scores"][i].tolist() == state.scores()
        assert rewards[i] == outcome(spectator_view(state), env.reward_mode)[seat]
        final = infos["final_obs"][i] if env.autoreset_mode is AutoresetMode.SAME_STEP else None
        if final is not None:
            v = view(state, seat)
            assert np.array_equal(final["observation"], env.encoding.observe(v))
            assert not final["action_mask"].any()
    assert not rewards[~terminated].any()
    return int(done.size)


def run(env: ForSaleVectorEnv, steps: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    assert env.observation_space.contains(obs)
    finished = 0
    for _ in range(steps):
        check_against_engine(env, obs)
        obs, rewards, terminated, truncated, infos = env.step(masked_random(obs["action_mask"], rng))
        assert env.observation_space.contains(obs)
        assert rewards.dtype == np.float64 and not truncated.any()
        finished += check_finished(env, rewards, terminated, infos)
    return finished


@pytest.mark.parametrize(
    ("players", "opponents", "seat", "reward"),
    [
        (2, "random", 1, "win"),
        (3, "value", "random", "score"),
        (4, "random", "random", "win"),
        (5, ["value", "random", "value", "random"], 2, "win"),
        (6, "value", "random", "score"),
    ],
)
def test_observations_masks_records_and_rewards_agree_with_the_engine(players, opponents, seat, reward):
    env = ForSaleVectorEnv(6, players=players, opponents=opponents, seat=seat, reward=reward, record=True)
    assert run(env, 70, seed=players) >= 6  # several whole games, autoreset included


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 6),
    coins=st.integers(0, 30),
    removed_rounds=st.integers(0, 3),
    refund=st.sampled_from(["down", "up"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_ruleset_agrees_with_the_engine(players, coins, removed_rounds, refund, seed):
    removed = 30 % players + players * min(removed_rounds, 30 // players - 1)
    rules = Ruleset.custom(players, starting_coins=coins, removed=removed, refund=refund)
    env = ForSaleVectorEnv(3, players=players, rules=rules, opponents="random", seat="random", record=True)
    run(env, 25, seed=seed)


def test_rewards_are_what_the_one_game_environment_pays():
    """The last sale of finished batch games, replayed in ``ForSaleEnv`` against the same (deterministic) ``value`` bots."""
    for reward in ("win", "score"):
        env = ForSaleVectorEnv(8, players=4, opponents="value", seat=2, reward=reward, record=True)
        rng = np.random.default_rng(5)
        obs, _ = env.reset(seed=5)
        compared = 0
        while compared < 8:
            obs, rewards, terminated, _, infos = env.step(masked_random(obs["action_mask"], rng))
            for i in np.flatnonzero(terminated):
                record = infos["final_info"]["record"][i]
                last = record["moves"][-1]["sell"][2]
                before = from_record({**record, "moves": record["moves"][:-1]})
                one = ForSaleEnv(players=4, opponents="value", seat=2, reward=reward)
                one.reset(seed=0)
                one.game = before
                _, paid, done, _, info = one.step(one.encoding.action_index(Sell(last)))
                assert done and paid == rewards[i]
                assert info["scores"] == infos["final_info"]["scores"][i].tolist()
                compared += 1


def test_same_seed_same_games_and_another_seed_other_games():
    def trace(seed: int) -> list:
        env = ForSaleVectorEnv(16, players=4, opponents="random", seat="random", record=True)
        rng = np.random.default_rng(0)
        obs, _ = env.reset(seed=seed)
        out = [obs["observation"].copy()]
        for _ in range(40):
            obs, rewards, terminated, _, _ = env.step(masked_random(obs["action_mask"], rng))
            out += [obs["observation"].copy(), rewards.copy(), terminated.copy()]
        return out + [json.dumps([env.record(i) for i in range(16)])]

    a, b, c = trace(3), trace(3), trace(4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])
    env = ForSaleVectorEnv(4, players=3)
    first, _ = env.reset(seed=11)
    env.step(env.action_masks().argmax(axis=1))
    again, _ = env.reset(seed=11)
    assert np.array_equal(first["observation"], again["observation"])


def test_next_step_autoreset_ignores_the_action_after_the_end():
    env = ForSaleVectorEnv(4, players=3, autoreset_mode=AutoresetMode.NEXT_STEP, record=True)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=1)
    pending = np.zeros(4, dtype=bool)
    seen_restart = 0
    for _ in range(120):
        actions = masked_random(np.maximum(obs["action_mask"], pending[:, None]), rng)  # anything for finished games
        obs, rewards, terminated, _, infos = env.step(actions)
        restarted = np.flatnonzero(pending)
        assert not terminated[restarted].any() and not rewards[restarted].any()
        for i in restarted:
            record = env.record(i)  # a new game, in which the learner has not moved yet
            assert from_record(record).phase == "auction"
            assert all(move["seat"] != env.seat[i] for move in record["moves"])
            seen_restart += 1
        check_finished(env, rewards, terminated, infos)
        live = np.flatnonzero(~terminated)
        check_against_engine(env, obs, rows=live)
        for i in np.flatnonzero(terminated):  # the game's last observation is returned, with an empty mask
            state = from_record(infos["record"][i])
            assert np.array_equal(obs["observation"][i], env.encoding.observe(view(state, int(env.seat[i]))))
            assert not obs["action_mask"][i].any()
        pending = terminated
    assert seen_restart >= 4


def test_same_step_autoreset_starts_the_next_game_at_once():
    env = ForSaleVectorEnv(4, players=4, record=True)
    rng = np.random.default_rng(2)
    obs, _ = env.reset(seed=2)
    restarts = 0
    while restarts < 4:
        obs, _, terminated, _, infos = env.step(masked_random(obs["action_mask"], rng))
        check_against_engine(env, obs)
        for i in np.flatnonzero(terminated):
            record = env.record(i)
            # Only the opponents' opening moves, before the learner's first turn, are in the new game.
            assert all(move["seat"] != env.seat[i] for move in record["moves"])
            assert infos["final_obs"][i] is not None and infos["final_info"]["record"][i] != record
            restarts += 1


def test_gymnasium_registration_spaces_and_vector_wrappers():
    register_gymnasium()
    env = gymnasium.make_vec("forsale/ForSale-v0", num_envs=8, vectorization_mode="vector_entry_point", players=5)
    assert isinstance(env.unwrapped, ForSaleVectorEnv) and env.num_envs == 8
    assert isinstance(env.metadata["autoreset_mode"], AutoresetMode)
    one = ForSaleEnv(players=5)
    assert env.single_observation_space == one.observation_space
    assert env.single_action_space == one.action_space
    sync = SyncVectorEnv([lambda: ForSaleEnv(players=5)] * 8)
    assert env.observation_space == sync.observation_space and env.action_space == sync.action_space
    stats = gymnasium.wrappers.vector.RecordEpisodeStatistics(env)
    obs, _ = stats.reset(seed=0)
    episodes = 0
    rng = np.random.default_rng(0)
    while episodes < 8:
        obs, *_, infos = stats.step(masked_random(obs["action_mask"], rng))
        if "episode" in infos:
            assert (infos["episode"]["l"][infos["_episode"]] > 0).all()
            episodes += int(infos["_episode"].sum())
    obs, *_ = stats.step(env.action_space.sample())  # anything at all: illegal ids are substituted
    assert env.observation_space.contains(obs)


def test_illegal_actions_are_substituted_or_refused():
    env = ForSaleVectorEnv(3, players=4, record=True)
    env.reset(seed=1)
    sell_30 = env.encoding.num_actions - 1  # never legal in an auction
    before = [len(env.record(i)["moves"]) for i in range(3)]
    _, _, _, _, infos = env.step(np.full(3, sell_30))
    assert infos["illegal_action"].all()
    for i in range(3):  # substituted by a pass: the learner's move is in the record
        record = env.record(i)
        learner_moves = [m for m in record["moves"][before[i] :] if m.get("seat") == env.seat[i]]
        assert learner_moves[0] == {"seat": int(env.seat[i]), "pass": True}
    strict = ForSaleVectorEnv(3, players=4, illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalActionError, match="action id 48 is not legal for seat 0 in game 0"):
        strict.step(np.full(3, sell_30))
    with pytest.raises(ValueError, match="actions must be whole action ids of shape"):
        strict.step(np.zeros(2, dtype=int))


def test_bad_configuration_is_refused():
    with pytest.raises(ValueError, match="unknown batch policy 'nobody'"):
        ForSaleVectorEnv(opponents="nobody")
    with pytest.raises(ValueError, match="needs 3 opponents, not 2"):
        ForSaleVectorEnv(players=4, opponents=["random", "random"])
    with pytest.raises(ValueError, match="seat must be"):
        ForSaleVectorEnv(seat=4)
    with pytest.raises(ValueError, match="num_envs must be"):
        ForSaleVectorEnv(num_envs=0)
    with pytest.raises(ValueError, match="autoreset_mode must be"):
        ForSaleVectorEnv(autoreset_mode=AutoresetMode.DISABLED)
    with pytest.raises(RuntimeError, match="reset"):
        ForSaleVectorEnv(2).step(np.zeros(2, dtype=int))


class _Overbid(BatchPolicy):
    """Bids more than it holds: an untrusted policy's moves are checked."""

    def auction(self, turn, rng):
        return turn.coins + 1

    def sale(self, turn, rng):
        return np.zeros(turn.table.shape, dtype=np.int64)


class _BadSlot(RandomPolicy):
    trusted = False

    def sale(self, turn, rng):
        return np.full(turn.table.shape, turn.held)


def test_untrusted_opponent_policies_are_checked():
    for policy, message in ((_Overbid(), "the policy bid .* which is illegal"), (_BadSlot(), "slot outside")):
        env = ForSaleVectorEnv(4, players=3, opponents=policy)
        with pytest.raises(ValueError, match=message):
            env.reset(seed=0)
            for _ in range(200):
                env.step(env.action_masks().argmax(axis=1))
