"""``forsale analyse``: the real command on known records, ``--seat``, ``--json``, and bad input."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from forsale.bots.analysis import analyse

GOLDEN = Path(__file__).parent.parent / "data" / "golden"
RECORD = GOLDEN / "4p-official.json"
BUDGET = "2"


@pytest.fixture
def run(forsale_cmd, forsale_env, tmp_path):
    def go(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [*forsale_cmd, "analyse", *argv],
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env={**forsale_env, "COLUMNS": "200"},
            cwd=tmp_path,
            timeout=120,
        )
        assert "Traceback" not in proc.stderr
        return proc

    return go


def test_json_is_the_library_analysis_for_the_same_seed_and_budget(run):
    proc = run(str(RECORD), "--seat", "2", "--budget", BUDGET, "--seed", "5", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    expected = analyse(json.loads(RECORD.read_text()), seat=2, budget=int(BUDGET), seed=5)
    assert out == json.loads(json.dumps(expected.to_json(3)))
    assert out["seats"] == [2] and {d["seat"] for d in out["decisions"]} == {2}


def test_the_table_lists_every_decision_and_flags_the_costliest_with_the_better_move(run):
    record = json.loads(RECORD.read_text())
    name = record["players"][1]
    proc = run(str(RECORD), "--seat", name, "--budget", BUDGET, "--seed", "5")
    assert proc.returncode == 0, proc.stderr
    result = analyse(record, seat=1, budget=int(BUDGET), seed=5)
    assert f"{name} (seat 1)" in proc.stdout
    for d in result.decisions:
        assert any(line.split("│")[1].strip() == str(d.move) for line in proc.stdout.splitlines() if "│" in line)
    worst = result.costliest(1, 3)
    assert worst, "a 2-deal analysis of a bot game finds some costly move"
    assert f"Costliest decisions of {name}:" in proc.stdout
    for d in worst:
        assert f"move {d.move} ({d.phase} round {d.round + 1}): played {d.chosen}" in proc.stdout
        assert f"{d.best} would have given {d.best_chance:.0%}" in proc.stdout
    assert proc.stdout.count("!!") == len(worst)


def test_every_seat_by_default_and_the_record_from_standard_input(run):
    proc = run("-", "--budget", "1", "--json", stdin=(GOLDEN / "3p-official.json").read_text())
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["seats"] == [0, 1, 2] and {d["seat"] for d in out["decisions"]} == {0, 1, 2}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "is not valid JSON"),
        ('{"format": "something/else"}', "is not a game record: format must be"),
        ("[1, 2]", "is not a game record: a record must be a JSON object"),
    ],
)
def test_a_bad_file_exits_2_with_one_line(run, tmp_path, text, words):
    path = tmp_path / "bad.json"
    path.write_text(text)
    proc = run(str(path))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"forsale analyse: {path} ") and words in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_an_illegal_move_gives_the_referees_message(run, tmp_path, forsale_cmd, forsale_env):
    record = json.loads(RECORD.read_text())
    record["moves"][3] = {"seat": record["moves"][3].get("seat", 0), "bid": 99}
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(record))
    proc = run(str(path))
    referee = subprocess.run([*forsale_cmd, "replay", str(path)], capture_output=True, text=True, env=forsale_env)
    message = json.loads(referee.stdout)["error"]["message"]
    assert proc.returncode == 2
    assert proc.stderr == f"forsale analyse: {path} is an illegal record (move 3): {message}\n"


def test_bad_options_and_missing_files_exit_2(run, tmp_path):
    missing = run(str(tmp_path / "nothing.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    seat = run(str(RECORD), "--seat", "7")
    assert seat.returncode == 2 and "--seat '7' is neither a seat from 0 to 3" in seat.stderr
    budget = run(str(RECORD), "--budget", "0")
    assert budget.returncode == 2 and "--budget must be at least 1" in budget.stderr
