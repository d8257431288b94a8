"""Sale-phase opponent models (issue 32): rounds replayed as they were seen, rules recovered, exploitation kept safe."""

from __future__ import annotations

import random
from math import log

import pytest

from forsale import View, new_game, view
from forsale.actions import SELLS, Action
from forsale.bots import make_agent
from forsale.bots.expert import SALE_TYPE_PRIOR, ExpertAgent
from forsale.bots.salemodels import (
    BROAD_PRIOR,
    CHOICES,
    EXPLOIT_MASS,
    PRIOR,
    RULES,
    UNMODELLED,
    current,
    equilibrium,
    expert_refuted,
    exploitable,
    fit_opponents,
    fixed_sellers,
    from_the_first_sale,
    positions,
    reasoning_mass,
    rule_distributions,
    suspects,
    table_sale_prior,
    told_apart,
    well_modelled,
)


class RuleAgent:
    """A synthetic opponent: bids as ``expert`` does and sells by one rule of the library (or its equilibrium)."""

    def __init__(self, rule: str) -> None:
        self.rule = rule
        self._expert = ExpertAgent()

    def act(self, v: View, rng: random.Random, budget: float | None = None) -> Action:
        if v.phase == "auction":
            return self._expert.act(v, rng, budget)
        seat = v.seat
        assert seat is not None
        pos = current(v)
        hand = pos.hands[seat]
        if self.rule == "equilibrium":
            strategy = equilibrium(pos)[seat]
            x, i = rng.random(), 0
            while i < len(hand) - 1 and x > strategy[i]:
                x -= strategy[i]
                i += 1
            return SELLS[hand[i]]
        return SELLS[hand[CHOICES[self.rule](pos, seat)]]


def _play(agents: list[object], seed: int, watch: int | None = None) -> tuple[View, list[View]]:
    """Play a game; the final view of seat 0 and every sale-round view of seat ``watch`` (deciding)."""
    state = new_game(len(agents), seed=seed)
    rng = random.Random(seed)
    seen = []
    while not state.is_over:
        for seat in state.seats_to_act():
            v = view(state, seat)
            if seat == watch and v.phase == "sale":
                seen.append(v)
            state.push(seat, agents[seat].act(v, rng, None))  # type: ignore[attr-defined]
    return view(state, 0), seen


@pytest.mark.parametrize("players", [3, 6])
def test_finished_rounds_are_replayed_exactly_as_they_were_seen(players: int) -> None:
    agents = [RuleAgent("lowest"), *(make_agent("prudent") for _ in range(players - 1))]
    final, seen = _play(agents, seed=3, watch=0)
    assert [pos for pos, _ in positions(final)] == [current(v) for v in seen]
    assert len(seen) == final.rules.rounds


# Each family of rules, the rules it holds: rules of one family often agree (a threshold and the lowest house when
# the top cheque is poor), so the test pins the mass on the family the synthetic opponents sell by.
FAMILIES = {
    "lowest": ("lowest",),
    "highest": ("highest", "match_top"),  # twice the top cheque is above most hands: nearly always the highest
    "median": ("median",),
    "hand_mean": ("hand_mean",),
    "rank_top_left": ("rank_top_left", "rank_mean_left", "rank_top_all", "rank_mean_all", "rank_round"),
    "rank_mean_all": ("rank_top_left", "rank_mean_left", "rank_top_all", "rank_mean_all", "rank_round"),
    "rank_round": ("rank_top_left", "rank_mean_left", "rank_top_all", "rank_mean_all", "rank_round"),
    "threshold_12": ("threshold_9", "threshold_12", "threshold_14"),
    "tiers_mean": ("tiers_mean", "median"),  # a middling table: the median house
    "match_top": ("highest", "match_top"),
    "match": ("match",),
    "greedy": ("greedy", "greedy_now"),
    "expert": ("expert", "greedy", "greedy_now"),  # the sellers that reckon in expected cheques
}


