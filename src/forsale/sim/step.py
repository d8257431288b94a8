"""A steppable lockstep core: ``B`` games on arrays, advanced one move at a time.

:func:`forsale.sim.batch.play` runs whole games to the end and is shaped for
that (lanes compacted as games finish, the sale phase played for a whole
chunk at once). A learning environment needs something else: every game
stopped at the learner's decision, any subset of games moved by one move,
finished games dealt again in place. :class:`Games` is that: a structure of
arrays, one row per game, where :meth:`Games.auction` applies one bid or
pass to any subset of games in the auction phase and :meth:`Games.sale` one
whole sale round to any subset in the sale phase. No Python loop runs per
game.

Compact on purpose, because every learner step reads it: hands, the houses
left on the table and the seen houses are 30-bit masks (bit ``h - 1`` for
house ``h``); cheque collections are 32-bit words of 2-bit counts (bits
``2v, 2v + 1`` count the cheques of value ``v``; the deck has two of each),
so that one byte of either kind decodes through a small lookup table.

The rules are the engine's (``forsale.state``), restated on arrays exactly:
a pass takes the lowest house left and pays its bid minus the refund, its
bid stays visible until the round ends; the last seat left pays its whole
bid, takes the last house and opens the next round; in a sale the k-th
lowest house takes the k-th lowest cheque. ``tests/envs/test_envs_vector*.py``
replay games through the engine move by move and demand identical states.

With ``record=True`` every move is kept so that :meth:`Games.record` can
export a game as a ``forsale-record/1`` record (the current one, finished
or not).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..actions import PASS, bid, move_to_json
from ..record import build_record
from ..rules import CHEQUES, Ruleset
from ..state import Deal
from .batch import MAX_COINS, _check_bids, _next_seat_table
from .deals import _CHEQUES, _HOUSES, shuffled_decks
from .policies import AuctionTurn, BatchPolicy, SaleTurn

AUCTION, SALE, OVER = 0, 1, 2
"""Values of :attr:`Games.phase`."""

ALL_HOUSES = (1 << 30) - 1
_DECK_WORD = int(sum(1 << (2 * c) for c in CHEQUES))


def cheque_words(cheques: np.ndarray) -> np.ndarray:
    """Cheque values ``(..., k)`` (no value more than twice) as one word of 2-bit counts per row (uint32)."""
    return (np.uint32(1) << (2 * cheques.astype(np.uint32))).sum(axis=-1, dtype=np.uint32)


def house_bits(houses: np.ndarray) -> np.ndarray:
    """Houses (1-30, any int dtype) as single-bit uint32 masks."""
    return np.left_shift(np.uint32(1), (houses.astype(np.uint32) - 1))


class Deals:
    """A seeded stream of whole-deck deals, drawn a block at a time (one Fisher-Yates run per block).

    Same generator state, same deals in the same order: an environment that
    deals again to whichever games finished stays reproducible from its seed.
    """

    def __init__(self, players: int, rng: np.random.Generator, block: int = 1024) -> None:
        self.players = players
        self.rng = rng
        self.block = block
        self._houses = np.zeros((0, 30), dtype=np.int8)
        self._cheques = np.zeros((0, 30), dtype=np.int8)
        self._first = np.zeros(0, dtype=np.int64)
        self._at = 0

    def take(self, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``count`` deals: houses and cheques ``(count, 30)`` in draw order, openers ``(count,)``."""
        if self._at + count > self._first.shape[0]:
            size = max(self.block, count)
            left = slice(self._at, None)
            self._houses = np.concatenate([self._houses[left], shuffled_decks(_HOUSES, size, self.rng).T])
            self._cheques = np.concatenate([self._cheques[left], shuffled_decks(_CHEQUES, size, self.rng).T])
            self._first = np.concatenate([self._first[left], self.rng.integers(0, self.players, size)])
            self._at = 0
        part = slice(self._at, self._at + count)
        self._at += count
        return self._houses[part], self._cheques[part], self._first[part]


