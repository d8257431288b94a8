"""bench/strength.py on a tiny run: seat rotation over duplicate deals, every mode's JSON, a missing bot skipped."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.population import held_out
from harness.scripts import load_script

BENCH = Path(__file__).resolve().parents[2] / "bench" / "strength.py"


def test_a_tiny_run_rotates_the_seats_and_writes_every_mode(forsale_env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "strength.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--candidate", "value", "--vs", "smart", "--vs", "no-such-bot",
         "--tables", "2", "--round-robin", "3", "--rr-tables", "2", "--games", "8", "--budget", "0.002",
         "--json", str(out)],
        capture_output=True, text=True, env=forsale_env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "skipping no-such-bot: unknown bot 'no-such-bot'" in proc.stderr
    report = json.loads(out.read_text())
    assert report["skipped"] == ["no-such-bot"]
    assert "deal-level means" in report["interval"]

    (vs,) = report["vs"]  # 8 games = 2 deals, each played from every seat: the candidate sits twice in each
    assert vs["opponent"] == "smart" and vs["games"] == 8 and vs["deals"] == 2 and vs["seats"] == [2, 2, 2, 2]
    assert 0 <= vs["ci"][0] <= vs["share"] <= vs["ci"][1] <= 1 and vs["ci"][0] < vs["ci"][1]  # never an empty interval
    assert len(vs["per_deal"]) == 2 and abs(sum(vs["per_deal"]) / 2 - vs["share"]) < 1e-9

    tables = report["tables"]
    assert tables["count"] == 2 and len(tables["tables"]) == 2
    for row in tables["tables"]:
        assert len(row["opponents"]) == 3 and set(row["opponents"]) <= set(held_out())
        for who in ("candidate", "expert"):  # expert in the candidate's seat at the same table and deals
            assert row[who]["seats"] == [2, 2, 2, 2] and row[who]["deals"] == 2
        diff = row["difference"]
        assert abs(diff["mean"] - (row["candidate"]["share"] - row["expert"]["share"])) < 1e-9
        assert diff["below_expert"] == (diff["ci"][1] < 0)
    shares = [row["candidate"]["share"] for row in tables["tables"]]
    assert tables["worst"]["share"] == min(shares) and abs(tables["average"] - sum(shares) / 2) < 1e-9

    (rr,) = report["round_robin"]
    assert rr["players"] == 3 and len(rr["tables"]) == 2
    for row in rr["ranking"]:
        assert row["games"] > 0 and row["games"] % 3 == 0  # whole deals, one game per seat
        assert len(row["per_deal"]) == row["deals"]  # what another run's deals can be pooled with
        assert abs(row["share"] - sum(row["per_deal"]) / row["deals"]) < 1e-9
    assert [row["share"] for row in rr["ranking"]] == sorted((row["share"] for row in rr["ranking"]), reverse=True)
    assert "held-out 4-seat tables" in proc.stdout  # the printed table


def test_the_same_seed_draws_the_same_held_out_tables() -> None:
    module = load_script(BENCH)
    assert module.draw_tables(20, 1) == module.draw_tables(20, 1) != module.draw_tables(20, 2)
    assert all(len(set(t)) == 3 and set(t) <= set(held_out()) for t in module.draw_tables(20, 1))
    assert module.rounded(10, 4) == 12 and module.rounded(1, 6) == 6
    tied = module.ranking({"b": [0.5], "c": [0.25], "a": [0.5]}, {"a": 3, "b": 3, "c": 3})
    assert [row["bot"] for row in tied] == ["a", "b", "c"]  # best first, ties by name (not by who came first)


def test_the_members_mode_measures_each_member_of_a_family_on_the_same_deals(
    forsale_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "members.json"
    args = [sys.executable, str(BENCH), "--members", "humanv", "--members-vs", "smart", "--games", "4", "--seed", "3"]
    proc = subprocess.run([*args, "--json", str(out)], capture_output=True, text=True, env=forsale_env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    members = json.loads(out.read_text())["members"]
    rows = members["members"]
    assert members["opponent"] == "smart" and {row["family"] for row in rows} == {"humanv"}
    assert len(rows) >= 12 and all(row["games"] == 4 and row["seats"] == [1, 1, 1, 1] for row in rows)
    shares = [row["share"] for row in rows]
    assert shares == sorted(shares, reverse=True) and (members["min"], members["max"]) == (shares[-1], shares[0])
    assert members["at_least"]["0.10"] == sum(1 for x in shares if x >= 0.1 - 1e-9)
    assert "members of humanv against three smart" in proc.stdout

    bad = subprocess.run([*args[:3], "nofamily"], capture_output=True, text=True, env=forsale_env, timeout=60)
    assert bad.returncode == 2 and "no family 'nofamily'" in bad.stderr


def test_at_measures_one_named_table_against_expert_on_the_same_deals(
    forsale_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "at.json"
    args = [sys.executable, str(BENCH), "--candidate", "smart", "--games", "8", "--seed", "4"]
    table = ["value", "random", "pop-coinflip-rankmix25"]
    run = [*args, "--at", ",".join(table), "--json", str(out)]
    proc = subprocess.run(run, capture_output=True, text=True, env=forsale_env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tables = json.loads(out.read_text())["tables"]
    (row,) = tables["tables"]
    assert tables["named"] and row["opponents"] == table and row["seed"] == 4000
    assert row["candidate"]["games"] == row["expert"]["games"] == 8
    diff = [a - b for a, b in zip(row["candidate"]["per_deal"], row["expert"]["per_deal"])]
    assert abs(row["difference"]["mean"] - sum(diff) / len(diff)) < 1e-9
    assert "at the named 4-seat table" in proc.stdout

    for bad, said in ((["--at", "value,random"], "takes the table's 3 opponents"),
                      (["--at", "value,random,nobody"], "no bot nobody"),
                      (["--at", "value,random,smart", "--tables", "2"], "not both")):  # fmt: skip
        proc = subprocess.run([*args, *bad], capture_output=True, text=True, env=forsale_env, timeout=60)
        assert proc.returncode == 2 and said in proc.stderr, proc.stderr


def test_pool_merges_round_robins_of_other_seeds_and_paired_compares_two_runs_of_one(
    forsale_env: dict[str, str], tmp_path: Path
) -> None:
    runs = []
    for seed, candidate in ((1, "value"), (2, "value"), (1, "smart")):
        out = tmp_path / f"rr{seed}-{candidate}.json"
        args = ["--candidate", candidate, "--round-robin", "3", "--rr-tables", "2", "--games", "3", "--seed", str(seed)]
        proc = subprocess.run([sys.executable, str(BENCH), *args, "--budget", "0.002", "--json", str(out)],
                              capture_output=True, text=True, env=forsale_env, timeout=120)  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        runs.append(json.loads(out.read_text())["round_robin"][0])
    pooled_json = tmp_path / "pooled.json"
    pool = [sys.executable, str(BENCH), "--pool", str(tmp_path / "rr1-value.json"), str(tmp_path / "rr2-value.json")]
    proc = subprocess.run([*pool, "--json", str(pooled_json)], capture_output=True, text=True, env=forsale_env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pooled over 2 reports" in proc.stdout
    (rr,) = json.loads(pooled_json.read_text())["round_robin"]
    assert rr["players"] == 3 and rr["tables"] == runs[0]["tables"] + runs[1]["tables"]
    for row in rr["ranking"]:
        parts = [r for run in runs[:2] for r in run["ranking"] if r["bot"] == row["bot"]]
        assert row["per_deal"] == [x for r in parts for x in r["per_deal"]]
        assert row["games"] == sum(r["games"] for r in parts) and row["deals"] == len(row["per_deal"])
        assert abs(row["share"] - sum(row["per_deal"]) / row["deals"]) < 1e-9

    old = tmp_path / "old.json"  # a report from before the rows kept their deals
    old.write_text(json.dumps({"round_robin": [{"players": 3, "tables": [], "ranking": [{"bot": "x", "games": 3}]}]}))
    twice = tmp_path / "rr1-value.json"
    for paths, said in (([old], "keeps no deal-level shares"), ([tmp_path / "none.json"], "No such file"),
                        ([twice, twice], "given twice")):  # fmt: skip
        bad = subprocess.run([*pool[:3], *map(str, paths)], capture_output=True, text=True, env=forsale_env)
        assert bad.returncode == 2 and said in bad.stderr, bad.stderr

    # The same seed with another candidate: the same tables and deals, so each bot pairs deal by deal.
    paired_json = tmp_path / "paired.json"
    paired = [
        sys.executable,
        str(BENCH),
        "--paired",
        str(tmp_path / "rr1-value.json"),
        str(tmp_path / "rr1-smart.json"),
    ]
    proc = subprocess.run([*paired, "--json", str(paired_json)], capture_output=True, text=True, env=forsale_env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Paired over deals, 3 players" in proc.stdout
    (diff,) = json.loads(paired_json.read_text())["differences"]
    base = {r["bot"]: r for r in runs[0]["ranking"]}
    variant = {r["bot"]: r for r in runs[2]["ranking"]}
    assert diff["paired"][0]["bot"] == "smart" and diff["paired"][0]["base"] == "value"  # the change comes first
    assert {row["bot"] for row in diff["paired"]} == set(variant)
    for row in diff["paired"]:
        x, y = base[row["base"]]["per_deal"], variant[row["bot"]]["per_deal"]
        assert row["deals"] == len(x) == len(y)
        assert abs(row["difference"] - sum(q - p for p, q in zip(x, y, strict=True)) / len(x)) < 1e-9
        assert row["ci"][0] <= row["difference"] <= row["ci"][1]
    # Other seeds draw other tables: more than one bot differs, and that is no pairing.
    other = [*paired[:3], str(tmp_path / "rr1-value.json"), str(tmp_path / "rr2-value.json")]
    bad = subprocess.run(other, capture_output=True, text=True, env=forsale_env)
    assert bad.returncode == 2 and "--paired" in bad.stderr, bad.stderr
    # A report that lost a bot's row is not the same round robin: said so, by name.
    cut = json.loads((tmp_path / "rr1-smart.json").read_text())
    gone = cut["round_robin"][0]["ranking"].pop()["bot"]
    (tmp_path / "cut.json").write_text(json.dumps(cut))
    bad = subprocess.run([*paired[:4], str(tmp_path / "cut.json")], capture_output=True, text=True, env=forsale_env)
    assert bad.returncode == 2 and f"no row for {gone} in" in bad.stderr, bad.stderr
    # A run seated otherwise played other games: no pairing either.
    rotated = json.loads((tmp_path / "rr1-smart.json").read_text())
    rotated["config"]["seating"] = "rotate"
    (tmp_path / "rotated.json").write_text(json.dumps(rotated))
    bad = subprocess.run([*paired[:4], str(tmp_path / "rotated.json")], capture_output=True, text=True, env=forsale_env)
    assert bad.returncode == 2 and "seats by shuffle" in bad.stderr, bad.stderr
    bad = subprocess.run([*pool, str(tmp_path / "rotated.json")], capture_output=True, text=True, env=forsale_env)
    assert bad.returncode == 2 and "seated differently" in bad.stderr, bad.stderr


def test_fields_seat_the_candidate_and_expert_against_copies_of_one_held_out_member(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 32's homogeneous fields: n - 1 copies of one held-out member, expert paired on the same deals; with
    --split, the houses, coins and cheques of the candidate paired with expert's, field by field and pooled."""
    module = load_script(BENCH)
    assert module.draw_fields(3, 1) == module.draw_fields(3, 1) != module.draw_fields(3, 2)
    assert set(module.draw_fields(3, 1)) <= set(held_out()) and len(set(module.draw_fields(3, 1))) == 3
    member = held_out()[0]
    out = tmp_path / "fields.json"
    args = ["--candidate", "smart", "--field", member, "--field-players", "3", "--games", "6", "--seed", "2"]
    assert module.main([*args, "--split", "--no-progress", "--json", str(out)]) == 0
    fields = json.loads(out.read_text())["fields"]
    (row,) = fields["fields"]
    assert fields["players"] == 3 and row["member"] == member and row["seed"] == 2500
    assert row["candidate"]["games"] == row["expert"]["games"] == 6 and row["candidate"]["seats"] == [2, 2, 2]
    diff = [a - b for a, b in zip(row["candidate"]["per_deal"], row["expert"]["per_deal"])]
    assert abs(row["difference"]["mean"] - sum(diff) / len(diff)) < 1e-9
    for key, paired in row["split_difference"].items():
        mine, theirs = row["split"][key], row["expert"]["split"][key]
        assert len(mine["per_deal"]) == len(theirs["per_deal"]) == 2
        assert abs(paired["mean"] - (mine["mean"] - theirs["mean"])) < 1e-9
        assert fields["split_difference"][key]["mean"] == pytest.approx(paired["mean"])  # one field: the pool is it
    printed = capsys.readouterr().out
    assert "against 2 copies of one held-out member" in printed and "all fields pooled" in printed
    with pytest.raises(SystemExit):
        module.main(["--candidate", "smart", "--field", "prudent-not-a-member"])


