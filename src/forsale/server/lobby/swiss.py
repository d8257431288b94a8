"""Who plays whom in a tournament, and who leads: the rules alone, pure and deterministic (no clock, no database).

:mod:`forsale.server.lobby.tournaments` reads a tournament from the database, calls these functions, and seats
the tables they return. The rules (``docs/tournaments.md`` says the same for players):

- **Placement points** (:func:`placement_points`): at a table of ``n`` seats, first place earns ``n - 1``, second
  ``n - 2`` ... last 0. Places follow For Sale's own order: money, then coins left (the rulebook's tie-break);
  seats still level on both share the points of the places they cover (two first of four: 2.5 each). Server
  bots take places like anyone, and earn nothing.
- **Standings** (:func:`standings`): points, then the *Buchholz* sum (the points of every opponent met, once per
  game: a hard schedule counts for something), then the money won over all games, then a coin flip drawn from
  the tournament's seed (fixed for the tournament, so the order never wobbles between two reads).
- **Table sizes** (:func:`table_sizes`): ``k = ceil(N / size)`` tables, as even as possible (larger tables
  first), with fewer tables while one would have under 3 seats; so every table has 3 to 6 seats and tables
  differ by at most one. With bots filling (:func:`table_sizes` ``fill=True``) every table has ``size`` seats
  and the missing seats are server bots, at most one per table where possible, at the bottom tables.
- **A Swiss round** (:func:`swiss_round`): players in standings order, tables filled from the top (neighbours
  in the standings play together), and among such seatings the one with the fewest *repeated pairs* (two players
  who met before, counted per earlier meeting): exactly, by search, on fields small enough
  (:data:`EXACT_LIMIT` seatings), else greedily (each table takes the best-placed player left and then, from the
  next few in the standings, those who met its members least) and improved by swaps between tables that lower
  the repeats.
- **An arena** (:func:`arena_tables`): as soon as at least 3 players are free, all of them are seated, in
  standings order by neighbours, at the tables :func:`table_sizes` gives for them.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

MIN_SEATS, MAX_SEATS = 3, 6
"""A tournament table's seats (For Sale's 2-player variant is left to tables among friends)."""

EXACT_LIMIT = 20000
"""The most seatings :func:`swiss_round` compares one by one; past that it seats greedily and improves by swaps."""

WINDOW = 3
"""How far past a table's size, down the standings, the greedy seating looks for players who met its members less."""


def placement_points(scores: Sequence[float], coins: Sequence[float]) -> list[float]:
    """Each seat's placement points (see the module docstring): ``n - 1`` for first ... 0 for last, ties shared."""
    n = len(scores)
    keys = [(scores[i], coins[i]) for i in range(n)]
    order = sorted(range(n), key=lambda i: keys[i], reverse=True)
    points = [0.0] * n
    place = 0
    while place < n:
        level = [i for i in order[place:] if keys[i] == keys[order[place]]]
        shared = sum(n - 1 - p for p in range(place, place + len(level))) / len(level)
        for i in level:
            points[i] = shared
        place += len(level)
    return points


@dataclass(frozen=True)
class Game:
    """One finished tournament game, as the standings see it: each player's points and money there.

    ``points`` and ``money`` name tournament players only (server bots are left out); their opponents are the
    other players named.
    """

    points: Mapping[str, float]
    money: Mapping[str, float]


@dataclass
class Standing:
    """One player's line in the standings."""

    player: str
    points: float = 0.0
    buchholz: float = 0.0
    money: float = 0.0
    games: int = 0
    flip: str = ""
    opponents: Counter[str] = field(default_factory=Counter)

    def key(self) -> tuple[float, float, float, str]:
        """The standings' sort key, best first when sorted ascending."""
        return (-self.points, -self.buchholz, -self.money, self.flip)


def coin_flip(seed: str, player: str) -> str:
    """The last tie-break: a draw for ``player`` fixed by the tournament's ``seed`` (stable between reads)."""
    return hashlib.sha256(f"{seed}:{player}".encode()).hexdigest()


def standings(players: Iterable[str], games: Iterable[Game], seed: str) -> list[Standing]:
    """The players' standings, best first (see the module docstring); every player listed, played or not."""
    table = {p: Standing(p, flip=coin_flip(seed, p)) for p in players}
    played = list(games)
    for game in played:
        for p, pts in game.points.items():
            line = table.setdefault(p, Standing(p, flip=coin_flip(seed, p)))
            line.points += pts
            line.money += game.money.get(p, 0.0)
            line.games += 1
            line.opponents.update(q for q in game.points if q != p)
    for line in table.values():
        line.buchholz = sum(table[q].points * times for q, times in line.opponents.items() if q in table)
    return sorted(table.values(), key=Standing.key)


