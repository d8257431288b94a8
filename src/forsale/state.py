"""The game state and its transitions: auctions, sales, scoring.

One mutable :class:`State` per game, built for speed: bots copy it
(:meth:`State.clone`) and apply actions in place (:meth:`State.push`) millions
of times. The functional :meth:`State.apply` returns a new state and leaves
the old one untouched, for callers that prefer immutability.

The state holds secrets (the undealt order, the removed cards, uncommitted
sales). Nothing outside the engine should read it directly on behalf of a
player: :mod:`forsale.view` builds what a seat may know.

A whole game, from a seed:

>>> from forsale import new_game, PASS
>>> game = new_game(4, seed=7)
>>> game.phase, game.round, game.current_seat in range(4)
('auction', 0, True)
>>> while game.phase == "auction":
...     game.push(game.current_seat, PASS)
>>> while not game.is_over:
...     game.push_sale([min(hand) for hand in game.hands])
>>> sum(game.scores()) == sum(game.coins) + sum(map(sum, game.cheques_won))
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn, TypeGuard

from .actions import PASS, SELLS, Action, Bid, Pass, Sell, bid
from .errors import IllegalActionError, RecordError, shown
from .refusals import refusal
from .rules import CHEQUE_VALUES, CHEQUES, HOUSES, Ruleset, winners

AUCTION, SALE, OVER = "auction", "sale", "over"

_LEGAL_BIDS: dict[tuple[int, int], tuple[Action, ...]] = {}


def _auction_actions(high: int, coins: int) -> tuple[Action, ...]:
    """``(PASS, bid(high + 1), ..., bid(coins))``, built once per pair and shared."""
    key = (high, coins)
    actions = _LEGAL_BIDS.get(key)
    if actions is None:
        actions = (PASS,) + tuple(bid(b) for b in range(high + 1, coins + 1))
        _LEGAL_BIDS[key] = actions
    return actions


_DOWN = range(29, 0, -1)


def _shuffled(cards: Sequence[int], rng: random.Random) -> list[int]:
    """A uniformly random permutation of the 30 ``cards``, decoded from one random integer.

    ``random.shuffle`` spends most of a random game's deal in one
    ``_randbelow`` call per card; decoding mixed-radix digits from a single
    160-bit integer is several times faster, and its bias (below 2**-50) is
    far beneath anything a game can show.
    """
    deck = list(cards)
    x = rng.getrandbits(160)
    for i in _DOWN:
        j = x % (i + 1)
        x //= i + 1
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _ints(value: Any) -> TypeGuard[list[int]]:
    return isinstance(value, list) and all(type(x) is int for x in value)


def _check_houses(field: str, houses: list[int]) -> None:
    """Houses exist (1..30) and none appears twice, or :class:`RecordError` for ``field``."""
    bad = [h for h in houses if not 1 <= h <= 30]
    if bad:
        raise RecordError(f"{field}: house {bad[0]} does not exist (houses are 1 to 30)")
    twice = [h for h, c in Counter(houses).items() if c > 1]
    if twice:
        raise RecordError(f"{field}: house {twice[0]} appears more than once")


def _check_cheques(field: str, cheques: list[int]) -> None:
    """Cheques exist (0, 2..15) and none appears more often than the deck holds it, or :class:`RecordError`."""
    bad = [c for c in cheques if c not in CHEQUE_VALUES]
    if bad:
        raise RecordError(f"{field}: there is no cheque of {bad[0]} (cheques are 0 and 2 to 15)")
    over = [c for c, count in Counter(cheques).items() if count > _DECK[c]]
    if over:
        raise RecordError(f"{field}: cheque {over[0]} appears more than twice (the deck has two of each)")


_DECK = Counter(CHEQUES)


class Deal:
    """The cards in play in draw order, the opener, and (if known) the removed cards."""

    __slots__ = ("houses", "cheques", "first", "removed_houses", "removed_cheques")

    def __init__(
        self,
        houses: Sequence[int],
        cheques: Sequence[int],
        first: int,
        removed_houses: Sequence[int] = (),
        removed_cheques: Sequence[int] = (),
    ) -> None:
        self.houses = tuple(houses)
        self.cheques = tuple(cheques)
        self.first = first
        self.removed_houses = tuple(removed_houses)
        self.removed_cheques = tuple(removed_cheques)

    @classmethod
    def random(cls, rules: Ruleset, rng: random.Random) -> Deal:
        """Shuffle both decks, remove ``rules.removed`` cards of each unseen, pick the opener."""
        houses = _shuffled(HOUSES, rng)
        cheques = _shuffled(CHEQUES, rng)
        k = rules.cards
        return cls(houses[:k], cheques[:k], rng.randrange(rules.players), sorted(houses[k:]), sorted(cheques[k:]))

    # -- JSON: the one form of a deal, for records, the server's database and the simulator's records --
    def to_json(self) -> dict[str, Any]:
        """The ``deal`` object of a record: ``{"houses": [...], "cheques": [...], "first": s}`` (no removed cards)."""
        return {"houses": list(self.houses), "cheques": list(self.cheques), "first": self.first}

    def removed_to_json(self) -> dict[str, list[int]] | None:
        """The removed cards, ``{"houses": [...], "cheques": [...]}`` (a record's ``removed``), or ``None`` if none are known."""
        if not (self.removed_houses or self.removed_cheques):
            return None
        return {"houses": list(self.removed_houses), "cheques": list(self.removed_cheques)}

    @classmethod
    def from_json(cls, data: Any, rules: Ruleset, removed: Any = None) -> Deal:
        """The deal of :meth:`to_json`'s form (and :meth:`removed_to_json`'s, if given), checked against ``rules``.

        Anything else is a :class:`~forsale.errors.RecordError` that names the
        field at fault, since a deal arrives as JSON from outside (a record, a
        database row):

        >>> rules = Ruleset.preset("official", 5)
        >>> Deal.from_json({"houses": list(range(1, 31)), "cheques": list(CHEQUES), "first": 5}, rules)
        Traceback (most recent call last):
        ...
        forsale.errors.RecordError: deal.first must be a seat number from 0 to 4, not 5
        """
        if not isinstance(data, dict):
            raise RecordError("deal must be an object with houses, cheques and first")
        houses, cheques, first = data.get("houses"), data.get("cheques"), data.get("first")
        k = rules.cards
        if not _ints(houses):
            raise RecordError("deal.houses must be a list of house numbers")
        if len(houses) != k:
            raise RecordError(
                f"deal.houses must hold {k} houses under these rules ({rules.removed} removed), not {len(houses)}"
            )
        _check_houses("deal.houses", houses)
        if not _ints(cheques):
            raise RecordError("deal.cheques must be a list of cheque values")
        if len(cheques) != k:
            raise RecordError(f"deal.cheques must hold {k} cheques, as many as the houses, not {len(cheques)}")
        _check_cheques("deal.cheques", cheques)
        n = rules.players
        if type(first) is not int or not 0 <= first < n:
            raise RecordError(f"deal.first must be a seat number from 0 to {n - 1}, not {shown(first)}")
        if removed is None:
            return cls(houses, cheques, first)
        gone_houses = removed.get("houses") if isinstance(removed, dict) else None
        gone_cheques = removed.get("cheques") if isinstance(removed, dict) else None
        if not _ints(gone_houses) or not _ints(gone_cheques):
            raise RecordError("removed must be an object with lists of houses and cheques")
        if len(gone_houses) != rules.removed or len(gone_cheques) != rules.removed:
            raise RecordError(f"removed must hold {rules.removed} houses and {rules.removed} cheques under these rules")
        _check_houses("removed.houses", houses + gone_houses)
        _check_cheques("removed.cheques", cheques + gone_cheques)
        return cls(houses, cheques, first, gone_houses, gone_cheques)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deal) and all(getattr(self, s) == getattr(other, s) for s in self.__slots__)

    def __repr__(self) -> str:
        return f"Deal(houses={list(self.houses)}, cheques={list(self.cheques)}, first={self.first})"


