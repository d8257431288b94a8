"""Cross-check the engine against a second, deliberately naive implementation of the rules.

The reference below is written from docs/rules.md alone, in the plainest way
(no speed tricks, no shared code with the engine). Both must agree on every
random game, at every player count and under every ruleset knob.
"""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from forsale import from_record, new_game, to_record

from .test_properties import rulesets


def reference_result(record: dict) -> dict:
    n = len(record["players"])
    knobs = record["rules"] if isinstance(record["rules"], dict) else None
    refund_up = (knobs or {}).get("refund") == "up" or record["rules"] in ("refund-up", "first-edition")
    if knobs:
        coins = [knobs["starting_coins"]] * n
    elif record["rules"] == "first-edition":
        coins = [{3: 28, 4: 21, 5: 16, 6: 14}[n]] * n
    else:
        coins = [{2: 18, 3: 18, 4: 18, 5: 14, 6: 14}[n]] * n
    houses, cheques = list(record["deal"]["houses"]), list(record["deal"]["cheques"])
    hands = [[] for _ in range(n)]
    won = [[] for _ in range(n)]
    moves = list(record["moves"])
    opener = record["deal"]["first"]
    while houses:
        offer = sorted(houses[:n])
        del houses[:n]
        bids = {seat: 0 for seat in range(n)}
        still_in = list(range(n))
        seat = opener
        while len(still_in) > 1:
            move = moves.pop(0)
            assert move["seat"] == seat
            if "bid" in move:
                assert max(bids.values()) < move["bid"] <= coins[seat]
                bids[seat] = move["bid"]
            else:
                back = (bids[seat] + 1) // 2 if refund_up else bids[seat] // 2
                coins[seat] -= bids[seat] - back
                hands[seat].append(offer.pop(0))
                still_in.remove(seat)
            if len(still_in) > 1:
                seat = (seat + 1) % n
                while seat not in still_in:
                    seat = (seat + 1) % n
        (last,) = still_in
        coins[last] -= bids[last]
        hands[last].append(offer.pop())
        opener = last
    while cheques:
        offer = sorted(cheques[:n], reverse=True)
        del cheques[:n]
        played = moves.pop(0)["sell"]
        for place, seat in enumerate(sorted(range(n), key=lambda s: -played[s])):
            hands[seat].remove(played[seat])
            won[seat].append(offer[place])
    assert not moves
    scores = [sum(w) + c for w, c in zip(won, coins)]
    best = max(scores)
    top = [s for s in range(n) if scores[s] == best]
    most = max(coins[s] for s in top)
    return {
        "complete": True,
        "scores": scores,
        "coins": coins,
        "cheques": [sorted(w) for w in won],
        "winners": [s for s in top if coins[s] == most],
    }


def engine_result(record: dict) -> dict:
    game = from_record(record)
    return {
        "complete": game.is_over,
        "scores": game.scores(),
        "coins": game.coins,
        "cheques": [sorted(w) for w in game.cheques_won],
        "winners": game.winners(),
    }


@settings(max_examples=150, deadline=None)
@given(rules=rulesets(), seed=st.integers(0, 2**32))
def test_engine_agrees_with_the_naive_reference(rules, seed):
    rng = random.Random(seed)
    game = new_game(rules, rng=rng)
    while not game.is_over:
        seat = rng.choice(game.seats_to_act())
        legal = game.legal_actions(seat)
        # Favour passing and small raises so that auctions of every length occur.
        game.push(seat, legal[0] if rng.random() < 0.4 else rng.choice(legal[: 1 + rng.randint(1, 3)]))
    record = json.loads(json.dumps(to_record(game)))
    assert engine_result(record) == reference_result(record)