def test_exploit_seats_each_member_against_copies_of_the_candidate_and_beside_pairs_the_vs_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 32's exploitability table (the best exploiter is the figure), and a --vs table paired with another bot."""
    module = load_script(BENCH)
    assert module.draw_exploiters(2, 1) == module.draw_exploiters(2, 1) != module.draw_exploiters(2, 2)
    members = held_out()[:2]
    out = tmp_path / "exploit.json"
    args = ["--candidate", "smart", "--exploiter", members[0], "--exploiter", members[1], "--field-players", "3"]
    args += ["--vs", "random", "--beside", "value", "--games", "6", "--seed", "2", "--no-progress", "--json", str(out)]
    assert module.main(args) == 0
    report = json.loads(out.read_text())
    exploit = report["exploit"]
    assert [row["member"] for row in exploit["members"]] == members and exploit["players"] == 3
    assert all(row["games"] == 6 and row["seats"] == [2, 2, 2] for row in exploit["members"])
    assert exploit["best"]["share"] == max(row["share"] for row in exploit["members"])
    (vs,) = report["vs"]
    assert vs["beside"]["bot"] == "value" and vs["beside"]["games"] == vs["games"] == 8
    diff = [a - b for a, b in zip(vs["per_deal"], vs["beside"]["per_deal"])]
    assert abs(vs["difference"]["mean"] - sum(diff) / len(diff)) < 1e-9
    assert "best exploiter" in capsys.readouterr().out
    paired = tmp_path / "paired.json"
    assert module.main(["--paired", str(out), str(out), "--json", str(paired)]) == 0  # a run against itself
    (row,) = json.loads(paired.read_text())["paired_tables"]
    assert row["table"] == "three random" and row["difference"] == 0 and row["deals"] == 2
    if importlib.util.find_spec("matplotlib") is not None:  # the plot of an earlier report, no games
        png = tmp_path / "exploit.png"
        assert module.main(["--replot", str(out), "--plot", str(png)]) == 0  # no --tables/--fields: nothing drawn
        assert not png.exists()
    with pytest.raises(SystemExit):
        module.main(["--candidate", "smart", "--exploiter", "prudent-not-a-member"])


