"""The measurement population (:mod:`harness.population`): many distinct members, a fixed disjoint split, legal moves
everywhere, people's advice; and what it takes to play it: importing it, never the shipped package's registry."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import random
import subprocess
from pathlib import Path

import pytest

from forsale import Ruleset, new_game, view
from forsale.actions import PASS, Bid, Sell
from forsale.bots import agent_names, describe_agents, make_agent
from forsale.rules import CHEQUES, HOUSES
from forsale.state import Deal
from forsale.view import View
from harness import population as pop

BENCH = Path(pop.__file__).resolve().parents[1]
"""``bench/``: where ``harness`` is found."""


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


def test_the_shipped_registry_does_not_import_the_population(forsale_cmd, forsale_env) -> None:
    """A fresh ``forsale`` process builds its bots without the harness: ``pop-...`` is unknown there, and only
    importing :mod:`harness.population` registers it (the bench scripts do; ``--bot-module`` does for a tournament).
    A subprocess, because this process has imported the population already."""
    check = (
        "import sys\n"
        "from forsale.bots import agent_names, make_agent\n"
        "agent_names()\n"
        "assert not any('population' in m for m in sys.modules), sorted(m for m in sys.modules if 'population' in m)\n"
        "try:\n"
        "    make_agent('pop-share30-lowest')\n"
        "except ValueError as error:\n"
        "    print(error)\n"
    )
    shown = subprocess.run(
        [forsale_cmd[0], "-c", check], env=forsale_env, capture_output=True, text=True, timeout=120, check=True
    )
    assert shown.stdout.startswith("unknown bot 'pop-share30-lowest'"), shown.stdout


def test_a_tournament_plays_population_members_when_told_their_module(forsale_cmd, forsale_env) -> None:
    """``forsale tournament`` knows no ``pop-...`` bot by itself, and plays them with ``--bot-module
    harness.population`` (``bench/`` on ``PYTHONPATH``), in its worker processes too (``--jobs 2``)."""
    bots = ["--players", "3", "--bots", "pop-share30-lowest,pop-close4-savebest,random", "--games", "6", "--quiet"]
    refused = subprocess.run(
        [*forsale_cmd, "tournament", *bots], env=forsale_env, capture_output=True, text=True, timeout=120
    )
    assert refused.returncode == 2 and "unknown bot 'pop-share30-lowest'" in refused.stderr, refused.stderr
    env = dict(forsale_env, PYTHONPATH=os.pathsep.join([str(BENCH), forsale_env["PYTHONPATH"]]))
    played = subprocess.run(
        [*forsale_cmd, "tournament", *bots, "--jobs", "2", "--bot-module", "harness.population"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert played.returncode == 0, played.stderr
    assert "pop-close4-savebest" in played.stdout
    missing = subprocess.run(
        [*forsale_cmd, "tournament", *bots, "--bot-module", "harness.nothing"], env=env, capture_output=True, text=True
    )
    assert missing.returncode == 2 and "--bot-module harness.nothing" in missing.stderr, missing.stderr


def test_the_split_is_deterministic_disjoint_and_covers_everyone() -> None:
    tune, held = pop.tuning(), pop.held_out()
    assert not set(tune) & set(held)
    assert sorted(tune + held) == sorted(pop.member_names())
    assert abs(len(tune) - len(held)) <= len({pop.family(n) for n in pop.member_names()})
    assert (tune, held) == pop._split()  # recomputed from the seed: the same halves
    for fam in {pop.family(n) for n in pop.member_names()}:  # every family is met in both halves
        assert any(pop.family(n) == fam for n in held) and any(pop.family(n) == fam for n in tune)
    assert any(name in held for name in pop.HUMAN_LIKE) and any(name in tune for name in pop.HUMAN_LIKE)


PINNED_HELD_OUT = "771098f4eedebeae"
"""The first 16 hex digits of the SHA-256 of the held-out names, one a line."""

FIRST_HELD_OUT = "2bb280b428c986da"
"""The same digest of the first population's held-out half (before the stronger families): it must never change."""


def _digest(names: list[str]) -> str:
    return hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]


def test_the_split_is_pinned() -> None:
    """The held-out half must not drift: a change of members or seed shows here (update the pin on purpose only)."""
    assert _digest(pop.held_out()) == PINNED_HELD_OUT, f"the held-out half changed (now {_digest(pop.held_out())})"


