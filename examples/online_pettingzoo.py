"""A policy trained in the PettingZoo environment, playing people online through ``forsale.client``.

The policy is deliberately tiny: a linear layer from the environment's observation to its action logits, masked
to the legal actions, improved for a few rounds by random search (keep a perturbation of the weights if it wins
more against the random bot in ``forsale.envs``' AEC environment). What matters here is the path: the *same*
``act(view)`` that plays in the environment plays online, because :mod:`forsale.client` decodes the server's
views into the engine's :class:`~forsale.view.View`, and the environment's :class:`~forsale.envs.encoding.Encoding`
turns a View into the observation and an action index back into an action.

    pip install 'forsale[rl,client]'
    FORSALE_TOKEN=fsb_... python examples/online_pettingzoo.py --server https://forsale.example --players 2

It then accepts challenges for ``--players``-player tables (declining others), plays ``--games`` games (or until
Ctrl-C), and prints one line per game. See docs/bot-api.md for the bot account and its token.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random

import numpy as np

from forsale.actions import Action
from forsale.client import BotClient, run_bot
from forsale.client.runner import Acceptance
from forsale.envs.encoding import Encoding, ruleset
from forsale.envs.pettingzoo_env import env as make_env
from forsale.view import View


class LinearPolicy:
    """Masked linear logits over the environment's action ids; greedy when it plays."""

    def __init__(self, players: int, rng: np.random.Generator, scale: float = 0.1) -> None:
        self.encoding = Encoding(ruleset(players))
        self.weights = rng.normal(0.0, scale, (self.encoding.obs_size, self.encoding.num_actions)).astype(np.float32)

    def action_id(self, observation: np.ndarray, mask: np.ndarray) -> int:
        logits = observation @ self.weights
        return int(np.argmax(np.where(mask.astype(bool), logits, -np.inf)))

    def act(self, view: View) -> Action:
        """What plays online: the engine's View in, the engine's Action out (via the environment's encoding)."""
        return self.encoding.action(self.action_id(self.encoding.observe(view), self.encoding.mask(view)))


def win_share(policy: LinearPolicy, players: int, episodes: int, seed: int) -> float:
    """How often ``policy`` at seat 0 wins against random seats in the PettingZoo AEC environment."""
    env = make_env(players=players)
    rng = random.Random(seed)
    total = 0.0
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        for agent in env.agent_iter():
            observation, reward, done, truncated, _ = env.last()
            if done or truncated:
                if agent == "seat_0":
                    total += reward
                env.step(None)
                continue
            mask = observation["action_mask"]
            if agent == "seat_0":
                env.step(policy.action_id(observation["observation"], mask))
            else:
                env.step(rng.choice(np.flatnonzero(mask).tolist()))
    return total / episodes


def train(players: int, rounds: int, episodes: int, seed: int) -> LinearPolicy:
    """Random search: keep a perturbed copy of the weights when it wins more often."""
    rng = np.random.default_rng(seed)
    best = LinearPolicy(players, rng)
    best_share = win_share(best, players, episodes, seed)
    for r in range(rounds):
        trial = LinearPolicy(players, rng)
        trial.weights = best.weights + rng.normal(0.0, 0.05, best.weights.shape).astype(np.float32)
        share = win_share(trial, players, episodes, seed)
        if share >= best_share:
            best, best_share = trial, share
        print(f"round {r + 1}/{rounds}: win share {best_share:.2f} against random bots")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--token", default=os.environ.get("FORSALE_TOKEN"), help="default: $FORSALE_TOKEN")
    parser.add_argument("--players", type=int, default=2, help="the table size it trains for and accepts")
    parser.add_argument("--rounds", type=int, default=3, help="random-search rounds")
    parser.add_argument("--episodes", type=int, default=10, help="games per evaluation")
    parser.add_argument("--games", type=int, help="stop after this many online games")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not args.token:
        parser.error("give the bot account's API token with --token or $FORSALE_TOKEN")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    policy = train(args.players, args.rounds, args.episodes, args.seed)

    async def play() -> None:
        async with BotClient(args.server, args.token) as client:
            me = await client.account()
            print(f"online as {me['account']['name']}")
            acceptance = Acceptance(players=frozenset({args.players}))
            await run_bot(client, policy.act, acceptance=acceptance, games=args.games)

    asyncio.run(play())


if __name__ == "__main__":
    main()
