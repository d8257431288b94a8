"""One test per rule of RULES.md, on hand-made deals."""

from __future__ import annotations

import random

import pytest

from forsale import PASS, Bid, Deal, IllegalActionError, Ruleset, Sell, bid, new_game
from forsale.rules import CHEQUES

# A 4-player deal whose first auction round is the worked example's 15 22 24 25.
EXAMPLE_HOUSES = [15, 22, 24, 25, *[h for h in range(1, 31) if h not in (15, 22, 24, 25, 29, 30)]]
EXAMPLE_CHEQUES = list(CHEQUES[:28])


def example_game(first: int = 0, rules: str = "official"):
    return new_game(4, rules=rules, deal=Deal(EXAMPLE_HOUSES, EXAMPLE_CHEQUES, first))


def play_auctions_by_passing(game):
    while game.phase == "auction":
        game.push(game.current_seat, PASS)


# -- set-up -------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_setup_from_a_seed_is_reproducible_and_follows_the_ruleset(players):
    game = new_game(players, seed=11)
    rules = Ruleset.default(players)
    assert game.deal == new_game(players, seed=11).deal
    assert game.deal != new_game(players, seed=12).deal
    assert game.coins == [rules.starting_coins] * players
    assert len(game.deal.houses) == len(game.deal.cheques) == rules.cards
    assert len(game.deal.removed_houses) == len(game.deal.removed_cheques) == rules.removed
    assert sorted(game.deal.houses + game.deal.removed_houses) == list(range(1, 31))
    assert sorted(game.deal.cheques + game.deal.removed_cheques) == sorted(CHEQUES)
    assert 0 <= game.deal.first < players
    assert game.current_seat == game.deal.first


def test_first_auction_reveals_as_many_houses_as_players_in_ascending_order():
    first_five = [30, 2, 17, 9, 4]
    houses = first_five + [h for h in range(1, 31) if h not in first_five]
    game = new_game(5, deal=Deal(houses, list(CHEQUES), 3))
    assert game.table == [2, 4, 9, 17, 30]
    assert game.current_seat == 3


# -- auctions -----------------------------------------------------------------


def test_worked_example_from_the_rules():
    game = example_game()
    a, b, c, d = range(4)
    game.push(a, bid(1))
    game.push(b, PASS)
    assert game.hands[b] == [15] and game.coins[b] == 18
    game.push(c, bid(3))
    game.push(d, bid(4))
    game.push(a, PASS)
    assert game.hands[a] == [22] and game.coins[a] == 17  # paid 1: half of 1 rounded down is 0 back
    game.push(c, PASS)
    assert game.hands[c] == [24] and game.coins[c] == 16  # paid 2: got 1 of 3 back
    # D is alone: pays 4, takes 25 with no move of its own, and opens the next round.
    assert game.hands[d] == [25] and game.coins[d] == 14
    assert game.round == 1 and game.current_seat == d
    assert game.table == sorted(EXAMPLE_HOUSES[4:8])
    assert game.bids == [0, 0, 0, 0] and game.high == 0


def test_refund_rounded_up_in_the_same_example():
    game = example_game(rules="refund-up")
    for seat, action in [(0, bid(1)), (1, PASS), (2, bid(3)), (3, bid(4)), (0, PASS), (2, PASS)]:
        game.push(seat, action)
    assert game.coins == [18, 18, 17, 14]  # A gets 1 of 1 back, C 2 of 3


def test_bid_must_exceed_the_high_bid_and_be_at_least_one():
    game = example_game()
    with pytest.raises(IllegalActionError, match="seat 0 bid 0 but a bid must be at least 1 coin"):
        game.push(0, Bid(0))
    game.push(0, bid(5))
    with pytest.raises(IllegalActionError, match="seat 1 bid 5 but the high bid is already 5"):
        game.push(1, bid(5))
    assert game.legal_actions(1)[:2] == (PASS, bid(6))


def test_bid_at_exactly_the_coins_held_is_legal_and_one_more_is_not():
    game = example_game()
    with pytest.raises(IllegalActionError, match="seat 0 bid 19 but holds 18 coins"):
        game.push(0, bid(19))
    game.push(0, bid(18))
    assert game.high == 18
    assert game.legal_actions(0) == ()  # not its turn any more


def test_a_player_who_cannot_raise_can_only_pass():
    game = example_game()
    game.push(0, bid(18))
    assert not game.can_raise(1)
    assert game.legal_actions(1) == (PASS,)
    with pytest.raises(IllegalActionError, match="seat 1 bid 19 but holds 18 coins"):
        game.push(1, bid(19))


