"""Who plays whom in quick pairing: the matching rule alone, pure and deterministic (no clock, no database).

:mod:`forsale.server.lobby.pairing` reads the queue, calls :func:`match` with the time, and seats each
:class:`Match` it returns. The rule:

- **Separate pools.** Rated and casual seekers are never seated together.
- **The player count.** Everyone of a group asked for the table's size (3 to 6, or any of them).
- **Rating closeness, widening with the wait.** Each seeker accepts a group whose ratings (openskill ``mu``,
  :mod:`forsale.server.people.skill`; a newcomer at the model's 25) span at most :meth:`Seeker.gap`:
  :data:`BASE_GAP` at first, :data:`WIDEN` more every second of waiting. A group is formed only if its span is
  within the gap of *every* member: the one who just arrived is not sent to a table far from their level
  because someone else has waited long.
- **Longest wait first.** Seekers are taken in the order they joined; each in turn, if not yet seated, anchors a
  group of the largest size it allows, filled with the compatible seekers closest to its rating.
- **Bot accounts only with people who accept bots.** A bot account (:mod:`forsale.server.people.botaccounts`'s
  accounts that play through the Bot API) is seated only with people whose ``bots_after`` is not None: someone who
  chose "never: wait for people" meets people only. Bot accounts among themselves are fine. A candidate who would
  put the two together (either way round, the anchor included) is passed over, as one of the wrong table size is.
- **Bots, if asked for.** A seeker who asked for bots after ``bots_after`` seconds, and has waited that long
  without a full table, is seated with the compatible seekers who also accept bots (as many as fit) and bots
  in the free seats, at a table of the size in :data:`FILL_ORDER` that seats the most people. The bots' level
  follows the people's ratings (:func:`bot_level`).
"""

from __future__ import annotations

import heapq
import itertools
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

PLAYER_COUNTS = (3, 4, 5, 6)
"""The table sizes quick pairing makes (For Sale's 2-player variant is left to tables among friends)."""

BASE_GAP = 2.0
"""The rating span (``mu`` points) a seeker accepts on joining: about a quarter of a newcomer's sigma (25/3)."""

WIDEN = 0.5
"""``mu`` points the accepted span grows by every second of waiting: after 30 s, 17 points, anyone but the extremes."""

FILL_ORDER = (4, 3, 5, 6)
"""The table sizes a table filled with bots prefers, in order, when they seat as many people: For Sale's classic
four first."""

LEVELS = ((22.0, "easy"), (28.0, "medium"))
"""``(below this mu, level)``: a table's bots are ``easy`` under 22, ``medium`` under 28 (a newcomer's 25 is in the
middle), ``hard`` from 28 on; the people's mean ``mu`` decides (see ``docs/pairing.md``)."""


@dataclass(frozen=True)
class Seeker:
    """One entry of the queue: an account (a person or a bot account) looking for a table."""

    account_id: str
    mu: float
    counts: frozenset[int]
    rated: bool
    joined: float  # seconds, on the clock :func:`match` is given
    bots_after: float | None = None  # seconds of waiting after which bots may fill the table; None: never
    bot_account: bool = False  # a bot account (Bot API): seated only with people who accept bots

    def __post_init__(self) -> None:
        if not self.counts or not self.counts <= set(PLAYER_COUNTS):
            raise ValueError(f"counts must be some of {PLAYER_COUNTS}, not {sorted(self.counts)}")

    def gap(self, now: float) -> float:
        """The rating span this seeker accepts now."""
        return BASE_GAP + WIDEN * max(0.0, now - self.joined)

    def wants_bots(self, now: float) -> bool:
        return self.bots_after is not None and now - self.joined >= self.bots_after

    @property
    def people_only(self) -> bool:
        """A person who chose never to play with bots: no bot account at their table either."""
        return self.bots_after is None and not self.bot_account


@dataclass(frozen=True)
class Match:
    """A table to make: ``players`` seats, ``members`` (account ids, the anchor first) and ``bots`` of ``bot``."""

    players: int
    rated: bool
    members: tuple[str, ...]
    bot: str | None = None

    @property
    def bots(self) -> int:
        return self.players - len(self.members)


def bot_level(mus: Iterable[float]) -> str:
    """The bot level (a :data:`forsale.bots.registry.PLAYER_BOTS` name) for people of these ratings."""
    values = list(mus)
    mean = sum(values) / len(values)
    for below, level in LEVELS:
        if mean < below:
            return level
    return "hard"


