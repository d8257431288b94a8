"""``forsale train value``: generate games, fit the value model, export it for numpy play.

For each player count asked for, plays ``--games`` games with the batch
simulator between a parametric population of players
(:mod:`forsale.training`), fits the network for ``--epochs`` epochs and
writes ``value-<n>p.npz`` into ``--out`` (the files
:func:`forsale.bots.valuemodel.load` ships). Prints, per player count, the
held-aside loss, accuracy and Brier score and the time taken; ``--plot``
draws the learning curves and the calibration, ``--json`` writes the
figures. The same ``--seed`` gives the same model (one thread, seeded data
and initial weights); ``docs/value-model.md`` has the command that made the
shipped files.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ..rules import Ruleset
from ._extras import require
from ._simtools import check_output_paths, fail, fresh_seed, positive_int, write_json


def player_counts(text: str) -> list[int]:
    """An argparse type: ``4``, ``3-6`` or ``3,5`` (:func:`run` checks that a model can be trained for them)."""
    counts: set[int] = set()
    try:
        for part in text.split(","):
            lo, _, hi = part.strip().partition("-")
            counts.update(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a player count, a range like 3-6 or a list like 3,5"
        ) from None
    if not counts:
        raise argparse.ArgumentTypeError(f"{text!r} names no player count")
    return sorted(counts)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train the bots' learned parts (the value model)",
        description="Train the learned parts of the bots. `forsale train value` fits the value model.",
    )
    what = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    v = what.add_parser(
        "value",
        help="fit the value model (each seat's expected win share) on simulated games",
        description=(
            "Play games with the batch simulator between a population of varied players, fit a small network "
            "to each position's final win shares (PyTorch, one thread) and export it for numpy play as "
            "value-<n>p.npz per player count."
        ),
    )
    v.add_argument("--players", type=player_counts, default=[3, 4, 5, 6], help="3-6 (default), 4, or 3,5")
    v.add_argument("--seed", type=int, default=None, help="seed of games and weights (default: a fresh one, printed)")
    v.add_argument("--games", type=positive_int, default=200_000, help="games per player count (default 200000)")
    v.add_argument("--epochs", type=positive_int, default=6, help="passes over the positions (default 6)")
    v.add_argument("--out", type=Path, default=Path("."), metavar="DIR", help="where value-<n>p.npz go (default .)")
    v.add_argument("--plot", type=Path, default=None, metavar="FILE", help="learning curves and calibration (.png)")
    v.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the figures as JSON to FILE")
    v.add_argument("--quiet", action="store_true", help="no progress bar")
    v.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    require("train", *(["train --plot"] if args.plot else []))
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..bots.valuemodel import SHIPPED_PLAYERS, shipped_name
    from ..training import value

    bad = sorted(set(args.players) - set(SHIPPED_PLAYERS))
    if bad:
        known = ", ".join(map(str, SHIPPED_PLAYERS))
        return fail("train", f"value models are trained for {known} players, not {', '.join(map(str, bad))}")
    if not args.out.is_dir():
        return fail("train", f"--out {args.out} is not a directory")
    problem = check_output_paths(args.plot, args.json)
    if problem:
        return fail("train", problem)
    if args.games < 2:
        return fail("train", "--games must be at least 2 (one game's positions are held aside)")
    if args.seed is None:
        args.seed = fresh_seed()
    if args.seed < 0:
        return fail("train", f"--seed must be 0 or more, not {args.seed}")
    console = Console(file=sys.stdout)
    console.print(f"value model: players {args.players}, seed {args.seed}, {args.games:,} games, {args.epochs} epochs")
    fits = []
    started = time.perf_counter()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[note]}"),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
        transient=True,
        disable=args.quiet,
    ) as progress:
        for players in args.players:
            rules = Ruleset.default(players)
            games = progress.add_task(f"{players}p games", total=args.games, note="")
            epochs = progress.add_task(f"{players}p epochs", total=args.epochs, note="")

            def on_games(k: int, task: Any = games) -> None:
                progress.advance(task, k)

            def on_epoch(figures: dict[str, float], task: Any = epochs) -> None:
                progress.update(task, advance=1, note=f"val loss {figures['val_loss']:.4f}")

            fit = value.train(
                rules,
                games=args.games,
                epochs=args.epochs,
                seed=args.seed,
                on_games=on_games,
                on_epoch=on_epoch,
            )
            path = args.out / shipped_name(players)
            fit.model.save(path)
            fits.append(fit)
            s = fit.summary()
            console.print(
                f"{players}p: {s['train_rows']:,} positions (+{s['val_rows']:,} held aside); held-aside loss "
                f"{s['val_loss']:.4f} (uniform {value.uniform_loss(players):.4f}), accuracy {s['val_accuracy']:.3f}, "
                f"Brier {s['val_brier']:.4f}; {s['data_seconds']:.0f} s games + {s['train_seconds']:.0f} s fit -> {path}"
            )
    console.print(f"done in {time.perf_counter() - started:.0f} s")
    if args.plot:
        value.plot(fits, str(args.plot))
    if args.json:
        fitted = [{**f.summary(), "history": f.history, "calibration": f.calibration} for f in fits]
        write_json(args.json, {"seed": args.seed, "epochs": args.epochs, "fits": fitted})
    return 0
