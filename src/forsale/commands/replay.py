"""``forsale replay FILE``: referee a ``forsale-record/1`` record.

Prints one JSON object on standard output and exits 0 for a legal record
(finished or not), 1 for anything illegal or malformed. Never a traceback:
the contract in ``docs/record-format.md`` is relied on by other programs.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..record import referee


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="referee a game record and print the result as JSON",
        description="Referee a forsale-record/1 game record. Exit 0: legal (finished or not); exit 1: illegal or malformed.",
    )
    p.add_argument("file", help="the record file, or - for standard input")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                text = f.read()
    except OSError as error:
        status, out = 1, {"error": {"move": None, "message": f"cannot read {args.file}: {error.strerror}"}}
    else:
        try:
            status, out = referee(text)
        except Exception as error:  # the contract: JSON out, never a traceback
            status, out = 1, {"error": {"move": None, "message": f"the record could not be refereed: {error}"}}
    sys.stdout.write(json.dumps(out) + "\n")
    return status
