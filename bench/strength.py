"""Strength that holds against anyone (issue 14): a candidate bot against opponents it was not tuned on.

Every table is played over **duplicate deals with seat rotation**
(:func:`forsale.arena.run_tournament`: game ``i`` plays deal ``i // n`` with
the deal's own seating order, drawn from the seed, rotated by ``i % n``
seats; ``--seating rotate``: the lineup as given, so that every bot keeps
its neighbours, as runs before the option did), so each deal is played once from
every seat and ``--games`` is rounded up to a multiple of the player count.
A bot's **win share** at a table is the mean, over deals, of its mean share
of the wins over that deal's rotations (a shared win counts ``1/k``). The
95% interval is the **normal approximation over the deal-level means**
(:func:`forsale.arena.mean_ci`): deals are independent, the rotations of
one deal are not, so the deal is the unit. A share's interval is widened to
at least Wilson's over its games (:func:`forsale.arena.wilson_interval`),
so a table won at every deal still gets an interval, not 100%-100%.

Modes (any together; official rules):

- ``--vs BOT``: the candidate against three copies of ``BOT`` (4 players);
- ``--tables T``: ``T`` random 4-seat tables, the candidate and three
  distinct members of the population's **held-out half**
  (:func:`harness.population.held_out`), drawn with the seed
  ``forsale-strength-tables:SEED``; per table, the average, the worst table,
  and ``expert`` in the candidate's seat at the same tables with the same
  deals and seat generators, with the paired per-deal difference
  candidate - expert and its interval (a table is *below expert* when that
  interval lies under zero);
- ``--at A,B,C``: the same comparison at one named table (three opponents,
  any registered bots), for instance to measure again, on more deals, a
  table that ``--tables`` flagged;
- ``--fields K`` (or ``--field MEMBER``, repeatable): **homogeneous
  fields** (issue 32), the candidate against ``--field-players`` - 1 copies
  of one held-out member, ``K`` members drawn with the seed
  ``forsale-strength-fields:SEED``; per field, ``expert`` in the
  candidate's seat at the same deals and the paired difference, as in
  ``--tables``. People at a club table often play alike, and a bot that
  models only mixtures can lose to a field of one kind;
- ``--exploit K`` (or ``--exploiter MEMBER``, repeatable): how **exploitable**
  the candidate is (issue 32): each of ``K`` held-out members, drawn with
  the seed ``forsale-strength-exploit:SEED``, at a table of
  ``--field-players`` - 1 copies of the candidate; the member's share, and
  the best exploiter's (the honest figure: the most any of them takes);
- ``--beside BOT`` with ``--vs``: ``BOT`` in the candidate's seat too, at
  the same deals, and the paired per-deal difference candidate - BOT (the
  baselines' homogeneous tables against ``hard-v1``, for instance);
- ``--split`` with ``--vs``: where the candidate's points come from, the
  auction against the sale (:func:`phase_split`): per game, the total value
  of the houses it bought, the coins it paid, the cheques those houses
  earned, and its score; with ``--beside``, each paired deal by deal, so a
  loss to the other bot is placed in the phase that makes it; with
  ``--fields``, the candidate's paired with ``expert``'s at each field and
  over every field's deals pooled;
- ``--round-robin 3,5,6``: at each player count, tables of distinct bots
  (the candidate, ``expert``, ``hard-v1``, ``medium`` and three held-out
  members) over every combination, or ``--rr-tables`` of them drawn by seed;
- ``--members WHICH``: how strong the population itself is, each generated
  member of ``WHICH`` (``stronger``, ``first``, ``all`` or family names,
  comma-separated) against three copies of ``--members-vs`` (default
  ``expert``) with the seed ``--seed`` as it is: a population that loses
  every game to ``expert`` cannot test a bot meant to beat it. The
  candidate does not play in this mode;
- ``--pool REPORT ...``: no games; the round robins of earlier reports
  pooled over deals per player count (each row keeps its deal-level
  shares), for a verdict that needs more games than one run;
- ``--paired BASE VARIANT``: no games; two reports of the same round
  robins, each bot paired with itself; or, for reports of ``--vs`` and
  ``--fields`` runs with the same seed and two candidates (a variant and
  the bot it would replace), the candidate's share paired deal by deal at
  each table and over all the fields pooled.

A named bot that this checkout does not have (``hard-v1`` before the search
rewrite lands) is skipped with a message, and listed under ``skipped``.
``--budget S`` gives every bot that takes ``time=`` (the search bots) ``S``
seconds per decision; otherwise each uses its default.

Run: ``python bench/strength.py --candidate hard --vs expert --tables 20 --games 40 --json out.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from forsale.arena import GameResult, mean_ci, run_tournament
from forsale.arena.tournament import SEATINGS
from forsale.bots import make_agent
from forsale.record import from_record
from harness import population
from harness.population import held_out
from harness.stats import paired_round_robins, pooled_round_robins, ranking, rounded, share_ci

TABLE_SEATS = 4
ROUND_ROBIN_POPULATION = 3
"""Held-out members seated in the round robins, beside the candidate, expert, hard-v1 and medium."""

CONFIG_KEYS = (
    "games", "budget", "seed", "workers", "tables", "at", "players", "rr_tables", "members", "members_vs", "seating",
    "fields", "field_members", "field_players", "exploit", "exploiters", "beside", "split",
)  # fmt: skip
"""The options a report's ``config`` records, so that a run can be repeated from its JSON."""

Advance = Callable[[GameResult], None]


