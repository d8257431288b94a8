"""Load test of the game server over real WebSockets on loopback.

Starts ``forsale serve`` in a subprocess (a fresh SQLite file; or PostgreSQL:
a URL, or ``--db postgresql`` for a throw-away cluster like the test suite
starts) and keeps N tables of four busy: each table is a *slot* that creates a
private table through the lobby API, joins its four seats, connects four
WebSocket clients and plays a whole game with a fast heuristic bot on the
client side (no server-side bots), then starts the next game, until the
measurement window closes.

The clock starts once every client process says it is ready (spawning
them on a loaded machine can take many seconds). Then tables start at random
times over ``--stagger`` seconds, so that, as on a
real server, they are in different phases of their games; then, once the
stagger is over and every table has been seated (``all_seated_s`` in the
report: seating is work of its own, and on PostgreSQL 2,000 tables took 9 s
longer than the stagger), the window of ``--duration`` seconds opens, during
which all N tables are playing. The
figures count only actions acknowledged inside the window: actions per
second and the p50/p99 latency from sending an action to receiving its
acknowledgement (which the server sends only after the action is committed
to the database), plus the server's CPU time per action.

    python bench/server_load.py --tables 500 --db sqlite
    python bench/server_load.py --tables 500 --db postgresql
    python bench/server_load.py --tables 2000 --db both
    python bench/server_load.py --tables 100 --think 0 --plot load.png

``--think`` is the mean pause before each decision (uniform from 0 to twice
the value), like a quick person or a bot with a short delay; with
``--think 0`` the clients act as fast as the server answers, so the figures
measure saturation (latency is then queueing). Clients run in ``--procs``
processes on the same two cores as the server, so their own CPU use shows
in the latencies too.

``--db both`` runs SQLite, then PostgreSQL, in the same run, with the same
load and seed, and ends with issue 35's target as a ratio measured in that
run: PostgreSQL's p99 over SQLite's, at most :data:`PG_OVER_SQLITE` (2x).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from harness.db import postgres
from harness.load import measure
from harness.serve import ServeProcess

PG_OVER_SQLITE = 2.0
"""Issue 35's target: PostgreSQL's acknowledgement p99 at most this many times SQLite's, measured in one run."""


def run(db: str, args: argparse.Namespace, label: str) -> dict[str, Any]:
    """Start ``forsale serve`` on ``db`` and :func:`~harness.load.measure` it."""
    # What python runs instead of "-m forsale", e.g. a script that wraps forsale.cli.main with a
    # gc.callbacks logger (how the GC pauses in the README were found).
    server_main = tuple(os.environ.get("FORSALE_BENCH_SERVER_MAIN", "-m forsale").split())
    workdir = Path(tempfile.mkdtemp(prefix="forsale-bench-"))
    server = ServeProcess(
        db, workdir, "--rest-rate", "100000", "--sockets-per-address", "0", *args.server_arg, main=server_main
    )
    try:
        server.start()
        assert server.proc is not None
        return measure(server.base, server.ws, [server.proc.pid], args, label)
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def summary(out: dict[str, Any]) -> str:
    return (
        f"server_load db={out['db']} tables={out['tables']} think={out['think']}s: "
        f"{out['actions_per_s']} actions/s, ack latency p50 {out['p50_ms']} ms, p99 {out['p99_ms']} ms, "
        f"server CPU {out['server_cpu_ms_per_action']} ms/action"
    )


def target(sqlite: dict[str, Any], pg: dict[str, Any]) -> str:
    """PostgreSQL's p99 over SQLite's, against :data:`PG_OVER_SQLITE`."""
    ratio = round(pg["p99_ms"] / sqlite["p99_ms"], 2)
    met = "met" if ratio <= PG_OVER_SQLITE else "MISSED"
    return (
        f"target PostgreSQL p99 / SQLite p99 at {pg['tables']} tables: {pg['p99_ms']} / {sqlite['p99_ms']} ms"
        f" = {ratio}x (at most {PG_OVER_SQLITE:g}x) {met}"
    )


def plot_path(path: str | None, label: str) -> str | None:
    """``load.png`` -> ``load-sqlite.png``: one image per database of ``--db both``."""
    return None if path is None else str(Path(path).with_name(f"{Path(path).stem}-{label}{Path(path).suffix}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=500, help="concurrent tables of four clients (default 500)")
    parser.add_argument(
        "--db",
        default="sqlite",
        help="sqlite (a fresh file), postgresql (a fresh cluster), both (the two, one after the other), or a URL",
    )
    parser.add_argument("--procs", type=int, default=1, help="client processes (default 1)")
    parser.add_argument(
        "--think", type=float, default=1.0, help="mean pause before each decision, seconds (default 1; 0: saturation)"
    )
    parser.add_argument("--duration", type=float, default=60.0, help="measurement window, seconds (default 60)")
    parser.add_argument(
        "--stagger",
        type=float,
        default=None,
        help="tables start at random times over this many seconds before the window opens (default 60 x think, >= 5)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the start times and of the clients' choices")
    parser.add_argument("--plot", help="save latency and throughput over time to this image file (PNG)")
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="pass ARG on to forsale serve (repeatable), e.g. --server-arg=--full-gc-every=20",
    )
    args = parser.parse_args()
    if args.tables < 1 or args.procs < 1 or args.duration <= 0 or args.think < 0:
        parser.error("--tables and --procs must be at least 1, --duration positive, --think not negative")
    if args.stagger is not None and args.stagger < 0:
        parser.error("--stagger must not be negative")
    both = args.db == "both"
    plot = args.plot
    outs = []

    def report(out: dict[str, Any]) -> None:  # at once: a later run that fails leaves the earlier one's figures
        outs.append(out)
        print(json.dumps(out))
        print(summary(out), flush=True)

    if args.db in ("sqlite", "both"):
        args.plot = plot_path(plot, "sqlite") if both else plot
        with tempfile.TemporaryDirectory() as tmp:
            report(run(f"sqlite:///{tmp}/bench.sqlite3", args, "sqlite"))
    if args.db in ("postgresql", "postgres", "both"):
        args.plot = plot_path(plot, "postgresql") if both else plot
        with postgres() as url:
            report(run(url, args, "postgresql"))
    if not outs:
        report(run(args.db, args, args.db.split(":", 1)[0]))
    if both:
        print(target(*outs))


if __name__ == "__main__":
    main()
