"""``forsale play``: a whole game in the terminal against bots (needs the ``tui`` extra)."""

from __future__ import annotations

import argparse
import sys

from ..errors import ForSaleError
from ..rules import PRESETS
from ._extras import require


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "play",
        help="play a game in the terminal against bots",
        description=(
            "Play For Sale in the terminal against bots. Bids are in coins ($1,000 each); "
            "type ? at any prompt for help, q to quit."
        ),
    )
    p.add_argument("--players", type=int, default=4, help="players at the table, you included (2-6; default 4)")
    p.add_argument(
        "--bots",
        help="bot specs, comma-separated, one per other seat in seat order, or one for all "
        "(e.g. random,medium,hard:time=0.2; default: medium)",
    )
    p.add_argument(
        "--rules", default="", help=f"ruleset preset: {', '.join(PRESETS)} (default: official, two-player for 2)"
    )
    p.add_argument("--seed", type=int, help="seed for the deal and the bots (default: a random one, shown)")
    p.add_argument("--seat", type=int, help="your seat, 0-based (default 0)")
    p.add_argument("--name", help="your name at the table (default: You, in the game's language)")
    p.add_argument("--save", metavar="FILE", help="write the game's forsale-record/1 record to FILE")
    p.add_argument(
        "--lang",
        metavar="CODE",
        help="language: en, fr, nl, it or de (default: the locale's, from LANGUAGE, LC_ALL, LC_MESSAGES or LANG)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    require("play")
    from rich.console import Console

    from ..tui import Session, check_options
    from ..tui.i18n import _, choose

    try:
        choose(args.lang)
    except ValueError as error:
        print(f"forsale play: {error}", file=sys.stderr)
        return 2
    try:
        options = check_options(args.players, args.bots, args.rules, args.seed, args.seat, args.save, args.name)
    except (ValueError, ForSaleError) as error:
        print(f"forsale play: {error}", file=sys.stderr)
        return 2
    console = Console(highlight=False)
    try:
        return Session(options, console).run()
    except KeyboardInterrupt:  # between prompts, e.g. while a bot thinks
        print("\n" + _("Game abandoned (interrupted)."), file=sys.stderr)
        return 130
