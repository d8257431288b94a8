"""What one seat may know, and the way back from it to full states.

:func:`view` is the **only** place where a game's state is turned into what a
player sees. Every client (bots, server messages, logs sent to clients,
terminal play, RL observations) goes through it, so hidden information is
kept in one place:

- public: revealed houses and cheques, every bid and pass, who took which
  house, every revealed sale, and what follows from them by deduction (every
  hand and every coin count, which cards are still unseen);
- private to the seat: its own uncommitted sale choice;
- never: the order of the undealt cards, which cards were removed at setup,
  another seat's uncommitted sale.

Search bots need the way back: :func:`sample_state` draws a full state that
is consistent with a view, shuffling what the seat cannot know.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, NamedTuple

from .actions import PASS, SELLS, Action, action_to_json, move_to_json
from .refusals import Refusal, refusal
from .rules import CHEQUES, HOUSES, Ruleset, winners
from .state import AUCTION, OVER, SALE, Deal, State, _auction_actions


class Take(NamedTuple):
    """One house taken in the auction phase: who took it, in which round, for how much.

    A named tuple rather than a dataclass: views list up to 30 of them and
    are rebuilt for every decision, so construction cost matters.
    """

    round: int
    seat: int
    house: int
    paid: int


_CHEQUE_COUNTS = [CHEQUES.count(v) for v in range(16)]


@dataclass(frozen=True, slots=True)
class View:
    """Everything ``seat`` may know (``seat is None``: a spectator, public only).

    Per-seat tuples are indexed by seat. ``hands``, ``coins`` and
    ``cheques_won`` are what a perfect memory deduces from the public history,
    so every seat may know them. ``my_commit`` is the seat's own chosen but
    unrevealed house in a sale round; ``committed`` says, publicly, which
    seats have chosen.
    """

    rules: Ruleset
    seat: int | None
    phase: str
    round: int
    first: int
    coins: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    cheques_won: tuple[tuple[int, ...], ...]
    table: tuple[int, ...]
    bids: tuple[int, ...]
    active: tuple[bool, ...]
    high: int
    turn: int | None
    committed: tuple[bool, ...]
    my_commit: int | None
    auction_tables: tuple[tuple[int, ...], ...]
    sale_tables: tuple[tuple[int, ...], ...]
    unseen_houses: tuple[int, ...]
    unseen_cheques: tuple[int, ...]
    history: tuple[tuple[Any, Any], ...]
    takes: tuple[Take, ...]

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def houses_to_come(self) -> int:
        """Houses still to be revealed in later auction rounds."""
        return self.rules.cards - self.rules.players * len(self.auction_tables)

    @property
    def cheques_to_come(self) -> int:
        """Cheques still to be revealed in later sale rounds."""
        return self.rules.cards - self.rules.players * len(self.sale_tables)

    @property
    def hand(self) -> tuple[int, ...]:
        """The viewing seat's own houses (empty for a spectator)."""
        return () if self.seat is None else self.hands[self.seat]

    def seats_to_act(self) -> tuple[int, ...]:
        """Seats that may act now: the one bidder, or every seat yet to choose its sale (public)."""
        if self.turn is not None:  # set in the auction phase only
            return (self.turn,)
        if self.phase == SALE:
            return tuple(s for s, done in enumerate(self.committed) if not done)
        return ()

    def legal_actions(self) -> tuple[Action, ...]:
        """The viewing seat's legal actions now (the same as the engine's)."""
        seat = self.seat
        if seat is None:
            return ()
        if self.phase == AUCTION:
            if seat != self.turn:
                return ()
            coins = self.coins[seat]
            return _auction_actions(self.high, coins) if coins > self.high else (PASS,)
        if self.phase == SALE and not self.committed[seat]:
            return tuple(SELLS[h] for h in self.hands[seat])
        return ()

    def why_illegal(self, action: Action) -> Refusal | None:
        """Why the viewing seat may not take ``action``, worded for it (:func:`forsale.refusals.refusal`); ``None`` if it may.

        Built from the view alone, so the explanation says nothing the seat
        may not know. A spectator may take no action at all.
        """
        seat = self.seat
        if seat is None:
            return Refusal("not_seated", "a spectator cannot act; take a seat to play")
        return refusal(
            self.phase,
            seat,
            self.turn,
            self.coins[seat],
            self.high,
            self.committed[seat],
            self.hands[seat],
            action,
            you=True,
        )

    def scores(self) -> tuple[int, ...]:
        """Each seat's cheques plus coins left (the final score once the game is over)."""
        return tuple(sum(c) + m for c, m in zip(self.cheques_won, self.coins))

    def winners(self) -> list[int]:
        """The winning seats (see :func:`forsale.rules.winners`): public, since scores and coins are."""
        return winners(self.scores(), self.coins)

    def to_json(self, omit: Collection[str] = ()) -> dict[str, Any]:
        """A JSON-ready dict of this view (the shape server messages and logs use).

        ``omit``: keys to leave out, and not compute. A server that sends a
        snapshot after every action keeps the JSON of ``history`` and
        ``takes``, which only grow, instead of rebuilding dozens of small
        dicts per action.
        """
        out: dict[str, Any] = {
            "rules": self.rules.to_json(),
            "ruleset": {
                "name": self.rules.name,
                "starting_coins": self.rules.starting_coins,
                "removed": self.rules.removed,
                "refund": self.rules.refund,
            },
            "players": self.players,
            "seat": self.seat,
            "phase": self.phase,
            "round": self.round,
            "rounds": self.rules.rounds,
            "first": self.first,
            "coins": list(self.coins),
            "hands": [list(h) for h in self.hands],
            "cheques_won": [list(c) for c in self.cheques_won],
            "table": list(self.table),
            "bids": list(self.bids),
            "active": list(self.active),
            "high": self.high,
            "turn": self.turn,
            "to_act": list(self.seats_to_act()),
            "committed": list(self.committed),
            "my_commit": self.my_commit,
            "auction_tables": [list(t) for t in self.auction_tables],
            "sale_tables": [list(t) for t in self.sale_tables],
            "unseen_houses": list(self.unseen_houses),
            "unseen_cheques": list(self.unseen_cheques),
            "houses_to_come": self.houses_to_come,
            "cheques_to_come": self.cheques_to_come,
        }
        if "history" not in omit:
            out["history"] = [move_to_json(seat, action) for seat, action in self.history]
        if "takes" not in omit:
            out["takes"] = [take_to_json(t) for t in self.takes]
        if "legal" not in omit:
            out["legal"] = [action_to_json(a) for a in self.legal_actions()]
        out["scores"] = list(self.scores())
        for key in omit:
            out.pop(key, None)
        return out