@pytest.mark.parametrize("rule", sorted(FAMILIES))
def test_a_synthetic_opponent_of_each_rule_family_is_recovered(rule: str) -> None:
    """Three seats sell by ``rule``; after the game's sales the posterior holds more than 0.9 on its family."""
    agents: list[object] = [ExpertAgent(), RuleAgent(rule), RuleAgent(rule), RuleAgent(rule)]
    final, _ = _play(agents, seed=11)
    fits = fit_opponents(final)
    for s in (1, 2, 3):
        mass = sum(fits[s].posterior[name] for name in FAMILIES[rule])
        assert mass > 0.9, (rule, s, sorted(fits[s].posterior.items(), key=lambda kv: -kv[1])[:4])
        assert fits[s].observed == final.rules.rounds - 1  # the last, forced, sale teaches nothing
        assert fits[s].log_loss < fits[s].uniform_loss
        assert fits[s].modelled >= EXPLOIT_MASS


def test_an_equilibrium_player_is_not_taken_for_a_rule() -> None:
    agents: list[object] = [ExpertAgent(), *(RuleAgent("equilibrium") for _ in range(3))]
    final, _ = _play(agents, seed=5)
    fits = fit_opponents(final)
    # Equilibrium play is often nearly pure, so rules agree with it at times: the point is that the bot
    # does not bet on them. Its prediction stays the unmodelled players' (solved play, or at random), so the
    # best response to it is a response to the solved game, never to a wrong rule.
    assert all(fits[s].modelled < 0.05 for s in (1, 2, 3))
    assert all(fits[s].posterior["equilibrium"] > fits[s].posterior["uniform"] for s in (2, 3))


def test_the_log_losses_are_the_prequential_scores_of_the_sales() -> None:
    final, _ = _play([ExpertAgent(), *(RuleAgent("highest") for _ in range(3))], seed=2)
    fits = fit_opponents(final)
    sizes = [len(pos.hands[1]) for pos, _ in positions(final) if len(pos.hands[1]) > 1]
    assert fits[1].uniform_loss == pytest.approx(sum(log(k) for k in sizes))
    assert fits[1].rule_loss["uniform"] == pytest.approx(fits[1].uniform_loss)
    assert fits[1].rule_loss["highest"] < fits[1].log_loss < fits[1].uniform_loss
    assert set(fits[1].rule_loss) == set(RULES) and set(UNMODELLED) <= set(RULES)


def test_no_evidence_no_exploitation() -> None:
    """In the first sale round nobody has sold yet: the bot keeps the equilibrium."""
    agents: list[object] = [ExpertAgent(), *(RuleAgent("lowest") for _ in range(3))]
    _, seen = _play(agents, seed=4, watch=0)
    assert not exploitable(fit_opponents(seen[0]), seen[0])
    assert exploitable(fit_opponents(seen[-2]), seen[-2])  # by the last choice, three lowest sellers are known


def _plays_legal_moves_to_the_end(agents: list[object], players: int) -> None:
    """A game of ``agents`` (seat by seat) on the deal of seed ``players``: every move is legal in its seat's view."""
    state = new_game(players, seed=players)
    rng = random.Random(0)
    while not state.is_over:
        for seat in state.seats_to_act():
            v = view(state, seat)
            action = agents[seat].act(v, rng, None)  # type: ignore[attr-defined]
            assert action in v.legal_actions()
            state.push(seat, action)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_modelling_bot_plays_legal_moves_at_every_player_count(players: int) -> None:
    agents: list[object] = [make_agent("hard:model=1:samples=2"), *(RuleAgent("lowest") for _ in range(players - 1))]
    _plays_legal_moves_to_the_end(agents, players)


def test_same_view_and_seed_give_the_same_best_response() -> None:
    agents: list[object] = [ExpertAgent(), *(RuleAgent("lowest") for _ in range(3))]
    _, seen = _play(agents, seed=4, watch=0)
    late = seen[-2]
    assert exploitable(fit_opponents(late), late)  # the decision below is the best response, not the equilibrium
    moves = [make_agent("hard:model=1:samples=3").act(late, random.Random(9), None) for _ in range(2)]
    assert moves[0] == moves[1] and moves[0] in late.legal_actions()


