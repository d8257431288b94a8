"""The one observation encoding and action space shared by every research environment.

PettingZoo, Gymnasium and OpenSpiel all observe the game through
:class:`Encoding`, and :class:`Encoding` reads nothing but a
:class:`~forsale.view.View`: an agent's vector is built from what its seat may
know, never from the game state. ``docs/observations.md`` describes each
slice; :meth:`Encoding.layout` is the source of that table.

Seats are **relative**: block 0 of every per-seat slice is the observing seat,
block 1 the next seat clockwise, and so on, so a policy can be shared by all
seats.

Actions are one fixed discrete space for a ruleset:

- ``0``: pass;
- ``1 .. C``: bid that many coins (``C`` = the starting coins, the most anyone can hold);
- ``C + 1 .. C + 30``: sell house ``1 .. 30``.

>>> from forsale import Ruleset, PASS, bid, Sell
>>> enc = Encoding(Ruleset.preset("official", 4))
>>> enc.num_actions, enc.action_index(PASS), enc.action_index(bid(3)), enc.action_index(Sell(30))
(49, 0, 3, 48)
>>> enc.action(19)
Sell(house=1)
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ..actions import PASS, SELLS, Action, Bid, Pass, Sell, bid
from ..rules import Ruleset, win_shares
from ..view import View

HOUSES = 30
CHEQUE_SLOTS = 16  # cheque values 0..15 (there is no 1, so slot 1 is always 0)
SEAT_FEATURES = ("coins", "bid", "active", "to_act", "committed", "opener", "houses_held", "cheques_total")


@dataclass(frozen=True, slots=True)
class Slice:
    """One named part of the observation vector: ``vector[start:stop]``."""

    name: str
    start: int
    stop: int
    meaning: str

    @property
    def size(self) -> int:
        return self.stop - self.start


class Encoding:
    """Observation vectors, information-state vectors, strings, masks and action ids for one ruleset."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.n = rules.players
        self.max_bid = rules.starting_coins
        self.num_actions = 1 + self.max_bid + HOUSES
        self._coin_scale = float(max(1, rules.starting_coins))
        self._cheque_scale = float(15 * rules.rounds)
        n = self.n
        parts = [
            ("phase", 3, "one-hot: auction, sale, over"),
            ("progress", 2, "auction rounds revealed / rounds, sale rounds revealed / rounds"),
            ("hand", HOUSES, "my houses: 1 at index h-1 if I hold house h"),
            ("my_commit", HOUSES, "the house I have chosen, unrevealed, in this sale round (else all 0)"),
            ("table_houses", HOUSES, "houses on the table in this auction round"),
            (
                "table_cheques",
                CHEQUE_SLOTS,
                "cheques on the table in this sale round: count of value v at index v, / 2",
            ),
            ("unseen_houses", HOUSES, "houses not yet revealed (still to come, or removed at set-up)"),
            ("unseen_cheques", CHEQUE_SLOTS, "cheques not yet revealed: count of value v at index v, / 2"),
            ("high_bid", 1, "the high bid of this auction round / starting coins"),
            (
                "seats",
                n * len(SEAT_FEATURES),
                f"per seat, relative (me first), {len(SEAT_FEATURES)} each: coins / starting coins, "
                "bid this round / starting coins, still in this auction round, to act now, "
                "has chosen in this sale round, opened the game, houses held / rounds, cheques won total / (15 x rounds)",
            ),
            ("hands", n * HOUSES, "per seat, relative: the houses it holds (public by deduction), 30 each"),
            ("cheques_won", n * CHEQUE_SLOTS, "per seat, relative: its cheques, count of value v at index v, / 2"),
        ]
        self.slices = self._build(parts)
        self.obs_size = self.slices[-1].stop
        rounds, coins = self.rules.rounds, self.max_bid
        history = [
            (
                "bidders",
                rounds * coins * n,
                "per auction round, per amount 1..starting coins: one-hot relative seat that bid it "
                "(bids rise strictly, so each amount is bid at most once a round)",
            ),
            ("pass_order", rounds * n * n, "per auction round, per relative seat: one-hot position in which it left"),
            (
                "bids_before_pass",
                rounds * n,
                "per auction round, per relative seat: bids made in the round before it left / starting coins",
            ),
            ("sold", rounds * n, "per sale round, per relative seat: the house it sold / 30"),
        ]
        self.history_slices = self._build(history, start=self.obs_size)
        self.infostate_size = self.history_slices[-1].stop

    @staticmethod
    def _build(parts: list[tuple[str, int, str]], start: int = 0) -> list[Slice]:
        out = []
        for name, size, meaning in parts:
            out.append(Slice(name, start, start + size, meaning))
            start += size
        return out

    def layout(self, *, infostate: bool = False) -> list[Slice]:
        """The slices of the observation vector (and of the information-state vector's extra part)."""
        return self.slices + (self.history_slices if infostate else [])

    # -- actions -------------------------------------------------------------
    def action_index(self, action: Action) -> int:
        """The id of ``action`` in the fixed discrete space."""
        kind = action.__class__
        if kind is Pass:
            return 0
        if kind is Bid:
            return action.amount  # type: ignore[union-attr]
        if kind is Sell:
            return self.max_bid + action.house  # type: ignore[union-attr]
        raise ValueError(f"{action!r} is not a For Sale action")

    def action(self, index: int) -> Action:
        """The action with id ``index`` (``ValueError`` outside the space)."""
        i = int(index)
        if i == 0:
            return PASS
        if 1 <= i <= self.max_bid:
            return bid(i)
        if self.max_bid < i < self.num_actions:
            return SELLS[i - self.max_bid]
        raise ValueError(f"action id {index!r} is outside 0..{self.num_actions - 1}")

    def legal_ids(self, v: View) -> list[int]:
        """Ids of the viewing seat's legal actions, ascending."""
        return [self.action_index(a) for a in v.legal_actions()]

    def mask(self, v: View) -> np.ndarray:
        """``int8`` vector of length ``num_actions``: 1 where the action is legal for the viewing seat."""
        m = np.zeros(self.num_actions, dtype=np.int8)
        m[self.legal_ids(v)] = 1
        return m

    # -- observations --------------------------------------------------------
    def _order(self, v: View) -> list[int]:
        me = v.seat or 0
        return [(me + k) % self.n for k in range(self.n)]

    def observe(self, v: View) -> np.ndarray:
        """The observation vector (``float32``, values in [0, 1]) of view ``v``."""
        out = np.zeros(self.obs_size, dtype=np.float32)
        self.write_observation(v, out)
        return out

    def write_observation(self, v: View, out: np.ndarray) -> None:
        """Fill ``out[:obs_size]`` with the observation of ``v`` (``out`` must be zeros)."""
        s = {sl.name: sl.start for sl in self.slices}
        rounds = self.rules.rounds
        out[s["phase"] + ("auction", "sale", "over").index(v.phase)] = 1.0
        out[s["progress"]] = len(v.auction_tables) / rounds
        out[s["progress"] + 1] = len(v.sale_tables) / rounds
        for h in v.hand:
            out[s["hand"] + h - 1] = 1.0
        if v.my_commit is not None:
            out[s["my_commit"] + v.my_commit - 1] = 1.0
        if v.phase == "auction":
            for h in v.table:
                out[s["table_houses"] + h - 1] = 1.0
        elif v.phase == "sale":
            for c in v.table:
                out[s["table_cheques"] + c] += 0.5
        for h in v.unseen_houses:
            out[s["unseen_houses"] + h - 1] = 1.0
        for c in v.unseen_cheques:
            out[s["unseen_cheques"] + c] += 0.5
        out[s["high_bid"]] = v.high / self._coin_scale
        k = len(SEAT_FEATURES)
        to_act = set(v.seats_to_act())
        for rel, seat in enumerate(self._order(v)):
            base = s["seats"] + rel * k
            out[base] = v.coins[seat] / self._coin_scale
            out[base + 1] = v.bids[seat] / self._coin_scale
            out[base + 2] = float(v.active[seat])
            out[base + 3] = float(seat in to_act)
            out[base + 4] = float(v.committed[seat])
            out[base + 5] = float(seat == v.first)
            out[base + 6] = len(v.hands[seat]) / rounds
            out[base + 7] = sum(v.cheques_won[seat]) / self._cheque_scale
            hb = s["hands"] + rel * HOUSES
            for h in v.hands[seat]:
                out[hb + h - 1] = 1.0
            cb = s["cheques_won"] + rel * CHEQUE_SLOTS
            for c in v.cheques_won[seat]:
                out[cb + c] += 0.5

    def infostate(self, v: View) -> np.ndarray:
        """The information-state vector: the observation, then the whole public history (perfect recall)."""
        out = np.zeros(self.infostate_size, dtype=np.float32)
        self.write_observation(v, out)
        s = {sl.name: sl.start for sl in self.history_slices}
        n, coins = self.n, self.max_bid
        rel = {seat: k for k, seat in enumerate(self._order(v))}
        r = sale = 0
        bids_made = 0
        passed = 0
        still_in = set(range(n))
        for seat, action in v.history:
            if seat is None:
                for who, house in enumerate(action):
                    out[s["sold"] + sale * n + rel[who]] = house / HOUSES
                sale += 1
                continue
            if action.__class__ is Bid:
                out[s["bidders"] + (r * coins + action.amount - 1) * n + rel[seat]] = 1.0
                bids_made += 1
                continue
            out[s["pass_order"] + (r * n + rel[seat]) * n + passed] = 1.0
            out[s["bids_before_pass"] + r * n + rel[seat]] = bids_made / self._coin_scale
            passed += 1
            still_in.discard(seat)
            if passed == n - 1:
                (last,) = still_in
                out[s["pass_order"] + (r * n + rel[last]) * n + n - 1] = 1.0
                out[s["bids_before_pass"] + r * n + rel[last]] = bids_made / self._coin_scale
                r += 1
                bids_made = passed = 0
                still_in = set(range(n))
        return out

    # -- strings -------------------------------------------------------------
    def observation_string(self, v: View) -> str:
        """What the seat sees now, in one line (no history)."""
        who = "spectator" if v.seat is None else f"seat {v.seat}"
        parts = [f"{who}", f"{v.phase} {v.round + 1}/{self.rules.rounds}" if v.phase != "over" else "over"]
        parts.append("table " + " ".join(map(str, v.table)))
        if v.phase == "auction":
            parts.append(f"high {v.high} turn {v.turn}")
            parts.append("bids " + " ".join(str(b) if a else "-" for b, a in zip(v.bids, v.active)))
        if v.phase == "sale":
            parts.append("chosen " + "".join("x" if c else "." for c in v.committed))
            if v.my_commit is not None:
                parts.append(f"my choice {v.my_commit}")
        parts.append("coins " + " ".join(map(str, v.coins)))
        parts.append("hands " + " / ".join(" ".join(map(str, h)) for h in v.hands))
        parts.append("cheques " + " / ".join(" ".join(map(str, c)) for c in v.cheques_won))
        return " | ".join(parts)

    def infostate_string(self, v: View) -> str:
        """Everything the seat knows (perfect recall): revealed cards, every public move, its own choice."""
        moves = []
        for seat, action in v.history:
            if seat is None:
                moves.append("sale " + ",".join(map(str, action)))
            else:
                moves.append(f"{seat}:{'p' if action == PASS else action.amount}")
        return json.dumps(
            {
                "seat": v.seat,
                "first": v.first,
                "houses": [list(t) for t in v.auction_tables],
                "cheques": [list(t) for t in v.sale_tables],
                "moves": moves,
                "my_choice": v.my_commit,
                "chosen": [i for i, c in enumerate(v.committed) if c],
            },
            separators=(",", ":"),
        )


REWARDS = ("win", "score")


def outcome(v: View, reward: str = "win") -> list[float]:
    """Each seat's reward at the end of the game, from the final (public) view.

    ``"win"``: the winners (highest score, then most coins) share 1, the
    others get 0 (constant-sum). ``"score"``: the final score in thousands.
    """
    scores = v.scores()
    if reward == "score":
        return [float(s) for s in scores]
    if reward != "win":
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
    return win_shares(scores, v.coins)


def ruleset(players: int = 4, rules: str | dict | Ruleset | None = None) -> Ruleset:
    """The ruleset of an environment: a preset name, a knobs object, a Ruleset, or the default."""
    if isinstance(rules, Ruleset):
        if rules.players != players:
            raise ValueError(f"the ruleset is for {rules.players} players, not {players}")
        return rules
    return Ruleset.parse(rules, players)
