"""Tournament statistics per bot: win share, confidence intervals, scores, time, rating.

A bot's *games* are the seats it filled (a lineup ``hard,value,value,value``
gives ``value`` three seats per game); a shared win counts ``1/k`` to each
of the ``k`` winners, so the win rates of a table add up to one game per
game. Intervals are 95%: Wilson's score interval for the win rate (sound
near 0 and 1, where the normal one is not) and the normal interval for the
mean score. Copies of one bot at a table are not independent, so their
intervals are a little narrower than the truth; the flagship figures
(one copy per table) are exact in that respect.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .ratings import plackett_luce_ratings
from .tournament import GameResult

Z95 = 1.959963984540054


def wilson_interval(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``wins / games`` (fractional wins allowed).

    >>> lo, hi = wilson_interval(70, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.604, 0.781)
    """
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """``(mean, lo, hi)``: the mean and its normal 95% interval (sample standard deviation)."""
    k = len(values)
    if k == 0:
        return (math.nan, math.nan, math.nan)
    mean = sum(values) / k
    if k == 1:
        return (mean, mean, mean)
    var = sum((x - mean) ** 2 for x in values) / (k - 1)
    half = z * math.sqrt(var / k)
    return (mean, mean - half, mean + half)


@dataclass
class BotStats:
    """What the tournament says about one bot (see the module docstring)."""

    name: str
    games: int = 0
    wins: float = 0.0
    scores: list[int] = field(default_factory=list)
    decision_s: float = 0.0
    decisions: int = 0
    rating_mu: float = math.nan
    rating_sigma: float = math.nan

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def win_rate_ci(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def mean_score(self) -> float:
        return mean_ci(self.scores)[0]

    @property
    def mean_score_ci(self) -> tuple[float, float]:
        _, lo, hi = mean_ci(self.scores)
        return (lo, hi)

    @property
    def mean_decision_s(self) -> float:
        return self.decision_s / self.decisions if self.decisions else 0.0

    @property
    def rating(self) -> float:
        """The conservative openskill ordinal, ``mu - 3 sigma``."""
        return self.rating_mu - 3 * self.rating_sigma

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.win_rate_ci
        slo, shi = self.mean_score_ci
        return {
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_rate_ci": [lo, hi],
            "mean_score": self.mean_score,
            "mean_score_ci": [slo, shi],
            "mean_decision_s": self.mean_decision_s,
            "decisions": self.decisions,
            "rating": {"mu": self.rating_mu, "sigma": self.rating_sigma, "ordinal": self.rating},
        }


def summarize(results: Sequence[GameResult], *, ratings: bool = True) -> dict[str, BotStats]:
    """Per distinct bot name, in order of first appearance: games, wins, scores, time, rating."""
    stats: dict[str, BotStats] = {}
    for result in results:
        for seat, name in enumerate(result.bots):
            s = stats.setdefault(name, BotStats(name))
            s.games += 1
            s.wins += result.shares[seat]
            s.scores.append(result.scores[seat])
            s.decision_s += result.decision_s[seat]
            s.decisions += result.decisions[seat]
    if ratings and results:
        for name, (mu, sigma) in plackett_luce_ratings(results).items():
            stats[name].rating_mu = mu
            stats[name].rating_sigma = sigma
    return stats


def to_json(stats: dict[str, BotStats], **extra: Any) -> dict[str, Any]:
    """The ``--json`` document: ``{"bots": {name: {...}}, **extra}``."""
    return {"bots": {name: s.to_json() for name, s in stats.items()}, **extra}