def test_the_option_is_refused_out_of_range() -> None:
    with pytest.raises(ValueError, match="model"):
        make_agent("hard:model=2")
    for spec in ("hard:salepool=-1", "hard:salepool=101", "hard:salepool=x"):
        with pytest.raises(ValueError, match="salepool"):
            make_agent(spec)


@pytest.mark.parametrize("players", [5, 6])
def test_partial_exploitation_best_responds_to_the_modelled_seats_only_legally_and_reproducibly(players: int) -> None:
    """At 5-6 players some opponents sell like a rule and some do not: ``partial=1`` exploits the former."""
    agents: list[object] = [ExpertAgent(), RuleAgent("lowest"), RuleAgent("lowest")]
    agents += [RuleAgent("equilibrium") for _ in range(players - 3)]
    _, seen = _play(agents, seed=players, watch=0)
    late = seen[-2]
    fits = fit_opponents(late)
    assert not exploitable(fits, late) and (well_modelled(fits[1]) or well_modelled(fits[2]))
    moves = [make_agent("hard:partial=1:samples=3").act(late, random.Random(9), None) for _ in range(2)]
    assert moves[0] == moves[1] and moves[0] in late.legal_actions()
    with pytest.raises(ValueError, match="partial"):
        make_agent("hard:partial=2")


def test_the_prior_is_half_the_librarys_own_and_half_the_experts_sale_types() -> None:
    assert set(PRIOR) == set(BROAD_PRIOR) == set(RULES) and set(SALE_TYPE_PRIOR) <= set(RULES)
    assert sum(PRIOR.values()) == pytest.approx(1.0)
    for name in RULES:
        assert PRIOR[name] == pytest.approx(0.5 * BROAD_PRIOR[name] + 0.5 * SALE_TYPE_PRIOR.get(name, 0.0))


@pytest.mark.parametrize("rule", ["lowest", "median"])
def test_after_one_sale_a_seller_of_the_experts_types_is_predicted_better_than_by_the_library_prior(rule: str) -> None:
    """Three seats sell by one of the expert's types: after the first round, the house the rule sells next is
    more likely under :data:`PRIOR` than under the library's own prior, which spreads its mass over rules that
    happened to agree with that one sale."""
    _, seen = _play([ExpertAgent(), *(RuleAgent(rule) for _ in range(3))], seed=4, watch=0)
    v = seen[1]
    pos = current(v)
    chances = {}
    for name, prior in (("library", BROAD_PRIOR), ("typed", PRIOR)):
        fits = fit_opponents(v, prior)
        row = []
        for s in (1, 2, 3):
            dists = rule_distributions(pos, s)
            model, weight = fits[s].predict(dists)
            sells = CHOICES[rule](pos, s)
            row.append(weight * model[sells] + (1 - weight) * dists["equilibrium"][sells])
        chances[name] = row
    assert all(t > lib for t, lib in zip(chances["typed"], chances["library"])), chances
    assert min(chances["typed"]) > 2 / len(pos.hands[1])  # twice a uniform guess's chance, or more


def test_a_fixed_seller_is_best_responded_to_after_two_sales_a_reasoning_one_only_once_well_modelled() -> None:
    """The default gate: three lowest sellers are best-responded to from the third sale round, a round before
    the well-modelled criterion lets the bot; three equilibrium players never (they reason about the hands)."""
    _, lows = _play([ExpertAgent(), *(RuleAgent("lowest") for _ in range(3))], seed=4, watch=0)
    gates = [(fixed_sellers(f, v), exploitable(f, v)) for v in lows[:-1] for f in [fit_opponents(v)]]
    assert gates[:3] == [(False, False), (False, False), (True, False)]  # one sale cannot tell a rule from reasoning
    assert all(fixed for fixed, _ in gates[2:])
    _, eqs = _play([ExpertAgent(), *(RuleAgent("equilibrium") for _ in range(3))], seed=4, watch=0)
    assert not any(fixed_sellers(fit_opponents(v), v) for v in eqs[:-1])
    third = lows[2]
    moves = [make_agent("hard:gate=fixed:samples=3").act(third, random.Random(9), None) for _ in range(2)]
    assert moves[0] == moves[1] and moves[0] in third.legal_actions()
    with pytest.raises(ValueError, match="gate"):
        make_agent("hard:gate=sometimes")
    with pytest.raises(ValueError, match="typeprior"):
        make_agent("hard:typeprior=2")


