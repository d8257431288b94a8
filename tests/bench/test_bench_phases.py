"""bench/phases.py on a tiny table: every seat valued at the end of the auctions, two bots paired over deals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "phases.py"


def test_a_tiny_table_values_the_end_of_the_auctions_and_pairs_two_bots(
    forsale_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "phases.json"
    args = ["--table", "value,smart,random", "--games", "5", "--compare", "value", "smart", "--json", str(out)]
    proc = subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, env=forsale_env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "after the auctions" in proc.stdout and "value - smart, paired over deals" in proc.stdout
    report = json.loads(out.read_text())
    assert report["games"] == 6 and report["deals"] == 2  # rounded up to whole deals
    rows = {row["bot"]: row for row in report["bots"]}
    assert set(rows) == {"value", "smart", "random"}
    # Points are above the table's mean, and every bot sits at every game of a deal: they add up to zero.
    for measure in ("auction_points", "final_points"):
        assert sum(row[measure]["mean"] for row in rows.values()) == pytest.approx(0.0, abs=1e-9)
    assert sum(row["share"]["mean"] for row in rows.values()) == pytest.approx(1.0)
    for row in rows.values():
        assert 0.0 <= row["share"]["ci"][0] <= row["share"]["mean"] <= row["share"]["ci"][1] <= 1.0
    paired = report["compare"]
    for measure in ("auction_points", "final_points", "share"):
        difference = rows["value"][measure]["mean"] - rows["smart"][measure]["mean"]
        assert paired[measure]["mean"] == pytest.approx(difference)


def test_a_bad_table_is_refused_before_any_game(forsale_env: dict[str, str]) -> None:
    for args, said in (
        (["--table", "value,smart"], "3 to 6 distinct bots"),
        (["--table", "value,smart,nope"], "unknown bot 'nope'"),
        (["--table", "value,smart,random", "--compare", "value", "hard"], "two bots of the table"),
    ):
        proc = subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, env=forsale_env)
        assert proc.returncode == 2 and said in proc.stderr, proc.stderr
