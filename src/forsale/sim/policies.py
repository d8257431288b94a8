"""Vectorised policies: one decision for every live game of a batch per call.

What a policy is given, and what it may use: in the auction the seat to
act, its coins and bid, the high bid and the round; in a sale the cheques on
the table and every seat's hand (public: the rules make every hand
deducible from the auction history); never another seat's choice in the
current sale round. ``prepare`` receives **every** round's sorted table so
that per-round quantities can be computed once per chunk; a policy must read
only the row of the current round (the built-in ones do, and
``tests/sim/test_sim_policies.py`` checks ``value`` move by move against a
rule that sees only the current round). Two calls:

- ``auction(turn, rng)`` returns the new total bid of the seat to act in
  each game, or 0 to pass (int16, shape ``(L,)``).
- ``sale(turn, rng)`` returns, per seat and game, the slot of the house to
  sell: an index into ``turn.hands[seat, game, :turn.held]`` (any integer
  dtype, shape ``(n, G)``).

``prepare(tables, cheque_tables, rules)`` is called once per chunk with the
sorted round tables, so a policy can precompute per-round quantities.
A policy whose ``trusted`` flag is false has every decision checked by the
simulator; the built-in ones are legal by construction (and tested so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..rules import Ruleset


@dataclass(slots=True)
class AuctionTurn:
    """The seat to act in every live game (arrays of shape ``(L,)``).

    ``game`` indexes the chunk (the column of ``prepare``'s tables);
    ``round`` is the auction round (``rules.rounds`` for games already done,
    whose decisions are discarded).
    """

    rules: Ruleset
    seat: np.ndarray
    coins: np.ndarray
    bid: np.ndarray
    high: np.ndarray
    round: np.ndarray
    game: np.ndarray


@dataclass(slots=True)
class SaleTurn:
    """One sale round for every game of the chunk.

    ``hands`` is ``(n, G, rounds)``; slots ``0..held-1`` hold each seat's
    houses (in no particular order). ``table`` is ``(n, G)``: the cheques on
    the table, ascending.
    """

    rules: Ruleset
    round: int
    held: int
    hands: np.ndarray
    table: np.ndarray


def random_bits(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` fair random booleans, 64 per raw draw."""
    raw = rng.bit_generator.random_raw((size + 63) // 64)
    return np.unpackbits(raw.view(np.uint8))[:size].view(np.bool_)


def uniform_below(rng: np.random.Generator, bound: int, shape: tuple[int, ...]) -> np.ndarray:
    """Integers (uint32) uniform in ``[0, bound)`` for ``bound <= 16`` (a hand never holds more than 15 houses).

    Multiply-shift on 28-bit draws, all in 32-bit arithmetic; the bias, at
    most ``bound / 2**28`` (below 6e-8), is far beneath anything a game
    statistic can show.
    """
    size = int(np.prod(shape))
    if bound == 1:
        return np.zeros(shape, dtype=np.uint32)
    if not 1 <= bound <= 16:
        raise ValueError(f"uniform_below draws below 1 to 16, not {bound}")
    raw = rng.bit_generator.random_raw((size + 1) // 2).view(np.uint32)[:size]
    raw >>= np.uint32(4)  # 28 random bits times a bound below 2**4 fits in 32 bits
    raw *= np.uint32(bound)
    raw >>= np.uint32(28)
    return raw.reshape(shape)


class BatchPolicy:
    """Base class of vectorised policies (see the module docstring)."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    trusted: bool = False

    def prepare(self, tables: np.ndarray, cheque_tables: np.ndarray, rules: Ruleset) -> None:
        """Called once per chunk with ``(rounds, n, G)`` sorted house and cheque tables."""

    def auction(self, turn: AuctionTurn, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def sale(self, turn: SaleTurn, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError


class RandomPolicy(BatchPolicy):
    """The ``random`` baseline of ``bench/limit.c``.

    Auction: a seat that can raise (coins above the high bid) bids the high
    bid plus one with probability 1/2, else passes. Sale: a uniformly random
    house from the hand.
    """

    name = "random"
    description = "raise by one with probability 1/2 when able, else pass; sell a uniformly random house"
    trusted = True

    def auction(self, turn: AuctionTurn, rng: np.random.Generator) -> np.ndarray:
        high = turn.high
        raise_ = (turn.coins > high) & random_bits(rng, high.shape[0])
        return (high + 1) * raise_

    def sale(self, turn: SaleTurn, rng: np.random.Generator) -> np.ndarray:
        return uniform_below(rng, turn.held, turn.table.shape)


# ``avg`` of BASELINES.md, doubled so that the comparison stays in integers.
_VALUE_AVG2 = {2: 37, 3: 37, 4: 33, 5: 31, 6: 31}


class ValuePolicy(BatchPolicy):
    """The ``value`` baseline of ``BASELINES.md``, in exact integer arithmetic.

    Auction: ``v = top/2 - 7 + (1 if mean(table) <= avg else -1)`` where
    ``top`` is the round's highest house and ``avg`` is 18.5/16.5/15.5/15.5
    for 3/4/5/6 players (18.5 at 2); raise by one while ``v > high`` and the
    seat can raise, else pass. Compared doubled (``top - 14 ± 2 > 2·high``)
    so no float rounding can make it disagree with a scalar implementation.

    Sale: the house ``p`` minimising ``|p/2 - m|`` (``m`` = mean cheque on
    the table), ties to the lower house; compared as ``|n·p - 2·sum|``.
    """

    name = "value"
    description = "BASELINES.md 'value': bid up to half the top house minus 7 (±1 for a rich round); sell the house nearest twice the mean cheque"
    trusted = True

    def __init__(self) -> None:
        self._threshold = np.zeros((1, 0), dtype=np.int16)

    def prepare(self, tables: np.ndarray, cheque_tables: np.ndarray, rules: Ruleset) -> None:
        rounds, n, games = tables.shape
        total = tables.sum(axis=1, dtype=np.int32)
        top = tables[:, n - 1, :].astype(np.int32)
        adjust = np.where(2 * total <= _VALUE_AVG2[n] * n, 2, -2)
        threshold = np.full((rounds + 1, games), -(2**14), dtype=np.int32)  # row ``rounds``: games already done
        threshold[:rounds] = top - 14 + adjust
        self._threshold = threshold

    def auction(self, turn: AuctionTurn, rng: np.random.Generator) -> np.ndarray:
        high = turn.high
        games = self._threshold.shape[1]
        threshold = self._threshold.reshape(-1)[turn.round * games + turn.game]
        raise_ = (turn.coins > high) & (2 * high < threshold)
        return (high + 1) * raise_

    def sale(self, turn: SaleTurn, rng: np.random.Generator) -> np.ndarray:
        n = turn.rules.players
        hands = turn.hands[:, :, : turn.held].astype(np.int32)
        twice_sum = 2 * turn.table.sum(axis=0, dtype=np.int32)
        cost = np.abs(n * hands - twice_sum[None, :, None]) * 32 + hands  # ties: the lower house
        return cost.argmin(axis=2)


class SeatPolicies(BatchPolicy):
    """A table where seat ``s`` follows ``policies[s]`` (seat numbers, not counted from the opener).

    Each distinct policy decides for every game and only its own seats'
    decisions are kept: a policy's cost is paid once however many seats it
    plays. Trusted only if every policy is.
    """

    name = "seats"
    description = "a different policy per seat"

    def __init__(self, policies: Sequence[BatchPolicy]) -> None:
        if not policies:
            raise ValueError("SeatPolicies needs one policy per seat")
        self.policies = list(policies)
        groups: dict[int, tuple[BatchPolicy, list[int]]] = {}
        for seat, policy in enumerate(self.policies):
            groups.setdefault(id(policy), (policy, []))[1].append(seat)
        self._groups = [(policy, np.array(seats)) for policy, seats in groups.values()]
        self.trusted = all(p.trusted for p in self.policies)

    def prepare(self, tables: np.ndarray, cheque_tables: np.ndarray, rules: Ruleset) -> None:
        if len(self.policies) != rules.players:
            raise ValueError(f"{len(self.policies)} seat policies for a table of {rules.players}")
        for policy, _ in self._groups:
            policy.prepare(tables, cheque_tables, rules)

    def auction(self, turn: AuctionTurn, rng: np.random.Generator) -> np.ndarray:
        amount = np.zeros(turn.high.shape, dtype=np.int32)
        for policy, seats in self._groups:
            mine = np.isin(turn.seat, seats)
            amount = np.where(mine, policy.auction(turn, rng), amount)
        return amount

    def sale(self, turn: SaleTurn, rng: np.random.Generator) -> np.ndarray:
        slot = np.zeros(turn.table.shape, dtype=np.int64)
        for policy, seats in self._groups:
            slot[seats] = policy.sale(turn, rng)[seats]
        return slot


POLICIES: dict[str, type[BatchPolicy]] = {p.name: p for p in (RandomPolicy, ValuePolicy)}
"""Vectorised policies by name."""


def make_policy(name: str) -> BatchPolicy:
    """A fresh policy by name; the error lists the known names."""
    try:
        return POLICIES[name]()
    except KeyError:
        known = ", ".join(sorted(POLICIES))
        raise ValueError(f"unknown batch policy {name!r}; known policies: {known}") from None
