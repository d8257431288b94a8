"""``forsale simulate``: the JSON it writes, the plot, and errors people can act on."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from forsale import Ruleset, from_record
from forsale.cli import main
from forsale.sim.batch import play
from forsale.sim.deals import DealBatch
from forsale.sim.policies import make_policy
from forsale.sim.run import parse_rules, simulate
from forsale.sim.stats import Summary


def test_simulate_command_prints_rates_and_writes_json_and_plot(tmp_path, forsale_cmd, forsale_env) -> None:
    out, plot = tmp_path / "sim.json", tmp_path / "sim.png"
    done = subprocess.run(
        forsale_cmd
        + ["simulate", "--games", "3000", "--players", "5", "--policy", "random", "--seed", "4"]
        + ["--json", str(out), "--plot", str(plot)],
        env=forsale_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "games/s" in done.stdout and "Win rate by seat" in done.stdout and "95% CI" in done.stdout
    figures = json.loads(out.read_text())
    assert figures["games"] == 3000
    assert figures["seconds"] > 0 and figures["games_per_s"] == pytest.approx(3000 / figures["seconds"])
    assert figures["players"] == 5 and figures["rules"] == "official" and figures["policy"] == "random"
    rates = figures["win_rate_by_seat"]
    assert [r["seat_after_first"] for r in rates] == [0, 1, 2, 3, 4]
    assert sum(r["win_rate"] for r in rates) == pytest.approx(1.0)
    assert all(r["ci95"][0] <= r["win_rate"] <= r["ci95"][1] for r in rates)
    score = figures["score"]
    assert (
        score["min"] <= score["p5"] <= score["p25"] <= score["median"] <= score["p75"] <= score["p95"] <= score["max"]
    )
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_same_seed_same_figures(tmp_path) -> None:
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path in paths:
        assert (
            main(["simulate", "--games", "500", "--seed", "9", "--policy", "value", "--quiet", "--json", str(path)])
            == 0
        )
    a, b = (json.loads(p.read_text()) for p in paths)
    for figures in (a, b):
        figures.pop("seconds"), figures.pop("games_per_s")
    assert a == b


def test_rules_knobs_on_the_command_line(tmp_path) -> None:
    out = tmp_path / "k.json"
    assert (
        main(
            [
                "simulate",
                "--games",
                "200",
                "--players",
                "4",
                "--rules",
                "coins=21,removed=2,refund=up",
                "--quiet",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    assert json.loads(out.read_text())["rules"] == {"starting_coins": 21, "removed": 2, "refund": "up"}
    assert parse_rules('{"starting_coins": 28, "removed": 0, "refund": "up"}', 3) == Ruleset.custom(
        3, starting_coins=28, removed=0, refund="up"
    )
    assert parse_rules("refund=up", 5) == Ruleset.custom(5, starting_coins=14, removed=0, refund="up")
    assert parse_rules(None, 2).name == "two-player"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "7"], "2 to 6 players, not 7"),
        (["--players", "2", "--rules", "official"], "use the unofficial 'two-player' preset"),
        (
            ["--rules", "tournament"],
            "unknown ruleset 'tournament'; known rulesets: first-edition, official, refund-up, two-player",
        ),
        (["--rules", "coins=21,removed=3"], "27 houses cannot be dealt in rounds of 4 players"),
        (["--rules", "colour=blue"], "unknown rules knob 'colour'"),
        (["--rules", "{not json"], "not valid JSON"),
        (["--json", "/nonexistent-dir/x.json"], "the directory /nonexistent-dir does not exist"),
    ],
)
def test_bad_input_is_explained(argv, message, capsys) -> None:
    assert main(["simulate", "--games", "10", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("forsale simulate: error: ")
    assert message in err


@pytest.mark.parametrize("games", ["0", "-5", "many", "1.5"])
def test_bad_game_counts_are_refused_by_the_parser(games, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--games", games])
    assert exit_.value.code == 2
    assert "--games" in capsys.readouterr().err


def test_unknown_policy_is_refused(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--policy", "clever"])
    assert "invalid choice: 'clever'" in capsys.readouterr().err


def test_summary_figures_match_a_direct_count_from_engine_replays() -> None:
    rules = Ruleset.preset("official", 3)
    rng = np.random.default_rng(21)
    result = play(rules, DealBatch.random(3, 300, rng), make_policy("value"), rng, record=True)
    summary = Summary(rules)
    summary.add(result)
    figures = summary.to_json()
    wins = [0.0] * 3
    ties = breaks = shared = spent = 0
    for g in range(result.games):
        state = from_record(result.record(g))
        scores, winners = state.scores(), state.winners()
        first = state.deal.first
        for w in winners:
            wins[(w - first) % 3] += 1 / len(winners)
        top = [s for s, v in enumerate(scores) if v == max(scores)]
        ties += len(top) > 1
        breaks += len(top) > 1 and len(winners) < len(top)
        shared += len(winners) > 1
        spent += 3 * 18 - sum(state.coins)
    assert [r["win_rate"] for r in figures["win_rate_by_seat"]] == pytest.approx([w / 300 for w in wins])
    assert figures["top_score_ties"] == ties / 300
    assert figures["tie_break_decides"] == breaks / 300
    assert figures["shared_wins"] == shared / 300
    assert figures["spent_in_auctions"]["mean"] == pytest.approx(spent / 300)
    assert figures["score"]["mean"] == pytest.approx(result.scores.mean())


def test_chunking_changes_nothing_but_memory() -> None:
    """Folding two halves gives the figures of the whole (value is deterministic, so the games are the same)."""
    rules = Ruleset.default(4)
    deals = DealBatch.random(4, 1000, np.random.default_rng(3))
    whole, parts = Summary(rules), Summary(rules)
    whole.add(play(rules, deals, make_policy("value"), np.random.default_rng(0)))
    for start in (0, 400):
        parts.add(
            play(
                rules, deals.slice(start, start + 600 if start else 400), make_policy("value"), np.random.default_rng(0)
            )
        )
    assert parts.to_json() == whole.to_json()
    with pytest.raises(ValueError, match="at least 1"):
        simulate(rules, "random", 0)


def test_retaining_freed_memory_is_available_on_glibc_linux() -> None:
    import sys

    from forsale.sim.memory import retain_freed_memory

    result = retain_freed_memory()
    assert isinstance(result, bool)
    if sys.platform.startswith("linux"):
        import platform

        if platform.libc_ver()[0] == "glibc":
            assert result is True


def test_seat_policies_on_the_command_line(tmp_path, capsys) -> None:
    out = tmp_path / "mix.json"
    argv = ["simulate", "--games", "3000", "--seed", "5", "--quiet", "--seat-policy", "1=value", "--json", str(out)]
    assert main(argv) == 0
    assert "By seat number" in capsys.readouterr().out
    figures = json.loads(out.read_text())
    assert figures["seat_policies"] == {"1": "value"}
    rows = figures["win_rate_by_seat_number"]
    assert [r["seat"] for r in rows] == [0, 1, 2, 3]
    assert sum(r["win_rate"] for r in rows) == pytest.approx(1.0)
    # One value player among three random ones wins about 54% (BASELINES.md reports 56% in its own engine).
    assert rows[1]["win_rate"] > max(rows[0]["win_rate"], rows[2]["win_rate"], rows[3]["win_rate"]) + 0.05
    for bad, message in (
        ("4=value", "from 0 to 3"),
        ("x=value", "from 0 to 3"),
        ("0=clever", "unknown policy 'clever'"),
    ):
        assert main(["simulate", "--games", "10", "--quiet", "--seat-policy", bad]) == 2
        assert message in capsys.readouterr().err
