"""Deals for many games at once, as numpy arrays laid out card-major.

A :class:`DealBatch` holds ``G`` deals: ``houses`` and ``cheques`` of shape
``(cards, G)`` in draw order, and ``first`` of shape ``(G,)``. The layout is
card-major (one row per card position, one column per game) because every
hot operation of the simulator reads "card ``i`` of every game" at once, and
rows are contiguous.

Seeded batches shuffle the **whole** 30-card decks and keep them: a ruleset
that removes ``r`` cards plays the first ``30 - r`` of each shuffle, exactly
like :meth:`forsale.Deal.random`, so the rules lab can play several rulesets
on the same deals.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..rules import CHEQUES, HOUSES, Ruleset
from ..state import Deal

_HOUSES = np.array(HOUSES, dtype=np.int8)
_CHEQUES = np.array(CHEQUES, dtype=np.int8)


def shuffled_decks(deck: np.ndarray, games: int, rng: np.random.Generator) -> np.ndarray:
    """``(len(deck), games)``: an independent uniform permutation of ``deck`` per column.

    A forward Fisher-Yates run on all columns at once: step ``i`` swaps row
    ``i`` with a uniformly chosen row in ``[i, cards)``, so every prefix is a
    uniform ordered sample (which is what removing cards unseen needs). The
    choice is Lemire's multiply-shift on 32-bit halves of raw 64-bit draws
    (two draws per word, no division); its bias, below 2**-27, is far beneath
    anything a game statistic can show.
    """
    cards = len(deck)
    out = np.repeat(deck[:, None], games, axis=1)
    flat = out.reshape(-1)
    cols = np.arange(games, dtype=np.int64)
    words = (games + 1) // 2
    for i in range(cards - 1):
        pick = rng.bit_generator.random_raw(words).view(np.uint32)[:games].astype(np.uint64)
        pick *= np.uint64(cards - i)
        pick >>= np.uint64(32)
        j = pick.view(np.int64)  # uniform in [0, cards - i)
        j += i
        j *= games
        j += cols
        row = out[i].copy()
        out[i] = flat[j]
        flat[j] = row
    return out


class DealBatch:
    """``G`` deals: ``houses``/``cheques`` ``(cards, G)`` int8 in draw order, ``first`` ``(G,)``.

    ``cards`` is 30 for seeded batches (whole shuffles: the removed cards are
    the tail), or the cards in play for batches built from given deals.
    """

    __slots__ = ("houses", "cheques", "first", "players")

    def __init__(self, houses: np.ndarray, cheques: np.ndarray, first: np.ndarray, players: int) -> None:
        houses = np.ascontiguousarray(houses, dtype=np.int8)
        cheques = np.ascontiguousarray(cheques, dtype=np.int8)
        first = np.ascontiguousarray(first, dtype=np.int64)
        if houses.ndim != 2 or houses.shape != cheques.shape or first.shape != (houses.shape[1],):
            raise ValueError(
                f"a deal batch needs houses and cheques of one shape (cards, G) and first of shape (G,); "
                f"got {houses.shape}, {cheques.shape} and {first.shape}"
            )
        if first.size and (first.min() < 0 or first.max() >= players):
            raise ValueError(f"first must be a seat from 0 to {players - 1}")
        self.houses = houses
        self.cheques = cheques
        self.first = first
        self.players = players

    @property
    def games(self) -> int:
        return int(self.first.shape[0])

    @property
    def cards(self) -> int:
        return int(self.houses.shape[0])

    @classmethod
    def random(cls, players: int, games: int, rng: np.random.Generator) -> DealBatch:
        """``games`` whole-deck shuffles and uniformly random openers for ``players`` seats."""
        houses = shuffled_decks(_HOUSES, games, rng)
        cheques = shuffled_decks(_CHEQUES, games, rng)
        first = rng.integers(0, players, games, dtype=np.int64)
        return cls(houses, cheques, first, players)

    @classmethod
    def from_deals(cls, deals: Sequence[Deal], players: int) -> DealBatch:
        """A batch from engine :class:`~forsale.Deal` objects (cards in play only)."""
        if not deals:
            raise ValueError("no deals given")
        sizes = {len(d.houses) for d in deals} | {len(d.cheques) for d in deals}
        if len(sizes) != 1:
            raise ValueError("every deal of a batch must have the same number of cards in play")
        houses = np.array([d.houses for d in deals], dtype=np.int8).T
        cheques = np.array([d.cheques for d in deals], dtype=np.int8).T
        first = np.array([d.first for d in deals], dtype=np.int64)
        return cls(houses, cheques, first, players)

    def for_rules(self, rules: Ruleset) -> tuple[np.ndarray, np.ndarray]:
        """The houses and cheques in play under ``rules``: the first ``rules.cards`` of each deck."""
        if rules.players != self.players:
            raise ValueError(f"these deals are for {self.players} players, not {rules.players}")
        k = rules.cards
        if self.cards < k:
            raise ValueError(f"the deals hold {self.cards} cards but {rules.describe()} plays {k}")
        return self.houses[:k], self.cheques[:k]

    def slice(self, start: int, stop: int) -> DealBatch:
        """Games ``start..stop-1`` (copied into contiguous arrays for the hot loop)."""
        return DealBatch(self.houses[:, start:stop], self.cheques[:, start:stop], self.first[start:stop], self.players)

    def deal(self, game: int, rules: Ruleset) -> Deal:
        """Game ``game`` as an engine :class:`~forsale.Deal` (with the removed cards when known)."""
        k = rules.cards
        houses = self.houses[:, game].tolist()
        cheques = self.cheques[:, game].tolist()
        removed_h = houses[k:] if self.cards == 30 else []
        removed_c = cheques[k:] if self.cards == 30 else []
        return Deal(houses[:k], cheques[:k], int(self.first[game]), removed_h, removed_c)
