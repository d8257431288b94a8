"""Regenerate the golden observation tensors in tests/data/golden_obs/ (run by hand, then review the diff).

    .venv/bin/python tests/data/make_golden_obs.py

For fixed seeded games (several player counts and rulesets), every seat's
encoding is stored at every decision point (before the first move, after
each move, and at the end): the observation vector, the information-state
vector, the legal action ids (which the action mask must match), and a
digest of the observation and information-state strings. The RL
environments (PettingZoo, Gymnasium, OpenSpiel) all observe through
:class:`forsale.envs.encoding.Encoding`, so a change to any of these
changes what every trained policy sees, and must be deliberate (and
described in docs/observations.md).

Kept small: the game itself is stored once (its record, for the deal, and
the moves in order, including each seat's sale choice), vectors as sparse
changes from the same seat's previous decision point (``[index, value]``,
values the exact float32 as a JSON number), and one step per line so a
deliberate change reads as a diff. tests/envs/test_envs_golden_obs.py
replays the stored moves and compares everything exactly.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

from forsale import State, from_record, new_game, to_record, view
from forsale.envs.encoding import Encoding, outcome

FORMAT = "forsale-golden-obs/1"
OUT = Path(__file__).parent / "golden_obs"
CASES = [(2, "two-player"), (3, "official"), (4, "official"), (5, "official"), (6, "official"),
         (4, "first-edition"), (3, "refund-up")]  # fmt: skip
REGENERATE = "python tests/data/make_golden_obs.py"


def play(players: int, rules: str) -> tuple[State, list[tuple[int, int]]]:
    """A seeded game played to the end, and its moves as ``(seat, action id)`` in the order pushed."""
    rng = random.Random(f"obs-{players}-{rules}")
    game = new_game(players, rules=rules, rng=rng)
    enc = Encoding(game.rules)
    pushes = []
    while not game.is_over:
        seat = rng.choice(game.seats_to_act())
        legal = game.legal_actions(seat)
        # Bid cautiously so that auctions are long and varied: pass a third of the time.
        action = legal[0] if rng.random() < 0.33 or len(legal) == 1 else rng.choice(legal[1:4])
        game.push(seat, action)
        pushes.append((seat, enc.action_index(action)))
    return game, pushes


def sparse_change(before: np.ndarray, after: np.ndarray) -> list[list[float]]:
    """The entries that differ, as ``[index, new value]`` (the float32 value exactly, as a float)."""
    return [[int(i), float(after[i])] for i in np.flatnonzero(before != after)]


def encode_game(record: dict[str, Any], pushes: list[tuple[int, int]]) -> dict[str, Any]:
    """Everything the golden file holds for the game of ``record`` played by ``pushes``."""
    final = from_record(record)
    enc = Encoding(final.rules)
    n = enc.n
    game = State(final.rules, final.deal)
    last_obs = [np.zeros(enc.obs_size, np.float32) for _ in range(n)]
    last_info = [np.zeros(enc.infostate_size, np.float32) for _ in range(n)]
    steps = []
    for k in range(len(pushes) + 1):
        if k:
            seat, index = pushes[k - 1]
            game.push(seat, enc.action(index))
        seats = []
        for s in range(n):
            v = view(game, s)
            obs, info = enc.observe(v), enc.infostate(v)
            assert np.array_equal(info[: enc.obs_size], obs), "the information state must begin with the observation"
            legal = enc.legal_ids(v)
            assert np.flatnonzero(enc.mask(v)).tolist() == legal, "the action mask must mark exactly the legal ids"
            text = enc.observation_string(v) + "\n" + enc.infostate_string(v)
            seats.append(
                {
                    "obs": sparse_change(last_obs[s], obs),
                    "history": sparse_change(last_info[s][enc.obs_size :], info[enc.obs_size :]),
                    "legal": legal,
                    "strings": hashlib.sha256(text.encode()).hexdigest()[:12],
                }
            )
            last_obs[s], last_info[s] = obs, info
        steps.append({"move": list(pushes[k - 1]) if k else None, "seats": seats})
    assert game.is_over and game.scores() == final.scores(), "the pushes must replay the recorded game"
    end = view(game, 0)
    return {
        "format": FORMAT,
        "regenerate": REGENERATE,
        "record": record,
        "num_actions": enc.num_actions,
        "observation_layout": [[sl.name, sl.start, sl.stop] for sl in enc.layout()],
        "history_layout": [[sl.name, sl.start, sl.stop] for sl in enc.history_slices],
        "outcome": {"win": outcome(end, "win"), "score": outcome(end, "score")},
        "steps": steps,
    }


def dumps(golden: dict[str, Any]) -> str:
    """The file's text: the header keys one per line, then one line per step."""
    lines = ["{"]
    for key, value in golden.items():
        if key != "steps":
            lines.append(f" {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))},")
    lines.append(' "steps": [')
    steps = [json.dumps(step, separators=(",", ":")) for step in golden["steps"]]
    lines.append(",\n".join("  " + s for s in steps))
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def case_name(players: int, rules: str) -> str:
    return f"{players}p-{rules}"


def build(players: int, rules: str) -> dict[str, Any]:
    """The golden of one case, from its seeded game."""
    game, pushes = play(players, rules)
    record = to_record(game, [f"P{i}" for i in range(players)])
    return encode_game(record, pushes)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for players, rules in CASES:
        path = OUT / f"{case_name(players, rules)}.json"
        path.write_text(dumps(build(players, rules)))
        print(f"{path}: {path.stat().st_size} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
