"""A Python client for a forsale server's Bot API: put any policy ``act(view) -> action`` online.

>>> from forsale.client import view_from_json
>>> from forsale.state import new_game
>>> from forsale.view import view
>>> v = view(new_game(3, seed=1), 0)
>>> view_from_json(v.to_json()) == v
True

:class:`BotClient` (the connection: REST calls, the event stream, table play with reconnection) and
:func:`run_bot` (accept challenges, join quick pairing, play every table) need the ``client`` extra
(``pip install 'forsale[client]'``); the view decoding (:mod:`forsale.client.views`) needs only the engine.
The protocol is ``docs/bot-api.md``; ``forsale connect`` is the command line over this package.
"""

from __future__ import annotations

from typing import Any

from .views import ViewError, move_from_json, view_from_json

_NEEDS_EXTRA = {
    "BotClient": "bot",
    "ClientError": "bot",
    "GameOver": "bot",
    "Policy": "bot",
    "check_server": "bot",
    "Acceptance": "runner",
    "run_bot": "runner",
}

__all__ = ["ViewError", "move_from_json", "view_from_json", *_NEEDS_EXTRA]


def __getattr__(name: str) -> Any:
    """The connection's names, imported on first use: without the ``client`` extra, the views still work."""
    module = _NEEDS_EXTRA.get(name)
    if module is None:
        raise AttributeError(f"module 'forsale.client' has no attribute {name!r}")
    try:
        from importlib import import_module

        return getattr(import_module(f"{__name__}.{module}"), name)
    except ImportError as missing:
        raise ImportError(
            f"forsale.client.{name} needs the client extra: pip install 'forsale[client]' ({missing})"
        ) from missing
