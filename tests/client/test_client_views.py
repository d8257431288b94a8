"""The client's view decoding: what the table socket sends decodes into the very View a local bot is given."""

from __future__ import annotations

import json
import random

import pytest

from forsale.client.views import ViewError, view_from_json
from forsale.rules import Ruleset
from forsale.state import new_game
from forsale.view import view


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_view_of_random_games_decodes_to_itself(players: int) -> None:
    """Through JSON text as the socket carries it, every seat's and the spectator's view at every step of whole
    games (custom rules too) comes back equal, field for field, to the engine's."""
    rng = random.Random(players)
    for game in range(3):
        removed = Ruleset.default(players).removed
        rules = Ruleset.custom(players, starting_coins=21, removed=removed, refund="up") if game == 2 else None
        state = new_game(rules or players, seed=rng.randrange(10**6))
        while True:
            for seat in (*range(players), None):
                expected = view(state, seat)
                assert view_from_json(json.loads(json.dumps(expected.to_json()))) == expected
            if state.phase == "over":
                break
            actor = (expected.seats_to_act() or (0,))[0]
            state.push(actor, rng.choice(state.legal_actions(actor)))


def test_not_a_view_is_refused_with_a_reason() -> None:
    with pytest.raises(ViewError, match="KeyError"):
        view_from_json({"rules": "official", "players": 4})
    with pytest.raises(ViewError):
        view_from_json({**view(new_game(3, seed=1), 0).to_json(), "coins": ["x"]})
