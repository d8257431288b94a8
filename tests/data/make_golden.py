"""Regenerate the golden playthroughs in tests/data/golden/ (run by hand, then review the diff).

Each golden is a record of a seeded random game plus what ``forsale replay``
must print for it. A change to the engine that changes any of them changes
the rules, and must be deliberate.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from forsale import new_game, referee, to_record

CASES = [(2, "two-player"), (3, "official"), (4, "official"), (5, "official"), (6, "official"),
         (4, "first-edition"), (3, "refund-up")]  # fmt: skip


def main() -> None:
    out = Path(__file__).parent / "golden"
    for players, rules in CASES:
        rng = random.Random(f"{players}-{rules}")
        game = new_game(players, rules=rules, rng=rng)
        while not game.is_over:
            seat = rng.choice(game.seats_to_act())
            legal = game.legal_actions(seat)
            # Bid cautiously so that games are long and varied: pass a third of the time.
            game.push(seat, legal[0] if rng.random() < 0.33 or len(legal) == 1 else rng.choice(legal[1:4]))
        record = to_record(game, [f"P{i}" for i in range(players)])
        status, expected = referee(json.dumps(record))
        assert status == 0
        name = f"{players}p-{rules}"
        (out / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
        (out / f"{name}.expected.json").write_text(json.dumps(expected) + "\n")


if __name__ == "__main__":
    main()
