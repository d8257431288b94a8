"""The engine-made records that the page's ledger is held to (tests/js/ledger.test.mjs, under ``node --test``).

The ledger (web/static/js/ledger.js) folds a record's moves to tell a game's story; after every move it must hold
what the engine holds (each seat's coins and houses), and end where the engine ends: the same scores and winners. The records and the engine's answers are in
``tests/js/fixtures/records.json``, made here; this test fails when the engine would now make another file (a
rule changed), so the JavaScript test never checks against a stale engine. Remake it with
``.venv/bin/python tests/web/test_web_ledger_records.py``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from forsale import Ruleset, from_record, new_game, to_record
from forsale.actions import Bid
from forsale.rules import KNOBS, preset_rulesets
from forsale.state import AUCTION, SALE

FIXTURE = Path(__file__).parents[1] / "js" / "fixtures" / "records.json"

# Every preset at a player count or two, custom knobs with refunds both ways, and seeds whose games end in a tie
# on score (broken by coins, or shared): the cases the ledger's winners and refunds must get right.
GAMES: list[tuple[Any, int, int]] = [
    ("official", 3, 1),
    ("official", 4, 2),
    ("official", 4, 23),  # 74 and 74: the tie goes to the most coins
    ("official", 5, 3),
    ("official", 6, 4),
    ("first-edition", 4, 5),
    ("first-edition", 3, 6),
    ("refund-up", 5, 7),
    ("two-player", 2, 8),
    ({"starting_coins": 9, "removed": 2, "refund": "up"}, 4, 9),
    ({"starting_coins": 30, "removed": 3, "refund": "down"}, 3, 10),
]


def play(rules: Ruleset, seed: int) -> Any:
    """A whole game of seeded random moves that bid low and often, so auctions cost coins and passes refund."""
    rng = random.Random(seed)
    state = new_game(rules, seed)
    while not state.is_over:
        if state.phase is AUCTION:
            seat = state.turn
            legal = state.legal_actions(seat)
            bids = [a for a in legal if isinstance(a, Bid) and a.amount <= state.high + 3]
            action = rng.choice(bids) if bids and rng.random() < 0.6 else legal[0]
            state.push(seat, action)
        else:
            assert state.phase is SALE
            state.push_sale([rng.choice(state.hands[s]) for s in range(state.n)])
    return state


def records() -> dict[str, Any]:
    """The fixture: the server's preset knobs (as ``/api/rulesets`` sends them) and each game with the engine's end."""
    games = []
    for rules, players, seed in GAMES:
        ruleset = Ruleset.parse(rules, players)
        state = play(ruleset, seed)
        record = to_record(state, [f"P{s + 1}" for s in range(players)])
        steps = []
        for k in range(len(record["moves"]) + 1):
            then = from_record({**record, "moves": record["moves"][:k]})
            steps.append({"coins": list(then.coins), "hands": [sorted(hand) for hand in then.hands]})
        games.append(
            {
                "record": record,
                "steps": steps,  # after each move (steps[0]: the deal)
                "end": {"coins": list(state.coins), "scores": state.scores(), "winners": state.winners()},
            }
        )
    presets = {
        name: {str(n): {knob: getattr(r, knob) for knob in KNOBS} for n, r in by_count.items()}
        for name, by_count in preset_rulesets().items()
    }
    return {"preset_knobs": presets, "games": games}


def text() -> str:
    """The fixture as committed: one line per game, so that a changed game is a changed line."""
    fixture = records()
    games = ",\n".join(json.dumps(game, sort_keys=True, separators=(",", ":")) for game in fixture["games"])
    presets = json.dumps(fixture["preset_knobs"], sort_keys=True, separators=(",", ":"))
    return f'{{"preset_knobs":{presets},\n"games":[\n{games}\n]}}\n'


def test_the_ledgers_fixture_is_what_the_engine_makes_now() -> None:
    assert FIXTURE.read_text(encoding="utf-8") == text(), f"remake it: .venv/bin/python {Path(__file__).name}"


def test_the_fixture_covers_ties_and_every_preset() -> None:
    fixture = records()
    assert {g["record"]["rules"] for g in fixture["games"] if isinstance(g["record"]["rules"], str)} == set(
        fixture["preset_knobs"]
    )
    ends = [g["end"] for g in fixture["games"]]
    tied = [e for e in ends if e["scores"].count(max(e["scores"])) > 1]
    assert {len(e["winners"]) for e in tied} == {1, 2}  # a tie broken by coins, and a shared win


if __name__ == "__main__":
    FIXTURE.write_text(text(), encoding="utf-8")
