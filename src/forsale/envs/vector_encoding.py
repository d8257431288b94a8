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
``Encoding`` computes them, so no float32 rounding can differ. Masks of
houses and words of cheque counts decode a byte at a time through tables
of float32 rows (8 house bits, or 4 cheque counts / 2, per byte): one
gather yields final values, where unpacking bits and casting them cost
twice the memory traffic (measured).
"""

from __future__ import annotations

import numpy as np

from ..sim.step import ALL_HOUSES, AUCTION, SALE, Games
from .encoding import SEAT_FEATURES, Encoding


def _lut(top: int, scale: float) -> np.ndarray:
    return np.array([k / scale for k in range(top + 1)], dtype=np.float32)


_BYTES = np.arange(256)
_HOUSE_BITS = ((_BYTES[:, None] >> np.arange(8)) & 1).astype(np.float32)  # byte -> its 8 bits
_HOUSE_BITS_I8 = _HOUSE_BITS.astype(np.int8)
_HALF_COUNTS = (((_BYTES[:, None] >> (2 * np.arange(4))) & 3) * 0.5).astype(np.float32)  # byte -> 4 counts / 2
_BID_TABLE_LIMIT = 1 << 20


class VectorEncoding:
    """Observations and action masks of chosen seats of chosen games, as ``(m, obs_size)`` / ``(m, num_actions)``.

    ``idx=None`` means every game in row order (no gathers: the common case).
    """

    def __init__(self, encoding: Encoding) -> None:
        self.encoding = encoding
        rules = encoding.rules
        self.n, self.rounds, self.max_bid = rules.players, rules.rounds, encoding.max_bid
        self.obs_size, self.num_actions = encoding.obs_size, encoding.num_actions
        self.at = {sl.name: sl.start for sl in encoding.slices}
        c = rules.starting_coins
        self._coins = _lut(c, float(max(1, c)))
        self._rounds = _lut(self.rounds, float(self.rounds))
        self._cheques = _lut(15 * self.rounds, float(15 * self.rounds))
        self._phase = np.eye(3, dtype=np.float32)
        self._rel = np.arange(self.n)
        self._bid_ids = np.arange(1, c + 1)
        # Legal bids by (high, coins) for the bidder (row (c + 1)**2: not the bidder), when the table is small.
        self._bids: np.ndarray | None = None
        if (c + 1) ** 2 * c <= _BID_TABLE_LIMIT:
            high, coins = np.divmod(np.arange((c + 1) ** 2), c + 1)
            table = np.zeros(((c + 1) ** 2 + 1, c + 1), dtype=np.int8)
            table[:-1, 0] = 1
            table[:-1, 1:] = (self._bid_ids > high[:, None]) & (self._bid_ids <= coins[:, None])
            self._bids = table

    def observe(
        self, games: Games, idx: np.ndarray | None, seat: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray:
        """The observation of seat ``seat[j]`` in game ``idx[j]`` for every ``j``: what ``Encoding.observe`` gives.

        Only valid when no seat of these games has chosen in the current
        sale round (true whenever the vector environments observe).
        """
        n, at, rounds = self.n, self.at, self.rounds
        rows = np.arange(games.size) if idx is None else idx
        m = rows.size

        def get(a: np.ndarray) -> np.ndarray:
            return a if idx is None else a[idx]

        if out is None:
            out = np.empty((m, self.obs_size), dtype=np.float32)
        phase = get(games.phase)
        rnd = get(games.round)
        auction = phase == AUCTION
        sale = phase == SALE
        rel = seat[:, None] + self._rel
        rel[rel >= n] -= n  # (m, n): the seats in relative order, me first
        flat = rel + (rows * n)[:, None]
        hands = np.take(games.hands, flat)
        auction_revealed = np.where(auction, rnd + 1, rounds)
        sale_revealed = np.where(auction, 0, np.where(sale, rnd + 1, rounds))

        # House masks: my hand, the table, the unseen houses, then every hand in relative order.
        words = np.empty((m, 3 + n), dtype=np.uint32)
        words[:, 0] = hands[:, 0]
        words[:, 1] = get(games.table) * auction
        words[:, 2] = ALL_HOUSES & ~np.take(games.seen, rows * rounds + auction_revealed - 1)
        words[:, 3:] = hands
        houses = np.take(_HOUSE_BITS, words.view(np.uint8), axis=0).reshape(m, 3 + n, 32)
        # Cheque counts: the table, the unseen cheques, then everyone's cheques in relative order.
        counts = np.empty((m, 2 + n), dtype=np.uint32)
        counts[:, 0] = np.take(games.cheque_words, rows * rounds + rnd) * sale
        counts[:, 1] = np.take(games.unseen_cheques, rows * (rounds + 1) + sale_revealed)
        counts[:, 2:] = np.take(games.won, flat)
        cheques = np.take(_HALF_COUNTS, counts.view(np.uint8), axis=0).reshape(m, 2 + n, 16)

        out[:, at["phase"] : at["phase"] + 3] = self._phase[phase]
        out[:, at["progress"]] = self._rounds[auction_revealed]
        out[:, at["progress"] + 1] = self._rounds[sale_revealed]
        out[:, at["hand"] : at["hand"] + 30] = houses[:, 0, :30]
        out[:, at["my_commit"] : at["my_commit"] + 30] = 0.0
        out[:, at["table_houses"] : at["table_houses"] + 30] = houses[:, 1, :30]
        out[:, at["table_cheques"] : at["table_cheques"] + 16] = cheques[:, 0]
        out[:, at["unseen_houses"] : at["unseen_houses"] + 30] = houses[:, 2, :30]
        out[:, at["unseen_cheques"] : at["unseen_cheques"] + 16] = cheques[:, 1]
        out[:, at["high_bid"]] = self._coins[get(games.high) * auction]

        k = len(SEAT_FEATURES)
        per_seat = out[:, at["seats"] : at["seats"] + n * k].reshape(m, n, k)
        in_auction = auction[:, None]
        per_seat[:, :, 0] = self._coins[np.take(games.coins, flat)]
        per_seat[:, :, 1] = self._coins[np.take(games.bids, flat) * in_auction]
        still_in = ((get(games.active)[:, None] >> rel) & 1) * in_auction
        per_seat[:, :, 2] = still_in
        per_seat[:, :, 3] = (rel == get(games.turn)[:, None]) & in_auction | sale[:, None]
        per_seat[:, :, 4] = 0.0
        per_seat[:, :, 5] = rel == get(games.first)[:, None]
        # Houses held: one per auction round before this one, plus this round's once passed; one fewer per sale.
        held = np.where(auction, rnd + 1, np.where(sale, rounds - rnd, 0))[:, None] - still_in
        per_seat[:, :, 6] = self._rounds[held]
        per_seat[:, :, 7] = self._cheques[np.take(games.won_total, flat)]
        out[:, at["hands"] : at["hands"] + 30 * n].reshape(m, n, 30)[:] = houses[:, 3:, :30]
        out[:, at["cheques_won"] : at["cheques_won"] + 16 * n] = cheques[:, 2:].reshape(m, 16 * n)
        return out

    def masks(
        self, games: Games, idx: np.ndarray | None, seat: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray:
        """``(m, num_actions)`` int8: 1 where the action is legal for seat ``seat[j]`` in game ``idx[j]``.

        In an auction only the seat to act has legal actions (pass, and every
        bid above the high bid up to its coins); in a sale round every seat
        has one per house it holds (no seat has chosen yet).
        """
        rows = np.arange(games.size) if idx is None else idx
        m, n, c = rows.size, self.n, self.max_bid
        if out is None:
            out = np.empty((m, self.num_actions), dtype=np.int8)
        phase, turn, high = games.phase[rows], games.turn[rows], games.high[rows]
        bidder = (phase == AUCTION) & (turn == seat)
        coins = np.take(games.coins, rows * n + seat)
        if self._bids is not None:
            key = np.where(bidder, high * (c + 1) + coins, (c + 1) ** 2)
            out[:, : c + 1] = np.take(self._bids, key, axis=0)
        else:
            out[:, 0] = bidder
            out[:, 1 : c + 1] = bidder[:, None] & (self._bid_ids > high[:, None]) & (self._bid_ids <= coins[:, None])
        hand = np.take(games.hands, rows * n + seat) * (phase == SALE)
        out[:, c + 1 :] = np.take(_HOUSE_BITS_I8, hand.view(np.uint8), axis=0).reshape(m, 32)[:, :30]
        return out
