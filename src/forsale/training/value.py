"""Fitting the value model with PyTorch and exporting it for numpy play.

One small network per player count (features -> 128 -> 64 -> n, ReLU, a
softmax over the seats), fitted by Adam with a cosine-decayed learning rate
to the soft cross-entropy between its shares and each position's final win
shares. The positions of the last tenth of the games are held aside for
validation (by game, so no game feeds both halves). After each epoch the
validation loss, the accuracy (the seat it ranks first won, or shared the
win) and the Brier score are recorded; the calibration of the viewing
seat's predicted share is measured at the end.

Everything is seeded (the games from ``seed``, the network's initial
weights and the batch order from ``seed + 1``) and runs on one thread, so
the same command gives the same model on the same machine.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from ..bots.valuemodel import ValueModel, feature_size
from ..rules import Ruleset
from .data import Positions, generate

HIDDEN = (128, 64)
VALIDATION = 0.1
"""Share of the games whose positions are held aside."""


@dataclass(slots=True)
class Fit:
    """What :func:`train` gives: the model, its learning curve and its figures on the held-aside positions."""

    model: ValueModel
    rules: Ruleset
    games: int
    train_rows: int
    val_rows: int
    history: list[dict[str, float]] = field(default_factory=list)
    calibration: list[tuple[float, float, int]] = field(default_factory=list)
    data_seconds: float = 0.0
    train_seconds: float = 0.0

    @property
    def final(self) -> dict[str, float]:
        return self.history[-1]

    def summary(self) -> dict[str, Any]:
        return {
            "players": self.rules.players,
            "games": self.games,
            "train_rows": self.train_rows,
            "val_rows": self.val_rows,
            "data_seconds": round(self.data_seconds, 1),
            "train_seconds": round(self.train_seconds, 1),
            **{k: round(v, 4) for k, v in self.final.items()},
        }


def network(players: int, rounds: int, hidden: tuple[int, ...] = HIDDEN) -> nn.Sequential:
    """The torch network whose export :class:`ValueModel` reads."""
    sizes = [feature_size(players, rounds), *hidden, players]
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def export(net: nn.Sequential, rules: Ruleset, info: str = "") -> ValueModel:
    """The numpy model of ``net`` (``x @ w + b`` per layer: torch's weight transposed)."""
    arrays: dict[str, Any] = {"kind": "forsale-value/1", "players": rules.players, "rounds": rules.rounds}
    arrays["info"] = info
    linears = [m for m in net if isinstance(m, nn.Linear)]
    for i, lin in enumerate(linears):
        arrays[f"w{i}"] = lin.weight.detach().numpy().T.astype(np.float32).copy()
        arrays[f"b{i}"] = lin.bias.detach().numpy().astype(np.float32).copy()
    return ValueModel(arrays, "<trained>")


def uniform_loss(players: int) -> float:
    """The cross-entropy of guessing an equal share for every seat (at most: ties make it lower)."""
    return math.log(players)


def soft_cross_entropy(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return -(target * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()


def evaluate(net: nn.Sequential, x: torch.Tensor, y: torch.Tensor) -> dict[str, float]:
    """Loss, accuracy and Brier score of ``net`` on ``(x, y)``."""
    with torch.no_grad():
        z = net(x)
        loss = float(soft_cross_entropy(z, y))
        p = torch.softmax(z, dim=1)
        top = p.argmax(dim=1)
        accuracy = float((y.gather(1, top[:, None])[:, 0] > 0).float().mean())
        brier = float(((p - y) ** 2).sum(dim=1).mean())
    return {"loss": loss, "accuracy": accuracy, "brier": brier}


def calibration(p: np.ndarray, y: np.ndarray, bins: int = 10) -> list[tuple[float, float, int]]:
    """``(mean predicted, mean outcome, count)`` per bin of predicted share (empty bins left out)."""
    which = np.minimum((p * bins).astype(np.int64), bins - 1)
    out = []
    for b in range(bins):
        sel = which == b
        if sel.any():
            out.append((float(p[sel].mean()), float(y[sel].mean()), int(sel.sum())))
    return out


def split(positions: Positions, games: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of the training and the held-aside positions (the last :data:`VALIDATION` of the games)."""
    cut = games - max(1, round(games * VALIDATION))
    held = positions.game >= cut
    return np.flatnonzero(~held), np.flatnonzero(held)


def train(
    rules: Ruleset,
    *,
    games: int,
    epochs: int,
    seed: int,
    batch: int = 1024,
    lr: float = 2e-3,
    hidden: tuple[int, ...] = HIDDEN,
    on_games: Callable[[int], None] | None = None,
    on_step: Callable[[int], None] | None = None,
    on_epoch: Callable[[dict[str, float]], None] | None = None,
) -> Fit:
    """Generate ``games`` games under ``rules`` from ``seed`` and fit a model for ``epochs`` epochs.

    ``on_games(k)`` after each chunk of games, ``on_step(rows)`` after each
    batch, ``on_epoch(figures)`` after each epoch (for progress bars).
    """
    if games < 2:
        raise ValueError(f"training needs at least 2 games (one to hold aside), not {games}")
    torch.set_num_threads(1)
    started = time.perf_counter()
    positions = generate(rules, games, seed, progress=on_games)
    data_seconds = time.perf_counter() - started
    started = time.perf_counter()
    train_rows, val_rows = split(positions, games)
    x_train = torch.from_numpy(positions.x[train_rows])
    y_train = torch.from_numpy(positions.y[train_rows])
    x_val = torch.from_numpy(positions.x[val_rows])
    y_val = torch.from_numpy(positions.y[val_rows])
    del positions

    torch.manual_seed(seed + 1)
    generator = torch.Generator().manual_seed(seed + 1)
    net = network(rules.players, rules.rounds, hidden)
    optimiser = torch.optim.Adam(net.parameters(), lr=lr)
    rows = x_train.shape[0]
    steps_per_epoch = max(1, math.ceil(rows / batch))
    total_steps = epochs * steps_per_epoch
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: 0.5 * (1 + math.cos(math.pi * min(step, total_steps) / total_steps))
    )
    fit = Fit(export(net, rules), rules, games, rows, int(x_val.shape[0]), data_seconds=data_seconds)
    for epoch in range(1, epochs + 1):
        net.train()
        order = torch.randperm(rows, generator=generator)
        total = 0.0
        for start in range(0, rows, batch):
            pick = order[start : start + batch]
            loss = soft_cross_entropy(net(x_train[pick]), y_train[pick])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(pick)
            if on_step is not None:
                on_step(len(pick))
        net.eval()
        figures = {"epoch": float(epoch), "train_loss": total / max(1, rows)}
        figures.update({f"val_{k}": v for k, v in evaluate(net, x_val, y_val).items()})
        fit.history.append(figures)
        if on_epoch is not None:
            on_epoch(figures)
    fit.train_seconds = time.perf_counter() - started
    info = f"seed={seed} games={games} epochs={epochs} val_loss={fit.final['val_loss']:.4f}"
    fit.model = export(net, rules, info)
    with torch.no_grad():
        p_val = torch.softmax(net(x_val), dim=1).numpy()
    fit.calibration = calibration(p_val.reshape(-1), y_val.numpy().reshape(-1))
    return fit


def plot(fits: list[Fit], path: str) -> None:
    """Learning curves (training and validation loss per epoch, per player count) and calibration, as one figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (curves, calib) = plt.subplots(1, 2, figsize=(11, 4.2))
    for fit in fits:
        epochs = [h["epoch"] for h in fit.history]
        (line,) = curves.plot(
            epochs, [h["val_loss"] for h in fit.history], marker="o", label=f"{fit.rules.players}p validation"
        )
        curves.plot(
            epochs,
            [h["train_loss"] for h in fit.history],
            linestyle="--",
            color=line.get_color(),
            label=f"{fit.rules.players}p training",
        )
        curves.axhline(uniform_loss(fit.rules.players), color=line.get_color(), linewidth=0.6, linestyle=":")
        calib.plot(
            [c[0] for c in fit.calibration],
            [c[1] for c in fit.calibration],
            marker="o",
            color=line.get_color(),
            label=f"{fit.rules.players}p",
        )
    curves.set_xlabel("epoch")
    curves.set_ylabel("cross-entropy (dotted: uniform guess, log n)")
    curves.set_title("value model: learning curves")
    curves.legend(fontsize=7, ncol=2)
    calib.plot([0, 1], [0, 1], color="grey", linewidth=0.8)
    calib.set_xlabel("predicted win share")
    calib.set_ylabel("observed win share (held-aside positions)")
    calib.set_title("calibration")
    calib.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
