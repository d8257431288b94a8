"""Environment speed: steps per second for each research adapter (4 players, official rules).

- ``pettingzoo-aec``: PettingZoo's own ``performance_benchmark`` (random masked
  actions, ``env.last()`` observed before every step; it runs 5 seconds);
- ``pettingzoo-parallel``: one ``step`` with every live agent's masked random action;
- ``gymnasium``: learner steps against 3 ``random`` bots (their moves happen inside ``step``);
- ``openspiel``: ``apply_action``/``apply_actions`` on ``python_for_sale``, chance
  nodes included, with the current player's observation tensor read at every
  decision (what a learner pays for);
- ``openspiel-turn-based``: the same through ``pyspiel.convert_to_turn_based``;
- ``encoding``: ``view()`` + ``Encoding.observe()`` alone, the shared cost of all of them;
- ``vector B=…``: learner steps of the batched ``ForSaleVectorEnv`` (one
  learner per game against 3 ``random`` policies, uniformly random masked
  actions drawn with numpy, observation and mask returned every step) at
  each batch size of ``--batch-sizes``; also per CPU second of this process
  (``cpu_steps_per_s``), which a shared machine disturbs less than the wall
  clock, and the ratio to the ``gymnasium`` adapter measured in the same run;
- ``vector-selfplay B=…``: steps of ``ForSaleSelfPlay`` (every seat a
  learner, observations of all seats every step) at the largest batch size.

Run: ``python bench/envs.py [--seconds S] [--only vector,gymnasium] [--batch-sizes 64,1024,16384]``.
Each line ends ``<adapter> steps_per_s N``.

``--ismcts-games G`` also plays G 3-player games of OpenSpiel's Python
ISMCTS (through ``convert_to_turn_based`` and our resampler, random-rollout
evaluator, ``--ismcts-sims`` simulations a move) in seat 0 against two
uniformly random players, and prints its win share (1/3 is chance level).
"""

from __future__ import annotations

import os

# One core: keep any threaded numpy backend on a single thread (set before numpy loads).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402


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


def masked_random(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action for every row of ``mask`` (``(..., A)``), vectorised."""
    legal = mask.sum(axis=-1)
    pick = (rng.random(legal.shape) * legal).astype(np.int64)
    return (np.cumsum(mask, axis=-1) > pick[..., None]).argmax(axis=-1)


def vector_env(seconds: float, batch: int, selfplay: bool = False) -> tuple[float, float]:
    """Steps per wall-clock second and per CPU second of this process (after a short warm-up)."""
    from forsale.envs.vector import ForSaleSelfPlay, ForSaleVectorEnv

    env = ForSaleSelfPlay(batch, players=4) if selfplay else ForSaleVectorEnv(batch, players=4, opponents="random")
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    for _ in range(5):
        obs, *_ = env.step(masked_random(obs["action_mask"], rng))
    steps, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        obs, *_ = env.step(masked_random(obs["action_mask"], rng))
        steps += batch
    return steps / (time.perf_counter() - start), steps / max(1e-9, time.process_time() - cpu)


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
    parser.add_argument(
        "--only", default="", help="comma-separated adapters to measure (default: all), e.g. vector,gymnasium"
    )
    parser.add_argument(
        "--batch-sizes", default="64,256,1024,4096,16384", help="batch sizes of the vector adapter, comma-separated"
    )
    args = parser.parse_args()
    if args.ismcts_games:
        share, per_move = ismcts_vs_random(args.ismcts_games, args.ismcts_sims)
        print(
            f"envs ismcts sims={args.ismcts_sims} games={args.ismcts_games} "
            f"win_share {share:.3f} s_per_move {per_move:.2f} (chance level 0.333)"
        )
    if args.only_ismcts:
        return
    only = set(filter(None, args.only.split(",")))
    sizes = [int(b) for b in args.batch_sizes.split(",")]
    adapters = {
        "encoding": lambda: encoding(args.seconds),
        "pettingzoo-aec": pettingzoo_aec,
        "pettingzoo-parallel": lambda: pettingzoo_parallel(args.seconds),
        "gymnasium": lambda: gymnasium_env(args.seconds),
        "openspiel": lambda: openspiel(args.seconds, turn_based=False),
        "openspiel-turn-based": lambda: openspiel(args.seconds, turn_based=True),
    }
    unknown = only - set(adapters) - {"vector", "vector-selfplay"}
    if unknown:
        parser.error(f"unknown adapters: {', '.join(sorted(unknown))}")
    gym_rate = None
    for name, measure in adapters.items():
        if not only or name in only:
            rate = measure()
            gym_rate = rate if name == "gymnasium" else gym_rate
            print(f"envs {name} steps_per_s {rate:.0f}", flush=True)
    if not only or "vector" in only:
        for batch in sizes:
            wall, cpu = vector_env(args.seconds, batch)
            ratio = f" x{wall / gym_rate:.0f}_gymnasium" if gym_rate else ""
            print(f"envs vector B={batch} cpu_steps_per_s {cpu:.0f}{ratio} steps_per_s {wall:.0f}", flush=True)
    if not only or "vector-selfplay" in only:
        wall, cpu = vector_env(args.seconds, max(sizes), selfplay=True)
        print(f"envs vector-selfplay B={max(sizes)} cpu_steps_per_s {cpu:.0f} steps_per_s {wall:.0f}")


if __name__ == "__main__":
    main()
