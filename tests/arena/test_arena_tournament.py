"""Tournaments: seat rotation, duplicate deals, reproducibility, parallel runs, records, Ray."""

from __future__ import annotations

import json
import subprocess

import pytest

from forsale import from_record, referee
from forsale.arena import lineup_for, play_game, run_tournament, summarize
from forsale.arena.tournament import deal_for
from forsale.rules import Ruleset

LINEUP = ["expert", "value", "smart"]


def test_rotation_puts_every_bot_in_every_seat_on_the_same_deal() -> None:
    rules = Ruleset.default(3)
    block = [lineup_for(LINEUP, i, seating="rotate") for i in range(3)]
    for seat in range(3):
        assert sorted(lineup[seat] for lineup in block) == sorted(LINEUP)
    assert deal_for(rules, 7, 0) == deal_for(rules, 7, 2)  # one deal per block of n games
    assert deal_for(rules, 7, 2) != deal_for(rules, 7, 3)
    assert deal_for(rules, 7, 0) != deal_for(rules, 8, 0)


def test_tournament_is_reproducible_from_its_seed() -> None:
    first = run_tournament(LINEUP, games=6, seed=42)
    again = run_tournament(LINEUP, games=6, seed=42)
    other = run_tournament(LINEUP, games=6, seed=43)
    key = [(r.bots, r.scores, r.coins) for r in first]
    assert key == [(r.bots, r.scores, r.coins) for r in again]
    assert key != [(r.bots, r.scores, r.coins) for r in other]


def test_parallel_jobs_give_the_same_results_as_one_process() -> None:
    one = run_tournament(LINEUP, games=6, seed=5, records=True)
    two = run_tournament(LINEUP, games=6, seed=5, jobs=2, records=True)
    assert [r.index for r in two] == list(range(6))
    assert [(r.bots, r.scores, r.record) for r in one] == [(r.bots, r.scores, r.record) for r in two]


def test_a_game_result_is_consistent_and_its_record_replays() -> None:
    result = play_game(LINEUP, seed=3, index=1, record=True)
    assert result.bots == lineup_for(LINEUP, 1, seed=3)
    assert sum(result.shares) == pytest.approx(1.0)
    assert all(d > 0 for d in result.decisions)
    record = result.record
    assert record is not None and record["players"] == result.bots
    status, out = referee(json.dumps(record))
    assert status == 0 and out["complete"] and out["scores"] == result.scores
    assert from_record(record).scores() == result.scores


def test_bad_lineups_fail_before_any_game() -> None:
    with pytest.raises(ValueError, match="unknown bot 'wizard'"):
        run_tournament(["expert", "wizard"], games=2)
    with pytest.raises(ValueError, match="2 to 6 bots"):
        run_tournament(["expert"], games=2)
    with pytest.raises(ValueError, match="unknown backend"):
        run_tournament(LINEUP, games=1, backend="cloud")


def test_progress_callback_sees_every_game() -> None:
    seen: list[int] = []
    results = run_tournament(LINEUP, games=4, seed=1, on_result=lambda r: seen.append(r.index))
    assert sorted(seen) == [0, 1, 2, 3] and len(results) == 4


def test_ray_backend_runs_a_tiny_tournament_locally() -> None:
    import ray  # the ray extra is part of the test environment: never skipped

    try:
        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
        results = run_tournament(LINEUP, games=3, seed=9, backend="ray")
    finally:
        ray.shutdown()
    local = run_tournament(LINEUP, games=3, seed=9)
    assert [(r.bots, r.scores) for r in results] == [(r.bots, r.scores) for r in local]
    assert set(summarize(results)) == set(LINEUP)


def test_cli_tournament_writes_json_plot_and_records(tmp_path, forsale_cmd, forsale_env) -> None:
    out = tmp_path / "t.json"
    plot = tmp_path / "t.png"
    records = tmp_path / "records"
    proc = subprocess.run(
        forsale_cmd + ["tournament", "--players", "3", "--bots", "expert,value,value", "--games", "6",
                       "--seed", "2", "--json", str(out), "--plot", str(plot), "--records", str(records)],
        env=forsale_env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "expert" in proc.stdout and "value" in proc.stdout
    doc = json.loads(out.read_text())
    assert set(doc["bots"]) == {"expert", "value"}
    assert doc["bots"]["value"]["games"] == 12
    assert doc["bots"]["expert"]["wins"] + doc["bots"]["value"]["wins"] == pytest.approx(6)
    lo, hi = doc["bots"]["expert"]["win_rate_ci"]
    assert lo <= doc["bots"]["expert"]["win_rate"] <= hi
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    files = sorted(records.iterdir())
    assert len(files) == 6
    for f in files:
        status, result = referee(f.read_text())
        assert status == 0 and result["complete"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "4", "--bots", "expert,value"], "--players 4 needs 4 bots"),
        (["--players", "2", "--bots", "expert,wizard"], "unknown bot 'wizard'"),
        (["--players", "2", "--bots", "expert,hard:speed=2"], "bad options for bot 'hard'"),
        (["--players", "2", "--bots", "expert,value", "--rules", "house-rules"], "unknown ruleset"),
        (["--players", "2", "--bots", "expert,value", "--games", "0"], "--games must be at least 1"),
    ],
)
def test_cli_errors_are_clear(args: list[str], message: str, forsale_cmd, forsale_env) -> None:
    proc = subprocess.run(forsale_cmd + ["tournament", *args], env=forsale_env, capture_output=True, text=True)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_shuffled_seating_gives_each_deal_its_own_order_and_every_bot_every_seat() -> None:
    lineup = ["expert", "value", "smart", "random", "prudent"]
    n = len(lineup)
    orders = set()
    for deal in range(12):
        block = [lineup_for(lineup, deal * n + r, seed=3) for r in range(n)]
        for seat in range(n):  # within a deal, every bot sits in every seat once
            assert sorted(game[seat] for game in block) == sorted(lineup)
        for game in block[1:]:  # ... and the deal's order is only rotated
            assert any(game == block[0][-k:] + block[0][:-k] for k in range(n))
        orders.add(tuple(block[0][block[0].index("expert") :] + block[0][: block[0].index("expert")]))
    assert len(orders) > 1  # neighbours change from deal to deal
    assert lineup_for(lineup, 7, seed=3) == lineup_for(lineup, 7, seed=3)  # drawn from the seed
    assert lineup_for(lineup, 7, seating="rotate") == lineup[-2:] + lineup[:-2]


def test_a_tournament_records_each_games_seating_and_refuses_an_unknown_one() -> None:
    results = run_tournament(LINEUP, games=6, seed=2, seating="shuffle")
    assert [r.bots for r in results] == [lineup_for(LINEUP, i, 2, "shuffle") for i in range(6)]
    with pytest.raises(ValueError, match="seating must be one of rotate, shuffle"):
        run_tournament(LINEUP, games=3, seating="random")


def test_a_bot_replaced_by_a_variant_leaves_it_the_same_chairs() -> None:
    """The seating is drawn by position, not by name, so a paired variant plays the games of the bot it replaced."""
    lineup = ["hard", "expert", "value", "smart", "random", "prudent"]
    variant = ["hard:time=0.4", *lineup[1:]]
    for index in range(36):
        base = lineup_for(lineup, index, seed=5)
        assert lineup_for(variant, index, seed=5) == [b if b != "hard" else "hard:time=0.4" for b in base]
