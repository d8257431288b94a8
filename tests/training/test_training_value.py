"""Fitting the value model: numpy play equals torch, the same seed gives the same model, the command runs end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from forsale import Ruleset
from forsale.bots.valuemodel import ValueModel, feature_size, load_file
from forsale.cli import main
from forsale.training import value
from forsale.training.data import generate


def test_numpy_inference_matches_torch_inference() -> None:
    rules = Ruleset.default(5)
    torch.manual_seed(0)
    net = value.network(5, rules.rounds)
    model = value.export(net, rules)
    x = generate(rules, 30, seed=2).x
    with torch.no_grad():
        expected = torch.softmax(net(torch.from_numpy(x)), dim=1).numpy()
        logits = net(torch.from_numpy(x)).numpy()
    assert np.allclose(model.logits(x), logits, atol=1e-5)
    assert np.allclose(model.predict(x), expected, atol=1e-6)
    assert np.allclose(model.predict(x[3]), expected[3], atol=1e-6)  # one row in, one row of shares out


def test_the_same_seed_fits_the_same_model_and_the_export_round_trips(tmp_path) -> None:
    rules = Ruleset.default(3)
    a = value.train(rules, games=60, epochs=2, seed=9)
    b = value.train(rules, games=60, epochs=2, seed=9)
    for (wa, ba), (wb, bb) in zip(a.model.layers, b.model.layers):
        assert np.array_equal(wa, wb) and np.array_equal(ba, bb)
    assert [h["val_loss"] for h in a.history] == [h["val_loss"] for h in b.history]
    path = tmp_path / "m.npz"
    a.model.save(path)
    again = load_file(path)
    assert again.players == 3 and again.fits(rules) and not again.fits(Ruleset.default(4))
    assert "seed=9" in again.info
    x = generate(rules, 5, seed=1).x
    assert np.array_equal(again.predict(x), a.model.predict(x))


def test_a_file_that_is_not_a_value_export_is_refused(tmp_path) -> None:
    path = tmp_path / "other.npz"
    np.savez(path, w0=np.zeros((3, 3)), b0=np.zeros(3))
    with pytest.raises(ValueError, match="not a value model export"):
        load_file(path)
    good = value.export(value.network(4, 7), Ruleset.default(4)).to_arrays()
    good["players"] = 3  # layers sized for 4 players
    with pytest.raises(ValueError, match="do not fit"):
        ValueModel(good)


def test_forsale_train_value_runs_end_to_end_on_a_tiny_budget(tmp_path, capsys) -> None:
    plot, figures = tmp_path / "curve.png", tmp_path / "fit.json"
    argv = ["train", "value", "--players", "3-4", "--games", "40", "--epochs", "2", "--seed", "3", "--quiet"]
    code = main([*argv, "--out", str(tmp_path), "--plot", str(plot), "--json", str(figures)])
    out = capsys.readouterr().out
    assert code == 0
    assert "3p:" in out and "4p:" in out and "held-aside loss" in out
    assert plot.stat().st_size > 10_000
    report = json.loads(figures.read_text())
    assert report["seed"] == 3 and [f["players"] for f in report["fits"]] == [3, 4]
    for players in (3, 4):
        model = load_file(tmp_path / f"value-{players}p.npz")
        assert model.fits(Ruleset.default(players))
        shares = model.predict(np.zeros((2, feature_size(players)), np.float32))
        assert shares.shape == (2, players) and np.allclose(shares.sum(axis=1), 1.0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "2"], "trained for 3, 4, 5, 6 players, not 2"),
        (["--players", "3", "--out", "missing-dir"], "is not a directory"),
        (["--players", "3", "--seed", "-1"], "--seed must be 0 or more"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(tmp_path, monkeypatch, capsys, args, message) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["train", "value", "--games", "10", "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_player_count_that_is_not_a_number_is_an_argparse_error(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["train", "value", "--players", "three"])
    assert exit_.value.code == 2
    assert "is not a player count" in capsys.readouterr().err
