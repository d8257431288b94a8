"""Streaming statistics over batches of finished games.

:class:`Summary` folds :class:`~forsale.sim.batch.BatchResult` chunks into
fixed-size counters (histograms, sums), so a run of any length keeps bounded
memory and its figures do not depend on how it was chunked. Seats are
reported **relative to the first opener** (seat 0 = the player who opened the
first auction), which is what "first-player advantage" means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..rules import Ruleset
from .batch import BatchResult, sort_rows

Z95 = 1.959963984540054
SHARE_UNIT = 60  # a win shared by k <= 6 seats is worth 60 // k units to each


def _quantiles(hist: np.ndarray, qs: tuple[float, ...]) -> list[int]:
    """Quantiles (lower, as ``numpy.quantile(method='inverted_cdf')``) of the data counted by ``hist``."""
    cdf = np.cumsum(hist)
    total = cdf[-1]
    return [int(np.searchsorted(cdf, max(q * total, 1), side="left")) for q in qs]


def _moments(total: float, squares: float, count: int) -> tuple[float, float]:
    """Mean and (population) standard deviation from a sum and a sum of squares."""
    if count == 0:
        return math.nan, math.nan
    mean = total / count
    return mean, math.sqrt(max(squares / count - mean * mean, 0.0))


@dataclass
class Summary:
    """Counters of a run under one ruleset; see :meth:`add` and :meth:`to_json`."""

    rules: Ruleset
    games: int = 0
    seconds: float = 0.0
    score_hist: np.ndarray = field(init=False)  # (n, max score + 1), by seat relative to the first opener
    spent_hist: np.ndarray = field(init=False)  # coins spent in auctions by the whole table, per game
    spread_hist: np.ndarray = field(init=False)  # best minus worst score, per game
    margin_hist: np.ndarray = field(init=False)  # winner's score minus the runner-up's
    win_share: np.ndarray = field(init=False)  # (n,) wins by relative seat in 1/60ths, a shared win split evenly
    seat_win_share: np.ndarray = field(init=False)  # (n,) the same, by seat number (for tables of mixed policies)
    seat_score_total: np.ndarray = field(init=False)  # (n,) sum of final scores by seat number
    winner_score: int = 0
    top_ties: int = 0  # games where several seats share the highest score
    tie_breaks: int = 0  # ... and the coins tie-break decided (fewer winners than top scorers)
    shared_wins: int = 0  # games with more than one winner after the tie-break

    def __post_init__(self) -> None:
        n, rules = self.rules.players, self.rules
        top = rules.starting_coins + 15 * rules.rounds + 1
        self.score_hist = np.zeros((n, top), dtype=np.int64)
        self.spent_hist = np.zeros(n * rules.starting_coins + 1, dtype=np.int64)
        self.spread_hist = np.zeros(top, dtype=np.int64)
        self.margin_hist = np.zeros(top, dtype=np.int64)
        self.win_share = np.zeros(n, dtype=np.int64)
        self.seat_win_share = np.zeros(n, dtype=np.int64)
        self.seat_score_total = np.zeros(n, dtype=np.int64)

    def add(self, result: BatchResult) -> None:
        """Fold in a batch of finished games."""
        n, games = self.rules.players, result.games
        if result.rules != self.rules:
            raise ValueError("a summary only folds in games played under its own ruleset")
        coins = result.coins.astype(np.int32)
        scores = result.won.sum(axis=0, dtype=np.int32) + coins
        # Row k: the seat k places after the first opener.
        cols = np.arange(games, dtype=np.int64)
        order = ((result.first[None, :] + np.arange(n)[:, None]) % n) * games + cols
        top = self.score_hist.shape[1]
        rel_scores = np.take(scores, order)
        rel_scores += (top * np.arange(n, dtype=np.int32))[:, None]
        self.score_hist += np.bincount(rel_scores.reshape(-1), minlength=n * top).reshape(n, top)
        # Winners: highest score, then most coins (coins never exceed the starting coins).
        key = scores * (self.rules.starting_coins + 1) + coins
        winners = key == key.max(axis=0)
        count = winners.sum(axis=0, dtype=np.int32)
        seat_share = winners * (SHARE_UNIT // count)
        self.seat_win_share += seat_share.sum(axis=1)
        self.seat_score_total += scores.sum(axis=1, dtype=np.int64)
        self.win_share += np.take(seat_share, order).sum(axis=1)
        ordered = scores.copy()
        sort_rows(ordered)
        best, second, worst = ordered[-1], ordered[-2], ordered[0]
        self.spread_hist += np.bincount(best - worst, minlength=top)
        self.margin_hist += np.bincount(best - second, minlength=top)
        spent = n * self.rules.starting_coins - coins.sum(axis=0)
        self.spent_hist += np.bincount(spent, minlength=self.spent_hist.shape[0])
        self.winner_score += int(best.sum(dtype=np.int64))
        tops = (scores == best).sum(axis=0, dtype=np.int32)
        tied = tops > 1
        self.top_ties += int(np.count_nonzero(tied))
        self.tie_breaks += int(np.count_nonzero(tied & (count < tops)))
        self.shared_wins += int(np.count_nonzero(count > 1))
        self.games += games

    # -- figures -------------------------------------------------------------
    def win_rates(self, by_seat_number: bool = False) -> list[tuple[float, float, float]]:
        """Per seat relative to the first opener: (win share, 95% CI low, high).

        The interval is Wilson's score interval on the share of games won (a
        shared win counts as its share; shared wins are rare, so the share
        is all but a proportion). Unlike the normal approximation it stays
        inside [0, 1] and is meaningful for a handful of games. With
        ``by_seat_number`` the seats are numbered as at the table instead.
        """
        out = []
        g = self.games
        z2 = Z95 * Z95
        for total in (self.seat_win_share if by_seat_number else self.win_share).tolist():
            p = total / SHARE_UNIT / g if g else math.nan
            if not g:
                out.append((p, math.nan, math.nan))
                continue
            centre = (p + z2 / (2 * g)) / (1 + z2 / g)
            half = Z95 * math.sqrt(max(p * (1 - p), 0.0) / g + z2 / (4 * g * g)) / (1 + z2 / g)
            out.append((p, max(centre - half, 0.0), min(centre + half, 1.0)))
        return out

    def _hist_figures(self, hist: np.ndarray) -> dict[str, float]:
        values = np.arange(hist.shape[0])
        count = int(hist.sum())
        mean, sd = _moments(float((hist * values).sum()), float((hist * values * values).sum()), count)
        p = _quantiles(hist, (0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0)) if count else [0] * 7
        nz = np.flatnonzero(hist)
        return {
            "mean": mean,
            "sd": sd,
            "min": int(nz[0]) if nz.size else 0,
            "p5": p[1],
            "p25": p[2],
            "median": p[3],
            "p75": p[4],
            "p95": p[5],
            "max": int(nz[-1]) if nz.size else 0,
        }

    def to_json(self) -> dict[str, Any]:
        """Every figure, JSON-ready."""
        g = self.games
        rates = self.win_rates()
        n = self.rules.players
        return {
            "games": g,
            "seconds": self.seconds,
            "games_per_s": g / self.seconds if self.seconds > 0 else None,
            "players": n,
            "rules": self.rules.to_json(),
            "rules_description": self.rules.describe(),
            "score": self._hist_figures(self.score_hist.sum(axis=0)),
            "score_by_seat": [self._hist_figures(self.score_hist[k]) for k in range(n)],
            "win_rate_by_seat": [
                {"seat_after_first": k, "win_rate": r, "ci95": [lo, hi]} for k, (r, lo, hi) in enumerate(rates)
            ],
            "first_player_advantage": rates[0][0] - 1 / n,
            "win_rate_by_seat_number": [
                {"seat": k, "win_rate": r, "ci95": [lo, hi], "score_mean": total / g if g else math.nan}
                for k, ((r, lo, hi), total) in enumerate(
                    zip(self.win_rates(by_seat_number=True), self.seat_score_total.tolist())
                )
            ],
            "winner_score_mean": self.winner_score / g if g else math.nan,
            "spent_in_auctions": self._hist_figures(self.spent_hist),
            "spent_share_of_coins": (self._hist_figures(self.spent_hist)["mean"] / (n * self.rules.starting_coins))
            if self.rules.starting_coins
            else 0.0,
            "spread": self._hist_figures(self.spread_hist),
            "winner_margin": self._hist_figures(self.margin_hist),
            "top_score_ties": self.top_ties / g if g else math.nan,
            "tie_break_decides": self.tie_breaks / g if g else math.nan,
            "shared_wins": self.shared_wins / g if g else math.nan,
        }
