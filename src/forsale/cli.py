"""The ``forsale`` command: parse the command line, then call the layer below.

Each subcommand lives in a module of its own that provides
``register(subparsers)``; this file only lists them, so front ends stay
apart. Building the parser imports nothing optional, so a missing extra
only disables its own subcommand: that subcommand exits 2 with one line
naming the extra to install (see ``commands/_extras.py``), and ``--help``,
``replay`` and every other subcommand keep working.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .commands._extras import MissingExtra

# Modules that each add one or more subcommands (see ``register``).
COMMANDS = [
    "forsale.commands.replay",
    "forsale.commands.analyse",
    "forsale.commands.play",
    "forsale.commands.show",
    "forsale.commands.simulate",
    "forsale.commands.lab",
    "forsale.commands.serve",
    "forsale.commands.tournament",
    "forsale.commands.ratings",
    "forsale.commands.train",
    "forsale.commands.connect",
]


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="forsale",
        description="For Sale (Stefan Dorra): play, referee, simulate and serve the card game.",
    )
    parser.add_argument("--version", action="version", version=f"forsale {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.run(args) or 0)
    except MissingExtra as missing:
        print(missing, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
