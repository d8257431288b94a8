"""A table's whole configuration, typed, each setting with its rule, in one place.

A table is stored with a JSON ``config``; :meth:`TableConfig.of` reads it once (when the table is made or
loaded) and :meth:`TableConfig.stored` writes it, so every other module reads a setting by attribute. The
settings the creator may change later (``POST /api/tables/{id}/settings``: :data:`CHANGEABLE`) change through
one method, :meth:`forsale.server.table.live.LiveTable.set_options`, which stores them and tells every
connection. Adding a setting is one field here (with its rule, if it has one), one field in the wire
schemas that accept it (:mod:`forsale.server.http.schemas`, which check its bounds at the boundary), and
whatever part of the table obeys it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

BOT_DELAY_MAX = 10.0
"""Seconds a table's bots may be told to wait before each move, at most: slow enough to follow a game
move by move, not so slow that a table of bots seems stuck (a person's clock runs meanwhile)."""


@dataclass(frozen=True)
class TableConfig:
    """One table's configuration, as stored in its ``config`` (in this order); absent keys take these defaults."""

    rules: str | dict[str, Any]
    """The ruleset as a record holds it (:meth:`forsale.rules.Ruleset.to_json`): a preset's name, or its knobs."""
    time_limit: float | None = None
    """Seconds a move (a short clock: a person who is away is moved for); None: no clock."""
    turn_limit: float | None = None
    """Seconds a move on a long clock (an hour or more): absence never acts, only the clock does."""
    memory_aid: bool = True
    """Whether the page may show what each player is known to hold (the houses bought, the cheques won)."""
    hints: bool = False
    """Whether seats may ask what a bot would play (never at a rated table: :attr:`hints_shown`)."""
    private: bool = False
    """Unlisted: left out of the lobby's listings (solo games, invitation-only tables)."""
    spectator_chat: bool = False
    """Whether spectators may write in the chat (they may always read it)."""
    rated: bool = False
    """Whether the game updates its players' ratings (:mod:`forsale.server.people.skill`)."""
    creator_account: str | None = None
    """The signed-in creator's account (never sent out): a password change ends the creator token a stolen
    session got, and the account's new session gets a fresh one (:mod:`forsale.server.people.accounts`)."""
    bot_delay: float | None = None
    """Seconds the table's bots wait before each move (0 to :data:`BOT_DELAY_MAX`); None: the server's
    ``--bot-delay``. Stored and shown only once chosen, so tables made without it read as before."""

    @classmethod
    def of(cls, config: dict[str, Any]) -> TableConfig:
        """The configuration held in a stored ``config`` (a key that is no field is left out)."""
        return cls(**{f.name: config[f.name] for f in fields(cls) if f.name in config})

    def stored(self) -> dict[str, Any]:
        """The configuration as a stored ``config``: a bot delay only once chosen."""
        out = asdict(self)
        if self.bot_delay is None:
            del out["bot_delay"]
        return out

    @property
    def hints_shown(self) -> bool:
        """Hints are offered where the creator allowed them, never at a rated table (whatever was stored)."""
        return self.hints and not self.rated

    def bots_wait(self, server_delay: float) -> float:
        """Seconds a bot of this table waits before it moves: the table's choice, else the server's."""
        return server_delay if self.bot_delay is None else self.bot_delay


CHANGEABLE = frozenset({"memory_aid", "spectator_chat", "hints", "bot_delay"})
"""The settings a table's creator may change while it lives (:meth:`forsale.server.table.live.LiveTable.set_options`)."""
