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
    from openskill.models import PlackettLuce

    from .tournament import GameResult


def model() -> PlackettLuce:
    """The rating model: openskill's Plackett-Luce with its defaults (mu 25, sigma 25/3); the server's too."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


def placings(scores: Sequence[int], coins: Sequence[int]) -> list[int]:
    """1 for the winner(s) (:func:`forsale.rules.winners`), then by (score, coins) descending; equal keys share a rank."""
    keys = list(zip(scores, coins))
    return [1 + sum(1 for other in keys if other > k) for k in keys]


def rate_game(
    rater: PlackettLuce,
    current: dict[str, tuple[float, float]],
    names: Sequence[str | None],
    ranks: Sequence[int],
) -> dict[str, tuple[float, float]]:
    """The new ``(mu, sigma)`` of each named player after one game (``current`` is not changed).

    ``names[seat]`` is the seat's player (one player may fill several seats: see the module
    docstring), or None for a seat nobody is rated for (a guest): it plays at the model's
    starting rating and its update is dropped.
    """
    teams = []
    for name in names:
        mu, sigma = current.get(name, (rater.mu, rater.sigma)) if name is not None else (rater.mu, rater.sigma)
        teams.append([rater.rating(mu=mu, sigma=sigma)])
    rated = rater.rate(teams, ranks=[float(rank) for rank in ranks])  # openskill's type: list[float]
    updates: dict[str, list[tuple[float, float]]] = {}
    for name, team in zip(names, rated):
        if name is not None:
            updates.setdefault(name, []).append((team[0].mu, team[0].sigma))
    return {
        name: (sum(v[0] for v in values) / len(values), sum(v[1] for v in values) / len(values))
        for name, values in updates.items()
    }


def plackett_luce_ratings(results: Sequence[GameResult]) -> dict[str, tuple[float, float]]:
    """``name -> (mu, sigma)`` after rating every game in order (openskill defaults: mu 25, sigma 25/3)."""
    rater = model()
    current: dict[str, tuple[float, float]] = {}
    for result in results:
        current.update(rate_game(rater, current, result.bots, result.ranks()))
    return current
