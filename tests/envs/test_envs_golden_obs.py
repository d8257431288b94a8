"""Golden observation tensors: what the RL environments show a policy, pinned exactly for fixed games.

Every environment observes through :class:`forsale.envs.encoding.Encoding`,
so a drift here (a slice moved, a scale changed, a legal id renumbered, a
string reworded) silently changes the input of every policy trained on it.
The goldens are written by tests/data/make_golden_obs.py; these tests
rebuild them and compare every value, and say where the first differences
are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.scripts import load_script

GENERATOR = Path(__file__).resolve().parents[1] / "data" / "make_golden_obs.py"


gen = load_script(GENERATOR)
CASES = [pytest.param(players, rules, id=gen.case_name(players, rules)) for players, rules in gen.CASES]
HOW = (
    f"\nIf this change to the encoding is intended, regenerate the goldens with `{gen.REGENERATE}`, "
    "review the diff of tests/data/golden_obs/, and describe the change in docs/observations.md "
    "(it changes the input of every trained policy)."
)


def golden(players: int, rules: str) -> tuple[Path, dict[str, Any]]:
    path = gen.OUT / f"{gen.case_name(players, rules)}.json"
    return path, json.loads(path.read_text())


def _dense(steps: list[dict[str, Any]], part: str, size: int) -> list[list[np.ndarray]]:
    """``[step][seat]``: the vectors rebuilt from the sparse changes."""
    n = len(steps[0]["seats"])
    current = [np.zeros(size, np.float64) for _ in range(n)]
    out = []
    for step in steps:
        for s, seat in enumerate(step["seats"]):
            current[s] = current[s].copy()
            for index, value in seat[part]:
                current[s][index] = value
        out.append(list(current))
    return out


def _where(layout: list[list[Any]], index: int, offset: int = 0) -> str:
    for name, start, stop in layout:
        if start <= index + offset < stop:
            return f"{name}[{index + offset - start}]"
    return f"index {index + offset} (outside the layout)"


def describe_drift(old: dict[str, Any], new: dict[str, Any], limit: int = 8) -> str:
    """The first differences between two goldens, as sentences naming step, seat and slice."""
    lines = [
        f"{key}: was {old.get(key)!r}, now {new.get(key)!r}"
        for key in sorted((set(old) | set(new)) - {"steps"})
        if old.get(key) != new.get(key)
    ]
    if len(old["steps"]) != len(new["steps"]):
        lines.append(f"decision points: was {len(old['steps'])}, now {len(new['steps'])}")
    steps = min(len(old["steps"]), len(new["steps"]))
    obs_size = new["observation_layout"][-1][2]
    info_size = new["history_layout"][-1][2] - obs_size if new["history_layout"] else 0
    vectors = {
        "obs": (obs_size, new["observation_layout"], 0),
        "history": (info_size, new["history_layout"], obs_size),
    }
    dense = {
        part: (_dense(old["steps"][:steps], part, size), _dense(new["steps"][:steps], part, size))
        for part, (size, _, _) in vectors.items()
    }
    for k in range(steps):
        for s, (was, now) in enumerate(zip(old["steps"][k]["seats"], new["steps"][k]["seats"])):
            where = f"decision point {k} (after move {old['steps'][k]['move']}), seat {s}"
            for part, (_, layout, offset) in vectors.items():
                before, after = dense[part][0][k][s], dense[part][1][k][s]
                for i in np.flatnonzero(before != after)[:3]:
                    lines.append(f"{where}: {_where(layout, int(i), offset)} was {before[i]}, now {after[i]}")
            for field, label in (
                ("legal", "legal ids"),
                ("strings", "digest of the observation and infostate strings"),
            ):
                if was[field] != now[field]:
                    lines.append(f"{where}: {label} was {was[field]}, now {now[field]}")
            if len(lines) >= limit:
                return "\n".join(lines[:limit] + ["..."])
    return "\n".join(lines)


@pytest.mark.parametrize(("players", "rules"), CASES)
def test_the_encoding_of_a_fixed_game_has_not_drifted(players: int, rules: str) -> None:
    """Replay the stored moves and encode every seat at every decision point, as the goldens did."""
    _, old = golden(players, rules)
    assert old["format"] == gen.FORMAT
    moves = [tuple(step["move"]) for step in old["steps"][1:]]
    new = gen.encode_game(old["record"], moves)
    if new != old:
        pytest.fail(f"the observation encoding drifted ({players} players, {rules}):\n{describe_drift(old, new)}{HOW}")


@pytest.mark.parametrize(("players", "rules"), CASES)
def test_the_golden_files_are_what_the_generator_writes(players: int, rules: str) -> None:
    """Byte for byte, seeded game included (a different game here, with the test above passing, means
    the engine's dealing or its order of legal actions changed, not the encoding)."""
    path, _ = golden(players, rules)
    assert gen.dumps(gen.build(players, rules)) == path.read_text(), f"{path} is stale.{HOW}"


def test_every_golden_file_is_a_case_and_they_stay_small() -> None:
    files = sorted(p.name for p in gen.OUT.glob("*.json"))
    assert files == sorted(f"{gen.case_name(p, r)}.json" for p, r in gen.CASES)
    assert sum(p.stat().st_size for p in gen.OUT.glob("*.json")) < 1_000_000


def test_a_drift_is_reported_by_slice_and_seat() -> None:
    """The report a failing run prints: which decision point, seat and slice changed, and from what."""
    _, old = golden(3, "official")
    new = json.loads(json.dumps(old))
    k = next(k for k, step in enumerate(new["steps"]) if k and step["seats"][1]["obs"])
    index, value = new["steps"][k]["seats"][1]["obs"][0]
    new["steps"][k]["seats"][1]["obs"][0] = [index, value + 0.5]
    report = describe_drift(old, new)
    name = next(n for n, start, stop in old["observation_layout"] if start <= index < stop)
    assert report.startswith(f"decision point {k} (after move {old['steps'][k]['move']}), seat 1: {name}[")
    assert f"was {float(value)}, now {float(value + 0.5)}" in report