def test_the_default_gate_best_responds_from_the_first_sale_with_a_choice() -> None:
    """``gate=always`` (the default): the best response is played at every sale where an opponent still chooses,
    the first one included (no sale seen yet, so the prior speaks for the sellers); the last round, where every
    hand holds one house, is no decision. The move at the first sale is legal and, at a fixed sample count,
    the same for the same rng."""
    _, seen = _play([ExpertAgent(), *(RuleAgent("lowest") for _ in range(3))], seed=4, watch=0)
    assert [from_the_first_sale(fit_opponents(v), v) for v in seen] == [True] * (len(seen) - 1) + [False]
    assert not told_apart(fit_opponents(seen[0]), seen[0])  # the gate before waited here
    assert make_agent("hard").gate == "always"  # the default (docs/strength.md)
    moves = [make_agent("hard:samples=3").act(seen[0], random.Random(9), None) for _ in range(2)]
    assert moves[0] == moves[1] and moves[0] in seen[0].legal_actions()


@pytest.mark.parametrize("rule", ["lowest", "hand_mean"])
def test_one_sale_the_expert_would_not_have_made_tells_a_fixed_seller_apart(rule: str) -> None:
    """``gate=apart`` (the default): three sellers of a fixed rule whose first sales the expert's own sale mispredicted are
    best-responded to from the second sale round with a choice, one round before ``gate=fixed``; after that the
    two gates agree."""
    _, seen = _play([ExpertAgent(), *(RuleAgent(rule) for _ in range(3))], seed=4, watch=0)
    gates = [(told_apart(f, v), fixed_sellers(f, v)) for v in seen[:-1] for f in [fit_opponents(v)]]
    assert gates[:3] == [(False, False), (True, False), (True, True)]
    assert all(apart == fixed for apart, fixed in gates[2:])
    fits = fit_opponents(seen[1])
    assert all(fits[s].observed == 1 and expert_refuted(fits[s]) and reasoning_mass(fits[s]) < 0.5 for s in (1, 2, 3))
    moves = [make_agent("hard:gate=apart:samples=3").act(seen[1], random.Random(9), None) for _ in range(2)]
    assert moves[0] == moves[1] and moves[0] in seen[1].legal_actions()
    assert make_agent("hard:gate=apart").gate == "apart"


@pytest.mark.parametrize("seed", [1, 4])
def test_a_field_of_expert_is_never_told_apart_so_it_meets_the_default_gate(seed: int) -> None:
    """The expert's sale is replayed from what each seat saw, so it predicts a field of ``expert`` exactly and is
    never refuted: after one sale the seats look like greedy sellers (reasoning mass under a half, the
    criterion that lost about 4 points a game against three ``expert``), yet ``gate=apart`` stays shut, and at
    every decision it says what ``gate=fixed`` says."""
    _, seen = _play([ExpertAgent() for _ in range(4)], seed=seed, watch=0)
    second = fit_opponents(seen[1])
    assert any(reasoning_mass(second[s]) < 0.5 for s in (1, 2, 3))
    for v in seen[:-1]:
        fits = fit_opponents(v)
        assert not any(expert_refuted(fits[s]) for s in (1, 2, 3))
        assert told_apart(fits, v) == fixed_sellers(fits, v)
    assert not told_apart(second, seen[1])


