"""Environment speed: steps per second for each research adapter (4 players, official rules).

- ``pettingzoo-aec``: PettingZoo's own ``performance_benchmark`` (random masked
  actions, ``env.last()`` observed before every step; it runs 5 seconds);
- ``pettingzoo-parallel``: one ``step`` with every live agent's masked random action;
- ``gymnasium``: learner steps against 3 ``random`` bots (their moves happen inside ``step``);
- ``openspiel``: ``apply_action``/``apply_actions`` on ``python_for_sale``, chance
  nodes included, with the current player's observation tensor read at every
  decision (what a learner pays for);
- ``openspiel-turn-based``: the same through ``pyspiel.convert_to_turn_based``;
- ``encoding``: ``view()`` + ``Encoding.observe()`` alone, the shared cost of all of them.

Run: ``python bench/envs.py [--seconds S]``. Each line ends ``<adapter> steps_per_s N``.

``--ismcts-games G`` also plays G 3-player games of OpenSpiel's Python
ISMCTS (through ``convert_to_turn_based`` and our resampler, random-rollout
evaluator, ``--ismcts-sims`` simulations a move) in seat 0 against two
uniformly random players, and prints its win share (1/3 is chance level).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import re
import time

import numpy as np


def pettingzoo_aec() -> float:
    from pettingzoo.test import performance_benchmark

    from forsale.envs import pettingzoo_env

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        performance_benchmark(pettingzoo_env.env(players=4))
    match = re.search(r"([\d.]+) turns per second", out.getvalue())
    assert match, out.getvalue()
    return float(match.group(1))


def pettingzoo_parallel(seconds: float) -> float:
    from forsale.envs import pettingzoo_env

    env = pettingzoo_env.parallel_env(players=4)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = {}
        for agent, o in obs.items():
            legal = np.flatnonzero(o["action_mask"])
            actions[agent] = int(rng.choice(legal)) if len(legal) else 0
        obs, _, terms, _, _ = env.step(actions)
        steps += 1
        if any(terms.values()):
            obs, _ = env.reset()
    return steps / (time.perf_counter() - start)


def gymnasium_env(seconds: float) -> float:
    from forsale.envs.gym_env import ForSaleEnv

    env = ForSaleEnv(players=4, opponents="random")
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
        if done:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - start)


def openspiel(seconds: float, turn_based: bool) -> float:
    import pyspiel

    from forsale.envs import openspiel_game

    game = pyspiel.load_game(openspiel_game.SHORT_NAME, {"players": 4, "rules": "official"})
    if turn_based:
        game = pyspiel.convert_to_turn_based(game)
    rng = random.Random(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            player = state.current_player()
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            elif player == pyspiel.PlayerId.SIMULTANEOUS:
                state.observation_tensor(0)
                state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(4)])
            else:
                if not turn_based:
                    state.observation_tensor(player)
                else:
                    state.information_state_tensor(player)
                state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps / (time.perf_counter() - start)


def encoding(seconds: float) -> float:
    from forsale import new_game, view
    from forsale.envs import Encoding

    rng = random.Random(0)
    positions = []
    game = new_game(4, rng=rng)
    while not game.is_over:
        for seat in game.seats_to_act():
            positions.append((game.clone(), seat))
            game.push(seat, rng.choice(game.legal_actions(seat)))
    enc = Encoding(game.rules)
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for state, seat in positions:
            enc.observe(view(state, seat))
        count += len(positions)
    return count / (time.perf_counter() - start)


def ismcts_vs_random(games: int, sims: int) -> tuple[float, float]:
    """ISMCTS's share of wins in seat 0 against two uniform random seats, and seconds per ISMCTS move."""
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    from forsale.envs import openspiel_game

    game = pyspiel.convert_to_turn_based(pyspiel.load_game(openspiel_game.SHORT_NAME, {"players": 3}))
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, max_simulations=sims, random_state=rs)
    bot.set_resampler(openspiel_game.turn_based_resampler(seed=0))
    won, moves, thinking = 0.0, 0, 0.0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rs.choice(outcomes, p=probs)))
            elif state.current_player() == 0:
                start = time.perf_counter()
                state.apply_action(bot.step(state))
                thinking += time.perf_counter() - start
                moves += 1
            else:
                state.apply_action(int(rs.choice(state.legal_actions())))
        won += state.returns()[0]
    return won / games, thinking / max(1, moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=5.0, help="time per adapter (PettingZoo's AEC benchmark always takes 5)"
    )
    parser.add_argument("--ismcts-games", type=int, default=0, help="also play this many ISMCTS-vs-random games")
    parser.add_argument("--ismcts-sims", type=int, default=50, help="ISMCTS simulations per move")
    parser.add_argument("--only-ismcts", action="store_true", help="skip the speed measurements")
    args = parser.parse_args()
    if args.ismcts_games:
        share, per_move = ismcts_vs_random(args.ismcts_games, args.ismcts_sims)
        print(
            f"envs ismcts sims={args.ismcts_sims} games={args.ismcts_games} "
            f"win_share {share:.3f} s_per_move {per_move:.2f} (chance level 0.333)"
        )
    if args.only_ismcts:
        return
    results = [
        ("encoding", encoding(args.seconds)),
        ("pettingzoo-aec", pettingzoo_aec()),
        ("pettingzoo-parallel", pettingzoo_parallel(args.seconds)),
        ("gymnasium", gymnasium_env(args.seconds)),
        ("openspiel", openspiel(args.seconds, turn_based=False)),
        ("openspiel-turn-based", openspiel(args.seconds, turn_based=True)),
    ]
    for name, rate in results:
        print(f"envs {name} steps_per_s {rate:.0f}")


if __name__ == "__main__":
    main()
