"""The engine's exceptions: one family, each with a message a person understands.

Every front end catches :class:`ForSaleError` and shows ``str(error)`` as it
is, so messages are written in the game's words ("seat 2 bid 5 but holds 4
coins"), never as internal jargon.
"""

from __future__ import annotations


class ForSaleError(Exception):
    """Base class of every error the engine raises on purpose."""


class RulesError(ForSaleError, ValueError):
    """A ruleset that cannot be played (bad knobs, wrong player count, ...)."""


class IllegalActionError(ForSaleError, ValueError):
    """An action that the rules do not allow in this state."""


class RecordError(ForSaleError, ValueError):
    """A game record that is malformed or contains an illegal move.

    ``move`` is the 0-based index of the first illegal move in the record's
    ``moves`` list, or ``None`` when the record itself (JSON, format, rules,
    players, deal) is at fault.
    """

    def __init__(self, message: str, move: int | None = None) -> None:
        super().__init__(message)
        self.move = move
