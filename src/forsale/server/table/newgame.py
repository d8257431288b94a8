"""A new game as it is stored: the one place a server game is dealt.

Every way the server makes a game (a table created over REST, one seated by quick pairing, a tournament or a
challenge, a rematch) builds the same :class:`~forsale.server.store.database.StoredGame`: the deal drawn from the
OS's secret randomness (a seeded generator would let whoever learns the seed read every hand), kept with the cards
the rules remove, and no result yet. Building it in one place keeps those properties from drifting apart.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from ...rules import Ruleset
from ...state import Deal
from ..store.database import StoredGame, StoredSeat


def new_game(
    game_id: str,
    name: str,
    rules: Ruleset,
    config: dict[str, Any],
    seats: Sequence[StoredSeat],
    creator_hash: str,
    *,
    status: str = "playing",
    invite_hash: str | None = None,
) -> StoredGame:
    """The game to store for a new table: ``config`` as :meth:`TableConfig.stored` gives it, ``status``
    ``"waiting"`` while seats are open."""
    deal = Deal.random(rules, random.SystemRandom())
    return StoredGame(
        id=game_id,
        name=name,
        status=status,
        players=len(seats),
        config=config,
        deal={**deal.to_json(), "removed": deal.removed_to_json()},  # a record's deal, plus the removed cards
        creator_hash=creator_hash,
        created_at=time.time(),
        finished_at=None,
        result=None,
        seats=list(seats),
        invite_hash=invite_hash,
    )
