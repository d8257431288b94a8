"""The value model's training data: features equal the view path, labels are the engine's win shares, moves legal.

:func:`forsale.training.data.games_features` restates
:func:`forsale.bots.valuemodel.features` on the lockstep arrays, so every
row is compared, bit for bit, with the features of the seat's
:class:`~forsale.view.View` on the engine state rebuilt from the game's own
record (:func:`forsale.from_record` checks every move the population made
against the rules). Finished games must replay to the win shares the rows
are labelled with (:func:`forsale.rules.win_shares`).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forsale import Ruleset, from_record, view
from forsale.bots.valuemodel import feature_size, features
from forsale.rules import win_shares
from forsale.sim.step import AUCTION, OVER, SALE, Deals, Games
from forsale.training.data import games_features, generate, play_chunk
from forsale.training.policies import Population

RULESETS = [Ruleset.preset("two-player", 2)] + [Ruleset.default(n) for n in range(3, 7)]
RULESETS += [Ruleset.preset("refund-up", 4), Ruleset.custom(5, starting_coins=9, removed=5, refund="up")]


def _replayed(games: Games, game: int):
    return from_record(json.loads(json.dumps(games.record(game))))


def _check_positions(rules: Ruleset, seed: int, size: int = 6, keep: float = 0.3) -> int:
    """Play ``size`` population games move by move, comparing kept rows with the view path; rows checked."""
    rng = np.random.default_rng(seed)
    n = rules.players
    games = Games(rules, size, record=True)
    everyone = np.arange(size)
    games.deal(everyone, *Deals(n, rng).take(size))
    players = Population(size, n)
    players.draw(everyone, rng)
    checked = 0
    while True:
        live = np.flatnonzero(games.phase != OVER)
        if not live.size:
            break
        kept = live[rng.random(live.size) < keep]
        seats = rng.integers(0, n, kept.size)
        rows = games_features(games, kept, seats)
        for row, game, seat in zip(rows, kept.tolist(), seats.tolist()):
            state = _replayed(games, game)
            expected = features(view(state, seat))
            assert np.array_equal(row, expected), (game, seat, state.phase, np.flatnonzero(row != expected))
            checked += 1
        auction = np.flatnonzero(games.phase == AUCTION)
        sale = np.flatnonzero(games.phase == SALE)
        if auction.size:
            games.auction(auction, players.auction(games, auction, rng))
        if sale.size:
            games.sale(sale, players.sale(games, sale, rng))
    for game in range(size):
        state = _replayed(games, game)  # every move of the population was legal
        assert state.is_over
    return checked


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: f"{r.players}p-{r.name}")
def test_features_on_the_arrays_equal_features_of_the_view(rules: Ruleset) -> None:
    assert _check_positions(rules, seed=rules.players) > 20


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6))
def test_features_agree_on_random_games(seed: int, players: int) -> None:
    _check_positions(Ruleset.default(players), seed, size=3, keep=0.15)


@pytest.mark.parametrize("players", [3, 4, 6])
def test_labels_are_the_engines_win_shares_in_relative_order(players: int) -> None:
    rules = Ruleset.default(players)
    rng = np.random.default_rng(7)
    games, x, game, seat = play_chunk(rules, 24, rng, record=True)
    assert x.shape == (len(game), feature_size(players)) and len(game) > 24
    assert set(seat.tolist()) == set(range(players))  # positions are seen from every seat
    shares = games.rewards(np.arange(24), "win")
    for g in range(24):
        state = _replayed(games, g)
        assert list(shares[g]) == win_shares(state.scores(), state.coins)
    positions = generate(rules, 40, seed=3, chunk=16)
    assert np.allclose(positions.y.sum(axis=1), 1.0)
    assert ((positions.y == 0) | (positions.y >= 1 / players - 1e-6)).all()
    assert positions.game.min() == 0 and positions.game.max() == 39


def test_same_seed_same_data_and_other_seed_other_data() -> None:
    rules = Ruleset.default(4)
    a, b, c = generate(rules, 30, seed=5), generate(rules, 30, seed=5), generate(rules, 30, seed=6)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.y, b.y) and np.array_equal(a.game, b.game)
    assert a.x.shape != c.x.shape or not np.array_equal(a.x, c.x)


def test_the_population_plays_differently_from_seat_to_seat() -> None:
    """Every family is drawn: each sale rule and a spread of bidding rules appear in a chunk."""
    players = Population(2000, 4)
    players.draw(np.arange(2000), np.random.default_rng(1))
    assert set(np.unique(players.sale_kind).tolist()) == set(range(7))
    assert (players.gap == 0).mean() > 0.1 and players.gap.max() > 0.7
    assert players.pace.std() > 0.2 and players.bias.std() > 1.0