class _Pool:
    """The seekers of one pool (rated, or casual) in rating order both ways, so that each anchor's nearest are read
    in ``O(log n)`` plus what it looks at, not sorted anew for every anchor: a queue of hundreds is matched in
    milliseconds (``bench/pairing_load.py``)."""

    def __init__(self, seekers: Iterable[Seeker]) -> None:
        self.up = sorted(seekers, key=lambda s: (s.mu, s.joined, s.account_id))
        self.up_mu = [s.mu for s in self.up]
        self.down = sorted(self.up, key=lambda s: (-s.mu, s.joined, s.account_id))
        self.down_mu = [-s.mu for s in self.down]

    def nearest(self, anchor: Seeker, reach: float) -> Iterator[Seeker]:
        """The others within ``reach`` of the anchor's rating, nearest first (ties: the longer wait, then the id)."""
        up = (self.up[i] for i in range(bisect_left(self.up_mu, anchor.mu), len(self.up)))  # mu >= the anchor's
        down = (self.down[i] for i in range(bisect_right(self.down_mu, -anchor.mu), len(self.down)))  # mu below
        for other in heapq.merge(_by_distance(up, anchor), _by_distance(down, anchor), key=_distance(anchor)):
            if abs(other.mu - anchor.mu) > reach:
                return
            if other is not anchor:
                yield other


def _distance(anchor: Seeker) -> Callable[[Seeker], tuple[float, float, str]]:
    """The order of the candidates for ``anchor``'s table: the nearest rating, then the longer wait."""
    return lambda other: (abs(other.mu - anchor.mu), other.joined, other.account_id)


def _by_distance(side: Iterable[Seeker], anchor: Seeker) -> Iterator[Seeker]:
    """One side of the anchor (in rating order, away from it) in :func:`_distance`'s order: two ratings apart by
    less than the rounding of their distances to the anchor's are as far, and the longer wait goes first."""
    key = _distance(anchor)
    for _, same in itertools.groupby(side, key=lambda o: abs(o.mu - anchor.mu)):
        yield from sorted(same, key=key)


Nearest = Callable[[], Iterable[Seeker]]
"""The candidates for an anchor's table, nearest rating first (a new pass at each call)."""


def _group(anchor: Seeker, nearest: Nearest, size: int, now: float) -> list[Seeker]:
    """The anchor and up to ``size - 1`` candidates (all playing at ``size``) whose ratings every member accepts,
    taken nearest first."""
    group = [anchor]
    low = high = anchor.mu
    limit = anchor.gap(now)
    bot_account, people_only = anchor.bot_account, anchor.people_only
    for other in nearest():
        if len(group) == size:
            break
        if size not in other.counts or (other.bot_account and people_only) or (other.people_only and bot_account):
            continue
        new_low, new_high, new_limit = min(low, other.mu), max(high, other.mu), min(limit, other.gap(now))
        if new_high - new_low <= new_limit:
            group.append(other)
            low, high, limit = new_low, new_high, new_limit
            bot_account, people_only = bot_account or other.bot_account, people_only or other.people_only
    return group


def _full(anchor: Seeker, nearest: Nearest, now: float) -> tuple[int, list[Seeker]] | None:
    """The largest full table of people the anchor allows, if any: its size and the group."""
    for size in sorted(anchor.counts, reverse=True):
        group = _group(anchor, nearest, size, now)
        if len(group) == size:
            return size, group
    return None


def _with_bots(anchor: Seeker, willing: Nearest, now: float) -> tuple[int, list[Seeker]]:
    """The table (of the anchor's sizes, in :data:`FILL_ORDER`) that seats the most people who accept bots."""
    best: tuple[int, list[Seeker]] | None = None
    for size in (n for n in FILL_ORDER if n in anchor.counts):
        group = _group(anchor, willing, size, now)
        if best is None or len(group) > len(best[1]):
            best = size, group
    assert best is not None  # the anchor's counts are some of FILL_ORDER's
    return best


def match(seekers: Iterable[Seeker], now: float) -> list[Match]:
    """The tables to make now from the queue ``seekers`` (see the module docstring); nobody is in two."""
    queue = sorted(seekers, key=lambda s: (s.joined, s.account_id))
    pools = {rated: _Pool(s for s in queue if s.rated == rated) for rated in (False, True)}
    taken: set[str] = set()
    out: list[Match] = []
    for anchor in queue:
        if anchor.account_id in taken:
            continue
        pool, reach = pools[anchor.rated], anchor.gap(now)  # nobody farther than the anchor accepts can join it

        def nearest(pool: _Pool = pool, anchor: Seeker = anchor, reach: float = reach) -> Iterator[Seeker]:
            return (s for s in pool.nearest(anchor, reach) if s.account_id not in taken)

        def willing(nearest: Nearest = nearest) -> Iterator[Seeker]:
            return (s for s in nearest() if s.bots_after is not None)

        found = _full(anchor, nearest, now)
        if found is None and anchor.wants_bots(now):
            found = _with_bots(anchor, willing, now)
        if found is None:
            continue
        size, group = found
        bot = bot_level(s.mu for s in group) if len(group) < size else None
        out.append(Match(size, anchor.rated, tuple(s.account_id for s in group), bot))
        taken.update(s.account_id for s in group)
    return out