def table_sizes(n: int, size: int, fill: bool = False) -> list[int]:
    """How many seats each table of a round has, largest first (see the module docstring); ``[]`` when ``n`` players
    cannot make a table (under 3 without bots, none at all with them). With ``fill``, every table has ``size`` seats
    and ``sum(sizes) - n`` of them go to server bots (:func:`bot_seats`)."""
    if not MIN_SEATS <= size <= MAX_SEATS:
        raise ValueError(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, not {size}")
    if n <= 0 or (not fill and n < MIN_SEATS):
        return []
    k = math.ceil(n / size)
    if fill:
        return [size] * k
    while k > 1 and n // k < MIN_SEATS:
        k -= 1
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def bot_seats(sizes: Sequence[int], n: int) -> list[int]:
    """How many of each table's seats are server bots when ``n`` players sit at ``sizes`` (bots fill the rest),
    spread one per table from the bottom table up, so no table is mostly bots while another has none."""
    bots = [0] * len(sizes)
    missing = sum(sizes) - n
    i = len(sizes) - 1
    while missing > 0:
        if bots[i] < sizes[i] - 1:
            bots[i] += 1
            missing -= 1
        i = i - 1 if i > 0 else len(sizes) - 1
    return bots


def repeats(tables: Iterable[Sequence[str]], met: Mapping[frozenset[str], int]) -> int:
    """How many earlier meetings the pairs of these tables repeat."""
    return sum(met.get(frozenset(pair), 0) for table in tables for pair in itertools.combinations(table, 2))


def spread(tables: Iterable[Sequence[str]], rank: Mapping[str, int]) -> int:
    """How far apart in the standings each table's players are, summed (0 for the tables of plain neighbours)."""
    return sum(max(rank[p] for p in t) - min(rank[p] for p in t) for t in tables if t)


def meetings(games: Iterable[Iterable[str]]) -> dict[frozenset[str], int]:
    """How many times each pair of players sat at one table, from the players of each earlier game."""
    met: Counter[frozenset[str]] = Counter()
    for game in games:
        met.update(frozenset(pair) for pair in itertools.combinations(sorted(set(game)), 2))
    return dict(met)


def _seatings_count(sizes: Sequence[int]) -> int:
    """How many seatings :func:`_seatings` yields: the multinomial over the sizes, tables of one size unordered."""
    total, left = 1, sum(sizes)
    for s in sizes:
        total *= math.comb(left, s)
        left -= s
    for twins in Counter(sizes).values():
        total //= math.factorial(twins)
    return total


def _seatings(order: Sequence[str], sizes: Sequence[int]) -> Iterator[list[list[str]]]:
    """Every way to seat ``order`` at tables of ``sizes``, each once: players are placed in order, and a player
    opens only the first empty table of a size (two empty tables of one size are the same choice)."""
    tables: list[list[str]] = [[] for _ in sizes]

    def place(i: int) -> Iterator[list[list[str]]]:
        if i == len(order):
            yield [list(t) for t in tables]
            return
        opened: set[int] = set()
        for j, s in enumerate(sizes):
            if len(tables[j]) >= s or (not tables[j] and s in opened):
                continue
            if not tables[j]:
                opened.add(s)
            tables[j].append(order[i])
            yield from place(i + 1)
            tables[j].pop()

    yield from place(0)


def swiss_round(order: Sequence[str], sizes: Sequence[int], met: Mapping[frozenset[str], int]) -> list[list[str]]:
    """Seat ``order`` (the players, best standing first) at tables of ``sizes`` (seats for players, not bots):
    fewest repeated pairs, then players closest in the standings (see the module docstring)."""
    if sum(sizes) != len(order) or len(set(order)) != len(order):
        raise ValueError("sizes must seat every player once")
    rank = {p: i for i, p in enumerate(order)}
    if _seatings_count(sizes) <= EXACT_LIMIT:
        best = min(_seatings(order, sizes), key=lambda t: (repeats(t, met), spread(t, rank)))
        return [sorted(t, key=rank.__getitem__) for t in best]
    tables = _greedy(order, sizes, met)
    _improve(tables, met, rank)
    return [sorted(t, key=rank.__getitem__) for t in tables]


def _greedy(order: Sequence[str], sizes: Sequence[int], met: Mapping[frozenset[str], int]) -> list[list[str]]:
    left = list(order)
    tables: list[list[str]] = []
    for s in sizes:
        table = [left.pop(0)]
        while len(table) < s:
            window = left[: s - len(table) + WINDOW]
            pick = min(window, key=lambda p: (sum(met.get(frozenset((p, q)), 0) for q in table), window.index(p)))
            left.remove(pick)
            table.append(pick)
        tables.append(table)
    return tables


def _improve(tables: list[list[str]], met: Mapping[frozenset[str], int], rank: Mapping[str, int]) -> None:
    """Swap players between tables while a swap lowers the repeats (or keeps them and lowers the spread)."""
    better = True
    while better:
        better = False
        for a, b in itertools.combinations(range(len(tables)), 2):
            for i, j in itertools.product(range(len(tables[a])), range(len(tables[b]))):
                pair = [tables[a], tables[b]]
                before = (repeats(pair, met), spread(pair, rank))
                tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
                if (repeats(pair, met), spread(pair, rank)) < before:
                    better = True
                else:
                    tables[a][i], tables[b][j] = tables[b][j], tables[a][i]


def arena_tables(free: Sequence[str], size: int) -> list[list[str]]:
    """An arena's new tables from its free players (best standing first): everyone free is seated, neighbours
    together, at tables of :func:`table_sizes` (3 to 6 seats, none above ``size`` unless a table of 3 would be
    left short); fewer than 3 free players wait for others to finish."""
    tables, start = [], 0
    for s in table_sizes(len(free), size):
        tables.append(list(free[start : start + s]))
        start += s
    return tables
