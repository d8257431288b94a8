"""The deal's one JSON form (Deal.to_json / removed_to_json / from_json): records, the server's database, the simulator."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forsale import Deal, RecordError, Ruleset
from forsale.rules import CHEQUES, PRESETS

RULESETS = [Ruleset.preset(name, n) for name in PRESETS for n in range(2, 7) if (name == "two-player") == (n == 2)]


@settings(max_examples=50, deadline=None)
@given(rules=st.sampled_from(RULESETS), seed=st.integers(0, 2**32))
def test_a_deal_survives_its_json_with_and_without_the_removed_cards(rules, seed):
    deal = Deal.random(rules, random.Random(seed))
    data = json.loads(json.dumps(deal.to_json()))
    assert set(data) == {"houses", "cheques", "first"}  # never the removed cards: a record's deal is public
    removed = json.loads(json.dumps(deal.removed_to_json()))
    assert (removed is None) == (rules.removed == 0)
    assert Deal.from_json(data, rules, removed) == deal
    public = Deal.from_json(data, rules)
    assert (public.houses, public.cheques, public.first) == (deal.houses, deal.cheques, deal.first)
    assert public.removed_houses == public.removed_cheques == ()


def official4():
    rules = Ruleset.preset("official", 4)
    return rules, Deal.random(rules, random.Random(3))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: "nope", "deal must be an object with houses, cheques and first"),
        (lambda d: {**d, "houses": d["houses"][:-1]}, "deal.houses must hold 28 houses under these rules"),
        (lambda d: {**d, "houses": [True, *d["houses"][1:]]}, "deal.houses must be a list of house numbers"),
        (lambda d: {**d, "houses": [31, *d["houses"][1:]]}, "deal.houses: house 31 does not exist"),
        (lambda d: {**d, "houses": [d["houses"][1], *d["houses"][1:]]}, "appears more than once"),
        (lambda d: {**d, "cheques": [1, *d["cheques"][1:]]}, "deal.cheques: there is no cheque of 1"),
        (lambda d: {**d, "cheques": [2.0, *d["cheques"][1:]]}, "deal.cheques must be a list of cheque values"),
        (lambda d: {**d, "first": 4}, "deal.first must be a seat number from 0 to 3, not 4"),
        (lambda d: {**d, "first": False}, "deal.first must be a seat number"),
    ],
)
def test_a_malformed_deal_is_refused_naming_the_field(change, message):
    rules, deal = official4()
    with pytest.raises(RecordError, match=message):
        Deal.from_json(change(deal.to_json()), rules)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: [], "removed must be an object with lists of houses and cheques"),
        (lambda r: {"houses": r["houses"]}, "removed must be an object with lists of houses and cheques"),
        (lambda r: {**r, "houses": r["houses"][:1]}, "removed must hold 2 houses and 2 cheques"),
        (lambda r: {**r, "houses": [r["houses"][0]] * 2}, "removed.houses: house .* appears more than once"),
        (lambda r: {**r, "cheques": [1, 2]}, "removed.cheques: there is no cheque of 1"),
    ],
)
def test_malformed_removed_cards_are_refused(change, message):
    rules, deal = official4()
    with pytest.raises(RecordError, match=message):
        Deal.from_json(deal.to_json(), rules, change(deal.removed_to_json()))


def test_removed_cards_must_complete_the_decks():
    rules, deal = official4()
    in_play = deal.houses[0]
    with pytest.raises(RecordError, match=f"removed.houses: house {in_play} appears more than once"):
        Deal.from_json(deal.to_json(), rules, {"houses": [in_play, deal.removed_houses[0]], "cheques": [0, 2]})
    spare = next(c for c in sorted(set(CHEQUES)) if list(deal.cheques).count(c) == 2)
    with pytest.raises(RecordError, match=f"removed.cheques: cheque {spare} appears more than twice"):
        Deal.from_json(deal.to_json(), rules, {"houses": list(deal.removed_houses), "cheques": [spare, spare]})
