"""What ``forsale simulate`` and ``forsale lab`` share: arguments, progress bar, errors, output files."""

from __future__ import annotations

import argparse
import json
import math
import secrets
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# The parser is built without numpy (``forsale --help`` works on a bare install),
# so these copies of the simulator's names stand in for ``sim.policies.POLICIES``
# and ``sim.run.DEFAULT_CHUNK``; tests/commands/test_cli_extras.py checks they agree.
POLICY_NAMES = ("random", "value")
"""The batch policies' names, sorted (``sorted(forsale.sim.policies.POLICIES)``)."""
DEFAULT_CHUNK = 65536
"""``forsale.sim.run.DEFAULT_CHUNK``."""


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (``1_000_000`` and ``1e6`` accepted)."""
    try:
        value = float(text.replace("_", "")) if "e" in text.lower() else int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value != int(value) or value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number of at least 1")
    return int(value)


def add_common_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seed", type=int, default=None, help="seed of the deals and the policies (default: a fresh one, printed)"
    )
    p.add_argument(
        "--chunk",
        type=positive_int,
        default=DEFAULT_CHUNK,
        help=f"games played in lockstep at a time; bounds memory (default {DEFAULT_CHUNK})",
    )
    p.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the figures as JSON to FILE")
    p.add_argument(
        "--plot", type=Path, default=None, metavar="FILE", help="draw the figures to FILE (.png, .svg, .pdf)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def fresh_seed() -> int:
    """A random seed for a run started without ``--seed``."""
    return secrets.randbits(63)


def fail(command: str, message: str) -> int:
    """Print ``forsale COMMAND: error: MESSAGE`` on standard error; exit status 2, as argparse does."""
    print(f"forsale {command}: error: {message}", file=sys.stderr)
    return 2


def check_output_paths(*paths: Path | None) -> str | None:
    """Why an output file cannot be written (checked before a long run), or ``None``."""
    for path in paths:
        if path is None:
            continue
        if path.is_dir():
            return f"{path} is a directory, not a file"
        if not path.parent.is_dir():
            return f"cannot write {path}: the directory {path.parent} does not exist"
    return None


def _clean(value: Any) -> Any:
    """NaN and infinities become ``null``: the output must be strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def write_json(path: Path, figures: Any) -> None:
    path.write_text(json.dumps(_clean(figures), indent=2, allow_nan=False) + "\n")


@contextmanager
def progress_bar(total: int, label: str, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on standard error; yields ``advance(games)``."""
    if quiet:
        yield lambda _: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeRemainingColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    ) as progress:
        task = progress.add_task(label, total=total)
        yield lambda games: progress.advance(task, games)
