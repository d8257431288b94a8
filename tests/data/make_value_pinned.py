"""Regenerate tests/data/value-pinned.json (run by hand after shipping new value models, then review the diff).

A dozen positions of seeded random engine games (three per player count
the value model ships for: early auction, late auction, sale phase), each
kept as a partial ``forsale-record/1`` record, a seat, and the shares the
shipped model gives that seat's view. ``tests/bots/test_bots_valuemodel.py``
demands the same shares, so a change to the features or the weights shows.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from forsale import from_record, new_game, to_record, view
from forsale.bots.valuemodel import SHIPPED_PLAYERS, load

STOPS = (3, 0.6, 0.9)
"""Where each game is cut: after 3 moves, and at 60% and 90% of its moves."""


def _game(players: int, rng: random.Random) -> list:
    """The moves of a random game (bidding cautiously, as the golden records do)."""
    state = new_game(players, rng=rng)
    while not state.is_over:
        seat = rng.choice(state.seats_to_act())
        legal = state.legal_actions(seat)
        state.push(seat, legal[0] if rng.random() < 0.33 or len(legal) == 1 else rng.choice(legal[1:4]))
    return to_record(state)


def main() -> None:
    cases = []
    for players in SHIPPED_PLAYERS:
        rng = random.Random(f"value-pinned-{players}")
        record = _game(players, rng)
        moves = record["moves"]
        for stop in STOPS:
            cut = stop if isinstance(stop, int) else int(len(moves) * stop)
            partial = {**{k: v for k, v in record.items() if k != "result"}, "moves": moves[:cut]}
            seat = rng.randrange(players)
            shares = load(players).shares(view(from_record(partial), seat))
            cases.append({"record": partial, "seat": seat, "shares": [round(s, 7) for s in shares]})
    out = Path(__file__).parent / "value-pinned.json"
    out.write_text("[\n" + ",\n".join(json.dumps(case) for case in cases) + "\n]\n")  # one position a line


if __name__ == "__main__":
    main()
