"""Property tests over random legal play, for every player count and ruleset."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from forsale import Deal, Ruleset, Sell, from_record, new_game, referee, sample_state, to_record, view
from forsale.rules import CHEQUES, PRESETS


@st.composite
def rulesets(draw) -> Ruleset:
    players = draw(st.integers(2, 6))
    if draw(st.booleans()):
        names = [n for n in PRESETS if (n == "two-player") == (players == 2)]
        return Ruleset.preset(draw(st.sampled_from(names)), players)
    removed = draw(st.sampled_from([r for r in range(0, 30 - players + 1) if (30 - r) % players == 0]))
    return Ruleset.custom(
        players,
        starting_coins=draw(st.integers(0, 40)),
        removed=removed,
        refund=draw(st.sampled_from(["down", "up"])),
    )


def random_play(rules: Ruleset, rng: random.Random, stop_after: int | None = None, check=None):
    """Play uniformly random legal actions (any seat that may act), calling ``check`` after each."""
    game = new_game(rules, rng=rng)
    steps = 0
    while not game.is_over and (stop_after is None or steps < stop_after):
        seat = rng.choice(game.seats_to_act())
        game.push(seat, rng.choice(game.legal_actions(seat)))
        steps += 1
        if check:
            check(game)
    return game


def check_invariants(game) -> None:
    rules = game.rules
    n = game.n
    assert all(c >= 0 for c in game.coins)
    v = view(game, None)
    # Coins: what players hold plus what they paid equals what they started with.
    assert sum(game.coins) + sum(t.paid for t in v.takes) == n * rules.starting_coins
    # Houses: in hands, sold, on the table and still to come are exactly the houses in play.
    sold = [h for seat, houses in game.moves if seat is None for h in houses]
    in_hands = [h for hand in game.hands for h in hand]
    future = list(game.deal.houses[n * (game.round + 1) :]) if game.phase == "auction" else []
    on_table = game.table if game.phase == "auction" else []
    assert Counter(in_hands + sold + on_table + future) == Counter(game.deal.houses)
    # Cheques: won, on the table and to come are exactly the cheques in play.
    won = [c for w in game.cheques_won for c in w]
    if game.phase == "auction":
        rest = list(game.deal.cheques)
    elif game.phase == "sale":
        rest = game.table + list(game.deal.cheques[n * (game.round + 1) :])
    else:
        rest = []
    assert Counter(won + rest) == Counter(game.deal.cheques)
    # Every hand has the same size once the auctions are over.
    if game.phase != "auction":
        assert len({len(h) for h in game.hands}) == 1


@settings(max_examples=60, deadline=None)
@given(rules=rulesets(), rng=st.randoms(use_true_random=False))
def test_random_play_conserves_cards_and_coins_and_ends(rules, rng):
    game = random_play(rules, rng, check=check_invariants)
    assert game.is_over
    sales = [m for m in game.moves if m[0] is None]
    assert len(sales) == rules.rounds
    assert sum(len(w) for w in game.cheques_won) == rules.cards
    assert all(len(w) == rules.rounds for w in game.cheques_won)
    winners = game.winners()
    best = max(game.scores())
    assert all(game.scores()[w] == best for w in winners)
    assert view(game, None).winners() == winners == view(game, 0).winners()


@settings(max_examples=40, deadline=None)
@given(rules=rulesets(), rng=st.randoms(use_true_random=False))
def test_ends_game_says_which_legal_actions_end_the_game(rules, rng):
    game = new_game(rules, rng=rng)
    while not game.is_over:
        for seat in game.seats_to_act():
            for action in game.legal_actions(seat):
                assert game.ends_game(action) == game.apply(seat, action).is_over
        seat = rng.choice(game.seats_to_act())
        game.push(seat, rng.choice(game.legal_actions(seat)))
    assert not game.ends_game(Sell(1))


@settings(max_examples=60, deadline=None)
@given(rules=rulesets(), rng=st.randoms(use_true_random=False), stop=st.integers(0, 200))
def test_record_replay_round_trip(rules, rng, stop):
    game = random_play(rules, rng, stop_after=stop)
    if game.phase == "sale" and game.n_commits:
        # Records hold whole sale rounds: finish the half-committed one.
        for seat in game.seats_to_act():
            game.push(seat, game.legal_actions(seat)[0])
    record = json.loads(json.dumps(to_record(game, [f"P{i}" for i in range(game.n)])))
    rebuilt = from_record(record)
    assert rebuilt.moves == game.moves
    assert rebuilt.coins == game.coins and rebuilt.cheques_won == game.cheques_won
    assert (rebuilt.phase, rebuilt.round) == (game.phase, game.round)
    status, result = referee(json.dumps(record))
    assert status == 0
    assert result["complete"] == game.is_over
    if game.is_over:
        assert result["scores"] == game.scores() and result["winners"] == game.winners()


def reshuffled_secrets(game, rng: random.Random):
    """The same game with the undealt order and the removed cards drawn again."""
    n = game.n
    deal = game.deal
    seen_h = n * (game.round + 1) if game.phase == "auction" else len(deal.houses)
    seen_c = 0 if game.phase == "auction" else (n * (game.round + 1) if game.phase == "sale" else len(deal.cheques))
    hidden_h = list(deal.houses[seen_h:] + deal.removed_houses)
    rng.shuffle(hidden_h)
    remaining_cheques = Counter(CHEQUES)
    remaining_cheques.subtract(deal.cheques[:seen_c])
    hidden_c = list(remaining_cheques.elements())
    rng.shuffle(hidden_c)
    k = len(deal.houses)
    other = Deal(
        list(deal.houses[:seen_h]) + hidden_h[: k - seen_h],
        list(deal.cheques[:seen_c]) + hidden_c[: k - seen_c],
        deal.first,
        hidden_h[k - seen_h :],
        hidden_c[k - seen_c :],
    )
    twin = new_game(game.rules, deal=other)
    for seat, action in game.moves:
        if seat is None:
            twin.push_sale(action)
        else:
            twin.push(seat, action)
    # Uncommitted sales are secrets too: redraw every seat's.
    if game.phase == "sale":
        for seat in range(n):
            if game.commits[seat]:
                twin.push(seat, Sell(rng.choice(twin.hands[seat])))
    return twin


@settings(max_examples=80, deadline=None)
@given(rules=rulesets(), rng=st.randoms(use_true_random=False), stop=st.integers(0, 200))
def test_views_are_identical_for_states_that_differ_only_in_secrets(rules, rng, stop):
    game = random_play(rules, rng, stop_after=stop)
    twin = reshuffled_secrets(game, rng)
    for seat in [None, *range(game.n)]:
        seen_by_seat = twin.clone()
        if seat is not None and game.phase == "sale":
            seen_by_seat.commits[seat] = game.commits[seat]  # a seat knows its own choice
        assert view(seen_by_seat, seat) == view(game, seat)


@settings(max_examples=40, deadline=None)
@given(rules=rulesets(), rng=st.randoms(use_true_random=False), stop=st.integers(0, 200))
def test_sampled_states_are_consistent_with_every_view(rules, rng, stop):
    game = random_play(rules, rng, stop_after=stop)
    for seat in range(game.n):
        v = view(game, seat)
        assert view(sample_state(v, rng), seat) == v
