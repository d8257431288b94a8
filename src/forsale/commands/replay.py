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
from ._files import add_record_argument, read_record_bytes


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="referee a game record and print the result as JSON",
        description="Referee a forsale-record/1 game record. Exit 0: legal (finished or not); exit 1: illegal or malformed.",
    )
    add_record_argument(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        text = read_record_bytes(args.file)
    except OSError as error:
        status, out = 1, {"error": {"move": None, "message": f"cannot read {args.file}: {error.strerror}"}}
    else:
        try:
            status, out = referee(text)
        except Exception as error:  # the contract: JSON out, never a traceback
            status, out = 1, {"error": {"move": None, "message": f"the record could not be refereed: {error}"}}
    sys.stdout.write(json.dumps(out) + "\n")
    return status
