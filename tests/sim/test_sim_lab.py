"""The rules lab: same deals for every ruleset, and figures that move the way the rules say."""

from __future__ import annotations

import json

import pytest

from forsale import Ruleset
from forsale.cli import main
from forsale.errors import ForSaleError
from forsale.sim.run import default_lab_rulesets, lab


def _figures(rows):
    out = []
    for row in rows:
        figures = row.summary.to_json()
        figures.pop("seconds"), figures.pop("games_per_s")
        figures.pop("rules"), figures.pop("rules_description")
        out.append(figures)
    return out


def test_identical_knobs_give_identical_figures_so_the_deals_and_streams_are_shared() -> None:
    # A preset and a custom ruleset with the same knobs: same deals, same random stream, same games.
    named = Ruleset.preset("official", 4)
    knobs = Ruleset.custom(4, starting_coins=18, removed=2, refund="down")
    rows = lab(4, [named, knobs], ["random"], 3000, seed=5, chunk=1000)
    a, b = _figures(rows)
    assert a == b
    assert a["games"] == 3000


def test_the_rules_move_the_figures_the_way_they_should() -> None:
    rulesets = [
        Ruleset.preset("official", 4),
        Ruleset.preset("refund-up", 4),
        Ruleset.custom(4, starting_coins=21, removed=2, refund="down"),
        Ruleset.custom(4, starting_coins=0, removed=2, refund="down"),
    ]
    official, up, rich, broke = (r.summary.to_json() for r in lab(4, rulesets, ["value"], 4000, seed=1))
    # Rounding the refund up returns money to passers: less is spent (the mean gap is ~3 coins, >10 SE).
    assert up["spent_in_auctions"]["mean"] < official["spent_in_auctions"]["mean"] - 1
    # Three more coins each: more is spent in total, and final scores rise.
    assert rich["spent_in_auctions"]["mean"] > official["spent_in_auctions"]["mean"]
    assert rich["score"]["mean"] > official["score"]["mean"]
    # Nobody can bid without coins: nothing is spent and the score is the cheques alone.
    assert broke["spent_in_auctions"]["max"] == 0
    assert broke["score"]["mean"] == pytest.approx(sum([0, 0, *range(2, 16), *range(2, 16)]) * 28 / 30 / 4, rel=0.02)
    for figures in (official, up, rich, broke):
        assert sum(r["win_rate"] for r in figures["win_rate_by_seat"]) == pytest.approx(1.0)
        assert 0 <= figures["tie_break_decides"] <= figures["top_score_ties"] <= 1


def test_default_rulesets_cover_the_disagreements_without_repeats() -> None:
    four = default_lab_rulesets(4)
    assert [r.name for r in four] == ["official", "first-edition", "refund-up", None]
    assert (four[-1].starting_coins, four[-1].removed, four[-1].refund) == (21, 2, "down")
    six = default_lab_rulesets(6)
    assert len({(r.starting_coins, r.removed, r.refund) for r in six}) == len(six) == 2
    two = default_lab_rulesets(2)
    assert two[0].name == "two-player" and {r.refund for r in two} == {"down", "up"}


def test_lab_refuses_rules_for_another_table() -> None:
    with pytest.raises(ForSaleError, match="not for 4 players"):
        lab(4, [Ruleset.preset("official", 5)], ["value"], 10)


def test_lab_command_table_json_and_plot(tmp_path, capsys) -> None:
    out, plot = tmp_path / "lab.json", tmp_path / "lab.png"
    argv = [
        "lab",
        "--games",
        "600",
        "--players",
        "2,4",
        "--seed",
        "2",
        "--quiet",
        "--json",
        str(out),
        "--plot",
        str(plot),
    ]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Rules lab" in text and "refund-up" in text and "two-player" in text
    data = json.loads(out.read_text())
    rows = data["rows"]
    assert [r["players"] for r in rows] == [2, 2, 2, 4, 4, 4, 4]
    assert all(r["games"] == 600 and r["policy"] == "value" for r in rows)
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_lab_command_errors(capsys) -> None:
    assert main(["lab", "--games", "10", "--players", "3", "--rules", "two-player", "--quiet"]) == 2
    assert "the two-player preset is for 2 players, not 3" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["lab", "--players", "1,4"])
    assert "player counts must be 2 to 6" in capsys.readouterr().err
