"""The batch simulator agrees exactly with the engine.

Batch games are exported as ``forsale-record/1`` records and replayed by
:func:`forsale.from_record` (which checks every move against the rules);
scores, coins, cheques and winners must be identical, for every player count
and every ruleset knob (refund up and down, removed counts, starting coins).
"""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from forsale import Deal, Ruleset, from_record, new_game, referee
from forsale.sim.batch import play
from forsale.sim.deals import DealBatch
from forsale.sim.policies import POLICIES, make_policy


def _rulesets() -> list[Ruleset]:
    out = [Ruleset.preset("two-player", 2)]
    for n in range(3, 7):
        out += [Ruleset.preset(name, n) for name in ("official", "refund-up", "first-edition")]
    # Knobs: every removed count that deals evenly is legal; cover the extremes and both refunds.
    out += [
        Ruleset.custom(2, starting_coins=18, removed=0, refund="up"),
        Ruleset.custom(2, starting_coins=3, removed=28, refund="down"),
        Ruleset.custom(2, starting_coins=40, removed=10, refund="up"),
        Ruleset.custom(3, starting_coins=0, removed=0, refund="down"),
        Ruleset.custom(3, starting_coins=28, removed=27, refund="up"),
        Ruleset.custom(4, starting_coins=21, removed=2, refund="up"),
        Ruleset.custom(4, starting_coins=1, removed=6, refund="down"),
        Ruleset.custom(4, starting_coins=50, removed=26, refund="down"),
        Ruleset.custom(5, starting_coins=16, removed=5, refund="up"),
        Ruleset.custom(5, starting_coins=30, removed=25, refund="down"),
        Ruleset.custom(6, starting_coins=9, removed=24, refund="up"),
        Ruleset.custom(6, starting_coins=14, removed=6, refund="down"),
    ]
    return out


RULESETS = _rulesets()


def _assert_agrees(result, games: range) -> None:
    scores, coins, winners = result.scores, result.coins, result.winners()
    n = result.rules.players
    for g in games:
        record = result.record(g)
        state = from_record(json.loads(json.dumps(record)))  # through JSON, as a file would be
        assert state.is_over, f"game {g} did not finish in the engine"
        assert state.scores() == scores[:, g].tolist()
        assert state.coins == coins[:, g].tolist()
        assert [sorted(c) for c in state.cheques_won] == [sorted(result.won[:, s, g].tolist()) for s in range(n)]
        assert state.winners() == np.flatnonzero(winners[:, g]).tolist()


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize(
    "rules", RULESETS, ids=lambda r: f"{r.players}p-{r.name or 'custom'}-{r.starting_coins}c-{r.removed}r-{r.refund}"
)
def test_batch_games_replay_identically_in_the_engine(rules: Ruleset, policy: str) -> None:
    rng = np.random.default_rng([rules.players, rules.starting_coins, rules.removed, len(policy)])
    deals = DealBatch.random(rules.players, 40, rng)
    result = play(rules, deals, make_policy(policy), rng, record=True)
    _assert_agrees(result, range(result.games))


def test_every_player_count_and_refund_is_covered() -> None:
    covered = {(r.players, r.refund) for r in RULESETS}
    assert covered == {(n, refund) for n in range(2, 7) for refund in ("down", "up")}
    assert {r.starting_coins for r in RULESETS} >= {0, 1, 18, 50}


def test_given_engine_deals_are_played_as_given() -> None:
    rules = Ruleset.preset("official", 5)
    engine_deals = [new_game(rules, seed=s).deal for s in range(30)]
    deals = DealBatch.from_deals(engine_deals, 5)
    result = play(rules, deals, make_policy("random"), np.random.default_rng(3), record=True)
    for g, deal in enumerate(engine_deals):
        record = result.record(g)
        assert record["deal"] == {"houses": list(deal.houses), "cheques": list(deal.cheques), "first": deal.first}
    _assert_agrees(result, range(30))


def test_seeded_deals_match_the_engine_deal_shape_and_keep_the_removed_cards() -> None:
    rules = Ruleset.preset("official", 3)
    deals = DealBatch.random(3, 50, np.random.default_rng(9))
    for g in range(50):
        deal: Deal = deals.deal(g, rules)
        assert sorted(deal.houses + deal.removed_houses) == list(range(1, 31))
        assert len(deal.houses) == 24 and len(deal.removed_houses) == 6
        assert sorted(deal.cheques + deal.removed_cheques) == sorted([0, 0] + [v for v in range(2, 16) for _ in (0, 1)])
        assert 0 <= deal.first < 3


def test_the_referee_command_accepts_an_exported_game(tmp_path, forsale_cmd, forsale_env) -> None:
    rules = Ruleset.custom(4, starting_coins=21, removed=2, refund="up")
    result = play(
        rules,
        DealBatch.random(4, 3, np.random.default_rng(1)),
        make_policy("value"),
        np.random.default_rng(2),
        record=True,
    )
    path = tmp_path / "game.json"
    path.write_text(json.dumps(result.record(2, players=["Ann", "Bob", "Cy", "Dee"])))
    done = subprocess.run(
        forsale_cmd + ["replay", str(path)], env=forsale_env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout)
    assert out["complete"] is True
    assert out["scores"] == result.scores[:, 2].tolist()
    assert referee(path.read_text())[1] == out


def test_record_export_needs_recorded_moves() -> None:
    rules = Ruleset.default(4)
    result = play(
        rules, DealBatch.random(4, 2, np.random.default_rng(1)), make_policy("random"), np.random.default_rng(1)
    )
    with pytest.raises(ValueError, match="record=True"):
        result.record(0)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_a_table_of_mixed_policies_replays_identically(players: int) -> None:
    from forsale.sim.policies import RandomPolicy, SeatPolicies, ValuePolicy

    value = ValuePolicy()
    seats = SeatPolicies([value if s % 2 else RandomPolicy() for s in range(players)])
    rules = Ruleset.default(players)
    rng = np.random.default_rng(players + 100)
    result = play(rules, DealBatch.random(players, 40, rng), seats, rng, record=True)
    _assert_agrees(result, range(result.games))
