"""Bot strength: the measurements behind the README's "Bots and the arena" figures.

Sections (all with seat rotation and duplicate deals, see forsale.arena):

1. ``baselines``: which baseline is strongest (every baseline against three
   copies of every other, and mixed 4- and 6-player tables of baselines);
2. ``expert-vs-baselines``: ``expert`` against three copies of each baseline;
3. ``hard-vs-baseline``: ``hard`` against three copies of the strongest
   baseline (``--baseline``), 4 players;
4. ``hard-vs-expert``: ``hard`` against three copies of ``expert``;
5. ``round-robin``: every bot at 3, 5 and 6 players: each table is a
   random set of distinct bots playing one deal from every seat; the table
   reports each bot's win rate and its ratio to the fair share 1/n;
6. ``levels``: ``easy``, ``medium`` and ``hard`` at one table (3 players).

Run: ``PYTHONPATH=src python bench/bots.py [--time 0.05] [--games 400] [--jobs 2] [--only SECTION ...]``.
The budget per decision of ``hard`` is ``--time`` seconds of wall clock: on
a loaded machine it gets fewer samples than on a free core.
"""

from __future__ import annotations

import argparse
import random
import time

from forsale.arena import run_tournament, summarize
from forsale.arena.stats import BotStats

BASELINES = ["random", "value", "smart", "prudent", "cheapskate", "bigspender"]
SECTIONS = ["baselines", "expert-vs-baselines", "hard-vs-baseline", "hard-vs-expert", "round-robin", "levels"]


def show(title: str, stats: dict[str, BotStats], players: int) -> None:
    print(f"\n## {title}")
    print(
        f"{'bot':28s} {'seats':>6s} {'wins':>8s} {'win rate':>9s} {'95% CI':>15s} {'x fair':>7s} {'score':>6s} {'ms/dec':>7s}"
    )
    for name, s in sorted(stats.items(), key=lambda kv: -kv[1].win_rate):
        lo, hi = s.win_rate_ci
        print(
            f"{name:28s} {s.games:6d} {s.wins:8.1f} {s.win_rate:9.1%} {lo:7.1%}-{hi:6.1%} "
            f"{s.win_rate * players:7.2f} {s.mean_score:6.1f} {s.mean_decision_s * 1000:7.2f}",
            flush=True,
        )


def table(bots: list[str], games: int, seed: int, jobs: int, title: str) -> dict[str, BotStats]:
    start = time.perf_counter()
    stats = summarize(run_tournament(bots, games, seed, jobs=jobs))
    show(f"{title} ({games} games, seed {seed}, {time.perf_counter() - start:.0f} s)", stats, len(bots))
    return stats


def baselines(args: argparse.Namespace) -> None:
    games = args.baseline_games
    print(f"\n## Each baseline (row) against three copies of another (column), 4 players, {games} games each")
    print("win rate of the row bot; a fair share is 25%")
    print(" " * 11 + " ".join(f"{b:>10s}" for b in BASELINES))
    for a in BASELINES:
        cells = []
        for b in BASELINES:
            if a == b:
                cells.append(f"{'-':>10s}")
                continue
            s = summarize(run_tournament([a, b, b, b], games, args.seed, jobs=args.jobs), ratings=False)
            cells.append(f"{s[a].win_rate:10.1%}")
        print(f"{a:11s}" + " ".join(cells), flush=True)
    table(BASELINES, games * 3, args.seed, args.jobs, "All six baselines at one 6-player table")
    table(["value", "smart", "prudent", "cheapskate"], games * 2, args.seed, args.jobs, "Four baselines, 4 players")


def round_robin(args: argparse.Namespace, bots: list[str]) -> None:
    for players in (3, 5, 6):
        rng = random.Random(args.seed * 1000 + players)
        merged: dict[str, BotStats] = {}
        start = time.perf_counter()
        for t in range(args.tables):
            lineup = rng.sample(bots, players)
            results = run_tournament(lineup, players, seed=args.seed * 100_000 + players * 1000 + t, jobs=args.jobs)
            for name, s in summarize(results, ratings=False).items():
                m = merged.setdefault(name, BotStats(name))
                m.games += s.games
                m.wins += s.wins
                m.scores += s.scores
                m.decision_s += s.decision_s
                m.decisions += s.decisions
        games = args.tables * players
        show(
            f"Round robin, {players} players: {args.tables} random tables of distinct bots x {players} seatings "
            f"({games} games, {time.perf_counter() - start:.0f} s)",
            merged,
            players,
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--time", type=float, default=0.05, help="hard's seconds per decision (default 0.05)")
    p.add_argument("--games", type=int, default=400, help="games for the hard-vs-X tables (default 400)")
    p.add_argument("--baseline-games", type=int, default=200, help="games per baseline pairing (default 200)")
    p.add_argument("--tables", type=int, default=40, help="random tables per round-robin size (default 40)")
    p.add_argument("--baseline", default="smart", help="the strongest baseline, from section 1 (default smart)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--only", nargs="*", choices=SECTIONS, default=SECTIONS)
    args = p.parse_args()
    hard = f"hard:time={args.time}"
    print(f"# forsale bot strength: hard = {hard}, seed {args.seed}, jobs {args.jobs}")
    if "baselines" in args.only:
        baselines(args)
    if "expert-vs-baselines" in args.only:
        print(f"\n## expert against three copies of each baseline, 4 players, {args.baseline_games} games each")
        for b in BASELINES:
            s = summarize(run_tournament(["expert", b, b, b], args.baseline_games, args.seed, jobs=args.jobs))
            lo, hi = s["expert"].win_rate_ci
            print(f"expert vs 3x {b:11s} {s['expert'].win_rate:6.1%}  ({lo:.1%}-{hi:.1%})", flush=True)
    if "hard-vs-baseline" in args.only:
        b = args.baseline
        table([hard, b, b, b], args.games, args.seed, args.jobs, f"{hard} against three {b}")
    if "hard-vs-expert" in args.only:
        table([hard, "expert", "expert", "expert"], args.games, args.seed, args.jobs, f"{hard} against three expert")
    if "round-robin" in args.only:
        round_robin(args, BASELINES + ["expert", "easy", hard])
    if "levels" in args.only:
        table(["easy", "medium", hard], args.games, args.seed, args.jobs, "Levels: easy, medium, hard")


if __name__ == "__main__":
    main()
