"""Build agents from name strings, the same way in every front end.

A spec is a registered name with options after colons:
``"hard:time=0.2"``, ``"random"``, ``"value"``. Option values are parsed as
int, then float, then left as strings, and passed to the factory as keyword
arguments. Modules that define bots register them on import; this module
imports them all (``_BOT_MODULES``) the first time a spec is resolved.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any

from ..rules import Ruleset
from .protocol import Agent

Factory = Callable[..., Agent]

DEFAULT_BOT = "medium"
"""The bot a seat gets when nobody names one (the server, ``forsale play``); registered by ``forsale.bots.search``."""

PLAYER_BOTS = ("easy", "medium", "hard", "random")
"""The levels people are offered. Every other bot this package registers (``expert``, ``hard-v1``, ``ppo``, the
baselines) is a *research bot* (:func:`research_bot`): a measurement opponent, which a public server does not
offer unless its operator asks for it (``forsale serve --research-bots``)."""

_FACTORIES: dict[str, tuple[Factory, str]] = {}
# Bots built by name but listed nowhere (no bot list, no /api/bots, no table of the server): measurement opponents.
_UNLISTED: dict[str, tuple[Factory, str]] = {}
# Which tables a bot can play, for the few that cannot play them all (a learned policy reads one table size).
_PLAYS: dict[str, Callable[[Ruleset], bool]] = {}
# Modules whose import registers bots. Each new bot module adds itself here.
_BOT_MODULES = [
    "forsale.bots.baselines", "forsale.bots.expert", "forsale.bots.search", "forsale.bots.ppo",
]  # fmt: skip
# The measurement population (``pop-...``) is not among them: it is the bench harness's (bench/harness/population.py),
# registered only in a process that imports it (a bench script; a tournament's ``bot_modules``).
_loaded = False


def register(
    name: str, description: str, plays: Callable[[Ruleset], bool] | None = None, *, listed: bool = True
) -> Callable[[Factory], Factory]:
    """Decorator: make ``factory(**options)`` buildable as ``name``; ``plays(rules)``: can it play that table.

    ``listed=False``: buildable by :func:`make_agent` only, never in :func:`agent_names` or
    :func:`describe_agents` (so no front end offers it and the server seats it nowhere).
    """

    def wrap(factory: Factory) -> Factory:
        (_FACTORIES if listed else _UNLISTED)[name] = (factory, description)
        if plays is not None:
            _PLAYS[name] = plays
        return factory

    return wrap


def _load() -> None:
    global _loaded
    if not _loaded:
        for module in _BOT_MODULES:
            importlib.import_module(module)
        _loaded = True


class BotUnavailable(ValueError):
    """A bot that cannot be built on this installation whatever its options (an extra is missing).

    :func:`make_agent` passes it on as it is: "bad options" would send the user after the wrong fix.
    """


def _value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def option_number(key: str, value: Any, low: float, high: float = math.inf, *, above: bool = False) -> float:
    """A bot option's value as a number from ``low`` (excluded if ``above``) to ``high``, or ``ValueError`` saying so.

    Every numeric option of a factory goes through here, so a spec from a stranger (a server's
    client) fails when the bot is built, in words, never later inside a decision.

    >>> option_number("temperature", 3, 0, above=True)
    3.0
    >>> option_number("temperature", 0, 0, above=True)
    Traceback (most recent call last):
    ...
    ValueError: temperature must be a number above 0, not 0
    """
    if high != math.inf:
        bounds = f"from {low:g} to {high:g}" + (f", not {low:g} itself" if above else "")
    else:
        bounds = f"above {low:g}" if above else f"of at least {low:g}"
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not (value > low if above else value >= low)
        or value > high
    ):
        raise ValueError(f"{key} must be a number {bounds}, not {value!r}")
    return float(value)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"hard:time=0.2"`` -> ``("hard", {"time": 0.2})``."""
    name, *parts = spec.strip().split(":")
    options: dict[str, Any] = {}
    for part in parts:
        key, eq, text = part.partition("=")
        if not eq or not key:
            raise ValueError(f"bot option {part!r} in {spec!r} must look like key=value")
        options[key.strip()] = _value(text.strip())
    return name, options


def make_agent(spec: str) -> Agent:
    """The agent named by ``spec``; a clear ``ValueError`` for unknown names or options."""
    _load()
    name, options = parse_spec(spec)
    entry = _FACTORIES.get(name) or _UNLISTED.get(name)
    if entry is None:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(agent_names())}")
    factory, _ = entry
    try:
        return factory(**options)
    except BotUnavailable:
        raise
    except ValueError as error:
        raise ValueError(f"bad options for bot {name!r}: {error}") from None
    except (TypeError, AttributeError, ArithmeticError) as error:  # an option of the wrong kind
        raise ValueError(f"bad options for bot {name!r}: {error}") from None


def research_bot(name: str) -> bool:
    """Whether ``name`` is one of this package's research bots: registered by one of its own bot modules and not
    in :data:`PLAYER_BOTS`. A bot registered by any other module (a server's ``--bot-module``) is not: whoever
    loaded it means it to be played.

    >>> research_bot("hard-v1"), research_bot("hard"), research_bot("no-such-bot")
    (True, False, False)
    """
    _load()
    entry = _FACTORIES.get(name)
    return entry is not None and name not in PLAYER_BOTS and entry[0].__module__ in _BOT_MODULES


def agent_names(rules: Ruleset | None = None) -> list[str]:
    """Every registered bot, or those that can play a game under ``rules`` (most bots play any table)."""
    _load()
    return sorted(name for name in _FACTORIES if rules is None or name not in _PLAYS or _PLAYS[name](rules))


def describe_agents() -> dict[str, str]:
    """Name -> one-line description, for help texts."""
    _load()
    return {name: _FACTORIES[name][1] for name in sorted(_FACTORIES)}