@pytest.mark.parametrize("players", [3, 6])
@pytest.mark.parametrize("gate", ["apart", "guard"])
def test_the_early_gates_play_legal_moves(players: int, gate: str) -> None:
    """Against experts (suspected after one sale: the guard's test) and fixed sellers (told apart)."""
    agents: list[object] = [make_agent(f"hard:gate={gate}:samples=2")]
    agents += [ExpertAgent() if s % 2 else RuleAgent("hand_mean") for s in range(1, players)]
    _plays_legal_moves_to_the_end(agents, players)


def test_the_guard_suspects_only_sellers_one_sale_has_not_told_from_the_expert() -> None:
    """``gate=guard``: after one sale a field of ``expert`` is all suspects (the expert's sale predicted them and
    they look like greedy sellers), sellers the first sale told apart are none, and before any sale nobody is."""
    _, experts = _play([ExpertAgent() for _ in range(4)], seed=1, watch=0)
    assert suspects(fit_opponents(experts[0]), experts[0]) == []
    assert suspects(fit_opponents(experts[1]), experts[1]) == [1, 2, 3]
    _, lows = _play([ExpertAgent(), *(RuleAgent("hand_mean") for _ in range(3))], seed=4, watch=0)
    assert told_apart(fit_opponents(lows[1]), lows[1]) and suspects(fit_opponents(lows[1]), lows[1]) == []


def test_declining_the_guarded_best_response_plays_the_fixed_gates_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a guard nothing passes, ``gate=guard`` plays move for move what ``gate=fixed`` plays where the expert
    is suspected (the best response is solved on a copy of the generator); with one everything passes, it plays
    a legal move, the same for the same view and seed."""
    from forsale.bots import search

    _, seen = _play([ExpertAgent() for _ in range(4)], seed=1, watch=0)
    v = seen[1]
    default = make_agent("hard:gate=fixed:samples=3").act(v, random.Random(5), None)
    monkeypatch.setattr(search, "GUARD_EPSILON", -10.0)
    assert make_agent("hard:gate=guard:samples=3").act(v, random.Random(5), None) == default
    monkeypatch.setattr(search, "GUARD_EPSILON", 10.0)
    moves = [make_agent("hard:gate=guard:samples=3").act(v, random.Random(5), None) for _ in range(2)]
    assert moves[0] == moves[1] and moves[0] in v.legal_actions()


def test_the_table_sale_prior_learns_from_every_opponent_how_the_table_sells() -> None:
    """Five seats sell the house nearest their hand's mean, a rule outside the expert's types: after two rounds
    the table's mixture leans to it, and each seat's posterior started from that mixture predicts the next sale
    better than one started from :data:`PRIOR`, where that seat's own two sales fit several rules. (After one
    round the table cannot tell it from the median house, which the expert's types favour.)"""
    _, seen = _play([ExpertAgent(), *(RuleAgent("hand_mean") for _ in range(5))], seed=5, watch=0)
    assert table_sale_prior(seen[0], PRIOR, seats=3.0, me=0) == PRIOR  # no sale of choice yet: the prior
    v = seen[2]
    table = table_sale_prior(v, PRIOR, seats=3.0, me=0)
    assert sum(table.values()) == pytest.approx(1.0) and set(table) == set(RULES)
    assert table["hand_mean"] > 0.4 > 20 * PRIOR["hand_mean"]
    assert table_sale_prior(v, PRIOR, seats=3.0, me=None) != table  # the deciding seat's own sale left out
    pos = current(v)
    for s in range(1, 6):
        dists = rule_distributions(pos, s)
        sells = CHOICES["hand_mean"](pos, s)
        chance = {}
        for name, prior in (("alone", PRIOR), ("pooled", table)):
            model, weight = fit_opponents(v, prior)[s].predict(dists)
            chance[name] = weight * model[sells] + (1 - weight) * dists["equilibrium"][sells]
        assert chance["pooled"] > chance["alone"] + 0.05, (s, chance)
