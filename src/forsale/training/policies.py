"""A parametric population of vectorised players on :class:`forsale.sim.step.Games`.

The value model learns what a position is worth *under the play it was
trained on*, so that play must be varied: a model fitted to one policy's
self-play learns that policy's habits. Every seat of every game therefore
draws its own parameters when the game is dealt, from families that cover
how people and the project's bots play:

- **bidding**: raise while the new bid is at most ``gap * (top - bottom) +
  top_weight * top + coin * coins + pace * coins / auction rounds left +
  bias`` (+ noise per decision), where ``top``/``bottom`` are the highest
  and lowest houses left on the table: value-gap rules (pass quickly when
  the houses are close), thresholds on the top house, a share of the coins
  held, spending paced over the rounds left; raises by one or, sometimes,
  jumps; with a small chance, a random legal move;
- **selling**: a target quantile ``q`` of the hand (0 = lowest house, 1 =
  highest): lowest, highest, median, uniformly random, rank of the table's
  mean or top cheque among the cheques still to be paid out (cheque
  matching, keeping the best houses for the richest rounds), or the house
  nearest twice the mean cheque (the ``value`` baseline); plus noise on
  ``q`` and a small chance of a random house.

Everything read is public (the table, the seat's coins and bid, every
hand, the cheques seen); nothing reads the order of cards still to come.
Moves are legal by construction (``tests/training`` checks it by replaying
games through the engine).
"""

from __future__ import annotations

import numpy as np

from ..sim.step import Games

SALE_KINDS = ("lowest", "highest", "median", "random", "mean-cheque", "top-cheque", "value")
_SALE_WEIGHTS = np.array([0.08, 0.08, 0.08, 0.1, 0.3, 0.2, 0.16])
_VALUES = np.arange(16)


def highest_house(mask: np.ndarray) -> np.ndarray:
    """The highest house (1-30) in each non-empty mask."""
    return np.frexp(mask.astype(np.float64))[1].astype(np.int64)


def lowest_house(mask: np.ndarray) -> np.ndarray:
    """The lowest house (1-30) in each non-empty mask."""
    return highest_house(mask & (~mask + np.uint32(1)))


def sorted_hands(hands: np.ndarray) -> np.ndarray:
    """``(..., 30)`` int64: the houses of each mask ascending, then 99 for the empty places."""
    bits = (hands[..., None] >> np.arange(30, dtype=np.uint32)) & np.uint32(1)
    return np.sort(np.where(bits.astype(bool), np.arange(1, 31), 99), axis=-1)


def cheque_counts(words: np.ndarray) -> np.ndarray:
    """``(..., 16)`` int64: the 2-bit counts of each cheque word."""
    return ((words[..., None].astype(np.int64) >> (2 * _VALUES)) & 3).astype(np.int64)


class Population:
    """Per game and seat parameters of the players (rows follow :class:`Games`' rows)."""

    def __init__(self, size: int, players: int) -> None:
        shape = (size, players)
        self.gap = np.zeros(shape)
        self.top = np.zeros(shape)
        self.coin = np.zeros(shape)
        self.pace = np.zeros(shape)
        self.bias = np.zeros(shape)
        self.noise = np.zeros(shape)
        self.jump = np.zeros(shape)
        self.wild_bid = np.zeros(shape)
        self.sale_kind = np.zeros(shape, dtype=np.int64)
        self.sale_noise = np.zeros(shape)
        self.wild_sale = np.zeros(shape)

    def draw(self, idx: np.ndarray, rng: np.random.Generator) -> None:
        """New players for every seat of the games ``idx``."""
        shape = (len(idx), self.gap.shape[1])

        def some(p: float, lo: float, hi: float) -> np.ndarray:
            return rng.uniform(lo, hi, shape) * (rng.random(shape) < p)

        self.gap[idx] = some(0.75, 0.0, 0.8)
        self.top[idx] = some(0.3, 0.0, 0.4)
        self.coin[idx] = some(0.35, 0.0, 0.5)
        self.pace[idx] = some(0.35, 0.0, 1.5)
        self.bias[idx] = rng.uniform(-3.0, 1.5, shape)
        self.noise[idx] = rng.uniform(0.0, 2.0, shape)
        self.jump[idx] = some(0.5, 0.0, 0.3)
        self.wild_bid[idx] = some(0.5, 0.0, 0.1)
        self.sale_kind[idx] = rng.choice(len(SALE_KINDS), size=shape, p=_SALE_WEIGHTS)
        self.sale_noise[idx] = some(0.6, 0.0, 0.3)
        self.wild_sale[idx] = some(0.5, 0.0, 0.1)

    def auction(self, games: Games, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The new total bid (0 = pass) of the seat to act in each game ``idx`` (all in the auction phase)."""
        m = len(idx)
        turn = games.turn[idx]
        coins = games.coins[idx, turn]
        high = games.high[idx]
        table = games.table[idx]
        top = highest_house(table)
        bottom = lowest_house(table)
        left = games.rounds - games.round[idx]
        limit = (
            self.gap[idx, turn] * (top - bottom)
            + self.top[idx, turn] * top
            + self.coin[idx, turn] * coins
            + self.pace[idx, turn] * coins / left
            + self.bias[idx, turn]
            + rng.normal(0.0, 1.0, m) * self.noise[idx, turn]
        )
        step = 1 + (rng.random(m) < self.jump[idx, turn]) * rng.integers(1, 3, m)
        amount = np.where(high + step <= limit, high + step, 0)
        wild = rng.random(m) < self.wild_bid[idx, turn]
        amount = np.where(wild, (high + 1 + rng.integers(0, 3, m)) * (rng.random(m) < 0.5), amount)
        amount = np.minimum(amount, coins)
        return np.where(amount > high, amount, 0)

    def sale(self, games: Games, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``(len(idx), n)``: the house each seat sells in each game ``idx`` (all in the sale phase)."""
        m, n = len(idx), games.n
        rnd = games.round[idx]
        held = (games.rounds - rnd)[:, None]
        hands = sorted_hands(games.hands[idx])  # (m, n, 30) ascending, 99-padded
        table = games.round_cheques[idx, rnd]  # (m, n) ascending
        # The cheques still to be paid out: this table and the unseen ones (some of which are out of play).
        left = cheque_counts(games.unseen_cheques[idx, rnd + 1])
        left += (table[:, :, None] == _VALUES).sum(axis=1)
        total = left.sum(axis=1)

        def rank(x: np.ndarray) -> np.ndarray:
            return (left * (_VALUES < x[:, None])).sum(axis=1) / np.maximum(1, total - 1)

        mean = table.mean(axis=1)
        kind = self.sale_kind[idx]
        q = np.select(
            [kind == 0, kind == 1, kind == 2, kind == 3, kind == 4, kind == 5],
            [0.0, 1.0, 0.5, rng.random((m, n)), rank(mean)[:, None], rank(table[:, -1].astype(np.float64))[:, None]],
            default=-1.0,
        )
        q = q + rng.normal(0.0, 1.0, (m, n)) * self.sale_noise[idx]
        q = np.where(rng.random((m, n)) < self.wild_sale[idx], rng.random((m, n)), q)
        slot = np.rint(np.clip(q, 0.0, 1.0) * (held - 1)).astype(np.int64)
        # ``value``: the house nearest twice the mean cheque (ties to the lower house).
        cost = np.abs(hands - 2 * mean[:, None, None]) * 64 + hands
        slot = np.where(kind == 6, cost.argmin(axis=2), slot)
        return np.take_along_axis(hands, slot[:, :, None], axis=2)[:, :, 0]
