"""bench/bid_prior.py: the prior over the bidding grid, fitted to the tuning half's bids by EM."""

from __future__ import annotations

import json
from pathlib import Path

from forsale.bots.opponents import BIDDER_GRID
from harness.scripts import load_script

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bid_prior.py"


def test_em_recovers_the_mixture_that_made_the_seats() -> None:
    module = load_script(BENCH)
    # 30 seats that only the first rule explains, 10 that only the third does: the weights are their shares.
    rows = [[0.0, -9.0, -9.0]] * 30 + [[-9.0, -9.0, 0.0]] * 10
    weights = module.fit_weights(rows, pseudo=0.0)
    assert abs(weights[0] - 0.75) < 0.01 and abs(weights[2] - 0.25) < 0.01 and weights[1] < 0.01
    # Pseudo-counts keep every rule possible.
    assert min(module.fit_weights(rows, pseudo=1.0)) > 0.01


def test_a_tiny_run_writes_a_prior_per_player_count_that_fits_its_seats_better(tmp_path: Path) -> None:
    module = load_script(BENCH)
    out = tmp_path / "prior.json"
    assert module.main(["--games", "4", "--seed", "2", "--pseudo", "0", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [tuple(rule) for rule in report["grid"]] == list(BIDDER_GRID)
    assert sorted(report["priors"]) == ["2", "3", "4", "5", "6"]
    for players, weights in report["priors"].items():
        assert len(weights) == len(BIDDER_GRID) and abs(sum(weights) - 1.0) < 1e-4
        figures = report["figures"][players]
        # Every seat of every game: the maximum-likelihood mixture explains them at least as well as the old prior.
        assert figures["seats"] == 4 * int(players) and figures["fitted"] >= figures["old"]


def test_the_shipped_prior_was_fitted_on_enough_seats_and_keeps_every_rule() -> None:
    data = json.loads((Path(__file__).resolve().parents[2] / "src/forsale/bots/data/bid-prior.json").read_text())
    for players, weights in data["priors"].items():
        assert data["figures"][players]["seats"] >= 1000 * int(players)
        assert min(weights) > 0 and abs(sum(weights) - 1.0) < 1e-4
        assert data["figures"][players]["fitted"] > data["figures"][players]["old"]
