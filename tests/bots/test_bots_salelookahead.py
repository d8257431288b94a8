"""The sale play-outs against fitted sellers (forsale.bots.salelookahead)."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from forsale.bots import make_agent
from forsale.bots.salelookahead import rollout_values
from forsale.bots.salemodels import Position
from forsale.bots.valuation import MARGIN_WEIGHT
from forsale.rules import win_shares

# Three seats, two houses each: this round, then a last one whose cheques are three of the four unseen.
POS = Position(
    hands=((5, 20), (10, 25), (12, 18)),
    table=(3, 7, 11),
    pool=(0, 2, 4, 6),
    won=(4, 6, 0),
    coins=(1, 2, 1),
    rounds=9,
    sales_before=(),
    finished_tables=(),
)


def _exact(first: int, opponents_now: tuple[int, int]) -> float:
    """Seat 0's utility of selling ``first`` now, the opponents' plays given, every last table weighed."""
    hands = POS.hands
    plays = (first, *opponents_now)
    order = sorted(plays)
    won = [w + POS.table[order.index(h)] for w, h in zip(POS.won, plays)]
    last = [next(x for x in hand if x != h) for hand, h in zip(hands, plays)]
    total = 0.0
    tables = list(combinations(POS.pool, 3))
    for table in tables:
        rank = sorted(last)
        scores = [w + table[rank.index(h)] + c for w, h, c in zip(won, last, POS.coins)]
        total += win_shares(scores, POS.coins)[0] + MARGIN_WEIGHT * (scores[0] - max(scores[1:]))
    return total / len(tables)


def test_a_play_out_against_fixed_sellers_matches_the_exact_expectation() -> None:
    """Sellers of their lowest house, certainly: each value is the exact mean over the last round's tables."""
    sure = {"lowest": [1.0, 0.0]}
    values = rollout_values(
        POS, 0, [None, {"lowest": 1.0}, {"lowest": 1.0}], [None, sure, sure], 4000, random.Random(3)
    )
    exact = [_exact(h, (10, 12)) for h in POS.hands[0]]
    assert values == pytest.approx(exact, abs=0.03)
    assert max(range(2), key=values.__getitem__) == max(range(2), key=exact.__getitem__)


def test_the_rule_drawn_for_a_seller_plays_its_house_this_round() -> None:
    """A seller taken to sell its highest house is met by the highest, not the lowest: the values differ."""
    low = {"lowest": [1.0, 0.0], "highest": [0.0, 1.0]}
    args = ([None, {"highest": 1.0, "lowest": 0.0}, {"lowest": 1.0, "highest": 0.0}], [None, low, low])
    values = rollout_values(POS, 0, *args, 4000, random.Random(3))
    assert values == pytest.approx([_exact(h, (25, 12)) for h in POS.hands[0]], abs=0.03)


def test_the_same_seed_gives_the_same_values() -> None:
    dists = {"lowest": [0.9, 0.1], "uniform": [0.5, 0.5]}
    post = {"lowest": 0.7, "uniform": 0.3}
    runs = [rollout_values(POS, 0, [None, post, post], [None, dists, dists], 16, random.Random(5)) for _ in range(2)]
    assert runs[0] == runs[1]


def test_a_searcher_sells_as_the_expert_in_the_later_rounds() -> None:
    """The chair's search is too costly for every later round of every play-out: there the expert's own sale
    stands in for it (``STAND_INS``), so a searcher predicted as the expert now is played out as the expert."""
    pos = Position(
        hands=((3, 9, 20), (5, 14, 27), (8, 16, 22)),
        table=(4, 9, 13),
        pool=(0, 2, 6, 7, 10, 12, 15),
        won=(0, 0, 0),
        coins=(2, 1, 3),
        rounds=9,
        sales_before=(),
        finished_tables=(),
    )
    now = {"expert": [0.1, 0.8, 0.1], "searcher": [0.1, 0.8, 0.1]}
    runs = [
        rollout_values(pos, 0, [None, {rule: 1.0}, {rule: 1.0}], [None, now, now], 64, random.Random(8))
        for rule in ("expert", "searcher")
    ]
    assert runs[0] == runs[1]


@pytest.mark.parametrize("spec", ["hard:lookahead=2.5", "hard:lookahead=-1", "hard:lookahead=65", "hard:lookahead=x"])
def test_the_option_is_refused_unless_a_whole_number_in_range(spec: str) -> None:
    with pytest.raises(ValueError, match="lookahead"):
        make_agent(spec)
