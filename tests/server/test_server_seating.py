"""Whose a table made for known players is (:func:`forsale.server.lobby.seating.seat_entrants`), for the fair shares.

Through the real app (Starlette's TestClient, a real SQLite file), with one game under way allowed per client: a
table with the server's bots counts against its first account, as a table it created would, so quick pairing and
challenges cannot multiply one account's tables of bots past the limit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.errors import Refused
from forsale.server.lobby.lobby import TableRequest
from forsale.server.lobby.seating import Entrant, seat_entrants

from .signin import sign_up

pytestmark = pytest.mark.timeout(60)


def test_a_table_with_server_bots_counts_against_its_first_account(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'seating.sqlite3'}", grace=600.0, games_per_client=1)
    with TestClient(app) as client:
        lobby = app.state.lobby
        ids = {}
        for name in ("Ann", "Bob", "Cy"):
            sign_up(client, name)
            ids[name] = client.get("/api/me").json()["account"]["id"]

        def seat(entrants: list[Entrant], source: dict[str, Any]) -> Any:
            request = TableRequest(players=len(entrants))
            return client.portal.call(seat_entrants, lobby, request, entrants, source)  # type: ignore[union-attr]

        bots = [Entrant(None, "", "random"), Entrant(None, "", "random")]
        first = seat([Entrant(ids["Ann"], "Ann"), *bots], {"challenge": "c1"})
        assert lobby.shares.owner_of(first.id) == f"account:{ids['Ann']}"  # its bots share the workers as Ann's
        with pytest.raises(Refused) as refused:  # Ann's one game under way is the most: no second through pairing
            seat([Entrant(ids["Ann"], "Ann"), *bots], {"pairing": "casual"})
        assert (refused.value.code, refused.value.status) == ("too_many_games", 429)
        round_table = seat([Entrant(ids["Ann"], "Ann"), *bots], {"tournament": "t1", "round": 0, "table": 0})
        assert lobby.shares.owner_of(round_table.id) == f"account:{ids['Ann']}"  # counted, never refused
        people = seat([Entrant(ids["Ann"], "Ann"), Entrant(ids["Bob"], "Bob"), Entrant(ids["Cy"], "Cy")], {})
        assert lobby.shares.owner_of(people.id) == f"table:{people.id}"  # accounts only: nobody's share
