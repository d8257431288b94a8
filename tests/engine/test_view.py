"""The per-seat view: exactly the public information plus the seat's own secret."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from forsale import PASS, Deal, Sell, bid, new_game, sample_state, spectator_view, view
from forsale.view import PER_SEAT_FIELDS, Take, seat_fields


def game_in_sale_phase(seed: int = 3, players: int = 4):
    game = new_game(players, seed=seed)
    rng = random.Random(seed)
    while game.phase == "auction":
        seat = game.current_seat
        game.push(seat, rng.choice(game.legal_actions(seat)))
    return game


def test_view_shows_public_history_and_deductions():
    game = new_game(4, seed=5)
    first = game.current_seat
    game.push(first, bid(2))
    game.push((first + 1) % 4, PASS)
    v = view(game, 2)
    assert v.seat == 2 and v.phase == "auction" and v.round == 0
    assert v.history == ((first, bid(2)), ((first + 1) % 4, PASS))
    assert v.auction_tables == (tuple(sorted(game.deal.houses[:4])),)
    assert v.takes == (Take(0, (first + 1) % 4, min(game.deal.houses[:4]), 0),)
    assert v.hands[(first + 1) % 4] == (min(game.deal.houses[:4]),)
    assert v.coins == (18, 18, 18, 18)  # the open bid is not yet paid
    assert v.high == 2 and v.bids[first] == 2
    # Unseen houses include the removed ones: 30 - 4 revealed.
    assert len(v.unseen_houses) == 26 and v.houses_to_come == 24
    assert v.unseen_cheques == tuple(sorted(v.unseen_cheques)) and len(v.unseen_cheques) == 30


def test_view_never_contains_the_deal_order_or_the_removed_cards():
    game = new_game(4, seed=8)
    v = view(game, 0)
    assert not {"deal", "removed_houses", "removed_cheques", "houses", "cheques"} & set(v.to_json())
    shown = {h for key in ("unseen_houses", "table") for h in v.to_json()[key]}
    assert set(game.deal.removed_houses) <= shown  # removed houses are only ever among the unseen
    assert list(game.deal.houses[4:12]) not in [list(v.unseen_houses[i : i + 8]) for i in range(20)]
    assert not hasattr(v, "deal")


def test_uncommitted_sale_is_private_to_its_seat():
    game = game_in_sale_phase()
    house = game.hands[1][0]
    game.push(1, Sell(house))
    own = view(game, 1)
    other = view(game, 0)
    assert own.my_commit == house
    assert other.my_commit is None
    assert other.committed == (False, True, False, False)
    assert spectator_view(game).my_commit is None
    # A state in which seat 1 chose another house looks the same to everyone else.
    alternative = game.clone()
    alternative.commits[1] = game.hands[1][1]
    for seat in (0, 2, 3, None):
        assert view(alternative, seat) == view(game, seat)
    assert view(alternative, 1) != own


def test_secret_reshuffle_gives_identical_views():
    game = new_game(3, seed=21)  # 6 cards of each deck removed at 3 players
    rng = random.Random(0)
    for _ in range(10):
        game.push(game.current_seat, rng.choice(game.legal_actions(game.current_seat)))
    revealed = 3 * (game.round + 1)
    hidden = list(game.deal.houses[revealed:] + game.deal.removed_houses)
    rng.shuffle(hidden)
    hidden_cheques = list(game.deal.cheques + game.deal.removed_cheques)
    rng.shuffle(hidden_cheques)
    other_deal = Deal(
        list(game.deal.houses[:revealed]) + hidden[: len(game.deal.houses) - revealed],
        hidden_cheques[: len(game.deal.cheques)],
        game.deal.first,
        hidden[len(game.deal.houses) - revealed :],
        hidden_cheques[len(game.deal.cheques) :],
    )
    twin = new_game(game.rules, deal=other_deal)
    for seat, action in game.moves:
        twin.push(seat, action)
    assert twin.deal != game.deal
    for seat in (0, 1, 2, None):
        assert view(twin, seat) == view(game, seat)


def test_view_legal_actions_match_the_engine():
    game = new_game(5, seed=4)
    rng = random.Random(4)
    while not game.is_over:
        for seat in range(5):
            assert view(game, seat).legal_actions() == game.legal_actions(seat)
        seat = rng.choice(game.seats_to_act())
        game.push(seat, rng.choice(game.legal_actions(seat)))


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_seat_fields_complete_the_public_view(players):
    """The public JSON plus a seat's own fields is exactly that seat's view, at every step of random games."""
    rng = random.Random(players)
    for game_seed in range(3):
        game = new_game(players, seed=game_seed)
        while True:
            public = spectator_view(game).to_json()
            for seat in [*range(players), None]:
                own = seat_fields(game, seat)
                assert set(own) == set(PER_SEAT_FIELDS)
                assert {**public, **own} == view(game, seat).to_json()
            if game.is_over:
                break
            seat = rng.choice(game.seats_to_act())
            game.push(seat, rng.choice(game.legal_actions(seat)))


def test_seat_fields_differ_from_the_public_view_only_in_their_keys():
    game = game_in_sale_phase()
    game.push(2, Sell(game.hands[2][0]))
    public = spectator_view(game).to_json()
    for seat in range(4):
        mine = view(game, seat).to_json()
        assert {k for k in mine if mine[k] != public[k]} <= set(PER_SEAT_FIELDS)
    with pytest.raises(ValueError, match="no seat 4"):
        seat_fields(game, 4)


def test_to_json_can_leave_keys_out():
    game = game_in_sale_phase()
    full = view(game, 1).to_json()
    for omit in [("history",), ("takes", "legal"), ("history", "takes", "seat", "my_commit", "legal"), ("scores",)]:
        assert view(game, 1).to_json(omit=omit) == {k: v for k, v in full.items() if k not in omit}
    assert list(view(game, 1).to_json()) == list(full)  # nothing omitted: the same keys in the same order


def test_bad_seat():
    with pytest.raises(ValueError, match="no seat 4"):
        view(new_game(4, seed=1), 4)


def test_sample_state_is_consistent_with_the_view():
    rng = random.Random(7)
    for seed in range(20):
        game = new_game(4, seed=seed)
        play = random.Random(seed)
        steps = play.randrange(0, 60)
        for _ in range(steps):
            if game.is_over:
                break
            seat = play.choice(game.seats_to_act())
            game.push(seat, play.choice(game.legal_actions(seat)))
        seat = play.randrange(4)
        v = view(game, seat)
        sample = sample_state(v, rng)
        assert view(sample, seat) == v
        assert sorted(sample.deal.houses + sample.deal.removed_houses) == list(range(1, 31))
        # The sample can be played on to the end.
        while not sample.is_over:
            s = rng.choice(sample.seats_to_act())
            sample.push(s, rng.choice(sample.legal_actions(s)))


def test_sample_state_covers_every_consistent_placement():
    game = new_game(4, seed=2)
    v = view(game, 0)
    rng = random.Random(1)
    removed, last = Counter(), Counter()
    for _ in range(2000):
        sample = sample_state(v, rng)
        removed.update(sample.deal.removed_houses)
        last[sample.deal.houses[-1]] += 1
    assert set(removed) == set(v.unseen_houses)
    assert set(last) == set(v.unseen_houses)


def test_sample_state_keeps_own_commit_and_guesses_others():
    game = game_in_sale_phase(seed=9)
    mine, theirs = game.hands[0][0], game.hands[2][0]
    game.push(0, Sell(mine))
    game.push(2, Sell(theirs))
    v = view(game, 0)
    seen = set()
    for i in range(200):
        sample = sample_state(v, random.Random(i))
        assert sample.commits[0] == mine
        assert sample.commits[2] in game.hands[2]
        assert sample.commits[1] == sample.commits[3] == 0
        seen.add(sample.commits[2])
    assert seen == set(game.hands[2])
