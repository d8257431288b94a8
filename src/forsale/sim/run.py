"""Runs of any length, in bounded memory: chunked simulation and the rules lab.

:func:`simulate` plays ``games`` seeded games of one ruleset chunk by chunk
and folds them into a :class:`~forsale.sim.stats.Summary`. :func:`lab` plays
several rulesets **on the same deals** (each ruleset uses the first
``30 - removed`` cards of the same whole-deck shuffles, and the policy draws
from the same random stream), so the differences it shows come from the
rules and not from the cards.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ForSaleError, RulesError
from ..rules import PRESETS, Ruleset
from .batch import play
from .deals import DealBatch
from .policies import BatchPolicy, make_policy
from .stats import Summary

DEFAULT_CHUNK = 65536
"""Games per chunk: large enough that numpy's per-call cost vanishes, small enough to stay in cache."""

Progress = Callable[[int], None]

_KNOB_ALIASES = {
    "coins": "starting_coins",
    "starting_coins": "starting_coins",
    "removed": "removed",
    "refund": "refund",
}


def parse_rules(spec: str | None, players: int) -> Ruleset:
    """A ruleset from a command-line spec, with an error message that says what is accepted.

    Accepted: a preset name (``official``, ``refund-up``, ...), a JSON object
    of the three knobs, or ``knob=value`` pairs separated by commas
    (``coins=21,removed=2,refund=up``); knobs left out keep the default
    ruleset's value for this player count.
    """
    if spec is None or spec == "":
        return Ruleset.default(players)
    spec = spec.strip()
    if spec.startswith("{"):
        try:
            value = json.loads(spec)
        except ValueError as error:
            raise RulesError(f"the rules {spec!r} are not valid JSON: {error}") from None
        return Ruleset.parse(value, players)
    if "=" not in spec:
        return Ruleset.preset(spec, players)
    base = Ruleset.default(players)
    knobs: dict[str, object] = {"starting_coins": base.starting_coins, "removed": base.removed, "refund": base.refund}
    for part in spec.split(","):
        key, _, text = part.partition("=")
        key = key.strip()
        if key not in _KNOB_ALIASES:
            raise RulesError(f"unknown rules knob {key!r}; knobs: coins, removed, refund")
        text = text.strip()
        if key == "refund":
            knobs["refund"] = text
        else:
            try:
                knobs[_KNOB_ALIASES[key]] = int(text)
            except ValueError:
                raise RulesError(f"{key} must be a whole number, not {text!r}") from None
    return Ruleset.custom(
        players,
        starting_coins=int(knobs["starting_coins"]),  # type: ignore[call-overload]
        removed=int(knobs["removed"]),  # type: ignore[call-overload]
        refund=str(knobs["refund"]),
    )


def rules_label(rules: Ruleset) -> str:
    """A short name for tables: the preset, or the knobs."""
    if rules.name is not None:
        return rules.name
    return f"coins={rules.starting_coins} removed={rules.removed} {rules.refund}"


def _policy(policy: str | BatchPolicy) -> BatchPolicy:
    return make_policy(policy) if isinstance(policy, str) else policy


def simulate(
    rules: Ruleset,
    policy: str | BatchPolicy,
    games: int,
    *,
    seed: int | None = None,
    chunk: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
) -> Summary:
    """Play ``games`` seeded games, every seat following ``policy``; the same seed and chunk give the same games."""
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, not {games}")
    if chunk < 1:
        raise ValueError(f"the chunk size must be at least 1, not {chunk}")
    agent = _policy(policy)
    rng = np.random.default_rng(seed)
    summary = Summary(rules)
    start = time.perf_counter()
    done = 0
    while done < games:
        size = min(chunk, games - done)
        deals = DealBatch.random(rules.players, size, rng)
        summary.add(play(rules, deals, agent, rng))
        done += size
        if progress is not None:
            progress(size)
    summary.seconds = time.perf_counter() - start
    return summary


def default_lab_rulesets(players: int) -> list[Ruleset]:
    """The rulesets the lab compares by default for ``players``.

    3-6 players: the three presets, plus the first edition's starting coins
    alone (official removals and refund) to separate the coins from the
    refund. 2 players: the unofficial preset, with the refund rounded up, and
    with no cards removed.
    """
    if players == 2:
        return [
            Ruleset.preset("two-player", 2),
            Ruleset.custom(2, starting_coins=18, removed=10, refund="up"),
            Ruleset.custom(2, starting_coins=18, removed=0, refund="down"),
        ]
    coins = Ruleset.preset("first-edition", players).starting_coins
    removed = Ruleset.preset("official", players).removed
    candidates = [Ruleset.preset(name, players) for name in PRESETS if name != "two-player"]
    candidates.append(Ruleset.custom(players, starting_coins=coins, removed=removed, refund="down"))
    out: list[Ruleset] = []
    seen = set()
    for rules in candidates:  # at 6 players the first edition is refund-up, and its coins are official
        knobs = (rules.starting_coins, rules.removed, rules.refund)
        if knobs not in seen:
            seen.add(knobs)
            out.append(rules)
    return out


@dataclass
class LabRow:
    """One ruleset's figures in a lab run."""

    policy: str
    summary: Summary

    @property
    def rules(self) -> Ruleset:
        return self.summary.rules


def lab(
    players: int,
    rulesets: Sequence[Ruleset],
    policies: Sequence[str],
    games: int,
    *,
    seed: int | None = None,
    chunk: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
) -> list[LabRow]:
    """Play every ruleset (all for ``players``) under every policy on the same ``games`` deals."""
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, not {games}")
    for rules in rulesets:
        if rules.players != players:
            raise ForSaleError(f"{rules.describe()} is not for {players} players")
    root = np.random.SeedSequence(seed)
    deal_rng = np.random.default_rng(root.spawn(1)[0])
    agents = {name: make_policy(name) for name in policies}
    rows = [LabRow(name, Summary(rules)) for name in policies for rules in rulesets]
    clocks = [0.0] * len(rows)
    done = index = 0
    while done < games:
        size = min(chunk, games - done)
        deals = DealBatch.random(players, size, deal_rng)
        for i, row in enumerate(rows):
            # The same random stream for every ruleset of a chunk: only the rules differ.
            rng = np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=(1, index)))
            start = time.perf_counter()
            row.summary.add(play(row.rules, deals, agents[row.policy], rng))
            clocks[i] += time.perf_counter() - start
            if progress is not None:
                progress(size)
        done += size
        index += 1
    for row, seconds in zip(rows, clocks):
        row.summary.seconds = seconds
    return rows
