"""What the auction search puts at its leaves: the end of the auction phase, valued.

``hard`` plays each sampled deal to the end of the auction phase and values
what it reached. The default is the hand-set valuation
(:mod:`forsale.bots.valuation`: coins plus the expected cheques of every
house, through a softmax win share, the search's own utility). A learned
value model (:mod:`forsale.bots.valuemodel`, numpy) can stand in for it:
:class:`ModelLeaf` shows the model the position a seat would see at the
first sale round (the sampled deal's first cheques on the table), and
``hard:leaf=model`` selects it. A leaf is any callable ``(state, coins,
hands, me) -> utility``, where ``state`` is the sampled deal the rollout
started from (read, never changed) and ``coins``/``hands`` the auction
phase's outcome.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from ..rules import CHEQUES, HOUSES

Leaf = Callable[[Any, Sequence[int], Sequence[Sequence[int]], int], float]


class ModelLeaf:
    """A :data:`Leaf` from a value model: the viewing seat's predicted win share at the first sale round."""

    def __init__(self, model: Any) -> None:
        from .valuemodel import position_features  # numpy: imported only when a model is asked for

        self.model = model
        self._features = position_features
        self._deal: Any = None
        self._unseen: tuple[list[int], list[int], list[int]] = ([], [], [])

    @classmethod
    def shipped(cls, players: int) -> ModelLeaf:
        """The leaf of the model that ships for ``players`` (``ValueError`` if none does)."""
        from .valuemodel import load

        return cls(load(players))

    def __call__(self, state: Any, coins: Sequence[int], hands: Sequence[Sequence[int]], me: int) -> float:
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
        x = self._features(
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
        return float(self.model.predict(x)[0])