class State:
    """A game in progress (or finished). See the module docstring.

    Public, read-only by convention: ``rules``, ``deal``, ``phase``
    (``"auction"``, ``"sale"`` or ``"over"``), ``round`` (0-based, within the
    phase), ``coins``, ``hands`` (houses held, in the order taken),
    ``cheques_won``, ``table`` (houses or cheques still on the table,
    ascending), ``bids`` and ``active`` (this auction round), ``high``,
    ``moves`` (every move so far, shaped like a record's moves: ``(seat,
    action)`` in the auction phase, ``(None, houses)`` for a sale round),
    ``takes`` (``(round, seat, house, coins paid)`` for every house taken in
    the auction phase, in order: recorded as it happens because every view
    needs it and replaying the history for it costs more), ``commits`` (each
    seat's chosen house in this sale round, 0 while it has not chosen; a
    secret to players until the round resolves).
    """

    __slots__ = (
        "rules", "n", "deal", "phase", "round", "coins", "hands", "cheques_won",
        "table", "bids", "active", "n_active", "turn", "high", "commits",
        "n_commits", "moves", "takes", "rounds", "refund_down",
    )  # fmt: skip

    def __init__(self, rules: Ruleset, deal: Deal) -> None:
        n = rules.players
        self.rules = rules
        self.n = n
        self.deal = deal
        self.phase = AUCTION
        self.round = 0
        self.coins = [rules.starting_coins] * n
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.cheques_won: list[list[int]] = [[] for _ in range(n)]
        self.table = sorted(deal.houses[:n])
        self.bids = [0] * n
        self.active = [True] * n
        self.n_active = n
        self.turn = deal.first
        self.high = 0
        self.commits = [0] * n
        self.n_commits = 0
        self.moves: list[tuple[Any, Any]] = []
        self.takes: list[tuple[int, int, int, int]] = []
        self.rounds = rules.rounds
        self.refund_down = rules.refund == "down"

    # -- copying -----------------------------------------------------------
    def clone(self) -> State:
        """An independent copy, cheap enough for tree search."""
        new = State.__new__(State)
        new.rules = self.rules
        new.n = self.n
        new.deal = self.deal
        new.phase = self.phase
        new.round = self.round
        new.coins = self.coins[:]
        new.hands = [h[:] for h in self.hands]
        new.cheques_won = [c[:] for c in self.cheques_won]
        new.table = self.table[:]
        new.bids = self.bids[:]
        new.active = self.active[:]
        new.n_active = self.n_active
        new.turn = self.turn
        new.high = self.high
        new.commits = self.commits[:]
        new.n_commits = self.n_commits
        new.moves = self.moves[:]
        new.takes = self.takes[:]
        new.rounds = self.rounds
        new.refund_down = self.refund_down
        return new

    __copy__ = clone

    # -- whose turn --------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.phase is OVER

    @property
    def current_seat(self) -> int | None:
        """The seat to act in the auction phase; ``None`` in the sale phase and at the end."""
        return self.turn if self.phase is AUCTION else None

    def seats_to_act(self) -> tuple[int, ...]:
        """Seats that may act now: the one bidder, or every seat yet to commit a sale."""
        if self.phase is AUCTION:
            return (self.turn,)
        if self.phase is SALE:
            return tuple(s for s in range(self.n) if not self.commits[s])
        return ()

    def has_committed(self, seat: int) -> bool:
        """Whether ``seat`` has chosen its house in this sale round (public; the house is not)."""
        return self.phase is SALE and self.commits[seat] != 0

    def ends_game(self, action: Action) -> bool:
        """Whether ``action``, taken legally now, is the game's last move: the last choice of the last sale round.

        Lets a caller that must record the result before the move is applied
        (the server writes it in the same transaction as the move) tell
        without applying it to a copy.
        """
        return (
            self.phase is SALE
            and action.__class__ is Sell
            and self.round == self.rounds - 1
            and self.n_commits == self.n - 1
        )

    # -- legal actions -----------------------------------------------------
    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """Every action ``seat`` may take now (empty when it is not to act).

        In an auction: ``PASS`` first, then every bid from the current high
        bid plus one up to the coins the seat holds. In a sale round: one
        ``Sell`` per house in hand, ascending.
        """
        if self.phase is AUCTION:
            if seat != self.turn:
                return ()
            coins = self.coins[seat]
            high = self.high
            return _auction_actions(high, coins) if coins > high else (PASS,)
        if self.phase is SALE and not self.commits[seat]:
            return tuple([SELLS[h] for h in sorted(self.hands[seat])])
        return ()

    def can_raise(self, seat: int) -> bool:
        """Whether ``seat`` is to bid and holds more coins than the high bid."""
        return self.phase is AUCTION and seat == self.turn and self.coins[seat] > self.high

    # -- transitions -------------------------------------------------------
    def apply(self, seat: int, action: Action) -> State:
        """The state after ``seat`` takes ``action``; this state is left as it was."""
        new = self.clone()
        new.push(seat, action)
        return new

    def push(self, seat: int, action: Action) -> None:
        """Take ``action`` for ``seat`` in place; raise :class:`IllegalActionError` if the rules forbid it."""
        # The hot path of every search: kept flat, with locals, on purpose.
        # ``turn`` is -1 outside the auction phase, so ``seat != self.turn``
        # also refuses bids and passes during the sale phase and at the end
        # (``seat < 0`` refuses the seat -1 that would match it).
        if type(action) is Bid:  # type(), not isinstance: as fast, and mypy narrows on it
            amount = action.amount
            if seat != self.turn or seat < 0 or amount <= self.high or amount > self.coins[seat]:
                self._reject(seat, action)
            self.bids[seat] = amount
            self.high = amount
        elif type(action) is Pass:
            if seat != self.turn or seat < 0:
                self._reject(seat, action)
            bids = self.bids
            paid = bids[seat]
            if paid:
                paid = (paid + 1) // 2 if self.refund_down else paid // 2
                self.coins[seat] -= paid
            house = self.table.pop(0)
            self.hands[seat].append(house)
            self.takes.append((self.round, seat, house, paid))
            active = self.active
            active[seat] = False
            self.n_active -= 1
            if self.n_active == 1:
                self.moves.append((seat, action))
                last = active.index(True)
                paid = bids[last]
                self.coins[last] -= paid
                house = self.table.pop()
                self.hands[last].append(house)
                self.takes.append((self.round, last, house, paid))
                self._next_auction(last)
                return
        elif type(action) is Sell:
            if (
                self.phase is not SALE
                or not 0 <= seat < self.n
                or self.commits[seat]
                or action.house not in self.hands[seat]
            ):
                self._reject(seat, action)
            self.commits[seat] = action.house
            self.n_commits += 1
            if self.n_commits == self.n:
                self._resolve_sale()
            return
        else:
            raise IllegalActionError(f"{action!r} is not a For Sale action (bid, pass or sell)")
        self.moves.append((seat, action))
        active = self.active
        n = self.n
        while True:
            seat += 1
            if seat == n:
                seat = 0
            if active[seat]:
                break
        self.turn = seat

    def push_sale(self, houses: Sequence[int]) -> None:
        """Play a whole sale round at once: ``houses[i]`` is the house seat ``i`` sells.

        Equivalent to every seat pushing its ``Sell`` (the shape of a
        record's ``sell`` move); nothing changes if any choice is illegal.
        """
        if self.phase is not SALE:
            raise IllegalActionError(
                f"a sale round cannot be played: the game is {'over' if self.phase is OVER else 'in the auction phase'}"
            )
        if self.n_commits:
            raise IllegalActionError("some seats have already chosen a house this sale round")
        if len(houses) != self.n:
            raise IllegalActionError(f"a sale round needs one house per seat ({self.n}), not {len(houses)}")
        hands = self.hands
        for seat, house in enumerate(houses):
            if type(house) is not int or house not in hands[seat]:  # True would pass for house 1
                self._reject(seat, Sell(house))
        self.commits = list(houses)
        self._resolve_sale()

    def _next_auction(self, opener: int) -> None:
        n = self.n
        r = self.round + 1
        if r == self.rounds:
            self.phase = SALE
            self.round = 0
            self.table = sorted(self.deal.cheques[:n])
            self.turn = -1
            return
        self.round = r
        self.table = sorted(self.deal.houses[r * n : r * n + n])
        self.bids = [0] * n
        self.active = [True] * n
        self.n_active = n
        self.high = 0
        self.turn = opener

    def _resolve_sale(self) -> None:
        commits = self.commits
        table = self.table
        won = self.cheques_won
        hands = self.hands
        order = sorted(commits)
        for seat, house in enumerate(commits):
            won[seat].append(table[order.index(house)])
            hands[seat].remove(house)
        self.moves.append((None, tuple(commits)))
        n = self.n
        self.commits = [0] * n
        self.n_commits = 0
        r = self.round + 1
        if r == self.rounds:
            self.phase = OVER
            self.table = []
            return
        self.round = r
        self.table = sorted(self.deal.cheques[r * n : r * n + n])

    def _reject(self, seat: int, action: Action) -> NoReturn:
        """Raise an :class:`IllegalActionError` that says why, in the game's words."""
        raise IllegalActionError(self.why_illegal(seat, action) or f"seat {seat} cannot {action} now")

    def why_illegal(self, seat: int, action: Action) -> str | None:
        """Why ``seat`` may not take ``action`` now, in the referee's words (:func:`forsale.refusals.refusal`), or ``None`` if it may."""
        if type(seat) is not int or not 0 <= seat < self.n:
            return f"there is no seat {seat!r} at a table of {self.n}"
        phase = self.phase
        reason = refusal(
            phase,
            seat,
            self.turn,
            self.coins[seat],
            self.high,
            phase is SALE and self.commits[seat] != 0,
            self.hands[seat],
            action,
        )
        return None if reason is None else reason.message

    # -- the end -----------------------------------------------------------
    def scores(self) -> list[int]:
        """Each seat's cheques plus coins left (the final score once the game is over)."""
        return [sum(c) + m for c, m in zip(self.cheques_won, self.coins)]

    def winners(self) -> list[int]:
        """The winning seats (see :func:`forsale.rules.winners`); several only for a shared win."""
        return winners(self.scores(), self.coins)

    def __repr__(self) -> str:
        return f"<State {self.rules.describe()}; {self.phase} round {self.round}; {len(self.moves)} moves>"


def new_game(
    players: int | Ruleset = 4,
    seed: int | None = None,
    *,
    rules: str | Ruleset | None = None,
    deal: Deal | None = None,
    rng: random.Random | None = None,
) -> State:
    """Start a game.

    ``players`` is a count (the default ruleset for it, or the preset named by
    ``rules``) or a :class:`Ruleset`. The deal comes from ``deal`` if given,
    else is shuffled by ``rng`` or by ``random.Random(seed)``: the same seed
    always gives the same deal.
    """
    if isinstance(players, Ruleset):
        ruleset = players
    elif isinstance(rules, Ruleset):
        ruleset = rules
    elif rules is None:
        ruleset = Ruleset.default(players)
    else:
        ruleset = Ruleset.preset(rules, players)
    if deal is None:
        deal = Deal.random(ruleset, rng if rng is not None else random.Random(seed))
    return State(ruleset, deal)


def play_moves(state: State, moves: Iterable[tuple[Any, Any]]) -> State:
    """Push ``(seat, action)`` moves, and ``(None, houses)`` sale rounds, in place."""
    for seat, action in moves:
        if seat is None:
            state.push_sale(action)
        else:
            state.push(seat, action)
    return state
