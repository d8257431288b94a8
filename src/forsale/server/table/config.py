"""The settings a table's creator may change while it lives, typed, each with its rule, in one place.

A table is stored with a JSON ``config`` (rules, clocks, privacy, these settings...). The settings the
creator may change later (``POST /api/tables/{id}/settings``) are read through :class:`TableConfig`, and
changed through one method, :meth:`forsale.server.table.live.LiveTable.set_options`, which stores them
and tells every connection. Adding such a setting is one field here (with its rule, if it has one), one
field in the wire schemas that accept it (:mod:`forsale.server.http.schemas`, which check its bounds at
the boundary), and whatever part of the table obeys it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

BOT_DELAY_MAX = 10.0
"""Seconds a table's bots may be told to wait before each move, at most: slow enough to follow a game
move by move, not so slow that a table of bots seems stuck (a person's clock runs meanwhile)."""


@dataclass(frozen=True)
class TableConfig:
    """The changeable settings of one table, as stored in its ``config``; absent keys take these defaults."""

    memory_aid: bool = True
    """Whether the page may show what each player is known to hold (the houses bought, the cheques won)."""
    spectator_chat: bool = False
    """Whether spectators may write in the chat (they may always read it)."""
    hints: bool = False
    """Whether seats may ask what a bot would play (never at a rated table: :meth:`hints_shown`)."""
    bot_delay: float | None = None
    """Seconds the table's bots wait before each move (0 to :data:`BOT_DELAY_MAX`); None: the server's
    ``--bot-delay``. Stored and shown only once chosen, so tables made without it read as before."""

    @classmethod
    def of(cls, config: dict[str, Any]) -> TableConfig:
        """The settings held in a stored ``config`` (other keys are not settings and are left out)."""
        return cls(**{f.name: config[f.name] for f in fields(cls) if f.name in config})

    def stored(self) -> dict[str, Any]:
        """The settings as keys of a stored ``config``: a bot delay only once chosen."""
        out = asdict(self)
        if self.bot_delay is None:
            del out["bot_delay"]
        return out

    def hints_shown(self, rated: bool) -> bool:
        """Hints are offered where the creator allowed them, never at a rated table (whatever was stored)."""
        return self.hints and not rated

    def bots_wait(self, server_delay: float) -> float:
        """Seconds a bot of this table waits before it moves: the table's choice, else the server's."""
        return server_delay if self.bot_delay is None else self.bot_delay