PER_SEAT_FIELDS = ("seat", "my_commit", "legal")
"""The keys of :meth:`View.to_json` whose values depend on the viewing seat; every other key is public."""


def seat_fields(state: State, seat: int | None) -> dict[str, Any]:
    """The per-seat part of ``view(state, seat).to_json()``: its :data:`PER_SEAT_FIELDS`.

    ``{**spectator_view(state).to_json(), **seat_fields(state, seat)}`` equals
    ``view(state, seat).to_json()`` (the test suite checks it on random
    games). A server that sends a snapshot to every seat after every action
    serialises the public part once and adds this small part per seat,
    instead of building and serialising a whole view per seat. It lives here,
    beside :func:`view`, because it decides what a seat may see.
    """
    if seat is None:
        return {"seat": None, "my_commit": None, "legal": []}
    if not (type(seat) is int and 0 <= seat < state.n):
        raise ValueError(f"there is no seat {seat!r} at a table of {state.n}")
    in_sale = state.phase == SALE
    return {
        "seat": seat,
        "my_commit": (state.commits[seat] or None) if in_sale else None,
        "legal": [action_to_json(a) for a in state.legal_actions(seat)],
    }


def take_to_json(take: Take) -> dict[str, int]:
    """``{"round": r, "seat": s, "house": h, "paid": p}``."""
    return {"round": take.round, "seat": take.seat, "house": take.house, "paid": take.paid}


