"""bench/calibration.py on a tiny run: a fitted temperature per number of houses left, beside the search's rule."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from forsale.bots.valuation import sale_temperature
from harness.scripts import load_script

BENCH = Path(__file__).resolve().parents[2] / "bench" / "calibration.py"


def test_a_tiny_run_fits_every_stage_of_the_sale(forsale_env: dict[str, str], tmp_path: Path) -> None:
    out, png = tmp_path / "fit.json", tmp_path / "fit.png"
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--players", "3", "--games", "12", "--json", str(out), "--plot", str(png)],
        capture_output=True, text=True, env=forsale_env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = json.loads(out.read_text())["3"]
    assert [r["houses_left"] for r in rows] == list(range(1, 9))  # 3 players: 8 houses each after the auctions
    for r in rows:
        assert r["positions"] == 12 and r["rule"] == sale_temperature(r["houses_left"])
        assert r["loglik_fitted"] >= r["loglik_rule"]  # the rule's values are on the fitted grid
    assert png.stat().st_size > 1000


def test_the_likelihood_prefers_the_temperature_that_fits() -> None:
    bench = load_script(BENCH)
    sure = [([10.0, 0.0, 0.0], [1.0, 0.0, 0.0])] * 3 + [([10.0, 0.0, 0.0], [0.0, 1.0, 0.0])]
    # A ten-point leader of three won three games in four: 1 / (1 + 2 exp(-10 / T)) = 3/4 at T = 10 / ln 6 = 5.58.
    best = max(bench.GRID, key=lambda t: bench.log_likelihood(sure, t))  # type: ignore[attr-defined]
    assert best in (5.5, 5.75)


def test_bad_arguments_are_refused(forsale_env: dict[str, str]) -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--players", "2,7"], capture_output=True, text=True, env=forsale_env, timeout=60
    )
    assert proc.returncode == 2 and "player counts are 3 to 6" in proc.stderr
