"""The OpenSpiel game python_for_sale: OpenSpiel's own random-simulation test, resampling, ISMCTS."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from forsale import view
from forsale.envs import openspiel_game
from forsale.envs.encoding import Encoding


def deal(state, rng):
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))


@pytest.mark.parametrize(
    ("players", "rules", "serialize"),
    [(3, "official", True), (2, "default", False), (4, '{"starting_coins": 21, "removed": 2, "refund": "up"}', False)],
)
def test_random_sim_test(players, rules, serialize):
    game = pyspiel.load_game(openspiel_game.SHORT_NAME, {"players": players, "rules": rules})
    pyspiel.random_sim_test(game, num_sims=2, serialize=serialize, verbose=False)


def test_bad_parameters_are_refused_with_the_rules_message():
    with pytest.raises(Exception, match="unknown ruleset 'nonsense'"):
        pyspiel.load_game(openspiel_game.SHORT_NAME, {"players": 4, "rules": "nonsense"})


def test_random_sim_test_turn_based():
    game = pyspiel.load_game(openspiel_game.SHORT_NAME, {"players": 4, "rules": "first-edition"})
    pyspiel.random_sim_test(pyspiel.convert_to_turn_based(game), num_sims=2, serialize=False, verbose=False)


def test_game_shape_and_tensors_are_the_shared_encoding():
    game = pyspiel.load_game(openspiel_game.SHORT_NAME, {"players": 4})
    enc = Encoding(game.rules)
    assert game.num_distinct_actions() == enc.num_actions == 49
    assert game.observation_tensor_shape() == [enc.obs_size]
    assert game.information_state_tensor_shape() == [enc.infostate_size]
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 30
    deal(state, rng)
    sale_nodes = 0
    while not state.is_terminal():
        for p in range(4):
            v = view(state.engine, p)
            assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), enc.observe(v))
            assert np.array_equal(np.asarray(state.information_state_tensor(p), np.float32), enc.infostate(v))
            assert state.information_state_string(p) == enc.infostate_string(v)
        if state.current_player() == pyspiel.PlayerId.SIMULTANEOUS:
            sale_nodes += 1
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(4)])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert sale_nodes == 7
    assert sum(state.returns()) == pytest.approx(1.0)


def test_resample_from_infostate_keeps_what_the_player_knows():
    game = pyspiel.load_game(openspiel_game.SHORT_NAME, {"players": 3})
    rng = np.random.default_rng(4)
    state = game.new_initial_state()
    deal(state, rng)
    for _ in range(12):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    deals = set()
    for _ in range(5):
        other = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.legal_actions() == state.legal_actions()
        deals.add(tuple(other.engine.deal.houses))
    assert len(deals) > 1  # the houses still to come really are reshuffled


def test_turn_based_resampler_hides_earlier_sale_choices():
    game = pyspiel.convert_to_turn_based(pyspiel.load_game(openspiel_game.SHORT_NAME, {"players": 3}))
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    deal(state, rng)
    while not (state.current_player() == 2 and state.get_game().num_players() == 3 and _in_sale(state)):
        state.apply_action(int(rng.choice(state.legal_actions())))
    resample = openspiel_game.turn_based_resampler(seed=1)
    key = state.information_state_string(2)
    seen_choices = set()
    for _ in range(8):
        other = resample(state, 2)
        assert other.current_player() == 2
        assert other.information_state_string(2) == key
        seen_choices.add(tuple(other.history()[-2:]))
    assert len(seen_choices) > 1  # seats 0 and 1's hidden choices are redrawn


def _in_sale(state) -> bool:
    engine, _ = openspiel_game.replay_turn_based(state)
    return engine is not None and engine.phase == "sale"


def test_ismcts_plays_through_convert_to_turn_based():
    game = pyspiel.convert_to_turn_based(pyspiel.load_game(openspiel_game.SHORT_NAME, {"players": 3}))
    rs = np.random.RandomState(1)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs), uct_c=2.0, max_simulations=10, random_state=rs
    )
    bot.set_resampler(openspiel_game.turn_based_resampler(seed=2))
    for _ in range(2):
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rs.choice(outcomes, p=probs)))
            elif state.current_player() == 0:
                action = bot.step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
                decisions += 1
            else:
                state.apply_action(int(rs.choice(state.legal_actions())))
        assert decisions >= 8  # at least its 8 sale choices
        assert sum(state.returns()) == pytest.approx(1.0)