def test_raising_ones_own_bid_is_a_new_total_not_an_increment():
    game = example_game()
    game.push(0, bid(2))
    game.push(1, bid(3))
    game.push(2, PASS)
    game.push(3, PASS)
    game.push(0, bid(5))  # seat 0's total is now 5
    game.push(1, PASS)  # seat 1 pays 2 of 3
    assert game.coins[0] == 13 and game.coins[1] == 16


def test_turns_go_clockwise_skipping_players_who_passed():
    game = example_game(first=2)
    assert game.current_seat == 2
    game.push(2, bid(1))
    assert game.current_seat == 3
    game.push(3, PASS)
    game.push(0, bid(2))
    game.push(1, bid(3))
    assert game.current_seat == 2
    game.push(2, PASS)
    assert game.current_seat == 0  # seat 3 has passed
    with pytest.raises(IllegalActionError, match="it is seat 0's turn to bid or pass, not seat 3's"):
        game.push(3, bid(9))


def test_passing_without_a_bid_costs_nothing_and_takes_the_lowest_house():
    game = example_game()
    game.push(0, PASS)
    assert game.coins[0] == 18 and game.hands[0] == [15]
    assert game.table == [22, 24, 25]


def test_all_pass_round_gives_the_top_house_free_to_the_last_player():
    game = example_game(first=1)
    for seat in (1, 2, 3):
        game.push(seat, PASS)
    assert game.hands == [[25], [15], [22], [24]]
    assert game.coins == [18] * 4
    assert game.current_seat == 0 and game.round == 1


def test_last_player_pays_whole_bid_and_opens_next_round():
    game = example_game()
    game.push(0, bid(7))
    for seat in (1, 2, 3):
        game.push(seat, PASS)
    assert game.coins[0] == 11 and game.hands[0] == [25]
    assert game.current_seat == 0


def test_phase_ends_when_houses_are_used_up_and_each_hand_has_one_per_round():
    game = example_game()
    play_auctions_by_passing(game)
    assert game.phase == "sale" and game.round == 0
    assert [len(h) for h in game.hands] == [7] * 4
    assert sorted(h for hand in game.hands for h in hand) == sorted(EXAMPLE_HOUSES)


# -- sales ----------------------------------------------------------------------


def test_sale_round_is_simultaneous_and_highest_house_takes_highest_cheque():
    game = example_game()
    play_auctions_by_passing(game)
    cheques = sorted(EXAMPLE_CHEQUES[:4])
    assert game.table == cheques
    assert set(game.seats_to_act()) == {0, 1, 2, 3}
    plays = [min(h) for h in game.hands]
    for seat in (2, 0, 3):
        game.push(seat, Sell(plays[seat]))
        assert game.round == 0 and game.cheques_won == [[], [], [], []]  # nothing resolves early
    assert game.seats_to_act() == (1,)
    assert game.has_committed(2) and not game.has_committed(1)
    with pytest.raises(IllegalActionError, match="seat 2 has already chosen a house this sale round"):
        game.push(2, Sell(max(game.hands[2])))
    game.push(1, Sell(plays[1]))
    ranks = sorted(range(4), key=lambda s: plays[s])
    for position, seat in enumerate(ranks):
        assert game.cheques_won[seat] == [cheques[position]]
        assert plays[seat] not in game.hands[seat]  # played houses are discarded
    assert game.round == 1 and game.table == sorted(EXAMPLE_CHEQUES[4:8])


def test_push_sale_equals_individual_commits():
    one, two = example_game(), example_game()
    play_auctions_by_passing(one)
    play_auctions_by_passing(two)
    while not one.is_over:
        plays = [max(h) for h in one.hands]
        one.push_sale(plays)
        for seat in reversed(range(4)):
            two.push(seat, Sell(plays[seat]))
        assert one.cheques_won == two.cheques_won
    assert two.is_over and one.moves == two.moves


def test_selling_a_house_not_in_hand_is_refused():
    game = example_game()
    play_auctions_by_passing(game)
    foreign = game.hands[1][0]
    with pytest.raises(IllegalActionError, match=rf"seat 0 sold house {foreign} but holds "):
        game.push(0, Sell(foreign))
    with pytest.raises(IllegalActionError, match=rf"seat 0 sold house {foreign} but holds "):
        game.push_sale([foreign, *[h[0] for h in game.hands[1:]]])
    assert game.n_commits == 0 and game.round == 0


