"""The measurement population: many distinct members, a fixed disjoint split, legal moves everywhere, people's advice."""

from __future__ import annotations

import hashlib
import random

import pytest

from forsale import Ruleset, new_game, view
from forsale.actions import PASS, Bid, Sell
from forsale.bots import agent_names, describe_agents, make_agent
from forsale.bots import population as pop
from forsale.rules import CHEQUES, HOUSES
from forsale.state import Deal
from forsale.view import View


def test_at_least_sixty_distinct_members_built_by_name_and_listed_nowhere() -> None:
    generated = pop.generated_names()
    assert len(generated) >= 60 and len(set(generated)) == len(generated)
    assert all(name.startswith("pop-") for name in generated)
    # Distinct rules, not only distinct names: no two members share a bidding rule and a sale rule.
    assert len({(pop.member(n).bidder.name, pop.member(n).seller.name) for n in generated}) == len(generated)
    for name in generated:
        assert make_agent(name).name == name
    assert not any(name.startswith("pop-") for name in agent_names())  # no front end offers them
    assert not any(name.startswith("pop-") for name in describe_agents())
    assert set(pop.REGISTERED) <= set(agent_names())  # the baselines and expert belong to the population
    with pytest.raises(ValueError, match="unknown bot 'pop-nobody'"):
        make_agent("pop-nobody")


def test_the_split_is_deterministic_disjoint_and_covers_everyone() -> None:
    tune, held = pop.tuning(), pop.held_out()
    assert not set(tune) & set(held)
    assert sorted(tune + held) == sorted(pop.member_names())
    assert abs(len(tune) - len(held)) <= len({pop.family(n) for n in pop.member_names()})
    assert (tune, held) == pop._split()  # recomputed from the seed: the same halves
    for fam in {pop.family(n) for n in pop.member_names()}:  # every family is met in both halves
        assert any(pop.family(n) == fam for n in held) and any(pop.family(n) == fam for n in tune)
    assert any(name in held for name in pop.HUMAN_LIKE) and any(name in tune for name in pop.HUMAN_LIKE)


PINNED_HELD_OUT = "2bb280b428c986da"
"""The first 16 hex digits of the SHA-256 of the held-out names, one a line."""


def test_the_split_is_pinned() -> None:
    """The held-out half must not drift: a change of members or seed shows here (update the pin on purpose only)."""
    digest = hashlib.sha256("\n".join(pop.held_out()).encode()).hexdigest()[:16]
    assert digest == PINNED_HELD_OUT, f"the held-out half changed (now {digest})"


def play(specs: list[str], rules: Ruleset, seed: int) -> None:
    """One game; every action is checked against the view's and the engine's legal actions."""
    state = new_game(rules, seed=seed)
    agents = [make_agent(spec) for spec in specs]
    rng = random.Random(seed)
    while not state.is_over:
        for seat in state.seats_to_act():
            seen = view(state, seat)
            action = agents[seat].act(seen, rng, None)
            assert action in seen.legal_actions(), f"{specs[seat]} played {action} in {seen.phase}"
            state.push(seat, action)


RULESETS = [
    *(Ruleset.default(n) for n in range(3, 7)),
    Ruleset.preset("first-edition", 4),
    Ruleset.preset("refund-up", 5),
    Ruleset.custom(4, starting_coins=0, removed=2, refund="down"),
    Ruleset.custom(3, starting_coins=1, removed=0, refund="up"),
    Ruleset.custom(6, starting_coins=40, removed=0, refund="up"),
]


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: f"{r.players}p-{r.name or 'custom'}-{r.starting_coins}")
def test_every_member_plays_only_legal_moves(rules: Ruleset) -> None:
    names = pop.member_names()
    n = rules.players
    for rep in range(3):  # three shuffles: every member sits at least three times, beside different others
        order = random.Random(f"{rules}:{rep}").sample(names, len(names))
        for game in range(-(-len(order) // n)):
            specs = [order[(game * n + i) % len(order)] for i in range(n)]
            play(specs, rules, seed=rep * 1000 + game)


# -- people's advice, on constructed positions ------------------------------------


def _deal(first_houses: list[int], first_cheques: list[int], players: int = 4) -> Deal:
    rules = Ruleset.default(players)
    houses = first_houses + [h for h in HOUSES if h not in first_houses]
    cheques = list(first_cheques)
    rest = list(CHEQUES)
    for c in first_cheques:
        rest.remove(c)
    cheques += rest
    return Deal(houses[: rules.cards], cheques[: rules.cards], 0)


def test_people_pass_at_once_when_the_houses_are_close() -> None:
    for name in ("pop-close4-savebest", "pop-close8-savebest", "pop-close4-rank"):
        agent = make_agent(name)
        close = view(new_game(4, deal=_deal([12, 13, 14, 15], [])), 0)
        assert agent.act(close, random.Random(0)) == PASS  # coins to spare, nothing worth fighting for
        apart = view(new_game(4, deal=_deal([2, 9, 21, 30], [])), 0)
        assert isinstance(agent.act(apart, random.Random(0)), Bid)  # a wide spread is worth a bid


def _first_sale(first_cheques: list[int]) -> View:
    """Seat 0's view of the first sale round of a game whose first cheques are ``first_cheques``."""
    state = new_game(4, deal=_deal([], first_cheques))
    agents = [make_agent("pop-share30-lowest") for _ in range(4)]
    rng = random.Random(3)
    while state.phase != "sale":
        for seat in state.seats_to_act():
            state.push(seat, agents[seat].act(view(state, seat), rng))
    return view(state, 0)


def test_people_keep_their_best_houses_for_the_richest_cheques() -> None:
    agent = make_agent("pop-close4-savebest")
    rich = _first_sale([15, 15, 14, 14])
    assert agent.act(rich, random.Random(0)) == Sell(max(rich.hand))
    poor = _first_sale([0, 0, 2, 2])
    assert agent.act(poor, random.Random(0)) == Sell(min(poor.hand))


def test_the_server_seats_no_member() -> None:
    """Measurement opponents are not for people: the server refuses them at every table, as it offers none."""
    from forsale.server.botrunner import validate_spec

    for players in range(3, 7):
        rules = Ruleset.default(players)
        assert not any(name.startswith("pop-") for name in agent_names(rules))
        with pytest.raises(ValueError, match="cannot play this table"):
            validate_spec("pop-close4-savebest", rules=rules)
