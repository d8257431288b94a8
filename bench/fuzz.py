"""Hostile clients against a real ``forsale serve`` for minutes, while honest games are played (Hypothesis-driven).

The machinery is the harness's (:mod:`harness.fuzzer`: what an example does
and what it checks; :mod:`harness.probes`: what the hostile clients send);
this script starts one server (rate limits on REST off, so that the probes
are answered, not throttled) and runs examples against it for ``--minutes``,
then prints the findings grouped by kind, with one example of each:

    python bench/fuzz.py --minutes 5 --seed 1

``tests/server/test_server_fuzz_ws.py`` runs a few examples as a test.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.db import database
from harness.fuzzer import hypothesis_example, run_example
from harness.serve import ServeProcess


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0, help="how long to fuzz (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="Hypothesis seed of the first example (default 0)")
    parser.add_argument("--tables", type=int, default=2, help="honest tables per example (default 2)")
    parser.add_argument("--probes", type=int, default=2, help="at most this many probes between honest moves (2)")
    parser.add_argument("--db", default="sqlite", help="sqlite, postgresql, or a database URL")
    args = parser.parse_args()
    if args.minutes <= 0 or args.tables < 1 or args.probes < 0:
        parser.error("--minutes must be positive, --tables at least 1, --probes not negative")
    findings: Counter[str] = Counter()
    examples: dict[str, str] = {}
    probes: Counter[str] = Counter()
    moves = run = 0
    with tempfile.TemporaryDirectory(prefix="forsale-fuzz-") as tmp, database(args.db, Path(tmp)) as url:
        server = ServeProcess(url, Path(tmp), "--rest-rate", "1000000", log_name="server.log").start()
        try:
            end = time.monotonic() + 60 * args.minutes

            for attempt in itertools.count():
                if time.monotonic() >= end or (server.proc is not None and server.proc.poll() is not None):
                    break

                def body(draw: Callable[[Any], Any]) -> None:
                    nonlocal moves
                    fuzzer = run_example(server.base, draw, args.tables, args.probes)
                    moves += fuzzer.honest_moves
                    probes.update(fuzzer.probes)
                    for kind, details in fuzzer.findings:
                        findings[kind] += 1
                        examples.setdefault(kind, details)

                run += hypothesis_example(args.seed + attempt, body)
                print(f"fuzz: {run} examples, {moves} honest moves, {sum(findings.values())} findings", file=sys.stderr)
            if server.proc is not None and server.proc.poll() is not None:
                findings["server died"] += 1
            tracebacks = server.tracebacks()
        finally:
            server.stop()
    print(f"fuzz: {run} examples, {moves} honest moves, {sum(probes.values())} probes "
          f"({', '.join(f'{k} {v}' for k, v in sorted(probes.items()))}); server log tracebacks: {tracebacks}")  # fmt: skip
    for kind, count in findings.most_common():
        print(f"  {count:6d} x {kind}\n           e.g. {examples.get(kind, '')}")
    print("fuzz: no findings" if not findings and not tracebacks else f"fuzz: {sum(findings.values())} findings")
    sys.exit(1 if findings or tracebacks else 0)


if __name__ == "__main__":
    main()
