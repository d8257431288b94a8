"""Positions and their outcomes, generated fast with the lockstep core.

:func:`generate` deals games in chunks of :class:`~forsale.sim.step.Games`,
seats a fresh draw of :class:`~forsale.training.policies.Population` at every
seat, and plays them to the end one move at a time (every live game moves
at once). On the way it keeps a random sample of the positions met (at each
step each game is kept with a small chance, from a random seat's point of
view), as :func:`games_features` rows. Once a chunk is over each kept row is
labelled with the final win shares of its game, in the row's relative seat
order, from the core's own winner rule (:meth:`Games.rewards`).

:func:`games_features` restates :func:`forsale.bots.valuemodel.features` on
the arrays, for many positions at once; ``tests/training`` compares the two
on positions rebuilt through the engine (:func:`forsale.from_record`) and
demands equal vectors, bit for bit. Every value is computed as a float64
quotient then rounded to float32, as the one-view path does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..bots.valuemodel import CHEQUE_SCALE, feature_size
from ..rules import Ruleset
from ..sim.step import ALL_HOUSES, AUCTION, OVER, SALE, Deals, Games
from .policies import Population, cheque_counts, sorted_hands

AUCTION_KEEP = 0.06
"""Chance that a game's position is kept at an auction step (a 4-player game has about 50 of them)."""
SALE_KEEP = 0.3
"""Chance that a game's position is kept at the start of a sale round."""


