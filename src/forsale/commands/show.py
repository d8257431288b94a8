"""``forsale show FILE``: render a ``forsale-record/1`` record round by round (needs the ``tui`` extra)."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import RecordError
from ..record import from_record
from ._extras import require
from ._files import add_record_argument, read_record_bytes


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "show",
        help="render a game record round by round in the terminal",
        description="Render a forsale-record/1 record round by round: bids, passes, sales, final scores.",
    )
    add_record_argument(p)
    p.add_argument(
        "--lang",
        metavar="CODE",
        help="language: en, fr, nl, it or de (default: the locale's, from LANGUAGE, LC_ALL, LC_MESSAGES or LANG)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    require("show")
    from rich.console import Console

    from ..tui import show_record
    from ..tui.i18n import choose

    try:
        choose(args.lang)
    except ValueError as error:
        print(f"forsale show: {error}", file=sys.stderr)
        return 2

    try:
        text = read_record_bytes(args.file)
    except OSError as error:
        print(f"forsale show: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 1
    try:
        record = json.loads(text)
        state = from_record(record)
    except (ValueError, RecursionError) as error:
        where = f" (move {error.move})" if isinstance(error, RecordError) and error.move is not None else ""
        kind = "an illegal record" if isinstance(error, RecordError) else "not valid JSON"
        print(f"forsale show: {args.file} is {kind}{where}: {error}", file=sys.stderr)
        return 1
    show_record(state, record["players"], Console(highlight=False))
    return 0
