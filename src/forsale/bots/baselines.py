"""Baseline bots (``shared/BASELINES.md``): the yardstick, not the goal."""

from __future__ import annotations

import random

from ..actions import PASS, Action, bid
from ..view import View
from .registry import register


class RandomAgent:
    """Raise by one with probability 1/2 when able, else pass; sell a uniformly random house."""

    name = "random"

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        legal = view.legal_actions()
        if view.phase == "auction":
            return bid(view.high + 1) if len(legal) > 1 and rng.random() < 0.5 else PASS
        return legal[int(rng.random() * len(legal))]


@register("random", "raises by one half the time, sells a random house (the limit.c policy)")
def _random() -> RandomAgent:
    return RandomAgent()