class Games:
    """``B`` games of one ruleset as arrays (one row per game); see the module docstring.

    Public, read-only outside this class: ``phase``, ``round`` (within the
    phase), ``turn`` (auction), ``high``, ``coins`` and ``bids`` ``(B, n)``,
    ``active`` (bitmask of the seats still in this auction round),
    ``passed`` (passes this round), ``table`` (houses left, mask),
    ``hands`` ``(B, n)`` (masks), ``slots`` ``(B, n, R)`` (the same houses in
    no particular order: slot ``r`` gets the house taken in auction round
    ``r``, a sale moves the last held house into the sold one's slot),
    ``won`` ``(B, n)``
    (2-bit counts), ``won_total`` ``(B, n)``, ``first``; per deal: ``deck_houses`` and
    ``deck_cheques`` ``(B, 30)`` (whole shuffles: the first ``rules.cards``
    are in play, in draw order), ``round_houses`` and ``seen`` ``(B, R)``
    (each round's houses, and every house revealed up to it, as masks),
    ``round_cheques`` ``(B, R, n)`` (ascending), ``cheque_words``
    ``(B, R)`` and ``unseen_cheques`` ``(B, R + 1)`` (2-bit counts: each sale
    round's cheques, and the cheques not seen once ``k`` rounds are out).
    ``tables`` and ``cheque_tables`` ``(R, n, B)`` are the sorted rounds in
    :mod:`forsale.sim.policies`' layout.
    """

    def __init__(self, rules: Ruleset, size: int, *, record: bool = False) -> None:
        if rules.starting_coins > MAX_COINS:
            raise ValueError(f"the lockstep core handles up to {MAX_COINS} starting coins, not {rules.starting_coins}")
        if size < 1:
            raise ValueError(f"a batch needs at least one game, not {size}")
        n, rounds = rules.players, rules.rounds
        self.rules, self.n, self.rounds, self.size = rules, n, rounds, size
        self.phase = np.full(size, OVER, dtype=np.int8)
        self.round = np.zeros(size, dtype=np.int64)
        self.turn = np.zeros(size, dtype=np.int64)
        self.high = np.zeros(size, dtype=np.int64)
        self.coins = np.zeros((size, n), dtype=np.int64)
        self.bids = np.zeros((size, n), dtype=np.int64)
        self.active = np.zeros(size, dtype=np.int64)
        self.passed = np.zeros(size, dtype=np.int64)
        self.table = np.zeros(size, dtype=np.uint32)
        self.hands = np.zeros((size, n), dtype=np.uint32)
        self.slots = np.zeros((size, n, rounds), dtype=np.int64)
        self.won = np.zeros((size, n), dtype=np.uint32)
        self.won_total = np.zeros((size, n), dtype=np.int64)
        self.first = np.zeros(size, dtype=np.int64)
        self.deck_houses = np.zeros((size, 30), dtype=np.int8)
        self.deck_cheques = np.zeros((size, 30), dtype=np.int8)
        self.round_houses = np.zeros((size, rounds), dtype=np.uint32)
        self.seen = np.zeros((size, rounds), dtype=np.uint32)
        self.round_cheques = np.zeros((size, rounds, n), dtype=np.int64)
        self.cheque_words = np.zeros((size, rounds), dtype=np.uint32)
        self.unseen_cheques = np.zeros((size, rounds + 1), dtype=np.uint32)
        self.tables = np.zeros((rounds, n, size), dtype=np.int8)
        self.cheque_tables = np.zeros((rounds, n, size), dtype=np.int8)
        self._next_seat = _next_seat_table(n).astype(np.int64)
        self._full = (1 << n) - 1
        self._refund_up = 1 if rules.refund == "up" else 0
        self.recording = record
        if record:
            cap = rounds * (rules.starting_coins + n - 1) + 1
            self.moves = np.zeros((size, cap), dtype=np.int64)  # amount * 8 + seat
            self.move_count = np.zeros(size, dtype=np.int64)
            self.sold = np.zeros((size, rounds, n), dtype=np.int8)

    # -- set-up -----------------------------------------------------------
    def deal(self, idx: np.ndarray, houses: np.ndarray, cheques: np.ndarray, first: np.ndarray) -> None:
        """Start new games in rows ``idx`` from whole shuffles ``(len(idx), 30)`` and openers."""
        n, rounds, k = self.n, self.rounds, self.rules.cards
        self.deck_houses[idx] = houses
        self.deck_cheques[idx] = cheques
        self.first[idx] = first
        self.phase[idx] = AUCTION
        self.round[idx] = 0
        self.turn[idx] = first
        self.high[idx] = 0
        self.coins[idx] = self.rules.starting_coins
        self.bids[idx] = 0
        self.active[idx] = self._full
        self.passed[idx] = 0
        self.hands[idx] = 0
        self.slots[idx] = 0
        self.won[idx] = 0
        self.won_total[idx] = 0
        rh = houses[:, :k].reshape(-1, rounds, n)
        masks = house_bits(rh).sum(axis=2, dtype=np.uint32)  # distinct houses: the sum is the union
        self.round_houses[idx] = masks
        self.seen[idx] = np.cumsum(masks, axis=1, dtype=np.uint32)
        self.table[idx] = masks[:, 0]
        self.tables[:, :, idx] = np.sort(rh, axis=2).transpose(1, 2, 0)
        rc = np.sort(cheques[:, :k].reshape(-1, rounds, n).astype(np.int64), axis=2)
        self.round_cheques[idx] = rc
        self.cheque_tables[:, :, idx] = rc.transpose(1, 2, 0)
        words = cheque_words(rc)
        self.cheque_words[idx] = words
        unseen = np.empty((len(idx), rounds + 1), dtype=np.uint32)
        unseen[:, 0] = _DECK_WORD
        unseen[:, 1:] = _DECK_WORD - np.cumsum(
            words, axis=1, dtype=np.uint32
        )  # counts never borrow: each <= the deck's
        self.unseen_cheques[idx] = unseen
        if self.recording:
            self.move_count[idx] = 0

    # -- moves ------------------------------------------------------------
    def auction(self, idx: np.ndarray, amount: np.ndarray) -> None:
        """The seat to act in each game ``idx`` (all in the auction phase) bids ``amount`` in total, or passes (0).

        The amounts must be legal (the callers check: the environment masks,
        the policies are trusted or checked).
        """
        n = self.n
        turn = self.turn[idx]
        at = idx * n + turn
        coins_f, bids_f, hands_f = self.coins.reshape(-1), self.bids.reshape(-1), self.hands.reshape(-1)
        if self.recording:
            count = self.move_count[idx]
            self.moves[idx, count] = amount * 8 + turn
            self.move_count[idx] = count + 1
        passes = amount == 0
        bid = np.take(bids_f, at)
        # A pass pays its bid minus the refund (half, rounded down or up); its bid stays shown until the round ends.
        coins_f[at] = np.take(coins_f, at) - (bid - ((bid + self._refund_up) >> 1)) * passes
        bids_f[at] = np.where(passes, bid, amount)
        self.high[idx] = np.where(passes, self.high[idx], amount)
        table = self.table[idx]
        lowest = (table & (~table + np.uint32(1))) * passes.astype(np.uint32)
        hands_f[at] |= lowest
        self.table[idx] = table ^ lowest
        # Every seat takes one house a round, so the house of round r goes to slot r (0 while it is still bidding).
        rnd = self.round[idx]
        passed = self.passed[idx]
        house = np.take(self.tables.reshape(-1), (rnd * n + passed) * self.size + idx)
        self.slots.reshape(-1)[at * self.rounds + rnd] = house * passes
        active = self.active[idx] ^ (passes.astype(np.int64) << turn)
        self.active[idx] = active
        passed = passed + passes
        self.passed[idx] = passed
        self.turn[idx] = np.take(self._next_seat, active * 8 + turn)
        ended = passed == n - 1
        if ended.any():
            self._end_round(idx[ended])

    def _end_round(self, idx: np.ndarray) -> None:
        """The last seat left pays its whole bid, takes the last house and opens the next round."""
        n = self.n
        last = self.turn[idx]
        at = idx * n + last
        coins_f, hands_f = self.coins.reshape(-1), self.hands.reshape(-1)
        coins_f[at] -= self.bids.reshape(-1)[at]
        hands_f[at] |= self.table[idx]
        rnd = self.round[idx]
        self.slots.reshape(-1)[at * self.rounds + rnd] = self.tables[rnd, n - 1, idx]
        self.bids[idx] = 0
        self.active[idx] = self._full
        self.high[idx] = 0
        self.passed[idx] = 0
        nxt = rnd + 1
        to_sale = nxt == self.rounds
        nxt[to_sale] = 0
        self.round[idx] = nxt
        self.phase[idx[to_sale]] = SALE
        self.table[idx] = np.where(to_sale, 0, self.round_houses[idx, np.minimum(nxt, self.rounds - 1)])

    def sale(self, idx: np.ndarray, houses: np.ndarray) -> None:
        """One sale round in each game ``idx`` (all in the sale phase): ``houses[j, s]`` is what seat ``s`` sells.

        The houses must be in the hands (the callers check).
        """
        r = self.round[idx]
        houses = houses.astype(np.int64)
        if self.recording:
            self.sold[idx, r] = houses
        # The k-th lowest house takes the k-th lowest cheque.
        rank = (houses[:, None, :] < houses[:, :, None]).sum(axis=2)
        cheque = np.take_along_axis(self.round_cheques[idx, r], rank, axis=1)
        self.hands[idx] &= ~house_bits(houses)
        # The sold house's slot takes the last held one (slots hold the houses in no particular order).
        slots = self.slots[idx]
        last = (self.rounds - 1 - r)[:, None, None]
        sold_slot = (slots == houses[:, :, None]).argmax(axis=2)[:, :, None]
        np.put_along_axis(
            slots, sold_slot, np.take_along_axis(slots, np.broadcast_to(last, sold_slot.shape), axis=2), 2
        )
        np.put_along_axis(slots, np.broadcast_to(last, sold_slot.shape), 0, 2)
        self.slots[idx] = slots
        self.won[idx] += np.uint32(1) << (2 * cheque.astype(np.uint32))
        self.won_total[idx] += cheque
        nxt = r + 1
        over = nxt == self.rounds
        self.round[idx] = np.where(over, r, nxt)
        self.phase[idx[over]] = OVER

    # -- the end ----------------------------------------------------------
    def scores(self, idx: np.ndarray) -> np.ndarray:
        """``(len(idx), n)``: cheques plus coins left."""
        return self.won_total[idx] + self.coins[idx]

    def winners(self, idx: np.ndarray) -> np.ndarray:
        """``(len(idx), n)`` bool: highest score, then most coins; several only for a shared win."""
        key = self.scores(idx) * (MAX_COINS + 1) + self.coins[idx]
        return key == key.max(axis=1, keepdims=True)

    def rewards(self, idx: np.ndarray, reward: str) -> np.ndarray:
        """``(len(idx), n)`` float64: what :func:`forsale.envs.encoding.outcome` gives each seat."""
        if reward == "score":
            return self.scores(idx).astype(np.float64)
        won = self.winners(idx)
        return won / won.sum(axis=1, keepdims=True)

    # -- records ----------------------------------------------------------
    def record(self, game: int, players: list[str] | None = None) -> dict[str, Any]:
        """Game ``game`` so far (finished or not) as a ``forsale-record/1`` record (needs ``record=True``)."""
        if not self.recording:
            raise ValueError("these games were set up without record=True, so their moves were not kept")
        k = self.rules.cards
        codes = self.moves[game, : self.move_count[game]].tolist()
        moves = [move_to_json(c & 7, bid(c >> 3) if c >> 3 else PASS) for c in codes]
        phase, r = int(self.phase[game]), int(self.round[game])
        sales = 0 if phase == AUCTION else (r + 1 if phase == OVER else r)
        moves += [move_to_json(None, self.sold[game, s].tolist()) for s in range(sales)]
        houses, cheques = self.deck_houses[game].tolist(), self.deck_cheques[game].tolist()
        deal = Deal(houses[:k], cheques[:k], int(self.first[game]), sorted(houses[k:]), sorted(cheques[k:]))
        return build_record(self.rules, deal, moves, players)


