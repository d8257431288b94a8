"""The agent protocol: a view in, a legal action out.

An agent never sees the game's state, only :class:`forsale.view.View` for its
seat, a seeded random generator (its only source of randomness, so a game is
reproducible from its seed), and a time budget in seconds for this decision
(``None``: the agent's own default). It returns one of
``view.legal_actions()``.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from ..actions import Action
from ..view import View


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and ``act(view, rng, budget) -> action``."""

    name: str

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        """Choose a legal action for ``view.seat``."""
        ...
