"""The search bots' fast rollout rules restate the engine's: the same decisions must give the same game.

:mod:`forsale.bots.rollout` plays auctions and sales on plain lists for
speed. Here random positions (random legal moves from a random deal, under
several rulesets, refunds rounded down and up) are finished twice: by the
rollout, and by pushing the very same decisions through
:meth:`forsale.state.State.push`. Coins, hands and cheques must agree.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from forsale import PASS, Ruleset, State, new_game
from forsale.actions import bid
from forsale.bots.bidmodels import LIBRARY, BidRule, going_price
from forsale.bots.expert import SALE_TYPES
from forsale.bots.opponents import BIDDER_GRID
from forsale.bots.rollout import fast_choice, play_auctions, play_sales
from forsale.bots.valuation import quantile_stats, round_values
from forsale.rules import CHEQUES

RULESETS = [
    Ruleset.preset("official", 3),
    Ruleset.preset("official", 4),
    Ruleset.preset("refund-up", 4),
    Ruleset.preset("first-edition", 5),
    Ruleset.preset("official", 6),
    Ruleset.custom(5, starting_coins=3, removed=5, refund="up"),
]


def random_position(rules: Ruleset, seed: int, phase: str) -> State:
    """A deal played by random legal moves up to a random point of ``phase``."""
    rng = random.Random(seed)
    state = new_game(rules, rng=rng)
    stop = rng.randrange(rules.players * rules.rounds * 2)
    moves = 0
    while state.phase == "auction" and (phase == "sale" or moves < stop):
        seat = state.turn
        state.push(seat, rng.choice(state.legal_actions(seat)))
        moves += 1
    if phase == "sale":
        for _ in range(rng.randrange(rules.rounds)):
            state.push_sale([rng.choice(h) for h in state.hands])
    return state


def engine_auctions(state: State, bidders: list[tuple[float, float]], plan: tuple[int, int] | None) -> State:
    """The rollout's bidding rule, one decision at a time through the engine."""
    game = state.clone()
    n, cards, start = game.n, game.rules.cards, game.round
    houses = game.deal.houses
    while game.phase == "auction":
        r, seat = game.round, game.turn
        value = round_values(sorted(houses[: n * (r + 1)]), houses[r * n : r * n + n], n, cards)
        gap = value[max(houses[r * n : r * n + n])] - value[game.table[0]]
        if plan is not None and seat == plan[0] and r == start:
            limit: float = plan[1]
        else:
            a, b = bidders[seat]
            limit = a * gap + b * game.coins[seat]
        raise_ = game.coins[seat] > game.high and game.high + 1 <= limit
        game.push(seat, bid(game.high + 1) if raise_ else PASS)
    return game


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(RULESETS), st.booleans())
def test_rollout_auctions_match_the_engine(seed: int, rules: Ruleset, with_plan: bool) -> None:
    state = random_position(rules, seed, "auction")
    if state.phase != "auction":
        return
    rng = random.Random(seed)
    bidders = [rng.choice(BIDDER_GRID) for _ in range(rules.players)]
    plan = (state.turn, state.high + rng.randrange(6)) if with_plan else None
    before = (state.coins[:], [h[:] for h in state.hands], len(state.moves))
    coins, hands = play_auctions(state, bidders, plan)
    assert (state.coins, state.hands, len(state.moves)) == before  # the sampled state is only read
    game = engine_auctions(state, bidders, plan)
    assert coins == game.coins
    assert hands == game.hands


def engine_rule_auctions(state: State, rules: list[BidRule], prices: list[int]) -> State:
    """The library's bidding rules (issue 32), one decision at a time through the engine: each seat's limit
    from the value gap, its coins, the auctions left, the going price and the round's span; jumps included."""
    game = state.clone()
    n, cards = game.n, game.rules.cards
    houses = game.deal.houses
    fetched = list(prices)
    while game.phase == "auction":
        r, seat = game.round, game.turn
        whole = houses[r * n : r * n + n]
        value = round_values(sorted(houses[: n * (r + 1)]), whole, n, cards)
        gap = value[max(whole)] - value[game.table[0]]
        going = going_price(fetched, game.rules.starting_coins, game.rules.rounds)
        amount = 0
        if game.coins[seat] > game.high:
            amount = rules[seat].move(
                game.high, gap, game.coins[seat], game.rules.rounds - r, going, max(whole) - min(whole)
            )
        if not amount and sum(game.active) == 2:  # this pass ends the round: the other seat pays its bid
            fetched.append(game.bids[next(s for s in range(n) if game.active[s] and s != seat)])
        game.push(seat, bid(amount) if amount else PASS)
    return game


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(RULESETS))
def test_rollout_auctions_with_library_rules_match_the_engine(seed: int, rules: Ruleset) -> None:
    state = random_position(rules, seed, "auction")
    if state.phase != "auction":
        return
    rng = random.Random(seed)
    bidders = [rng.choice(LIBRARY) for _ in range(rules.players)]
    prices = [rng.randrange(8) for _ in range(state.round)]
    coins, hands = play_auctions(state, bidders, None, prices)
    game = engine_rule_auctions(state, bidders, prices)
    assert coins == game.coins
    assert hands == game.hands


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(RULESETS))
def test_rollout_sales_match_the_engine(seed: int, rules: Ruleset) -> None:
    state = random_position(rules, seed, "sale")
    n = rules.players
    rng = random.Random(seed)
    kinds = [rng.choice(SALE_TYPES) for _ in range(n)]
    rest = Counter(CHEQUES)
    rest.subtract(state.deal.cheques)
    future = list(state.deal.cheques[n * state.round :]) + sorted(rest.elements())
    hands = [sorted(h) for h in state.hands]
    totals = [sum(c) for c in state.cheques_won]
    play_sales(hands, totals, future, kinds, random.Random(seed))
    assert all(not h for h in hands)
    # The same choices, made from the engine's own hands and tables, pushed round by round.
    game, choose = state.clone(), random.Random(seed)
    while not game.is_over:
        held = [sorted(h) for h in game.hands]
        after = n * (game.round + 1)
        stats = quantile_stats(sorted(future[after - n * state.round :]), n) if len(held[0]) > 1 else None
        plays = [
            h[0] if len(h) == 1 else fast_choice(kinds[s], h, held[:s] + held[s + 1 :], game.table, stats, choose)
            for s, h in enumerate(held)
        ]
        game.push_sale(plays)
    assert totals == [sum(c) for c in game.cheques_won]
