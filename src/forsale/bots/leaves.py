"""What the auction search puts at its leaves: the end of the auction phase, valued.

``hard`` plays each sampled deal to the end of the auction phase and values
what it reached. The default is the hand-set valuation
(:mod:`forsale.bots.valuation`: coins plus the expected cheques of every
house, through a softmax win share, the search's own utility). A learned
value model (:mod:`forsale.bots.valuemodel`, numpy) can stand in for it:
:class:`ModelLeaf` shows the model the position a seat would see at the
first sale round (the sampled deal's first cheques on the table), and
``hard:leaf=model`` selects it. A leaf is any callable ``(state,
outcomes, me) -> utilities``, where ``state`` is the sampled deal the
rollouts started from (read, never changed) and ``outcomes`` the auction
phase's ``(coins, hands)`` for each plan compared on that deal: one call
per deal, so a model evaluates every plan in one batch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from ..rules import CHEQUES, HOUSES

Outcome = tuple[Sequence[int], Sequence[Sequence[int]]]
"""Coins and hands at the end of the auction phase."""

Leaf = Callable[[Any, Sequence[Outcome], int], list[float]]


class ModelLeaf:
    """A :data:`Leaf` from a value model: the viewing seat's predicted win share at the first sale round."""

    def __init__(self, model: Any) -> None:
        import numpy  # imported only when a model is asked for: playing needs no numpy otherwise

        from .valuemodel import position_features

        self.model = model
        self._features = position_features
        self._stack = numpy.stack
        self._deal: Any = None
        self._unseen: tuple[list[int], list[int], list[int]] = ([], [], [])

    @classmethod
    def shipped(cls, players: int) -> ModelLeaf:
        """The leaf of the model that ships for ``players`` (``ValueError`` if none does)."""
        from .valuemodel import load

        return cls(load(players))

    def __call__(self, state: Any, outcomes: Sequence[Outcome], me: int) -> list[float]:
        n = state.n
        deal = state.deal
        if deal is not self._deal:  # every plan of one sampled deal shares these
            table = sorted(deal.cheques[:n])
            rest = Counter(CHEQUES)
            rest.subtract(table)
            in_play = set(deal.houses)
            self._deal = deal
            self._unseen = (table, [h for h in HOUSES if h not in in_play], sorted(rest.elements()))
        table, unseen_houses, unseen_cheques = self._unseen
        rows = [
            self._features(
                state.rules,
                me,
                phase="sale",
                auction_revealed=state.rules.rounds,
                sale_revealed=1,
                high=0,
                table_houses=(),
                table_cheques=table,
                unseen_houses=unseen_houses,
                unseen_cheques=unseen_cheques,
                coins=coins,
                bids=[0] * n,
                active=[False] * n,
                turn=None,
                cheques=[0] * n,
                hands=hands,
            )
            for coins, hands in outcomes
        ]
        return [float(x) for x in self.model.predict(self._stack(rows))[:, 0]]
