"""``--plot``: win rates with their intervals, and the score distributions (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path

from .stats import BotStats


def plot_summary(stats: dict[str, BotStats], path: str | Path, title: str = "") -> None:
    """Write a two-panel figure to ``path`` (the format follows its suffix: .png, .svg, .pdf)."""
    import matplotlib

    matplotlib.use("Agg")  # files only: never needs a display
    import matplotlib.pyplot as plt

    names = list(stats)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    rates = [stats[n].win_rate for n in names]
    lows = [max(0.0, stats[n].win_rate - stats[n].win_rate_ci[0]) for n in names]
    highs = [max(0.0, stats[n].win_rate_ci[1] - stats[n].win_rate) for n in names]
    left.bar(names, rates, yerr=[lows, highs], capsize=6, color="#4c72b0")
    players = max(1, round(sum(s.games for s in stats.values()) / max(1, _games(stats))))
    left.axhline(1 / players, color="grey", linestyle="--", linewidth=1, label=f"fair share 1/{players}")
    left.set_ylabel("win rate (95% Wilson interval)")
    left.set_ylim(0, 1)
    left.legend()
    right.boxplot([stats[n].scores for n in names], showmeans=True)
    right.set_xticks(range(1, len(names) + 1), names)
    right.set_ylabel("final score (coins)")
    for axis in (left, right):
        axis.tick_params(axis="x", rotation=20)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _games(stats: dict[str, BotStats]) -> int:
    """Games in the tournament: each game hands out exactly one win."""
    return round(sum(s.wins for s in stats.values()))
