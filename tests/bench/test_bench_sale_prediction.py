"""bench/sale_prediction.py on a tiny run: per-sale log-losses of the fitted sale models beside a uniform guess."""

from __future__ import annotations

import json
from math import factorial, log
from pathlib import Path

from harness.population import held_out
from harness.scripts import load_script

BENCH = Path(__file__).resolve().parents[2] / "bench" / "sale_prediction.py"


def test_the_report_scores_every_chosen_sale_of_the_members_seats(tmp_path: Path) -> None:
    module = load_script(BENCH)
    out = tmp_path / "prediction.json"
    assert module.main(["--members", "2", "--games", "1", "--seed", "3", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert len(report["members"]) == 2
    for row in report["members"]:
        assert row["member"] in held_out()
        # Four players, one of them expert: three seats of the member, six sales each of its own choosing
        # (the seventh is forced), which a uniform guess scores at log(7!) / 6 nats a sale.
        assert row["seats"] == 3 and row["sales"] == 18
        assert abs(row["uniform"] - log(factorial(7)) / 6) < 1e-9
        assert row["model"] > 0 and row["equilibrium"] > 0 and 0 <= row["modelled_seats"] <= 3
        # The auction half: every decision with a choice is scored by the bid library and by the grid.
        assert row["decisions"] > 0 and row["bid_model"] > 0 and row["bid_grid"] > 0 and 0 <= row["switched_seats"] <= 3
