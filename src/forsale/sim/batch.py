"""The lockstep batch simulator: many complete games at once, with numpy.

Every live game of a chunk advances one auction move per step (structure
of arrays: one *lane* per game still bidding, each lane's state in a few
small arrays), so a step costs a few dozen numpy operations whatever the
number of games. Games do not wait for each other between rounds: a game
whose auction round ends starts its next round at the next step. Lanes whose
game has finished the auction phase are parked on a dummy game and dropped
(the lanes compacted) once they are a third of the lanes. The sale phase
takes the same number of rounds in every game and is played round by round
for the whole chunk.

Measured choices (``bench/sim.py``): per-game arrays are game-major so each
step streams through memory; a seat's coins and bid share one 32-bit word;
the order of passes stays in a per-lane register and is written out once per
round; gathers use ``np.take``; small sorts are sorting networks of
``minimum``/``maximum`` over rows.

The rules are the engine's (``forsale.state``), restated on arrays: a pass
takes the lowest house left and pays the bid minus the refund (half, rounded
down or up), the last seat left pays its whole bid, takes the highest house
and opens the next round; in a sale the k-th highest house takes the k-th
highest cheque. ``tests/sim/test_sim_engine_agreement.py`` replays batch games
through the engine and demands identical results.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from ..actions import PASS, bid, move_to_json
from ..record import build_record
from ..rules import Ruleset
from .deals import DealBatch
from .policies import AuctionTurn, BatchPolicy, SaleTurn

MAX_COINS = 32767
"""Coins and bids are packed in 16 bits each."""


def sort_rows(a: np.ndarray) -> None:
    """Sort ``a`` along its first axis in place (odd-even transposition: n rounds of min/max)."""
    n = a.shape[0]
    for step in range(n):
        for i in range(step % 2, n - 1, 2):
            lo = np.minimum(a[i], a[i + 1])
            np.maximum(a[i], a[i + 1], out=a[i + 1])
            a[i] = lo


@cache
def _next_seat_table(n: int) -> np.ndarray:
    """``table[mask * 8 + seat]``: the next seat after ``seat`` (clockwise) whose bit is set in ``mask``."""
    table = np.zeros(64 * 8, dtype=np.int16)
    for mask in range(1, 1 << n):
        for seat in range(n):
            nxt = seat
            for _ in range(n):
                nxt = (nxt + 1) % n
                if mask >> nxt & 1:
                    break
            table[mask * 8 + seat] = nxt
    return table


@dataclass(slots=True)
class BatchResult:
    """The outcome of ``G`` games (seat-major arrays, one column per game).

    ``coins``, ``cheques`` (sum of cheques won) and ``scores`` are ``(n, G)``;
    ``won`` is ``(rounds, n, G)``: the cheque each seat took in each sale
    round; ``sold`` is ``(rounds, n, G)``: the house each seat sold.
    ``auction_moves`` is set when the batch was played with ``record=True``:
    per game, the list of ``(seat, amount)`` moves (amount 0 = pass).
    """

    rules: Ruleset
    deals: DealBatch
    first: np.ndarray
    coins: np.ndarray
    won: np.ndarray
    sold: np.ndarray
    auction_moves: list[list[tuple[int, int]]] | None = None

    @property
    def games(self) -> int:
        return int(self.first.shape[0])

    @property
    def cheques(self) -> np.ndarray:
        return self.won.sum(axis=0, dtype=np.int32)

    @property
    def scores(self) -> np.ndarray:
        return self.cheques + self.coins

    def winners(self) -> np.ndarray:
        """``(n, G)`` bool: highest score, then most coins; several only for a shared win."""
        key = self.scores.astype(np.int64) * (int(self.coins.max(initial=0)) + 1) + self.coins
        return key == key.max(axis=0)

    def record(self, game: int, players: list[str] | None = None) -> dict[str, Any]:
        """Game ``game`` as a ``forsale-record/1`` record (needs ``record=True``)."""
        if self.auction_moves is None:
            raise ValueError("this batch was played without record=True, so its moves were not kept")
        moves = [move_to_json(seat, bid(amount) if amount else PASS) for seat, amount in self.auction_moves[game]]
        moves += [move_to_json(None, self.sold[r, :, game].tolist()) for r in range(self.rules.rounds)]
        return build_record(self.rules, self.deals.deal(game, self.rules), moves, players)


class _Lanes:
    """Per-lane state of the auction phase: one entry per game still stepping.

    Purses (coins and bid) are a chunk-wide per-game array; ``cbase`` is the
    lane's offset into it. Within a round, the order in which seats pass is kept
    in a register (``order``: 4 bits per seat, the position of the house it
    took) and written out once per round at ``words[wbase]``. A lane whose
    game is over is parked: it points at a spare dummy game and can never
    end a round again (``passed`` is hugely negative), so its harmless extra
    steps touch nothing real until the lanes are compacted.
    """

    __slots__ = ("turn", "high", "mask", "passed", "order", "round", "wbase", "cbase", "game")

    def __init__(self, rules: Ruleset, first: np.ndarray) -> None:
        games = first.shape[0]
        self.turn = first.astype(np.int16)
        self.high = np.zeros(games, dtype=np.int16)
        self.mask = np.full(games, (1 << rules.players) - 1, dtype=np.int16)
        self.passed = np.zeros(games, dtype=np.int16)
        self.order = np.zeros(games, dtype=np.int32)
        self.round = np.zeros(games, dtype=np.int64)
        self.game = np.arange(games, dtype=np.int64)
        self.wbase = self.game.copy()  # this game's word for the current round: round * G + game
        self.cbase = self.game * rules.players  # this game's row of coins and bids

    def keep(self, index: np.ndarray) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name)[index])


def _check_bids(amount: np.ndarray, turn: AuctionTurn, live: np.ndarray | None = None) -> None:
    """Raise ``ValueError`` on the first illegal bid of ``turn``'s seats (only ``live`` ones, if given)."""
    bad = (amount != 0) & ((amount <= turn.high) | (amount > turn.coins))
    if live is not None:
        bad &= live
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"the policy bid {int(amount[i])} for seat {int(turn.seat[i])} in game {int(turn.game[i])}, "
            f"which is illegal: the high bid is {int(turn.high[i])} and the seat holds {int(turn.coins[i])} coins"
        )


