"""The observation encoding of :mod:`forsale.envs.encoding`, computed for many games at once.

:class:`~forsale.envs.encoding.Encoding` builds one seat's vector from its
:class:`~forsale.view.View`. Building a ``View`` per game per step is what
keeps the one-game environments at a few thousand steps a second, so the
vector environments compute the same vectors straight from the lockstep
arrays of :class:`forsale.sim.step.Games`, with a fixed number of numpy
operations per batch. The vectors are the same to the bit (the tests
compare them with ``Encoding.observe(view(state, seat))`` on the engine
state rebuilt from each game's record), and they hold only what the seat's
view holds: every input below is public or the seat's own (``hands``,
coins and bids are deducible from the public history, and no other seat's
unrevealed sale is ever read: observations are taken when no seat of the
game has chosen yet in the sale round).

Values that are not 0, 1/2 or 1 (coins / starting coins and the like) come
from lookup tables filled with ``float32(k / scale)`` exactly as
``Encoding`` computes them, so no float32 rounding can differ.
"""

from __future__ import annotations

import numpy as np

from ..sim.step import ALL_HOUSES, AUCTION, SALE, Games
from .encoding import SEAT_FEATURES, Encoding


def _lut(top: int, scale: float) -> np.ndarray:
    return np.array([k / scale for k in range(top + 1)], dtype=np.float32)


class VectorEncoding:
    """Observations and action masks of chosen seats of chosen games, as ``(m, obs_size)`` / ``(m, num_actions)``."""

    def __init__(self, encoding: Encoding) -> None:
        self.encoding = encoding
        rules = encoding.rules
        self.n, self.rounds, self.max_bid = rules.players, rules.rounds, encoding.max_bid
        self.obs_size, self.num_actions = encoding.obs_size, encoding.num_actions
        self.at = {sl.name: sl.start for sl in encoding.slices}
        coins = float(max(1, rules.starting_coins))
        self._coins = _lut(rules.starting_coins, coins)
        self._rounds = _lut(self.rounds, float(self.rounds))
        self._cheques = _lut(15 * self.rounds, float(15 * self.rounds))
        self._phase = np.eye(3, dtype=np.float32)
        self._bid_ids = np.arange(1, self.max_bid + 1)

    def observe(self, games: Games, idx: np.ndarray, seat: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of seat ``seat[j]`` in game ``idx[j]`` for every ``j``: what ``Encoding.observe`` gives.

        Only valid when no seat of these games has chosen in the current
        sale round (true whenever the vector environments observe).
        """
        n, at = self.n, self.at
        m = len(idx)
        if out is None:
            out = np.empty((m, self.obs_size), dtype=np.float32)
        phase = games.phase[idx]
        rnd = games.round[idx]
        auction = phase == AUCTION
        sale = phase == SALE
        rel = (seat[:, None] + np.arange(n)) % n  # (m, n): the seats in relative order, me first
        hands = np.take_along_axis(games.hands[idx], rel, axis=1)
        won = np.take_along_axis(games.won[idx], rel, axis=1)
        auction_revealed = np.where(auction, rnd + 1, self.rounds)
        sale_revealed = np.where(auction, 0, np.where(sale, rnd + 1, self.rounds))

        # Every mask-valued slice in one unpack: 30-bit house masks, then 16+16-bit cheque two-masks.
        words = np.empty((m, 5 + 2 * n), dtype=np.uint32)
        words[:, 0] = hands[:, 0]
        words[:, 1] = games.table[idx] * auction
        words[:, 2] = ALL_HOUSES & ~games.seen[idx, auction_revealed - 1]
        words[:, 3 : 3 + n] = hands
        words[:, 3 + n] = games.cheque_words[idx, rnd] * sale
        words[:, 4 + n] = games.unseen_cheques[idx, sale_revealed]
        words[:, 5 + n :] = won
        bits = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little").reshape(m, 5 + 2 * n, 32)
        houses = bits[:, :, :30]
        cheques = (bits[:, 3 + n :, :16] + bits[:, 3 + n :, 16:]) * np.float32(0.5)

        out[:, at["phase"] : at["phase"] + 3] = self._phase[phase]
        out[:, at["progress"]] = self._rounds[auction_revealed]
        out[:, at["progress"] + 1] = self._rounds[sale_revealed]
        out[:, at["hand"] : at["hand"] + 30] = houses[:, 0]
        out[:, at["my_commit"] : at["my_commit"] + 30] = 0.0
        out[:, at["table_houses"] : at["table_houses"] + 30] = houses[:, 1]
        out[:, at["table_cheques"] : at["table_cheques"] + 16] = cheques[:, 0]
        out[:, at["unseen_houses"] : at["unseen_houses"] + 30] = houses[:, 2]
        out[:, at["unseen_cheques"] : at["unseen_cheques"] + 16] = cheques[:, 1]
        out[:, at["high_bid"]] = self._coins[games.high[idx] * auction]

        k = len(SEAT_FEATURES)
        per_seat = out[:, at["seats"] : at["seats"] + n * k].reshape(m, n, k)
        per_seat[:, :, 0] = self._coins[np.take_along_axis(games.coins[idx], rel, axis=1)]
        per_seat[:, :, 1] = self._coins[np.take_along_axis(games.bids[idx], rel, axis=1) * auction[:, None]]
        per_seat[:, :, 2] = ((games.active[idx][:, None] >> rel) & 1) * auction[:, None]
        per_seat[:, :, 3] = (rel == games.turn[idx][:, None]) & auction[:, None] | sale[:, None]
        per_seat[:, :, 4] = 0.0
        per_seat[:, :, 5] = rel == games.first[idx][:, None]
        per_seat[:, :, 6] = self._rounds[houses[:, 3 : 3 + n].sum(axis=2)]
        per_seat[:, :, 7] = self._cheques[np.take_along_axis(games.won_total[idx], rel, axis=1)]
        out[:, at["hands"] : at["hands"] + 30 * n] = houses[:, 3 : 3 + n].reshape(m, 30 * n)
        out[:, at["cheques_won"] : at["cheques_won"] + 16 * n] = cheques[:, 2:].reshape(m, 16 * n)
        return out

    def masks(self, games: Games, idx: np.ndarray, seat: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``(m, num_actions)`` int8: 1 where the action is legal for seat ``seat[j]`` in game ``idx[j]``.

        In an auction only the seat to act has legal actions (pass, and every
        bid above the high bid up to its coins); in a sale round every seat
        has one per house it holds (no seat has chosen yet).
        """
        m = len(idx)
        if out is None:
            out = np.empty((m, self.num_actions), dtype=np.int8)
        phase = games.phase[idx]
        bidder = (phase == AUCTION) & (games.turn[idx] == seat)
        coins = games.coins[idx, seat]
        high = games.high[idx]
        c = self.max_bid
        out[:, 0] = bidder
        out[:, 1 : c + 1] = bidder[:, None] & (self._bid_ids > high[:, None]) & (self._bid_ids <= coins[:, None])
        hand = games.hands[idx, seat] * (phase == SALE)
        out[:, c + 1 :] = np.unpackbits(hand.view(np.uint8).reshape(m, 4), axis=1, bitorder="little")[:, :30]
        return out

