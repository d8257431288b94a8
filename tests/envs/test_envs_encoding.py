"""The shared encoding: action ids, masks, and observations built from a view and nothing else."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from forsale import PASS, Ruleset, Sell, bid, new_game, sample_state, view
from forsale.envs.encoding import Encoding, outcome

DOC = Path(__file__).resolve().parents[2] / "docs" / "observations.md"


def random_positions(players: int, seed: int, count: int = 40):
    """States met along random games, with the seat to act at each."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        game = new_game(players, rng=rng)
        while not game.is_over:
            for seat in game.seats_to_act():
                if rng.random() < 0.15:
                    out.append((game.clone(), seat))
                game.push(seat, rng.choice(game.legal_actions(seat)))
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_action_ids_round_trip_and_masks_match_the_rules(players):
    enc = Encoding(Ruleset.default(players))
    for index in range(enc.num_actions):
        assert enc.action_index(enc.action(index)) == index
    with pytest.raises(ValueError, match="outside"):
        enc.action(enc.num_actions)
    for game, seat in random_positions(players, seed=players, count=15):
        v = view(game, seat)
        mask = enc.mask(v)
        assert mask.dtype == np.int8 and mask.shape == (enc.num_actions,)
        assert {enc.action(i) for i in np.flatnonzero(mask)} == set(game.legal_actions(seat))


def test_layout_is_contiguous_and_documented():
    enc = Encoding(Ruleset.default(4))
    doc = DOC.read_text()
    stop = 0
    for sl in enc.layout(infostate=True):
        assert sl.start == stop and sl.size > 0
        stop = sl.stop
        assert re.search(rf"`{sl.name}`", doc), f"docs/observations.md does not describe {sl.name}"
    assert stop == enc.infostate_size
    assert enc.slices[-1].stop == enc.obs_size


@pytest.mark.parametrize("players", [3, 4, 6])
def test_observations_depend_only_on_what_the_seat_may_know(players):
    """A world resampled from the seat's view (other deal, other hidden choices) looks the same to it."""
    enc = Encoding(Ruleset.default(players))
    rng = random.Random(7)
    for game, seat in random_positions(players, seed=11 * players):
        v = view(game, seat)
        obs, info = enc.observe(v), enc.infostate(v)
        assert obs.dtype == np.float32 and obs.min() >= 0 and obs.max() <= 1
        assert info.min() >= 0 and info.max() <= 1
        other = sample_state(v, rng)
        w = view(other, seat)
        assert np.array_equal(enc.observe(w), obs)
        assert np.array_equal(enc.infostate(w), info)
        assert enc.infostate_string(w) == enc.infostate_string(v)
        assert enc.observation_string(w) == enc.observation_string(v)


def test_another_seats_sale_choice_is_not_observed_before_the_reveal():
    enc = Encoding(Ruleset.default(4))
    game = new_game(4, seed=3)
    while game.phase == "auction":
        game.push(game.current_seat, PASS)
    low, high = game.clone(), game.clone()
    low.push(0, Sell(min(game.hands[0])))
    high.push(0, Sell(max(game.hands[0])))
    for seat in (1, 2, 3):
        assert np.array_equal(enc.observe(view(low, seat)), enc.observe(view(high, seat)))
        assert enc.infostate_string(view(low, seat)) == enc.infostate_string(view(high, seat))
    # The seat itself does see its own choice.
    assert not np.array_equal(enc.observe(view(low, 0)), enc.observe(view(high, 0)))


def test_information_state_records_every_bid_and_pass_in_order():
    """Perfect recall: who bid each amount, the order of passes, and every sale, relative to the observer."""
    enc = Encoding(Ruleset.default(3))
    game = new_game(3, seed=5)
    first = game.current_seat
    second, third = (first + 1) % 3, (first + 2) % 3
    game.push(first, bid(1))
    game.push(second, bid(2))
    game.push(third, PASS)  # leaves first, with 2 bids made
    game.push(first, PASS)  # leaves second; `second` takes the last house
    observer = third
    rel = {seat: (seat - observer) % 3 for seat in range(3)}
    info = enc.infostate(view(game, observer))
    sl = {s.name: s for s in enc.history_slices}
    bidders = info[sl["bidders"].start : sl["bidders"].stop].reshape(enc.rules.rounds, enc.max_bid, 3)
    assert bidders[0, 0, rel[first]] == 1 and bidders[0, 1, rel[second]] == 1
    assert bidders.sum() == 2
    order = info[sl["pass_order"].start : sl["pass_order"].stop].reshape(enc.rules.rounds, 3, 3)
    assert [int(np.argmax(order[0, rel[s]])) for s in (third, first, second)] == [0, 1, 2]
    before = info[sl["bids_before_pass"].start : sl["bids_before_pass"].stop].reshape(enc.rules.rounds, 3)
    assert before[0, rel[third]] == pytest.approx(2 / 18)
    # The same bids in another order give another information state.
    other = new_game(3, seed=5)
    other.push(first, PASS)
    other.push(second, bid(1))
    other.push(third, bid(2))
    other.push(second, PASS)
    assert not np.array_equal(enc.infostate(view(other, observer)), info)


def test_outcome_shares_a_win_and_reports_scores():
    game = new_game(4, seed=9)
    while game.phase == "auction":
        game.push(game.current_seat, PASS)
    while not game.is_over:
        game.push_sale([min(h) for h in game.hands])
    v = view(game, None)
    win = outcome(v)
    assert sum(win) == pytest.approx(1.0)
    assert [i for i, r in enumerate(win) if r > 0] == game.winners()
    assert outcome(v, "score") == [float(s) for s in game.scores()]
    with pytest.raises(ValueError, match="reward must be"):
        outcome(v, "glory")
