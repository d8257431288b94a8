"""The fair-share rules themselves, on tables built by hand: who counts as a person, which tables close when quiet.

:mod:`tests.server.test_server_fairshare` checks the limits against a real ``forsale serve``; these
are the small rules under them, where a real server would need minutes of waiting to show the case.
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

from forsale.server.lobby.fairshare import Shares, bots_only, closes_when_quiet, has_people
from forsale.server.table.config import TableConfig


def table(*kinds: str, connected: tuple[int, ...] = (), **settings: Any) -> Any:
    away = settings.pop("away_since", time.monotonic() - 100)
    seats = [
        SimpleNamespace(index=i, kind=k, conns={object()} if i in connected else set(), away_since=away)
        for i, k in enumerate(kinds)
    ]
    return SimpleNamespace(
        options=SimpleNamespace(grace=60.0),
        id="t1",
        seats=seats,
        status=settings.pop("status", "playing"),
        turn_limit=settings.pop("turn_limit", None),
        config=TableConfig("official", **settings),
        closed=False,
    )


def test_an_absent_guest_does_not_put_a_table_of_bots_before_everyone_elses() -> None:
    """A guest who sat down at each of their tables of bots and went away (past the grace period): their bots
    are background work."""
    absent = table("human", "bot", "bot")
    assert not has_people(absent)
    assert Shares().share(absent).background
    present = table("human", "bot", "bot", connected=(0,))
    assert has_people(present) and not Shares().share(present).background
    just_made = table("human", "bot", "bot", away_since=time.monotonic())  # the page is yet to connect
    assert has_people(just_made)


def test_which_tables_close_when_nobody_is_connected() -> None:
    assert closes_when_quiet(table("open", "human", status="waiting"))
    assert closes_when_quiet(table("human", "human"))  # a casual game its people left
    assert not closes_when_quiet(table("human", "human", turn_limit=86400))  # a game over days
    assert not closes_when_quiet(table("human", "bot", rated=True))  # the absence clock finishes it, rated
    assert not closes_when_quiet(table("bot", "bot"))  # bots only: it finishes on its own
    assert bots_only(table("bot", "bot")) and not bots_only(table("bot", "open", status="waiting"))
