"""Engine speed: random 4-player games per second through the public API.

Random legal play as in ``shared/bench/limit.c``: a seat that can raise bids
the high bid plus one with probability 1/2, else passes; in a sale round each
seat sells a uniformly random house from its hand. Also measures state copies
plus one applied action per second (the inner step of tree search).

Run: ``python bench/engine.py [--games N] [--repeat R] [--seed S]``. The
games are played in R equal batches timed separately; like ``timeit``, the
rate reported is the best batch's (noise from other processes only ever slows
a batch down), with the median beside it. The last line is
``engine games_per_s N``.
"""

from __future__ import annotations

import argparse
import random
import time

from forsale import PASS, bid, new_game
from forsale.state import AUCTION, SALE


def random_game(rng: random.Random):
    """One complete random 4-player game, through the public API only."""
    game = new_game(4, rng=rng)
    push = game.push
    can_raise = game.can_raise
    draw = rng.random
    while game.phase is AUCTION:
        seat = game.turn
        push(seat, bid(game.high + 1) if can_raise(seat) and draw() < 0.5 else PASS)
    hands = game.hands
    while game.phase is SALE:
        game.push_sale([hand[int(draw() * len(hand))] for hand in hands])
    return game


def games_per_second(games: int, seed: int) -> float:
    rng = random.Random(seed)
    start = time.perf_counter()
    for _ in range(games):
        random_game(rng)
    return games / (time.perf_counter() - start)


def batches(games: int, repeat: int, seed: int) -> list[float]:
    """Rates of ``repeat`` batches of ``games // repeat`` games, each from its own seed."""
    return [games_per_second(games // repeat, seed + i) for i in range(repeat)]


def copies_per_second(copies: int, seed: int) -> float:
    """Clone a mid-auction state and apply one legal action to the copy, ``copies`` times."""
    rng = random.Random(seed)
    game = new_game(4, rng=rng)
    for _ in range(5):
        game.push(game.turn, PASS if not game.can_raise(game.turn) else bid(game.high + 1))
    seat = game.turn
    action = game.legal_actions(seat)[-1]
    start = time.perf_counter()
    for _ in range(copies):
        game.clone().push(seat, action)
    return copies / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rates = sorted(batches(args.games, args.repeat, args.seed))
    copy_rate = max(copies_per_second(args.games, args.seed + i) for i in range(args.repeat))
    print(f"random 4-player games: {args.repeat} batches of {args.games // args.repeat}")
    print(f"  games/s per batch: {', '.join(f'{r:.0f}' for r in rates)} (median {rates[len(rates) // 2]:.0f})")
    print(f"engine copies_plus_apply_per_s {copy_rate:.0f}")
    print(f"engine games_per_s {rates[-1]:.0f}")


if __name__ == "__main__":
    main()
