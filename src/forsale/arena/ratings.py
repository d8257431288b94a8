"""Openskill Plackett-Luce ratings from tournament results.

Openskill rates distinct players, but one bot may fill several seats of a
game. Each seat is rated as a copy of its bot's current rating, and the bot's
new rating is the mean of its copies' updates: with one copy per game this
is plain Plackett-Luce, and copies that finish apart pull in opposite
directions instead of counting as one player that both won and lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .tournament import GameResult


def plackett_luce_ratings(results: Sequence[GameResult]) -> dict[str, tuple[float, float]]:
    """``name -> (mu, sigma)`` after rating every game in order (openskill defaults: mu 25, sigma 25/3)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current: dict[str, tuple[float, float]] = {}
    for result in results:
        teams = []
        for name in result.bots:
            mu, sigma = current.get(name, (model.mu, model.sigma))
            teams.append([model.rating(mu=mu, sigma=sigma)])
        rated = model.rate(teams, ranks=[float(rank) for rank in result.ranks()])  # openskill's type: list[float]
        updates: dict[str, list[tuple[float, float]]] = {}
        for name, team in zip(result.bots, rated):
            updates.setdefault(name, []).append((team[0].mu, team[0].sigma))
        for name, values in updates.items():
            current[name] = (
                sum(v[0] for v in values) / len(values),
                sum(v[1] for v in values) / len(values),
            )
    return current