def test_the_stronger_families_moved_no_member_of_the_first_population() -> None:
    """Bots were tuned on the first tuning half: none of its members may now be held out, nor the reverse."""
    firsts = {b.name for b in pop.BIDDERS}
    first = [n for n in pop.held_out() if not n.startswith("pop-") or pop.member(n).bidder.name in firsts]
    assert _digest(first) == FIRST_HELD_OUT
    assert {"pop-lead100-match", "pop-share60-greedy", "smart", "prudent"} <= set(pop.tuning())  # tuned on
    stronger = {b.family for b in pop.STRONG_BIDDERS}
    for fam in stronger:  # every stronger family is met in both halves too
        assert any(pop.family(n) == fam for n in pop.held_out()) and any(pop.family(n) == fam for n in pop.tuning())


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
    reps = 2 if rules.name == "official" else 1  # official rules: two shuffles, beside different others
    for rep in range(reps):
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
    from forsale.server.ops.botrunner import validate_spec

    for players in range(3, 7):
        rules = Ruleset.default(players)
        assert not any(name.startswith("pop-") for name in agent_names(rules))
        with pytest.raises(ValueError, match="cannot play this table"):
            validate_spec("pop-close4-savebest", rules=rules)


# -- the stronger families ----------------------------------------------------------


def test_value_gap_bidders_with_expert_sales_play_as_expert_with_that_alpha() -> None:
    """``vgap150`` bids as ``expert:alpha=1.5`` does, and ``expertsale`` sells as expert: the same move everywhere."""
    member, twin = make_agent("pop-vgap150-expertsale"), make_agent("expert:alpha=1.5")
    compared = 0
    for seed in range(3):
        state = new_game(4, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            for seat in state.seats_to_act():
                seen = view(state, seat)
                action = member.act(seen, random.Random(0))
                assert action == twin.act(seen, random.Random(0)), f"seed {seed}, {seen.phase} round {seen.round}"
                compared += 1
                state.push(seat, action if rng.random() < 0.5 else rng.choice(seen.legal_actions()))
    assert compared > 100


def test_opportunists_raise_at_most_once_a_round() -> None:
    for name in ("pop-once120-expertprior", "pop-oncejump70-anticipatelow"):
        state = new_game(4, seed=5)
        agents = [make_agent(name), *(make_agent("expert") for _ in range(3))]
        raises = 0
        while not state.is_over:
            for seat in state.seats_to_act():
                seen = view(state, seat)
                action = agents[seat].act(seen, random.Random(1))
                if seat == 0 and isinstance(action, Bid):
                    assert seen.bids[0] == 0, f"{name} raised twice in round {seen.round}"
                    raises += 1
                state.push(seat, action)
        assert raises > 0  # and it does raise


def test_keeping_pace_bids_more_when_the_others_have_spent_more() -> None:
    bidder = pop.member("pop-keepgap100-expertsale").bidder
    state = new_game(4, deal=_deal([2, 9, 21, 30], []))
    even = view(state, 0)
    behind = dataclasses.replace(even, coins=(18, 10, 10, 10))  # the others spent 8 coins each, seat 0 none
    assert bidder.limit(behind, random.Random(0)) == pytest.approx(bidder.limit(even, random.Random(0)) + 8)


def test_readers_take_a_rich_top_cheque_with_the_least_house_sure_to_win_it() -> None:
    seen = _first_sale([15, 14, 3, 0])
    hands = [(5, 25, 28), (20, 22, 24), (1, 2, 3), (10, 11, 12)]  # seat 0: 25 and 28 beat every other hand
    rich = dataclasses.replace(seen, hands=tuple(hands))
    for name in ("pop-vgap80-anticipatelow", "pop-vgap80-anticipate", "pop-keepgap100-anticipatexp"):
        assert pop.member(name).seller.choose(rich, random.Random(0)) == 25
    hands[1] = (20, 22, 29)  # no sure winner now: the lowest-house reader dumps its lowest
    contested = dataclasses.replace(seen, hands=tuple(hands))
    assert pop.member("pop-vgap80-anticipatelow").seller.choose(contested, random.Random(0)) == 5


def test_quantile_matching_keeps_the_best_house_for_the_richest_round() -> None:
    seller = pop.member("pop-vgap125-quantile").seller
    rich = _first_sale([15, 15, 14, 14])
    assert seller.choose(rich, random.Random(0)) == max(rich.hand)
    poor = _first_sale([0, 0, 2, 2])
    assert seller.choose(poor, random.Random(0)) == min(poor.hand)
