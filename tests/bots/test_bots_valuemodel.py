"""The shipped value model: it loads from the package, its predictions are pinned, its shares are valid.

Pinned: ``tests/data/value-pinned.json`` (made by
``tests/data/make_value_pinned.py``) holds positions of seeded engine games
as partial records with the shares the shipped models gave; a change of
features or weights must be deliberate and regenerate it. The features
themselves are checked against the batch generator in
``tests/training/test_training_data.py``.
"""

from __future__ import annotations

import json
import random
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from forsale import AUCTION, SALE, Ruleset, from_record, new_game, view
from forsale.bots import valuemodel
from forsale.bots.valuemodel import SHIPPED_PLAYERS, feature_size, features, load

PINNED = json.loads((Path(__file__).parents[1] / "data" / "value-pinned.json").read_text())


def _random_states(players: int, seed: int, count: int) -> list:
    """``count`` states met in a seeded random game, then in more games if needed."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = new_game(players, rng=rng)
        while not state.is_over:
            if rng.random() < 0.2:
                out.append(state.clone())
            seat = rng.choice(state.seats_to_act())
            state.push(seat, rng.choice(state.legal_actions(seat)))
        out.append(state)
    return out[:count]


@pytest.mark.parametrize("players", SHIPPED_PLAYERS)
def test_the_shipped_model_loads_from_the_package_once_and_is_small(players: int) -> None:
    model = load(players)
    assert load(players) is model  # cached
    assert model.fits(Ruleset.default(players)) and model.players == players
    assert "seed=" in model.info
    shipped = resources.files("forsale.bots") / "data" / valuemodel.shipped_name(players)
    assert shipped.is_file() and len(shipped.read_bytes()) < 250_000


def test_no_model_ships_for_two_players() -> None:
    with pytest.raises(ValueError, match="no value model ships for 2 players"):
        load(2)


@pytest.mark.parametrize("case", PINNED, ids=lambda c: f"{c['record']['rules']}-{len(c['record']['moves'])}")
def test_predictions_on_pinned_positions_are_pinned(case: dict) -> None:
    state = from_record(case["record"])
    shares = load(state.n).shares(view(state, case["seat"]))
    assert np.allclose(shares, case["shares"], atol=2e-6), shares


def test_the_pinned_positions_cover_every_model_and_both_phases() -> None:
    states = [from_record(c["record"]) for c in PINNED]
    assert {s.n for s in states} == set(SHIPPED_PLAYERS)
    assert {s.phase for s in states} == {AUCTION, SALE}


@pytest.mark.parametrize("players", SHIPPED_PLAYERS)
def test_shares_are_valid_and_the_same_from_every_seat(players: int) -> None:
    model = load(players)
    states = _random_states(players, seed=players, count=40)
    rows = np.stack([features(view(s, 0)) for s in states])
    assert rows.shape == (40, feature_size(players)) and rows.dtype == np.float32
    shares = model.predict(rows)
    assert shares.shape == (40, players)
    assert (shares >= 0).all() and np.allclose(shares.sum(axis=1), 1.0, atol=1e-5)
    for state in states[::5]:
        # Every input is public: the seats' views give the same shares, in seat order.
        by_seat = [model.shares(view(state, seat)) for seat in range(players)]
        for other in by_seat[1:]:
            assert np.allclose(other, by_seat[0], atol=1e-6)
        # And a seat's view gives another seat's features.
        assert np.array_equal(features(view(state, 0), seat=1), features(view(state, 1)))


def test_the_model_knows_who_is_winning_at_the_end_of_a_game() -> None:
    """Sanity: in the last sale round (every hand known) the seat far ahead gets most of the share."""
    hits = 0
    states = [s for s in _random_states(4, seed=11, count=400) if s.phase == SALE and len(s.hands[0]) == 1]
    assert states
    for state in states:
        scores = [sum(c) + m for c, m in zip(state.cheques_won, state.coins)]
        leader = max(range(4), key=scores.__getitem__)
        if sorted(scores)[-1] - sorted(scores)[-2] > 15:  # no last cheque can close that gap
            hits += 1
            assert load(4).shares(view(state, 0))[leader] > 0.8
    assert hits


def test_a_batch_in_blocks_gives_what_each_row_gives_alone() -> None:
    model = load(4)
    rows = np.random.default_rng(0).random((valuemodel.BLOCK * 3 + 5, feature_size(4)), dtype=np.float32)
    batch = model.predict(rows)
    assert batch.shape == (len(rows), 4)
    for i in (0, valuemodel.BLOCK - 1, valuemodel.BLOCK, len(rows) - 1):
        assert np.allclose(batch[i], model.predict(rows[i]), atol=1e-6)