def games_features(games: Games, idx: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """``(m, F)`` float32: :func:`~forsale.bots.valuemodel.features` of game ``idx[j]`` seen from ``seat[j]``.

    Valid when no seat has chosen in the current sale round (the core
    plays a sale round in one call, so always between calls).
    """
    n, rounds = games.n, games.rounds
    rules = games.rules
    scale = float(max(1, rules.starting_coins))
    m = len(idx)
    out = np.zeros((m, feature_size(n, rounds)), dtype=np.float32)
    phase = games.phase[idx]
    rnd = games.round[idx]
    auction = phase == AUCTION
    sale = phase == SALE
    auction_revealed = np.where(auction, rnd + 1, rounds)
    sale_revealed = np.where(auction, 0, np.where(sale, rnd + 1, rounds))
    out[:, 0] = auction
    out[:, 1] = sale
    out[:, 2] = auction_revealed / rounds
    out[:, 3] = sale_revealed / rounds
    out[:, 4] = games.high[idx] * auction / scale
    out[:, 5 : 5 + n] = _descending(sorted_hands(games.table[idx] * auction), n) / 30.0
    cheques = games.round_cheques[idx, np.minimum(rnd, rounds - 1)][:, ::-1] * sale[:, None]
    out[:, 5 + n : 5 + 2 * n] = cheques / 15.0
    at = 5 + 2 * n
    unseen = ALL_HOUSES & ~games.seen[idx, auction_revealed - 1]
    out[:, at : at + 30] = (unseen[:, None] >> np.arange(30, dtype=np.uint32)) & np.uint32(1)
    at += 30
    out[:, at : at + 16] = cheque_counts(games.unseen_cheques[idx, sale_revealed]) / 2.0
    at += 16
    rel = (seat[:, None] + np.arange(n)) % n  # (m, n): the seats in relative order, me first
    rows = idx[:, None]
    width = 6 + 2 * rounds
    block = out[:, at:].reshape(m, n, width)
    still_in = ((games.active[idx][:, None] >> rel) & 1).astype(bool) & auction[:, None]
    block[:, :, 0] = games.coins[rows, rel] / scale
    block[:, :, 1] = games.bids[rows, rel] * still_in / scale
    block[:, :, 2] = still_in
    block[:, :, 3] = (rel == games.turn[idx][:, None]) & auction[:, None]
    block[:, :, 4] = games.won_total[rows, rel] / CHEQUE_SCALE
    hands = sorted_hands(games.hands[rows, rel])
    count = (hands < 99).sum(axis=2)
    block[:, :, 5] = count / rounds
    desc = _descending(hands, rounds)
    block[:, :, 6 : 6 + rounds] = desc / 30.0
    # The other seats' houses below each house: every held house below it, less the seat's own below it.
    every = np.bitwise_or.reduce(games.hands[idx], axis=1)
    below = np.cumsum((every[:, None] >> np.arange(30, dtype=np.uint32)) & np.uint32(1), axis=1)  # held <= v + 1
    below = np.concatenate([np.zeros((m, 1), below.dtype), below], axis=1)  # below[:, h - 1]: held houses < h
    all_below = np.take_along_axis(below, np.maximum(desc - 1, 0).reshape(m, n * rounds), axis=1).reshape(m, n, rounds)
    own_below = count[:, :, None] - 1 - np.arange(rounds)
    others = count.sum(axis=1, keepdims=True) - count  # (m, n)
    share = (all_below - own_below) / np.maximum(others, 1)[:, :, None]
    block[:, :, 6 + rounds :] = np.where((desc > 0) & (others[:, :, None] > 0), share, 0.0)
    return out


def _descending(ascending: np.ndarray, width: int) -> np.ndarray:
    """The first ``width`` houses of :func:`sorted_hands` rows, highest first, 0-padded."""
    held = (ascending < 99).sum(axis=-1, keepdims=True)
    order = held - 1 - np.arange(width)
    picked = np.take_along_axis(ascending, np.maximum(order, 0), axis=-1)
    return np.where(order >= 0, picked, 0)


@dataclass(slots=True)
class Positions:
    """Feature rows ``x`` (float32), their win shares ``y`` (float32, relative order) and game numbers."""

    x: np.ndarray
    y: np.ndarray
    game: np.ndarray

    def __len__(self) -> int:
        return int(self.x.shape[0])


def play_chunk(
    rules: Ruleset, size: int, rng: np.random.Generator, *, record: bool = False
) -> tuple[Games, np.ndarray, np.ndarray, np.ndarray]:
    """Play ``size`` fresh games to the end; return the core and the kept (features, game, seat)."""
    n = rules.players
    games = Games(rules, size, record=record)
    everyone = np.arange(size)
    houses, cheques, first = Deals(n, rng, block=size).take(size)
    games.deal(everyone, houses, cheques, first)
    players = Population(size, n)
    players.draw(everyone, rng)
    kept_x: list[np.ndarray] = []
    kept_game: list[np.ndarray] = []
    kept_seat: list[np.ndarray] = []
    while True:
        phase = games.phase
        in_auction = np.flatnonzero(phase == AUCTION)
        in_sale = np.flatnonzero(phase == SALE)
        if not in_auction.size and not in_sale.size:
            break
        keep = np.concatenate(
            [
                in_auction[rng.random(in_auction.size) < AUCTION_KEEP],
                in_sale[rng.random(in_sale.size) < SALE_KEEP],
            ]
        )
        if keep.size:
            seat = rng.integers(0, n, keep.size)
            kept_x.append(games_features(games, keep, seat))
            kept_game.append(keep)
            kept_seat.append(seat)
        if in_auction.size:
            games.auction(in_auction, players.auction(games, in_auction, rng))
        if in_sale.size:
            games.sale(in_sale, players.sale(games, in_sale, rng))
    assert (games.phase == OVER).all()
    width = feature_size(n, rules.rounds)
    x = np.concatenate(kept_x) if kept_x else np.zeros((0, width), np.float32)
    game = np.concatenate(kept_game) if kept_game else np.zeros(0, np.int64)
    seat = np.concatenate(kept_seat) if kept_seat else np.zeros(0, np.int64)
    return games, x, game, seat


def generate(
    rules: Ruleset,
    games: int,
    seed: int,
    *,
    chunk: int = 8192,
    progress: Callable[[int], None] | None = None,
) -> Positions:
    """Positions of ``games`` games under ``rules`` from ``seed`` (same seed, same data), labelled.

    ``progress(k)`` is called after each chunk with the games it played.
    """
    n = rules.players
    rng = np.random.default_rng([seed, n])  # another player count, other games
    xs, ys, ids = [], [], []
    done = 0
    while done < games:
        size = min(chunk, games - done)
        core, x, game, seat = play_chunk(rules, size, rng)
        shares = core.rewards(np.arange(size), "win")
        rel = (seat[:, None] + np.arange(n)) % n
        xs.append(x)
        ys.append(shares[game[:, None], rel].astype(np.float32))
        ids.append(game + done)
        done += size
        if progress is not None:
            progress(size)
    return Positions(np.concatenate(xs), np.concatenate(ys), np.concatenate(ids))