def play(
    rules: Ruleset,
    deals: DealBatch,
    policy: BatchPolicy,
    rng: np.random.Generator,
    *,
    record: bool = False,
) -> BatchResult:
    """Play every deal of ``deals`` to the end under ``rules``, every seat following ``policy``.

    With ``record=True`` the auction moves are kept so that
    :meth:`BatchResult.record` can export each game (slower; for tests and
    small batches).
    """
    n, rounds = rules.players, rules.rounds
    if rules.starting_coins > MAX_COINS:
        raise ValueError(f"the batch simulator handles up to {MAX_COINS} starting coins, not {rules.starting_coins}")
    houses, cheques = deals.for_rules(rules)
    games = deals.games
    tables = houses.reshape(rounds, n, games).copy()
    sort_rows(tables.transpose(1, 0, 2))
    cheque_tables = cheques.reshape(rounds, n, games).copy()
    sort_rows(cheque_tables.transpose(1, 0, 2))
    policy.prepare(tables, cheque_tables, rules)

    # Chunk-wide per-game arrays, game-major (lanes are in game order, so each
    # step streams through memory), with a spare dummy game (index ``games``).
    # A seat's purse packs its coins (high 16 bits) and its bid this round (low 16 bits):
    # one gather and one scatter per step instead of two of each.
    width = games + 1
    purse2d = np.full((width, n), rules.starting_coins << 16, dtype=np.int32)
    purse_flat = purse2d.reshape(-1)
    # Per round and game: 4 bits per seat, the position (0 = lowest) of the house it took.
    words = np.zeros(rounds * games, dtype=np.int32)
    logs: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    # What a pass costs: the bid minus the refund (half, rounded down or up).
    pay_shift = 1 if rules.refund == "down" else 0
    next_seat = _next_seat_table(n)
    full = (1 << n) - 1
    lanes = _Lanes(rules, deals.first)
    size = games
    done = 0
    check = not policy.trusted
    while size:
        turn = lanes.turn
        at = lanes.cbase + turn
        purse = np.take(purse_flat, at)  # np.take: faster than fancy indexing for plain gathers
        coins = purse >> 16
        bid = purse & 0xFFFF
        high = lanes.high
        view = AuctionTurn(rules, turn, coins, bid, high, lanes.round, lanes.game)
        amount = policy.auction(view, rng)
        if check or record:
            live = lanes.round < rounds
            if check:
                amount = np.where(live, amount, 0).astype(np.int16)
                _check_bids(amount, view, live)
            if record:
                logs.append((lanes.game[live], turn[live], amount[live]))
        lanes.high = np.maximum(high, amount)
        passes = amount == 0
        # A pass pays the bid minus the refund and leaves the bid at 0, ready for the next round.
        purse_flat[at] = ((coins - ((bid + pay_shift) >> 1) * passes) << 16) | amount
        lanes.order |= (lanes.passed * passes).astype(np.int32) << (turn * 4)
        lanes.passed += passes
        lanes.mask ^= passes << turn
        lanes.turn = turn = np.take(next_seat, lanes.mask * 8 + turn)
        ended_b = lanes.passed == n - 1
        ended = np.flatnonzero(ended_b)
        if ended.size:
            # The last seat left pays its whole bid, takes the top house and opens the next round.
            last = np.take(turn, ended)
            at_last = np.take(lanes.cbase, ended) + last
            purse = np.take(purse_flat, at_last)
            purse_flat[at_last] = ((purse >> 16) - (purse & 0xFFFF)) << 16
            words[lanes.wbase[ended]] = lanes.order[ended] | ((n - 1) << (4 * last.astype(np.int32)))
            lanes.order[ended] = 0
            lanes.high[ended] = 0
            lanes.mask[ended] = full
            lanes.passed[ended] = 0
            lanes.round += ended_b
            lanes.wbase[ended] += games
            parked = ended[lanes.round[ended] == rounds]
            if parked.size:
                lanes.cbase[parked] = games * n
                lanes.passed[parked] = -30000
                done += parked.size
                if 3 * done > size:
                    keep = np.flatnonzero(lanes.round < rounds)
                    lanes.keep(keep)
                    size = keep.size
                    done = 0
    final_coins = np.ascontiguousarray((purse2d[:games] >> 16).T.astype(np.int16))

    # Sale phase: hands[s, g, slot] are the houses seat s holds (slots 0..held-1).
    order = words.reshape(rounds, games)
    held_houses = np.zeros((n, rounds, games), dtype=np.int8)
    for seat in range(n):
        position = ((order >> (4 * seat)) & 15).astype(np.int8)
        for k in range(n):
            held_houses[seat] += (position == k) * tables[:, k, :]
    hands = np.ascontiguousarray(held_houses.transpose(0, 2, 1))  # (n, games, rounds)
    hands_flat = hands.reshape(-1)
    won = np.empty((rounds, n, games), dtype=np.int8)
    sold = np.empty((rounds, n, games), dtype=np.int8)
    hand_base = np.arange(n * games, dtype=np.int64).reshape(n, games) * rounds
    seat_ids = np.arange(n, dtype=np.int16)[:, None]
    for r in range(rounds):
        held = rounds - r
        table = cheque_tables[r]
        slot = policy.sale(SaleTurn(rules, r, held, hands, table), rng)
        if check:
            bad = (slot < 0) | (slot >= held)
            if bad.any():
                s, g = (int(x[0]) for x in np.nonzero(bad))
                raise ValueError(f"the policy chose slot {int(slot[s, g])} for seat {s} in game {g}, holding {held}")
        at = hand_base + slot
        sale = np.take(hands_flat, at)
        hands_flat[at] = hands[:, :, held - 1]
        sold[r] = sale
        # The k-th lowest house takes the k-th lowest cheque: sort (house, seat) keys.
        keys = sale.astype(np.int16) * 8 + seat_ids
        sort_rows(keys)
        keys &= 7
        taken = won[r]
        taken[:] = 0
        for k in range(n):
            for seat in range(n):
                taken[seat] += (keys[k] == seat) * table[k]

    moves: list[list[tuple[int, int]]] | None = None
    if record:
        moves = [[] for _ in range(games)]
        for lane_games, lane_seats, lane_amounts in logs:  # arrays, one entry per lane that moved
            for g, s, a in zip(lane_games.tolist(), lane_seats.tolist(), lane_amounts.tolist()):
                moves[g].append((s, a))
    return BatchResult(rules, deals, deals.first, final_coins, won, sold, moves)