def test_wrong_phase_actions_are_refused():
    game = example_game()
    with pytest.raises(IllegalActionError, match="cannot sell a house during the auction phase"):
        game.push(0, Sell(15))
    with pytest.raises(IllegalActionError, match="auction phase"):
        game.push_sale([1, 2, 3, 4])
    play_auctions_by_passing(game)
    with pytest.raises(IllegalActionError, match="seat 0 cannot bid during the sale phase"):
        game.push(0, bid(1))
    with pytest.raises(IllegalActionError, match="seat 0 cannot pass during the sale phase"):
        game.push(0, PASS)
    with pytest.raises(IllegalActionError, match="one house per seat"):
        game.push_sale([game.hands[0][0]])


def test_the_game_ends_when_hands_are_empty_and_every_cheque_is_dealt():
    game = example_game()
    play_auctions_by_passing(game)
    while not game.is_over:
        game.push_sale([h[0] for h in game.hands])
    assert game.phase == "over" and game.seats_to_act() == ()
    assert all(h == [] for h in game.hands)
    assert sorted(c for won in game.cheques_won for c in won) == sorted(EXAMPLE_CHEQUES)
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.push(0, PASS)
    with pytest.raises(IllegalActionError, match="over"):
        game.push_sale([1, 2, 3, 4])


# -- scoring ----------------------------------------------------------------------


def finished(coins, cheques):
    """A finished 4-player game with the given coins and cheques (set directly: scoring is under test)."""
    game = example_game()
    play_auctions_by_passing(game)
    while not game.is_over:
        game.push_sale([h[0] for h in game.hands])
    game.coins = list(coins)
    game.cheques_won = [list(c) for c in cheques]
    return game


def test_score_is_cheques_plus_coins_and_highest_wins():
    game = finished([3, 0, 5, 1], [[15, 2], [10], [0], [14, 4]])
    assert game.scores() == [20, 10, 5, 19]
    assert game.winners() == [0]


def test_tie_break_more_coins_wins():
    game = finished([3, 5, 0, 0], [[15, 2], [15], [0], [0]])
    assert game.scores()[:2] == [20, 20]
    assert game.winners() == [1]


def test_tie_break_still_tied_is_a_shared_win():
    game = finished([5, 5, 0, 5], [[15], [13, 2], [0], [3]])
    assert game.winners() == [0, 1]


# -- copying ---------------------------------------------------------------------


def test_apply_returns_a_new_state_and_leaves_the_old_one():
    game = example_game()
    after = game.apply(0, bid(3))
    assert game.high == 0 and game.moves == [] and game.current_seat == 0
    assert after.high == 3 and after.current_seat == 1


def test_clone_is_independent():
    game = example_game()
    game.push(0, bid(2))
    copy = game.clone()
    copy.push(1, PASS)
    copy.push(2, PASS)
    copy.push(3, PASS)
    assert game.hands == [[], [], [], []] and game.coins == [18] * 4 and len(game.moves) == 1
    assert copy.hands[0] == [25] and copy.coins[0] == 16


EVERY_PRESET = [(2, "two-player")] + [(n, r) for n in (3, 4, 5, 6) for r in ("official", "first-edition", "refund-up")]


@pytest.mark.parametrize(("players", "rules"), EVERY_PRESET)
def test_every_player_count_and_preset_plays_to_the_end_with_the_right_number_of_rounds(players, rules):
    rng = random.Random(players)
    game = new_game(players, seed=players, rules=rules)
    auctions, sales = 0, 0
    while not game.is_over:
        if game.phase == "auction":
            seat = game.current_seat
            legal = game.legal_actions(seat)
            before = game.round
            game.push(seat, rng.choice(legal))
            auctions += game.round != before or game.phase != "auction"
        else:
            game.push_sale([rng.choice(h) for h in game.hands])
            sales += 1
    rounds = Ruleset.preset(rules, players).rounds
    assert auctions == sales == rounds
    assert sum(len(c) for c in game.cheques_won) == Ruleset.preset(rules, players).cards


def test_invalid_seat_and_non_action():
    game = example_game()
    with pytest.raises(IllegalActionError, match="not a For Sale action"):
        game.push(0, "bid 3")  # type: ignore[arg-type]
    assert game.why_illegal(9, PASS) == "there is no seat 9 at a table of 4"