def view(state: State, seat: int | None) -> View:
    """What ``seat`` may know of ``state``; ``seat=None`` for a spectator."""
    n = state.n
    rules = state.rules
    deal = state.deal
    phase = state.phase
    if seat is not None and not (type(seat) is int and 0 <= seat < n):
        raise ValueError(f"there is no seat {seat!r} at a table of {n}")
    auction_rounds = state.round + 1 if phase == AUCTION else rules.rounds
    sale_rounds = 0 if phase == AUCTION else (state.round + 1 if phase == SALE else rules.rounds)
    auction_tables = tuple(tuple(sorted(deal.houses[r * n : r * n + n])) for r in range(auction_rounds))
    sale_tables = tuple(tuple(sorted(deal.cheques[r * n : r * n + n])) for r in range(sale_rounds))
    seen_houses = {h for t in auction_tables for h in t}
    unseen_cheques = _CHEQUE_COUNTS[:]
    for t in sale_tables:
        for c in t:
            unseen_cheques[c] -= 1
    in_auction = phase == AUCTION
    in_sale = phase == SALE
    return View(
        rules=rules,
        seat=seat,
        phase=phase,
        round=state.round,
        first=deal.first,
        coins=tuple(state.coins),
        hands=tuple(tuple(sorted(h)) for h in state.hands),
        cheques_won=tuple(tuple(sorted(c)) for c in state.cheques_won),
        table=tuple(state.table),
        bids=tuple(state.bids) if in_auction else (0,) * n,
        active=tuple(state.active) if in_auction else (False,) * n,
        high=state.high if in_auction else 0,
        turn=state.turn if in_auction else None,
        committed=tuple(bool(c) for c in state.commits) if in_sale else (False,) * n,
        my_commit=(state.commits[seat] or None) if in_sale and seat is not None else None,
        auction_tables=auction_tables,
        sale_tables=sale_tables,
        unseen_houses=tuple(h for h in HOUSES if h not in seen_houses),
        unseen_cheques=tuple(c for c in range(16) for _ in range(unseen_cheques[c])),
        history=tuple(state.moves),
        takes=tuple(map(Take._make, state.takes)),
    )


def spectator_view(state: State) -> View:
    """The public view: what anyone watching the table may know."""
    return view(state, None)


def sample_state(v: View, rng: random.Random) -> State:
    """A full state consistent with ``v``, drawn at random.

    Shuffles what the seat cannot know: the order of the houses and cheques
    still to come and which cards were removed (at 3-4 players), and, in a
    sale round, the house each *other* seat that has already committed chose
    (uniformly from its hand). The viewing seat's own commit is kept.
    """
    rules = v.rules
    n = rules.players
    k = rules.cards
    future_houses = list(v.unseen_houses)
    rng.shuffle(future_houses)
    n_future_houses = k - n * len(v.auction_tables)
    future_cheques = list(v.unseen_cheques)
    rng.shuffle(future_cheques)
    n_future_cheques = k - n * len(v.sale_tables)
    houses = [h for t in v.auction_tables for h in t] + future_houses[:n_future_houses]
    cheques = [c for t in v.sale_tables for c in t] + future_cheques[:n_future_cheques]
    deal = Deal(houses, cheques, v.first, future_houses[n_future_houses:], future_cheques[n_future_cheques:])
    state = State(rules, deal)
    state.phase = v.phase
    state.round = v.round
    state.coins = list(v.coins)
    state.hands = [list(h) for h in v.hands]
    state.cheques_won = [list(c) for c in v.cheques_won]
    state.table = list(v.table)
    state.bids = list(v.bids)
    state.active = list(v.active)
    state.n_active = sum(v.active)
    state.turn = v.turn if v.turn is not None else -1
    state.high = v.high
    commits = [0] * n
    if v.phase == SALE:
        for s in range(n):
            if s == v.seat and v.my_commit is not None:
                commits[s] = v.my_commit
            elif v.committed[s]:
                commits[s] = rng.choice(v.hands[s])
    state.commits = commits
    state.n_commits = sum(1 for c in commits if c)
    state.moves = list(v.history)
    state.takes = [(t.round, t.seat, t.house, t.paid) for t in v.takes]
    return state
