"""The engine's exceptions: one family, each with a message a person understands.

Every front end catches :class:`ForSaleError` and shows ``str(error)`` as it
is, so messages are written in the game's words ("seat 2 bid 5 but holds 4
coins"), never as internal jargon.
"""

from __future__ import annotations

import json
from typing import Any

SHOWN_CHARS = 40
"""How much of a rejected value a message quotes: enough to recognise it, never a flood."""


def shown(value: Any) -> str:
    """``value`` as a message quotes it: in JSON's spelling (records and clients speak JSON), cut short.

    >>> shown(None), shown(True), shown("up"), shown(2.5)
    ('null', 'true', '"up"', '2.5')
    >>> shown(list(range(100)))
    '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, …'
    """
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON at all (an object of the Python API, a huge number)
        text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


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
