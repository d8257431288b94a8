"""Rulesets: the three knobs that express every rule description, and presets.

A :class:`Ruleset` fixes everything that varies between the descriptions we
were given (``shared/RULES.md``): the player count, the coins each player
starts with, how many cards are removed from each deck, and whether a pass
refund rounds down or up. Everything else is the same in every description
and lives in the engine.

>>> Ruleset.preset("official", 4)
Ruleset(players=4, starting_coins=18, removed=2, refund='down', name='official')
>>> Ruleset.preset("official", 4).rounds
7
>>> Ruleset.custom(4, starting_coins=21, removed=1, refund="up")
Traceback (most recent call last):
...
forsale.errors.RulesError: 29 houses cannot be dealt in rounds of 4 players; choose how many cards to remove so that the houses in play divide by 4
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from .errors import RulesError, shown

HOUSES: tuple[int, ...] = tuple(range(1, 31))
"""The 30 house cards."""

CHEQUES: tuple[int, ...] = (0, 0) + tuple(v for v in range(2, 16) for _ in (0, 1))
"""The 30 cheque cards: two each of 0, 2, 3, ..., 15 (there is no 1)."""

CHEQUE_VALUES: frozenset[int] = frozenset(CHEQUES)

MIN_PLAYERS = 2
MAX_PLAYERS = 6
REFUNDS = ("down", "up")

KNOBS = ("starting_coins", "removed", "refund")
"""The three knobs of a ruleset, and so the keys of a rules object in a record."""

# Official set-up per player count: (starting coins, cards removed from each deck).
_OFFICIAL = {3: (18, 6), 4: (18, 2), 5: (14, 0), 6: (14, 0)}
# The 1997 German printing as described by seed 002 (and seed 000's refund):
# more coins, only 2 houses removed at 4 players, refunds rounded up.
_FIRST_EDITION = {3: (28, 0), 4: (21, 2), 5: (16, 0), 6: (14, 0)}

PRESETS: dict[str, str] = {
    "official": "modern printings (seeds 001, 004): 18/18/14/14 coins, 6/2/0/0 cards removed, refund rounded down; 3-6 players",
    "first-edition": "1997 German printing (seeds 000, 002): 28/21/16/14 coins, 2 houses removed at 4 players, refund rounded up; 3-6 players",
    "refund-up": "official, but a pass refunds half the bid rounded up (seeds 000, 002); 3-6 players",
    "two-player": "unofficial 2-player game: 18 coins each, 10 houses and 10 cheques removed, otherwise official",
}
"""Preset names and what each one means, for help texts and the docs."""


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Everything that varies between rule descriptions, for one player count.

    ``removed`` is the number of cards removed from **each** deck; the cheque
    deck in play always has as many cards as the house deck in play.
    ``name`` is the preset this ruleset came from, or ``None`` for knobs.
    """

    players: int
    starting_coins: int
    removed: int
    refund: str = "down"
    name: str | None = None

    def __post_init__(self) -> None:
        for knob in ("players", "starting_coins", "removed"):
            value = getattr(self, knob)
            if type(value) is not int:
                raise RulesError(f"{knob} must be a whole number, not {shown(value)}")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise RulesError(f"For Sale is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {self.players}")
        if self.starting_coins < 0:
            raise RulesError(f"starting_coins must be at least 0, not {self.starting_coins}")
        if not 0 <= self.removed < len(HOUSES):
            raise RulesError(f"removed must be between 0 and 29 cards, not {self.removed}")
        if self.refund not in REFUNDS:
            raise RulesError(f"refund must be 'down' or 'up', not {shown(self.refund)}")
        in_play = len(HOUSES) - self.removed
        if in_play < self.players or in_play % self.players:
            raise RulesError(
                f"{in_play} houses cannot be dealt in rounds of {self.players} players; "
                f"choose how many cards to remove so that the houses in play divide by {self.players}"
            )

    @property
    def cards(self) -> int:
        """Houses (and cheques) in play."""
        return len(HOUSES) - self.removed

    @property
    def rounds(self) -> int:
        """Auction rounds, which is also the number of sale rounds."""
        return (len(HOUSES) - self.removed) // self.players

    def refund_of(self, bid: int) -> int:
        """Coins a passing player gets back from a bid of ``bid``.

        >>> Ruleset.preset("official", 4).refund_of(3), Ruleset.preset("refund-up", 4).refund_of(3)
        (1, 2)
        """
        return bid // 2 if self.refund == "down" else (bid + 1) // 2

    @classmethod
    def preset(cls, name: str, players: int) -> Ruleset:
        """The named preset (see :data:`PRESETS`) for ``players`` players."""
        if not isinstance(name, str) or type(players) is not int:
            raise RulesError(f"a preset is named by a string and a player count, not {name!r} and {players!r}")
        return _preset(name, players)

    @classmethod
    def _build_preset(cls, name: str, players: int) -> Ruleset:
        if type(players) is not int:
            raise RulesError(f"the player count must be a whole number, not {players!r}")
        if name == "two-player":
            if players != 2:
                raise RulesError(f"the two-player preset is for 2 players, not {players}")
            return cls(2, 18, 10, "down", name)
        if name not in PRESETS:
            known = ", ".join(sorted(PRESETS))
            raise RulesError(f"unknown ruleset {name!r}; known rulesets: {known}")
        table = _FIRST_EDITION if name == "first-edition" else _OFFICIAL
        if players not in table:
            hint = " (use the unofficial 'two-player' preset for 2)" if players == 2 else ""
            raise RulesError(f"the {name} ruleset is for 3 to 6 players, not {players}{hint}")
        coins, removed = table[players]
        return cls(players, coins, removed, "up" if name != "official" else "down", name)

    @classmethod
    def default(cls, players: int) -> Ruleset:
        """``official`` for 3-6 players, the ``two-player`` preset for 2."""
        return cls.preset("two-player" if players == 2 else "official", players)

    @classmethod
    def custom(cls, players: int, *, starting_coins: int, removed: int, refund: str = "down") -> Ruleset:
        """A ruleset from the three knobs."""
        return cls(players, starting_coins, removed, refund, None)

    @classmethod
    def parse(cls, spec: Any, players: int) -> Ruleset:
        """A ruleset from a record's ``rules`` value: a preset name or a knobs object.

        >>> Ruleset.parse({"starting_coins": 21, "removed": 2, "refund": "up"}, 4).rounds
        7
        """
        if spec is None:
            return cls.default(players)
        if isinstance(spec, str):
            return cls.preset(spec, players)
        if isinstance(spec, dict):
            missing = [k for k in KNOBS if k not in spec]
            if missing:
                raise RulesError(f"the rules object lacks {', '.join(missing)}")
            unknown = [k for k in spec if k not in KNOBS]
            if unknown:  # a knob this engine does not know would be refereed as if it were not there
                raise RulesError(
                    f"the rules object has unknown knobs: {shown(unknown)}; the knobs are {', '.join(KNOBS)}"
                )
            return cls.custom(
                players, starting_coins=spec["starting_coins"], removed=spec["removed"], refund=spec["refund"]
            )
        raise RulesError(f"rules must be a preset name or an object of knobs, not {shown(spec)}")

    def to_json(self) -> str | dict[str, Any]:
        """The ``rules`` value of a record: the preset name, or the knobs."""
        if self.name is not None:
            return self.name
        return {"starting_coins": self.starting_coins, "removed": self.removed, "refund": self.refund}

    def describe(self) -> str:
        """One line for people: ``official, 4 players: 18 coins, 2 cards removed, refund rounded down``."""
        label = self.name or "custom"
        return (
            f"{label}, {self.players} players: {self.starting_coins} coins, "
            f"{self.removed} cards removed from each deck, refund rounded {self.refund}"
        )


