"""examples/ppo_forsale.py runs end to end on a tiny budget, and what it exports is a playable ``ppo`` bot."""

from __future__ import annotations

import csv
import random
import subprocess
import sys
from pathlib import Path

from forsale import new_game, view
from forsale.bots import make_agent

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "ppo_forsale.py"


def test_training_script_writes_weights_curve_and_plot(tmp_path: Path) -> None:
    weights, curve, plot = tmp_path / "w.npz", tmp_path / "curve.csv", tmp_path / "curve.png"
    command = [
        sys.executable, str(SCRIPT), "--total-steps", "384", "--num-envs", "8", "--num-steps", "16",
        "--minibatches", "2", "--epochs", "2", "--hidden", "32", "--log-every", "1", "--seed", "3",
        "--weights", str(weights), "--curve", str(curve), "--plot", str(plot),
    ]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "update 3/3 steps 384" in out.stdout
    rows = list(csv.DictReader(curve.open()))
    assert [int(r["steps"]) for r in rows] == [128, 256, 384]
    assert all(0.0 <= float(r["win_share"]) <= 1.0 for r in rows if r["win_share"] != "nan")
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # The export is what the bot reads: it plays a whole 4-player game, legally, with numpy alone.
    agent = make_agent(f"ppo:weights={weights}")
    state = new_game(4, seed=2)
    rng = random.Random(0)
    while not state.is_over:
        for seat in state.seats_to_act():
            seen = view(state, seat)
            action = agent.act(seen, rng, None)
            assert action in seen.legal_actions()
            state.push(seat, action)
    assert len(state.scores()) == 4
