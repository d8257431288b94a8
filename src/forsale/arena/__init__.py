"""The arena: tournaments between bots, with seat rotation, duplicate deals, statistics and ratings.

>>> from forsale.arena import run_tournament, summarize
>>> results = run_tournament(["expert", "value", "value"], games=3, seed=1)
>>> sorted(summarize(results))
['expert', 'value']
"""

from .stats import BotStats, mean_ci, summarize, wilson_interval
from .tournament import GameResult, lineup_for, play_game, run_tournament

__all__ = [
    "BotStats", "GameResult", "lineup_for", "mean_ci", "play_game", "run_tournament", "summarize", "wilson_interval",
]  # fmt: skip
