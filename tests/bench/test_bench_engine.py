"""The engine benchmark runs and keeps its output contract (no timing is asserted)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from harness.scripts import load_script

BENCH = Path(__file__).resolve().parents[2] / "bench" / "engine.py"


def test_engine_benchmark_prints_games_per_second(forsale_env):
    import sys

    proc = subprocess.run(
        [sys.executable, str(BENCH), "--games", "200", "--repeat", "2"],
        capture_output=True, text=True, env=forsale_env, check=True,
    )  # fmt: skip
    lines = proc.stdout.strip().splitlines()
    assert re.fullmatch(r"engine games_per_s \d+", lines[-1])
    assert any(line.startswith("engine copies_plus_apply_per_s ") for line in lines)


def test_benchmark_policy_plays_complete_legal_games():
    import random

    module = load_script(BENCH)
    from forsale import from_record, to_record

    for seed in range(20):
        game = module.random_game(random.Random(seed))
        assert game.is_over
        assert from_record(to_record(game)).scores() == game.scores()
