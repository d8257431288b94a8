"""What the record-reading subcommands share: the FILE argument and reading it."""

from __future__ import annotations

import argparse
import sys


def add_record_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the record file, or - for standard input")


def read_record_bytes(path: str) -> bytes:
    """The bytes of ``path``, or of standard input for ``-``; ``OSError`` if unreadable."""
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()
