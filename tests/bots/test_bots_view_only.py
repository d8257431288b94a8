"""Agents get a seat's view and nothing else: no path to the true state, and no hidden randomness."""

from __future__ import annotations

import ast
import dataclasses
import random
from pathlib import Path

import pytest

import forsale.bots
from forsale import State, View, new_game, view
from forsale.bots import agent_names, make_agent
from forsale.bots.registry import _BOT_MODULES
from forsale.state import Deal

BOTS_DIR = Path(forsale.bots.__file__).parent
POPULATION = Path(__file__).resolve().parents[2] / "bench" / "harness" / "population.py"
"""The measurement population's bots: outside the package, held to the same rule."""
# What would let a bot reach past its view: the engine's state module, or introspection of callers' frames.
FORBIDDEN_MODULES = {"forsale.state", "gc", "inspect", "ctypes"}


def _imports(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports (relative imports resolved inside forsale.bots)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ["forsale", "bots"][: max(0, 2 - (node.level - 1))] if node.level else []
            names.add(".".join(base + ([node.module] if node.module else [])))
    return names


@pytest.mark.parametrize("path", [*sorted(BOTS_DIR.glob("*.py")), POPULATION], ids=lambda p: p.name)
def test_bot_modules_do_not_import_the_state_or_introspection(path: Path) -> None:
    imported = _imports(path)
    assert not imported & FORBIDDEN_MODULES, f"{path.name} imports {imported & FORBIDDEN_MODULES}"
    assert "_getframe" not in path.read_text()


def _registers(path: Path) -> bool:
    """Whether the module imports ``register`` from ``forsale.bots.registry`` (so it registers bots)."""
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module in ("registry", "forsale.bots.registry")
        and any(alias.name == "register" for alias in node.names)
        for node in ast.walk(ast.parse(path.read_text()))
    )


def test_every_bot_module_is_registered() -> None:
    """A bot module missing from ``_BOT_MODULES`` would silently not exist for the front ends.

    A bot module is one that imports ``register`` from the registry; the pieces bots are built from
    (valuation, rollout rules, opponent models) register nothing and need not be imported up front.
    """
    modules = {f"forsale.bots.{p.stem}" for p in BOTS_DIR.glob("*.py") if p.stem != "__init__" and _registers(p)}
    assert modules == set(_BOT_MODULES)


def _walk(value: object, seen: set[int]) -> None:
    """Fail if a State or Deal is reachable from ``value`` through fields and containers."""
    if id(value) in seen:
        return
    seen.add(id(value))
    assert not isinstance(value, (State, Deal)), "a view holds a piece of the true state"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _walk(getattr(value, f.name), seen)
    elif isinstance(value, (tuple, list, set, frozenset)):
        for item in value:
            _walk(item, seen)
    elif isinstance(value, dict):
        for k, item in value.items():
            _walk(k, seen)
            _walk(item, seen)


class Guard:
    """Wraps an agent: checks that each call gets a View (holding no State) and records the moves."""

    def __init__(self, agent: object) -> None:
        self.agent = agent
        self.calls: list[tuple[View, object]] = []

    def act(self, v: object, rng: random.Random, budget: float | None) -> object:
        assert type(v) is View
        _walk(v, set())
        action = self.agent.act(v, rng, budget)  # type: ignore[attr-defined]
        self.calls.append((v, action))
        return action


def _spec(name: str) -> str:
    # Search bots with a fixed sample count are deterministic; a wall-clock budget is not.
    return f"{name}:samples=3" if name in ("hard", "hard-v1") else name


@pytest.mark.parametrize("name", agent_names())
def test_act_gets_only_a_view_and_same_seed_and_view_give_the_same_move(name: str) -> None:
    players = 4
    state = new_game(players, seed=31)
    guards = [Guard(make_agent(_spec(name))) for _ in range(players)]
    rng = random.Random(5)
    while not state.is_over:
        for seat in state.seats_to_act():
            state.push(seat, guards[seat].act(view(state, seat), rng, None))
    calls = [call for g in guards for call in g.calls]
    assert calls
    # Replay a sample of the decisions with a fresh agent and a fixed seed: twice the same answer.
    for v, _ in calls[:: max(1, len(calls) // 12)]:
        first = make_agent(_spec(name)).act(v, random.Random(99), None)
        second = make_agent(_spec(name)).act(v, random.Random(99), None)
        assert first == second
        assert first in v.legal_actions()


def test_a_view_can_be_acted_on_after_the_game_is_gone() -> None:
    """Agents need nothing but the view: the state can be discarded before ``act``."""
    state = new_game(5, seed=2)
    v = view(state, state.current_seat)
    del state
    for name in agent_names(v.rules):
        assert make_agent(_spec(name)).act(v, random.Random(0), None) in v.legal_actions()