# -- vectorised policies on the lockstep core -------------------------------


def policy_auction(policy: BatchPolicy, games: Games, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``policy``'s bid (0 = pass) for the seat to act in each game ``idx`` (all in the auction phase)."""
    turn = games.turn[idx]
    at = idx * games.n + turn
    coins = np.take(games.coins.reshape(-1), at)
    view = AuctionTurn(
        games.rules, turn, coins, np.take(games.bids.reshape(-1), at), games.high[idx], games.round[idx], idx
    )
    amount = np.asarray(policy.auction(view, rng), dtype=np.int64)
    if not policy.trusted:
        _check_bids(amount, view)
    return amount


def policy_sale(policy: BatchPolicy, games: Games, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``(len(idx), n)``: the house ``policy`` sells for every seat of each game ``idx`` (all in the sale phase).

    Games at different sale rounds are asked round by round, as
    :class:`~forsale.sim.policies.SaleTurn` describes one round.
    """
    out = np.zeros((len(idx), games.n), dtype=np.int64)
    rounds = games.round[idx]
    every = games.slots[idx]
    for r in np.unique(rounds).tolist():
        pick = np.flatnonzero(rounds == r)
        held = games.rounds - r
        hands = np.ascontiguousarray(every[pick].transpose(1, 0, 2))
        turn = SaleTurn(games.rules, r, held, hands, games.cheque_tables[r][:, idx[pick]])
        slot = np.asarray(policy.sale(turn, rng), dtype=np.int64)
        if not policy.trusted and ((slot < 0) | (slot >= held)).any():
            raise ValueError(f"the policy chose a slot outside 0..{held - 1} in sale round {r}")
        out[pick] = np.take_along_axis(hands, slot[:, :, None], axis=2)[:, :, 0].T
    return out
