"""A value model learned from play: each seat's expected win share in a position.

The search bots need a value at the leaves of their trees, and a hand-set
valuation (``hand_values`` and ``expected_share`` in :mod:`forsale.bots.search`)
is only as good as the guesses that set it. This model is fitted instead:
``forsale train value`` (:mod:`forsale.training`) plays millions of games
with the batch simulator between a diverse population of vectorised
policies and fits a small network to the final win shares
(:func:`forsale.rules.win_shares`) of the positions met on the way.

Playing needs numpy and nothing else: the trained weights ship in
``forsale/bots/data/value-<n>p.npz`` (one model per player count) and are
applied here as ``relu(x @ w + b)`` layers with a softmax at the end.

What the model sees is what a seat may know (:class:`~forsale.view.View`),
in the seats' **relative order**: position ``j`` of every per-seat block,
and of the output, is the seat ``(me + j) % n``, so index 0 is the viewing
seat. Every input is public (hands, coins and cheques are deducible by a
perfect memory), so the same position seen from another seat is the same
numbers rotated; no seat's unrevealed sale is read. The layout
(:func:`position_features`), all floats, ``S`` the starting coins and
``R`` the rounds per phase:

- ``auction``, ``sale``: the phase, one-hot (both 0 once the game is over);
- auction rounds revealed / R, sale rounds revealed / R;
- the high bid / S (auction);
- the ``n`` houses left on the table, descending, / 30 (0-padded; auction);
- the ``n`` cheques on the table, descending, / 15 (sale);
- 30 flags: house ``h`` is unseen (still to come, or removed at setup);
- 16 counts / 2: cheques of value ``v`` unseen;
- per seat, in relative order: coins / S, its bid this round / S if it is
  still bidding (a passed seat's bid is spent), still bidding, to act,
  cheques won (sum) / 50, houses held / R, then its houses descending, / 30,
  in ``R`` slots (0-padded), then for each of them the share of the other
  seats' houses that are below it (what the house beats in a sale; 0 when
  the others hold none), in ``R`` slots.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..rules import Ruleset
from ..view import View

SHIPPED_PLAYERS = (3, 4, 5, 6)
"""The player counts a model ships for."""

BLOCK = 32
"""Rows per matrix product in :meth:`ValueModel.logits` (below OpenBLAS's threading threshold)."""

CHEQUE_SCALE = 50.0
"""Cheques won are divided by this (a typical winning total is 40-70)."""


def feature_size(players: int, rounds: int | None = None) -> int:
    """The length of :func:`position_features`' vector at ``players`` (official rounds if not given)."""
    if rounds is None:
        rounds = Ruleset.default(players).rounds
    return 5 + 2 * players + 30 + 16 + players * (6 + 2 * rounds)


def position_features(
    rules: Ruleset,
    seat: int,
    *,
    phase: str,
    auction_revealed: int,
    sale_revealed: int,
    high: int,
    table_houses: Sequence[int],
    table_cheques: Sequence[int],
    unseen_houses: Sequence[int],
    unseen_cheques: Sequence[int],
    coins: Sequence[int],
    bids: Sequence[int],
    active: Sequence[bool],
    turn: int | None,
    cheques: Sequence[int],
    hands: Sequence[Sequence[int]],
) -> np.ndarray:
    """The feature vector (float32) of a position seen from ``seat``: see the module docstring.

    For callers that keep positions in their own form (search trees,
    rollouts) and would rather not build a :class:`View`: ``cheques`` is
    each seat's *sum* of cheques won, ``unseen_cheques`` the values (with
    repeats) not yet revealed, ``auction_revealed``/``sale_revealed`` the
    rounds revealed so far in each phase (a house table counts from the
    moment it is on the table). Per-seat sequences are in seat order.
    """
    n, rounds = rules.players, rules.rounds
    scale = float(max(1, rules.starting_coins))
    out = np.zeros(feature_size(n, rounds), dtype=np.float32)
    in_auction = phase == "auction"
    out[0] = in_auction
    out[1] = phase == "sale"
    out[2] = auction_revealed / rounds
    out[3] = sale_revealed / rounds
    if in_auction:
        out[4] = high / scale
        for i, h in enumerate(sorted(table_houses, reverse=True)):
            out[5 + i] = h / 30.0
    elif phase == "sale":
        for i, c in enumerate(sorted(table_cheques, reverse=True)):
            out[5 + n + i] = c / 15.0
    at = 5 + 2 * n
    for h in unseen_houses:
        out[at + h - 1] = 1.0
    at += 30
    for c in unseen_cheques:
        out[at + c] += 0.5
    at += 16
    width = 6 + 2 * rounds
    held = sorted(h for hand in hands for h in hand)
    for j in range(n):
        s = (seat + j) % n
        base = at + j * width
        out[base] = coins[s] / scale
        if in_auction:
            out[base + 1] = bids[s] / scale if active[s] else 0.0
            out[base + 2] = bool(active[s])
            out[base + 3] = s == turn
        out[base + 4] = cheques[s] / CHEQUE_SCALE
        hand = sorted(hands[s], reverse=True)
        out[base + 5] = len(hand) / rounds
        others = len(held) - len(hand)
        for i, h in enumerate(hand):
            out[base + 6 + i] = h / 30.0
            if others:
                # The other seats' houses below h: all held houses below h, less this seat's own.
                out[base + 6 + rounds + i] = (bisect_left(held, h) - (len(hand) - 1 - i)) / others
    return out


def features(view: View, seat: int | None = None) -> np.ndarray:
    """The feature vector of ``view`` from ``seat`` (default: the view's own seat, or seat 0 for a spectator).

    Any seat may be asked for: the inputs are all public, so a seat's view
    gives every seat's features.
    """
    if seat is None:
        seat = 0 if view.seat is None else view.seat
    n = view.players
    return position_features(
        view.rules,
        seat,
        phase=view.phase,
        auction_revealed=len(view.auction_tables),
        sale_revealed=len(view.sale_tables),
        high=view.high,
        table_houses=view.table if view.phase == "auction" else (),
        table_cheques=view.table if view.phase == "sale" else (),
        unseen_houses=view.unseen_houses,
        unseen_cheques=view.unseen_cheques,
        coins=view.coins,
        bids=view.bids,
        active=view.active,
        turn=view.turn,
        cheques=[sum(view.cheques_won[s]) for s in range(n)],
        hands=view.hands,
    )


class ValueModel:
    """A trained value network for one player count: feature rows in, win shares out.

    ``layers`` are ``(w, b)`` pairs applied as ``x @ w + b`` with ReLU
    between them; the last layer's outputs are logits over the seats in
    relative order, turned into shares by a softmax (each row adds up to 1).
    """

    def __init__(self, arrays: dict[str, Any], source: str = "<arrays>") -> None:
        layers: list[tuple[np.ndarray, np.ndarray]] = []
        while f"w{len(layers)}" in arrays:
            i = len(layers)
            layers.append((np.asarray(arrays[f"w{i}"], np.float32), np.asarray(arrays[f"b{i}"], np.float32)))
        if not layers or str(arrays.get("kind", "")) != "forsale-value/1":
            raise ValueError(f"{source} is not a value model export (kind forsale-value/1, layers w0, b0, ...)")
        self.layers = layers
        self.players = int(arrays["players"])
        self.rounds = int(arrays["rounds"])
        self.source = source
        self.info = str(arrays.get("info", ""))
        if layers[0][0].shape[0] != feature_size(self.players, self.rounds) or layers[-1][0].shape[1] != self.players:
            raise ValueError(f"{source}: layer sizes do not fit {self.players} players and {self.rounds} rounds")

    def fits(self, rules: Ruleset) -> bool:
        """Whether positions under ``rules`` have the features this model reads (same players and rounds)."""
        return (rules.players, rules.rounds) == (self.players, self.rounds)

    def logits(self, rows: np.ndarray) -> np.ndarray:
        """``(m, n)`` logits for ``(m, features)`` rows (float32).

        Rows go through in blocks of :data:`BLOCK`: OpenBLAS splits larger
        products over threads, which on a busy machine (or beside other
        bots' processes) made a 1000-row batch 15 times slower than one
        thread (measured); blocks this small stay on the calling thread.
        """
        x = np.asarray(rows, dtype=np.float32)
        out = np.empty((x.shape[0], self.players), dtype=np.float32)
        for start in range(0, x.shape[0], BLOCK):
            out[start : start + BLOCK] = self._forward(x[start : start + BLOCK])
        return out

    def _forward(self, x: np.ndarray) -> np.ndarray:
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < last:
                np.maximum(x, 0.0, out=x)
        return x

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """``(m, n)`` win shares (relative seat order, rows add up to 1) for ``(m, features)`` rows; one row gives ``(n,)``."""
        x = np.asarray(rows, dtype=np.float32)
        single = x.ndim == 1
        z = self.logits(x[None, :] if single else x)
        z -= z.max(axis=1, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=1, keepdims=True)
        return z[0] if single else z

    def shares(self, view: View) -> tuple[float, ...]:
        """Each seat's expected win share in ``view``, in **seat** order, averaged over every seat's perspective.

        The network is fitted from random seats' points of view, so it is
        only nearly the same function of a position whichever seat looks
        at it; averaging the ``n`` perspectives (``n`` rows, one call)
        makes every seat's view give the same shares, exactly.
        """
        n = self.players
        rel = self.predict(np.stack([features(view, s) for s in range(n)]))  # rel[s, j]: seat (s + j) % n, from s
        return tuple(float(x) for x in sum(np.roll(rel[s], s) for s in range(n)) / n)

    def to_arrays(self) -> dict[str, Any]:
        """The arrays :meth:`save` writes (and the constructor reads)."""
        out: dict[str, Any] = {"kind": "forsale-value/1", "players": self.players, "rounds": self.rounds}
        out["info"] = self.info
        for i, (w, b) in enumerate(self.layers):
            out[f"w{i}"], out[f"b{i}"] = w, b
        return out

    def save(self, path: str | Path) -> None:
        """Write the model as a compressed ``.npz`` (float32 weights)."""
        with open(path, "wb") as f:
            np.savez_compressed(f, **self.to_arrays())


def shipped_name(players: int) -> str:
    """The file name of the shipped model for ``players``."""
    return f"value-{players}p.npz"


def load_file(path: str | Path) -> ValueModel:
    """A model from an ``.npz`` export (``forsale train value --out PATH``)."""
    with np.load(path, allow_pickle=False) as data:
        return ValueModel({k: data[k] for k in data.files}, str(path))


@cache
def load(players: int) -> ValueModel:
    """The shipped model for ``players`` (read once, then cached); ``ValueError`` if none ships."""
    if players not in SHIPPED_PLAYERS:
        known = ", ".join(map(str, SHIPPED_PLAYERS))
        raise ValueError(f"no value model ships for {players} players (it ships for {known})")
    resource = resources.files("forsale.bots") / "data" / shipped_name(players)
    with resources.as_file(resource) as path:
        return load_file(path)