def available(spec: str, skipped: list[str]) -> bool:
    """Whether the registry builds ``spec``; if not, say so once and note it in ``skipped``."""
    try:
        make_agent(spec)
    except ValueError as error:
        if spec not in skipped:
            print(f"skipping {spec}: {str(error).split(';')[0]} in this checkout", file=sys.stderr)
            skipped.append(spec)
        return False
    return True


def with_budget(spec: str, budget: float | None) -> str:
    """``spec`` with ``time=budget`` if the bot takes a time budget (search bots), else ``spec`` unchanged."""
    if budget is None or ":time=" in spec:
        return spec
    timed = f"{spec}:time={budget}"
    try:
        make_agent(timed)
    except ValueError:
        return spec
    return timed


def deal_shares(results: Sequence[GameResult], spec: str, players: int) -> dict[int, float]:
    """Deal number -> ``spec``'s mean win share over that deal's games (over all the seats it filled)."""
    shares: dict[int, list[float]] = defaultdict(list)
    for result in results:
        for seat, bot in enumerate(result.bots):
            if bot == spec:
                shares[result.index // players].append(result.shares[seat])
    return {deal: sum(v) / len(v) for deal, v in sorted(shares.items())}


def share_summary(results: Sequence[GameResult], spec: str, players: int) -> dict[str, Any]:
    """A bot's share at a table: mean, 95% interval over deals, games, deals, and games per seat taken."""
    per_deal = deal_shares(results, spec, players)
    seats = [sum(1 for r in results if r.bots[s] == spec) for s in range(players)]
    share, lo, hi = share_ci(list(per_deal.values()), games=sum(seats))
    return {
        "share": share, "ci": [lo, hi], "games": sum(seats), "deals": len(per_deal), "seats": seats,
        "per_deal": list(per_deal.values()),
    }  # fmt: skip


def play(
    lineup: list[str], games: int, seed: int, args: argparse.Namespace, advance: Advance, records: bool = False
) -> list[GameResult]:
    """The table's games, with the workers and the seating of ``args`` (``records``: keep each game's record)."""
    n = len(lineup)
    return run_tournament(
        lineup,
        rounded(games, n),
        seed,
        jobs=args.workers,
        on_result=advance,
        seating=args.seating,
        records=records,
        bot_modules=[population.__name__],  # the pop-... members, in every worker
    )


SPLIT = ("houses", "paid", "cheques", "score")
"""What :func:`phase_split` reports per game: the houses' total value bought, the coins paid for them, the
cheques those houses earned, and the final score."""


def phase_split(results: Sequence[GameResult], spec: str, players: int) -> dict[str, dict[str, Any]]:
    """Where ``spec``'s points come from, auction against sale: per quantity of :data:`SPLIT`, its mean per
    game with the 95% interval over deals, and the per-deal means (for pairing with another bot's).

    A bot that buys the same houses for fewer coins did better in the auction; one that earns fewer cheques
    from houses as good did worse in the sale. Needs the games' records (``play(..., records=True)``).
    """
    per_deal: dict[str, dict[int, list[float]]] = {key: defaultdict(list) for key in SPLIT}
    for result in results:
        assert result.record is not None, "phase_split needs the games' records"
        state = from_record(result.record)
        for seat, bot in enumerate(result.bots):
            if bot != spec:
                continue
            taken = [(house, paid) for _, s, house, paid in state.takes if s == seat]
            deal = result.index // players
            per_deal["houses"][deal].append(sum(house for house, _ in taken))
            per_deal["paid"][deal].append(sum(paid for _, paid in taken))
            per_deal["cheques"][deal].append(sum(state.cheques_won[seat]))
            per_deal["score"][deal].append(result.scores[seat])
    out = {}
    for key in SPLIT:
        means = [sum(v) / len(v) for _, v in sorted(per_deal[key].items())]
        mean, lo, hi = mean_ci(means)
        out[key] = {"mean": mean, "ci": [lo, hi], "per_deal": means}
    return out


def split_difference(mine: dict[str, dict[str, Any]], theirs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each quantity of two :func:`phase_split` reports of the same deals, paired deal by deal: mean and interval."""
    out = {}
    for key in SPLIT:
        mean, lo, hi = mean_ci([a - b for a, b in zip(mine[key]["per_deal"], theirs[key]["per_deal"])])
        out[key] = {"mean": mean, "ci": [lo, hi]}
    return out


# -- the modes -------------------------------------------------------------------------


def paired(mine: Sequence[GameResult], theirs: Sequence[GameResult], a: str, b: str, n: int) -> dict[str, Any]:
    """``a``'s per-deal share in ``mine`` minus ``b``'s in ``theirs`` (the same deals): mean and 95% interval."""
    x, y = deal_shares(mine, a, n), deal_shares(theirs, b, n)
    diff, lo, hi = share_ci([x[d] - y[d] for d in x], floor=-1.0)
    return {"mean": diff, "ci": [lo, hi], "below": hi < 0}


def vs_mode(candidate: str, opponent: str, args: argparse.Namespace, advance: Advance) -> dict[str, Any]:
    """The candidate against three copies of ``opponent`` (and ``--beside``'s bot in its seat, paired)."""
    lineup = [candidate] + [opponent] * (TABLE_SEATS - 1)
    results = play(lineup, args.games, args.seed, args, advance, records=args.split)
    row = {"opponent": opponent, "lineup": lineup, "seed": args.seed, **share_summary(results, candidate, TABLE_SEATS)}
    if args.split:
        row["split"] = phase_split(results, candidate, TABLE_SEATS)
    if args.beside and args.beside != candidate:
        lineup = [args.beside] + [opponent] * (TABLE_SEATS - 1)
        theirs = play(lineup, args.games, args.seed, args, advance, records=args.split)
        row["beside"] = {"bot": args.beside, **share_summary(theirs, args.beside, TABLE_SEATS)}
        row["difference"] = paired(results, theirs, candidate, args.beside, TABLE_SEATS)
        if args.split:
            row["beside"]["split"] = phase_split(theirs, args.beside, TABLE_SEATS)
            row["split_difference"] = split_difference(row["split"], row["beside"]["split"])
    return row


def draw_tables(count: int, seed: int) -> list[list[str]]:
    """``count`` sets of three distinct held-out members, drawn with a fixed seed."""
    rng = random.Random(f"forsale-strength-tables:{seed}")
    members = held_out()
    return [rng.sample(members, TABLE_SEATS - 1) for _ in range(count)]


def tables_mode(candidate: str, args: argparse.Namespace, advance: Advance) -> dict[str, Any]:
    """The candidate, and expert in its seat, at the same tables (held-out, or the one ``--at``) and deals."""
    rows = []
    compare = candidate != "expert"
    for t, opponents in enumerate([args.at] if args.at else draw_tables(args.tables, args.seed)):
        seed = args.seed * 1000 + t
        mine = play([candidate, *opponents], args.games, seed, args, advance)
        row: dict[str, Any] = {"table": t, "opponents": opponents, "seed": seed}
        row["candidate"] = share_summary(mine, candidate, TABLE_SEATS)
        if compare:
            theirs = play(["expert", *opponents], args.games, seed, args, advance)
            row["expert"] = share_summary(theirs, "expert", TABLE_SEATS)
            a, b = deal_shares(mine, candidate, TABLE_SEATS), deal_shares(theirs, "expert", TABLE_SEATS)
            diff, lo, hi = share_ci([a[d] - b[d] for d in a], floor=-1.0)
            row["difference"] = {"mean": diff, "ci": [lo, hi], "below_expert": hi < 0}
        rows.append(row)
    shares = [row["candidate"]["share"] for row in rows]
    worst = min(range(len(rows)), key=lambda i: shares[i])
    out: dict[str, Any] = {
        "count": len(rows),
        "named": bool(args.at),
        "tables": rows,
        "average": sum(shares) / len(shares),
        "worst": {"table": worst, "share": shares[worst], "ci": rows[worst]["candidate"]["ci"]},
    }
    if compare:
        out["expert_average"] = sum(row["expert"]["share"] for row in rows) / len(rows)
        out["below_expert"] = [row["table"] for row in rows if row["difference"]["below_expert"]]
    return out


def draw_fields(count: int, seed: int) -> list[str]:
    """``count`` distinct held-out members (all of them if ``count`` is larger), drawn with a fixed seed."""
    members = held_out()
    return random.Random(f"forsale-strength-fields:{seed}").sample(members, min(count, len(members)))


def fields_mode(candidate: str, args: argparse.Namespace, advance: Advance) -> dict[str, Any]:
    """Homogeneous fields (issue 32): the candidate, and expert in its seat, against ``n - 1`` copies of one
    held-out member, at the same deals; per member the paired per-deal difference candidate - expert."""
    n = args.field_players
    rows = []
    for t, member in enumerate(args.field_members or draw_fields(args.fields, args.seed)):
        seed = args.seed * 1000 + 500 + t
        opponents = [member] * (n - 1)
        mine = play([candidate, *opponents], args.games, seed, args, advance, records=args.split)
        theirs = play(["expert", *opponents], args.games, seed, args, advance, records=args.split)
        a, b = deal_shares(mine, candidate, n), deal_shares(theirs, "expert", n)
        diff, lo, hi = share_ci([a[d] - b[d] for d in a], floor=-1.0)
        rows.append({
            "member": member, "seed": seed, "candidate": share_summary(mine, candidate, n),
            "expert": share_summary(theirs, "expert", n),
            "difference": {"mean": diff, "ci": [lo, hi], "below_expert": hi < 0},
        })  # fmt: skip
        if args.split:
            rows[-1]["split"] = phase_split(mine, candidate, n)
            rows[-1]["expert"]["split"] = phase_split(theirs, "expert", n)
            rows[-1]["split_difference"] = split_difference(rows[-1]["split"], rows[-1]["expert"]["split"])
    shares = [row["candidate"]["share"] for row in rows]
    worst = min(range(len(rows)), key=lambda i: shares[i])
    out = {
        "players": n, "count": len(rows), "fields": rows, "average": sum(shares) / len(shares),
        "worst": {"member": rows[worst]["member"], "share": shares[worst], "ci": rows[worst]["candidate"]["ci"]},
        "expert_average": sum(row["expert"]["share"] for row in rows) / len(rows),
        "below_expert": [row["member"] for row in rows if row["difference"]["below_expert"]],
    }  # fmt: skip
    if args.split:  # every field's deals pooled: where the candidate's points differ from expert's on the whole
        pooled = {key: {"per_deal": [x for row in rows for x in row["split"][key]["per_deal"]]} for key in SPLIT}
        theirs_pooled = {
            key: {"per_deal": [x for row in rows for x in row["expert"]["split"][key]["per_deal"]]} for key in SPLIT
        }
        out["split_difference"] = split_difference(pooled, theirs_pooled)
    return out


def draw_exploiters(count: int, seed: int) -> list[str]:
    """``count`` distinct held-out members (all of them if ``count`` is larger), drawn with a fixed seed."""
    members = held_out()
    return random.Random(f"forsale-strength-exploit:{seed}").sample(members, min(count, len(members)))


def exploit_mode(candidate: str, args: argparse.Namespace, advance: Advance) -> dict[str, Any]:
    """Issue 32's exploitability: each held-out member at a table of ``n - 1`` copies of the candidate."""
    n = args.field_players
    rows = []
    for t, member in enumerate(args.exploiters or draw_exploiters(args.exploit, args.seed)):
        seed = args.seed * 1000 + 700 + t
        results = play([member, *[candidate] * (n - 1)], args.games, seed, args, advance)
        rows.append({"member": member, "seed": seed, **share_summary(results, member, n)})
    best = max(range(len(rows)), key=lambda i: rows[i]["share"])
    return {
        "players": n, "count": len(rows), "members": rows,
        "average": sum(row["share"] for row in rows) / len(rows),
        "best": {"member": rows[best]["member"], "share": rows[best]["share"], "ci": rows[best]["ci"]},
    }  # fmt: skip


def round_robin_mode(bots: list[str], players: int, args: argparse.Namespace, advance: Advance) -> dict[str, Any]:
    """Tables of ``players`` distinct bots: every combination, or ``--rr-tables`` of them drawn by seed."""
    lineups = [list(c) for c in itertools.combinations(bots, players)]
    if args.rr_tables is not None and args.rr_tables < len(lineups):
        lineups = random.Random(f"forsale-strength-rr:{args.seed}:{players}").sample(lineups, args.rr_tables)
    per_deal: dict[str, list[float]] = defaultdict(list)
    games: dict[str, int] = defaultdict(int)
    for t, lineup in enumerate(lineups):
        results = play(lineup, args.games, args.seed * 1000 + 100 * players + t, args, advance)
        for bot in lineup:
            per_deal[bot] += deal_shares(results, bot, players).values()
            games[bot] += sum(1 for r in results for b in r.bots if b == bot)
    return {"players": players, "tables": lineups, "ranking": ranking(per_deal, games)}


def members_of(which: str) -> list[str]:
    """The generated members named by ``which``: ``stronger``, ``first``, ``all``, or family names (comma-separated)."""
    names = population.generated_names()
    bidder = {name: population.member(name).bidder for name in names}
    if which == "all":
        return names
    if which in ("stronger", "first"):
        block = population.STRONG_BIDDERS if which == "stronger" else population.BIDDERS
        return [name for name in names if bidder[name] in block]
    families = {f.strip() for f in which.split(",") if f.strip()}
    unknown = families - {b.family for b in bidder.values()}
    if unknown or not families:
        raise ValueError(f"no family {', '.join(sorted(unknown)) or which!r}: choose stronger, first, all or families")
    return [name for name in names if bidder[name].family in families]


def members_mode(which: str, args: argparse.Namespace, advance: Advance) -> dict[str, Any]:
    """Each member of ``which`` against three copies of ``args.members_vs``, every one on the same deals."""
    rows = []
    for name in members_of(which):
        lineup = [name] + [args.members_vs] * (TABLE_SEATS - 1)
        results = play(lineup, args.games, args.seed, args, advance)
        rows.append({"member": name, "family": population.family(name), **share_summary(results, name, TABLE_SEATS)})
    rows.sort(key=lambda row: -row["share"])
    shares = sorted(row["share"] for row in rows)
    return {
        "which": which, "opponent": args.members_vs, "members": rows,
        "min": shares[0], "median": shares[len(shares) // 2], "max": shares[-1],
        "at_least": {f"{t:.2f}": sum(1 for x in shares if x >= t - 1e-9) for t in (0.1, 0.2, 0.25)},
    }  # fmt: skip


# -- output ------------------------------------------------------------------------------


def pct(x: float) -> str:
    return f"{x:6.1%}"


def interval(ci: Sequence[float]) -> str:
    return f"{ci[0]:6.1%} - {ci[1]:6.1%}"


def show(report: dict[str, Any], candidate: str) -> None:
    """The report as tables on the terminal."""
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(Console().width, 150))  # the tables' rows stay whole in a log file
    for vs in report["vs"]:
        table = Table(title=f"{candidate} against three {vs['opponent']} (fair share 25%)")
        for column in ("share", "95% CI (deals)", "games", "deals", "games per seat"):
            table.add_column(column, justify="right")
        cells = [pct(vs["share"]), interval(vs["ci"]), str(vs["games"]), str(vs["deals"]), str(vs["seats"])]
        if "beside" in vs:
            for column in (vs["beside"]["bot"], "95% CI", "diff", "diff 95% CI"):
                table.add_column(column, justify="right")
            flag = " below" if vs["difference"]["below"] else ""
            cells += [pct(vs["beside"]["share"]), interval(vs["beside"]["ci"])]
            cells += [f"{vs['difference']['mean']:+.1%}{flag}", interval(vs["difference"]["ci"])]
        table.add_row(*cells)
        console.print(table)
        if "split" in vs:
            show_split(console, vs, candidate)
    tables = report.get("tables")
    if tables:
        has_expert = "expert_average" in tables
        which = "the named 4-seat table" if tables.get("named") else f"{tables['count']} held-out 4-seat tables"
        title = f"{candidate} at {which} (fair share 25%; opponents without pop-)"
        table = Table(title=title)
        for column in ("#", "opponents", candidate, "95% CI"):
            table.add_column(column, justify="right" if column != "opponents" else "left")
        if has_expert:
            for column in ("expert", "95% CI", "diff", "diff 95% CI"):
                table.add_column(column, justify="right")
        for row in tables["tables"]:
            cells = [str(row["table"]), ", ".join(o.removeprefix("pop-") for o in row["opponents"])]
            cells.append(pct(row["candidate"]["share"]))
            cells.append(interval(row["candidate"]["ci"]))
            if has_expert:
                diff = row["difference"]
                flag = " below" if diff["below_expert"] else ""
                cells += [pct(row["expert"]["share"]), interval(row["expert"]["ci"]), f"{diff['mean']:+.1%}{flag}"]
                cells.append(interval(diff["ci"]))
            table.add_row(*cells)
        console.print(table)
        worst = tables["worst"]
        line = f"average {tables['average']:.1%}; worst table #{worst['table']}: {worst['share']:.1%} ({interval(worst['ci'])})"
        if has_expert:
            below = tables["below_expert"] or "none"
            line += f"; expert's average {tables['expert_average']:.1%}; tables below expert beyond noise: {below}"
        console.print(line)
    for rr in report["round_robin"]:
        pooled = f", pooled over {rr['pooled']} reports" if rr.get("pooled") else ""
        fair = f"fair share {1 / rr['players']:.0%}"
        table = Table(title=f"Round robin, {rr['players']} players, {len(rr['tables'])} tables{pooled} ({fair})")
        for column in ("bot", "share", "95% CI (deals)", "games"):
            table.add_column(column, justify="left" if column == "bot" else "right")
        for row in rr["ranking"]:
            table.add_row(row["bot"], pct(row["share"]), interval(row["ci"]), str(row["games"]))
        console.print(table)
    for rr in report.get("differences", []):
        title = f"Paired over deals, {rr['players']} players: each bot in the variant minus in the base"
        table = Table(title=title)
        for column in ("bot (variant)", "in the base", "base", "variant", "difference", "95% CI (deals)", "deals"):
            table.add_column(column, justify="left" if column.startswith(("bot", "in the")) else "right")
        for row in rr["paired"]:
            same = "" if row["base"] == row["bot"] else row["base"]
            cells = [row["bot"], same, pct(row["share"]), pct(row["variant_share"]), f"{row['difference']:+.1%}"]
            table.add_row(*cells, f"{row['ci'][0]:+.1%} - {row['ci'][1]:+.1%}", str(row["deals"]))
        console.print(table)
    if report.get("paired_tables"):
        table = Table(title="Paired over deals: the variant's candidate minus the base's, table by table")
        for column in ("table", "base", "variant", "difference", "95% CI (deals)", "deals"):
            table.add_column(column, justify="left" if column == "table" else "right")
        for row in report["paired_tables"]:
            table.add_row(
                row["table"], pct(row["base"]), pct(row["variant"]), f"{row['difference']:+.1%}",
                f"{row['ci'][0]:+.1%} - {row['ci'][1]:+.1%}", str(row["deals"]),
            )  # fmt: skip
        console.print(table)
    fields = report.get("fields")
    if fields:
        n = fields["players"]
        title = f"{candidate} against {n - 1} copies of one held-out member (fair share {1 / n:.0%})"
        table = Table(title=title)
        for column in ("field", candidate, "95% CI", "expert", "95% CI", "diff", "diff 95% CI"):
            table.add_column(column, justify="left" if column == "field" else "right")
        for row in fields["fields"]:
            diff = row["difference"]
            flag = " below" if diff["below_expert"] else ""
            table.add_row(
                row["member"].removeprefix("pop-"), pct(row["candidate"]["share"]), interval(row["candidate"]["ci"]),
                pct(row["expert"]["share"]), interval(row["expert"]["ci"]), f"{diff['mean']:+.1%}{flag}",
                interval(diff["ci"]),
            )  # fmt: skip
        console.print(table)
        if "split_difference" in fields:
            show_field_split(console, fields, candidate)
        worst = fields["worst"]
        console.print(
            f"average {fields['average']:.1%} (expert {fields['expert_average']:.1%}); worst {worst['member']}: "
            f"{worst['share']:.1%} ({interval(worst['ci'])}); below expert beyond noise: "
            f"{', '.join(fields['below_expert']) or 'none'}"
        )
    exploit = report.get("exploit")
    if exploit:
        n = exploit["players"]
        table = Table(title=f"each held-out member against {n - 1} copies of {candidate} (fair share {1 / n:.0%})")
        for column in ("member", "share", "95% CI (deals)", "games"):
            table.add_column(column, justify="left" if column == "member" else "right")
        for row in sorted(exploit["members"], key=lambda row: -row["share"]):
            table.add_row(row["member"].removeprefix("pop-"), pct(row["share"]), interval(row["ci"]), str(row["games"]))
        console.print(table)
        best = exploit["best"]
        console.print(
            f"best exploiter {best['member']}: {best['share']:.1%} ({interval(best['ci'])}); "
            f"average {exploit['average']:.1%} over {exploit['count']} members"
        )
    members = report.get("members")
    if members:
        table = Table(title=f"members of {members['which']} against three {members['opponent']} (fair share 25%)")
        for column in ("member", "family", "share", "95% CI (deals)", "games"):
            table.add_column(column, justify="left" if column in ("member", "family") else "right")
        for row in members["members"]:
            table.add_row(row["member"], row["family"], pct(row["share"]), interval(row["ci"]), str(row["games"]))
        console.print(table)
        counts = ", ".join(f"{n} at {float(t):.0%} or more" for t, n in members["at_least"].items())
        console.print(
            f"{len(members['members'])} members: {members['min']:.1%} to {members['max']:.1%}, "
            f"median {members['median']:.1%}; {counts}"
        )
    if report["skipped"]:
        console.print(f"skipped (not in this checkout): {', '.join(report['skipped'])}")


def show_field_split(console: Any, fields: dict[str, Any], candidate: str) -> None:
    """The ``--fields`` mode's :func:`phase_split`: per field, the candidate minus ``expert`` on the same deals,
    each quantity paired deal by deal, and every field's deals pooled."""
    from rich.table import Table

    table = Table(title=f"{candidate} minus expert at each field: auction and sale, per game (paired over deals)")
    table.add_column("field", justify="left")
    for key in SPLIT:
        table.add_column(key, justify="right")
    rows = [(row["member"].removeprefix("pop-"), row["split_difference"]) for row in fields["fields"]]
    rows.append(("all fields pooled", fields["split_difference"]))
    for name, diff in rows:
        table.add_row(
            name, *(f"{diff[k]['mean']:+.1f} ({diff[k]['ci'][0]:+.1f}, {diff[k]['ci'][1]:+.1f})" for k in SPLIT)
        )
    console.print(table)


def show_split(console: Any, vs: dict[str, Any], candidate: str) -> None:
    """One ``--vs`` table's :func:`phase_split` (and the ``--beside`` bot's, with the paired differences)."""
    from rich.table import Table

    table = Table(title=f"{candidate} against three {vs['opponent']}: auction and sale, per game")
    table.add_column("bot", justify="left")
    for key in SPLIT:
        table.add_column(key, justify="right")
    rows = [(candidate, vs["split"])]
    if "beside" in vs:
        rows.append((vs["beside"]["bot"], vs["beside"]["split"]))
    for bot, split in rows:
        table.add_row(
            bot, *(f"{split[k]['mean']:.1f} ({split[k]['ci'][0]:.1f}-{split[k]['ci'][1]:.1f})" for k in SPLIT)
        )
    if "split_difference" in vs:
        diff = vs["split_difference"]
        table.add_row(
            "difference", *(f"{diff[k]['mean']:+.1f} ({diff[k]['ci'][0]:+.1f}, {diff[k]['ci'][1]:+.1f})" for k in SPLIT)
        )
    console.print(table)


def plot(report: dict[str, Any], candidate: str, path: str) -> None:
    """Per-table shares of the candidate and expert with their intervals (needs matplotlib): the mixed
    held-out tables of ``--tables`` and the homogeneous fields of ``--fields``, a panel each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = []
    if report.get("tables"):
        rows = report["tables"]["tables"]
        names = [f"#{row['table']}" for row in rows]  # the opponents are listed by number in the report
        panels.append(("mixed held-out tables (4 players)", rows, names, 0.25))
    if report.get("fields"):
        fields = report["fields"]
        names = [row["member"].removeprefix("pop-") for row in fields["fields"]]
        title = f"homogeneous fields: {fields['players'] - 1} copies of one held-out member"
        panels.append((title, fields["fields"], names, 1 / fields["players"]))
    if not panels:
        print("--plot draws the --tables and --fields modes; nothing to draw", file=sys.stderr)
        return
    width = max(6.0, max(len(rows) for _, rows, _, _ in panels) * 0.55)
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, 4.2 * len(panels)), squeeze=False)
    for axis, (title, rows, names, fair) in zip(axes[:, 0], panels):
        series = [("candidate", candidate, -0.15)] + ([("expert", "expert", 0.15)] if "expert" in rows[0] else [])
        for key, label, shift in series:
            xs = [i + shift for i in range(len(rows))]
            ys = [row[key]["share"] for row in rows]
            lo = [y - row[key]["ci"][0] for y, row in zip(ys, rows)]
            hi = [row[key]["ci"][1] - y for y, row in zip(ys, rows)]
            axis.errorbar(xs, ys, yerr=[lo, hi], fmt="o", capsize=3, label=label)
        axis.axhline(fair, color="grey", linestyle="--", linewidth=1, label="fair share")
        axis.set_xticks(range(len(rows)))
        axis.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
        axis.set_ylim(0, 1)
        axis.set_title(title)
        axis.set_ylabel("win share (95% CI over deals)")
        axis.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# -- main --------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--candidate", default="hard", help="the bot under test (default hard)")
    p.add_argument("--vs", action="append", default=[], metavar="BOT", help="against three copies of BOT (repeatable)")
    p.add_argument("--tables", type=int, default=0, metavar="T", help="T random held-out 4-seat tables")
    p.add_argument("--at", metavar="A,B,C", help="one table of these three opponents instead (with expert too)")
    p.add_argument("--fields", type=int, default=0, metavar="K", help="K homogeneous fields of held-out members")
    p.add_argument("--field", action="append", default=[], metavar="MEMBER", help="this held-out member's field")
    p.add_argument(
        "--field-players", type=int, default=4, metavar="N", help="players at the fields and --exploit (default 4)"
    )
    p.add_argument("--exploit", type=int, default=0, metavar="K", help="K held-out members, each vs n-1 candidates")
    p.add_argument("--exploiter", action="append", default=[], metavar="MEMBER", help="this member in --exploit")
    p.add_argument("--beside", metavar="BOT", help="with --vs: BOT in the candidate's seat too, paired on the deals")
    p.add_argument(
        "--split",
        action="store_true",
        help="with --vs or --fields: houses bought, coins paid, cheques earned (auction vs sale)",
    )
    p.add_argument("--round-robin", default="", metavar="N,N", help="player counts of round robins, e.g. 3,5,6")
    p.add_argument("--rr-tables", type=int, default=None, help="tables per round robin (default: every combination)")
    p.add_argument(
        "--members", metavar="WHICH", help="each member of WHICH (stronger, first, all, families) vs three BOT"
    )
    p.add_argument("--members-vs", default="expert", metavar="BOT", help="the opponent of --members (default expert)")
    p.add_argument("--games", type=int, default=100, help="games per table, rounded up to whole deals (default 100)")
    p.add_argument("--budget", type=float, default=None, help="seconds per decision for bots that take time=")
    p.add_argument(
        "--seating",
        choices=SEATINGS,
        default="shuffle",
        help="each deal seats the bots in its own order before rotating (default), or rotates the lineup as given",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1, help="processes (default 1: one core)")
    p.add_argument("--json", metavar="OUT", help="write the report as JSON")
    p.add_argument("--plot", metavar="PNG", help="plot the --tables and --fields modes (matplotlib)")
    p.add_argument("--replot", metavar="REPORT", help="with --plot: draw an earlier report's tables; no games")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--pool", nargs="+", metavar="REPORT", help="pool the round robins of these JSON reports; no games")
    p.add_argument(
        "--paired",
        nargs=2,
        metavar=("BASE", "VARIANT"),
        help="each bot's share in VARIANT minus BASE, deal by deal (two reports of one round robin); no games",
    )
    args = p.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.tables < 0:
        p.error("--games and --workers must be at least 1, --tables at least 0")
    if args.at is not None:
        args.at = [name.strip() for name in args.at.split(",")]
        if len(args.at) != TABLE_SEATS - 1 or not all(args.at):
            p.error(f"--at takes the table's {TABLE_SEATS - 1} opponents, comma-separated, not {','.join(args.at)!r}")
        unknown = [name for name in args.at if not available(name, [])]
        if unknown:
            p.error(f"--at: no bot {', '.join(unknown)}")
        if args.tables:
            p.error("choose --tables T or --at A,B,C, not both")
        args.tables = 1
    try:
        args.players = [int(x) for x in args.round_robin.split(",") if x.strip()]
    except ValueError:
        p.error(f"--round-robin takes player counts like 3,5,6, not {args.round_robin!r}")
    if any(not 3 <= n <= 6 for n in args.players):
        p.error("round robins are played at 3 to 6 players")
    if args.pool and args.paired:
        p.error("choose --pool or --paired, not both")
    if args.replot and not args.plot:
        p.error("--replot REPORT draws into --plot PNG")
    if not 3 <= args.field_players <= 6:
        p.error("--field-players must be 3 to 6")
    if args.fields < 0:
        p.error("--fields must be at least 0")
    outsiders = [m for m in args.field if m not in held_out()]
    if outsiders:
        p.error(f"--field takes held-out members only, not {', '.join(outsiders)}")
    args.field_members = list(dict.fromkeys(args.field))
    if args.field_members:
        args.fields = len(args.field_members)
    if args.exploit < 0:
        p.error("--exploit must be at least 0")
    outsiders = [m for m in args.exploiter if m not in held_out()]
    if outsiders:
        p.error(f"--exploiter takes held-out members only, not {', '.join(outsiders)}")
    args.exploiters = list(dict.fromkeys(args.exploiter))
    if args.exploiters:
        args.exploit = len(args.exploiters)
    if args.beside is not None and not available(args.beside, []):
        p.error(f"--beside: no bot {args.beside}")
    modes = (args.vs, args.tables, args.players, args.members, args.pool, args.paired, args.fields, args.exploit)
    modes += (args.replot,)
    if not any(modes):
        p.error(
            "choose at least one of --vs BOT, --tables T, --fields K, --exploit K, --round-robin N,N, "
            "--members WHICH, --pool, --paired"
        )
    if args.members:
        try:
            args.member_names = members_of(args.members)
        except ValueError as error:
            p.error(str(error))
    return args


def planned_games(args: argparse.Namespace, vs: list[str], rr_bots: list[str], candidate: str) -> int:
    total = len(vs) * rounded(args.games, TABLE_SEATS) * (2 if args.beside and args.beside != candidate else 1)
    total += args.exploit * rounded(args.games, args.field_players)
    total += args.tables * rounded(args.games, TABLE_SEATS) * (1 if candidate == "expert" else 2)
    for n in args.players:
        combos = len(list(itertools.combinations(rr_bots, n)))
        total += min(combos, args.rr_tables if args.rr_tables is not None else combos) * rounded(args.games, n)
    if args.members:
        total += len(args.member_names) * rounded(args.games, TABLE_SEATS)
    total += 2 * args.fields * rounded(args.games, args.field_players)
    return total


def paired_fields(base: str, variant: str) -> list[dict[str, Any]]:
    """Two runs of the same ``--vs`` tables and ``--fields`` (same seed, deals and opponents), different
    candidates: each table's variant share minus base share, deal by deal, and the fields pooled over deals."""
    a, b = json.loads(Path(base).read_text()), json.loads(Path(variant).read_text())
    pairs: list[tuple[str, list[float], list[float]]] = []
    tables = {(y["opponent"], y["seed"]): y for y in b.get("vs") or []}  # matched by name: the lists may differ
    for x in a.get("vs") or []:
        y = tables.get((x["opponent"], x["seed"]))
        if y is not None:
            pairs.append((f"three {x['opponent']}", x["per_deal"], y["per_deal"]))
    fa, fb = a.get("fields"), b.get("fields")
    pooled: tuple[list[float], list[float]] = ([], [])
    if fa and fb and fa["players"] == fb["players"]:
        theirs = {(row["member"], row["seed"]): row for row in fb["fields"]}
        for row in fa["fields"]:
            other = theirs.get((row["member"], row["seed"]))
            if other is not None:
                x, y = row["candidate"]["per_deal"], other["candidate"]["per_deal"]
                pairs.append((f"field {row['member'].removeprefix('pop-')} ({fa['players']}p)", x, y))
                pooled[0].extend(x)
                pooled[1].extend(y)
        if pooled[0]:
            pairs.append((f"all fields pooled ({fa['players']}p)", *pooled))
    if not pairs:
        raise ValueError(f"{base} and {variant} share no --vs table or field with the same seed")
    rows = []
    for what, x, y in pairs:
        if len(x) != len(y):
            raise ValueError(f"{what}: {len(x)} deals in {base}, {len(y)} in {variant}: not the same games")
        diff, lo, hi = share_ci([q - p for p, q in zip(x, y)], floor=-1.0)
        rows.append({
            "table": what, "base": sum(x) / len(x), "variant": sum(y) / len(y), "difference": diff,
            "ci": [lo, hi], "deals": len(x),
        })  # fmt: skip
    return rows


def reports_main(args: argparse.Namespace) -> int:
    """``--pool`` or ``--paired``: earlier reports read back, pooled or paired over deals; nothing is played."""
    flag = "--pool" if args.pool else "--paired"
    tables: list[dict[str, Any]] = []
    try:
        if args.pool:
            rounds = pooled_round_robins(args.pool)
        elif all(json.loads(Path(p).read_text()).get("round_robin") for p in args.paired):
            rounds = paired_round_robins(*args.paired)
        else:  # runs of --vs and --fields: the candidate's tables paired
            rounds, tables = [], paired_fields(*args.paired)
    except (OSError, ValueError, KeyError, TypeError) as error:  # a missing, unreadable or foreign file
        print(f"strength.py {flag}: {error}", file=sys.stderr)
        return 2
    report: dict[str, Any] = {"vs": [], "tables": None, "members": None, "skipped": []}
    if args.pool:
        report |= {"pooled": args.pool, "round_robin": rounds}
    else:
        report |= {
            "paired": {"base": args.paired[0], "variant": args.paired[1]},
            "round_robin": [],
            "differences": rounds,
            "paired_tables": tables,
        }
    show(report, "")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.pool or args.paired:
        return reports_main(args)
    if args.replot:
        report = json.loads(Path(args.replot).read_text())
        plot(report, report["candidate"], args.plot)
        return 0
    skipped: list[str] = []
    if not available(args.candidate, skipped):
        print(f"the candidate {args.candidate!r} is not a bot of this checkout: nothing to measure", file=sys.stderr)
        return 0
    candidate = with_budget(args.candidate, args.budget)
    vs = [with_budget(b, args.budget) for b in args.vs if available(b, skipped)]
    rr_bots: list[str] = []
    if args.players:
        pool = [candidate, "expert", "hard-v1", "medium"]
        rr_bots = [with_budget(b, args.budget) for b in dict.fromkeys(pool) if available(b, skipped)]
        rr_bots += random.Random(f"forsale-strength-rr-members:{args.seed}").sample(held_out(), ROUND_ROBIN_POPULATION)
        rr_bots = list(dict.fromkeys(rr_bots))
        args.players = [n for n in args.players if n <= len(rr_bots)]
    report: dict[str, Any] = {
        "candidate": candidate,
        "config": {k: getattr(args, k) for k in CONFIG_KEYS},
        "interval": "95%, normal approximation over deal-level means (each deal played from every seat)",
        "vs": [],
        "tables": None,
        "round_robin": [],
        "members": None,
        "fields": None,
        "exploit": None,
        "skipped": skipped,
    }
    from rich import progress as bar

    start = time.perf_counter()
    columns = (bar.TextColumn("{task.description}"), bar.BarColumn(), bar.MofNCompleteColumn())
    with bar.Progress(
        *columns, bar.TimeElapsedColumn(), bar.TimeRemainingColumn(), disable=args.no_progress, transient=True
    ) as progress:
        task = progress.add_task("games", total=planned_games(args, vs, rr_bots, candidate))

        def advance(result: GameResult) -> None:
            progress.advance(task)

        for opponent in vs:
            report["vs"].append(vs_mode(candidate, opponent, args, advance))
        if args.tables:
            report["tables"] = tables_mode(candidate, args, advance)
        if args.fields:
            report["fields"] = fields_mode(candidate, args, advance)
        if args.exploit:
            report["exploit"] = exploit_mode(candidate, args, advance)
        for n in args.players:
            report["round_robin"].append(round_robin_mode(rr_bots, n, args, advance))
        if args.members and available(args.members_vs, skipped):
            report["members"] = members_mode(args.members, args, advance)
    report["seconds"] = time.perf_counter() - start
    show(report, candidate)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    if args.plot:
        plot(report, candidate, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