def preset_rulesets() -> dict[str, dict[int, Ruleset]]:
    """Every preset at every player count it is for, so that a client (the web page's ledger, which tells a
    finished game's story from its record) reads a preset's knobs from here rather than keeping a copy."""
    return {
        name: {n: Ruleset.preset(name, n) for n in ([2] if name == "two-player" else range(3, MAX_PLAYERS + 1))}
        for name in PRESETS
    }


def winners(scores: Sequence[int], coins: Sequence[int]) -> list[int]:
    """The winning seats: the highest score wins, a tie goes to the most coins left, and seats level on both share.

    The one statement of the rule: :meth:`forsale.state.State.winners`,
    :meth:`forsale.view.View.winners`, the server's results, the RL rewards,
    the search bots' utility and the arena's win shares all call it.

    >>> winners([40, 52, 52], [3, 1, 4]), winners([40, 52, 52], [3, 4, 4])
    ([2], [1, 2])
    """
    keys = list(zip(scores, coins))
    best = max(keys)
    return [seat for seat, key in enumerate(keys) if key == best]


def win_shares(scores: Sequence[int], coins: Sequence[int]) -> list[float]:
    """Each seat's share of the win: ``1/k`` for each of ``k`` :func:`winners`, 0 for the others (they add up to 1).

    >>> win_shares([40, 52, 52], [3, 4, 4])
    [0.0, 0.5, 0.5]
    """
    won = winners(scores, coins)
    share = 1.0 / len(won)
    return [share if seat in won else 0.0 for seat in range(len(scores))]


@cache
def _preset(name: str, players: int) -> Ruleset:
    """Presets are built once: starting a game must not re-validate the same ruleset."""
    return Ruleset._build_preset(name, players)