def test_split_places_the_points_in_the_auction_or_the_sale_and_pairs_them_with_the_beside_bot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--split: houses bought, coins paid and cheques earned per game add up to the score, and pair deal by deal."""
    from forsale.rules import Ruleset

    module = load_script(BENCH)
    out = tmp_path / "split.json"
    args = ["--candidate", "cheapskate", "--vs", "smart", "--beside", "bigspender", "--split", "--games", "8"]
    assert module.main([*args, "--seed", "3", "--no-progress", "--json", str(out)]) == 0
    (vs,) = json.loads(out.read_text())["vs"]
    start = Ruleset.parse(None, 4).starting_coins
    for split in (vs["split"], vs["beside"]["split"]):
        assert set(split) == {"houses", "paid", "cheques", "score"} and len(split["paid"]["per_deal"]) == 2
        for deal in range(2):  # a score is the cheques earned plus the coins kept
            cheques, paid = split["cheques"]["per_deal"][deal], split["paid"]["per_deal"][deal]
            assert abs(split["score"]["per_deal"][deal] - (cheques + start - paid)) < 1e-9
            assert 0 <= paid <= start and split["houses"]["per_deal"][deal] > 0
    # cheapskate spends at most a quarter of its coins a round, bigspender up to three quarters
    assert vs["split"]["paid"]["mean"] < vs["beside"]["split"]["paid"]["mean"]
    for key, diff in vs["split_difference"].items():
        assert abs(diff["mean"] - (vs["split"][key]["mean"] - vs["beside"]["split"][key]["mean"])) < 1e-9
    assert "auction and sale, per game" in capsys.readouterr().out


def test_paired_matches_the_vs_tables_by_opponent_and_seed_not_by_position(tmp_path: Path) -> None:
    """Two runs that measured different lists of ``--vs`` tables at one seed are paired where they overlap."""
    module = load_script(BENCH)

    def report(opponents: list[str], shift: float) -> Path:
        vs = [{"opponent": o, "seed": 40, "per_deal": [0.5 + shift, 0.25 + shift, 0.75]} for o in opponents]
        path = tmp_path / f"{'-'.join(opponents)}.json"
        path.write_text(json.dumps({"vs": vs}))
        return path

    rows = module.paired_fields(str(report(["expert", "smart", "value"], 0.0)), str(report(["smart", "value"], 0.25)))
    assert [row["table"] for row in rows] == ["three smart", "three value"]
    assert all(row["difference"] == pytest.approx(0.5 / 3) for row in rows)
