"""The measurements' statistics: deals, shares, rankings, strength reports read back, and latency percentiles.

:func:`percentile` is the load benchmarks' (``bench/server_load.py``,
``bench/cluster_load.py``, ``bench/soak.py``); the rest is for the tables of
``bench/strength.py`` and ``bench/phases.py``.

A report keeps every bot's deal-level shares (``per_deal``), so what one
run cannot settle can be settled afterwards without playing again:

- :func:`pooled_round_robins`: the round robins of several runs (other
  seeds: other deals) as one sample per player count;
- :func:`paired_round_robins`: two runs of the same round robin (same
  seed, so the same tables and deals) that differ in one bot, a variant in
  the candidate's place: the variant's share minus the base's, deal by deal,
  with its interval. The deals' luck cancels, so a difference of a few
  points shows on 48 deals where two unpaired intervals would overlap.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from forsale.arena import mean_ci, wilson_interval


def rounded(games: int, players: int) -> int:
    """Games rounded up to whole deals: each deal is played from every seat."""
    return max(players, -(-games // players) * players)


def share_ci(values: Sequence[float], floor: float = 0.0, games: int = 0) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of :func:`mean_ci`, the interval clipped to what a share can be (``floor``..1).

    One deal says nothing of the spread: its interval is the whole range. Given ``games``, a share's
    interval is never narrower than Wilson's over those games, so that a table won at every deal does not
    get the empty interval 100%-100% of a sample with no spread.
    """
    mean, lo, hi = mean_ci(values)
    if len(values) < 2:
        return mean, floor, 1.0
    if games:
        wlo, whi = wilson_interval(mean * games, games)
        lo, hi = min(lo, wlo), max(hi, whi)
    return mean, max(floor, lo), min(1.0, hi)


def ranking(per_deal: dict[str, list[float]], games: dict[str, int]) -> list[dict[str, Any]]:
    """Bots by share over their deals, best first (ties by name), each with its interval and deal-level shares."""
    rows = []
    for bot, shares in per_deal.items():
        if not shares:  # a drawn subset of tables may leave a bot out
            continue
        share, lo, hi = share_ci(shares, games=games[bot])
        rows.append({
            "bot": bot, "share": share, "ci": [lo, hi], "games": games[bot], "deals": len(shares), "per_deal": shares,
        })  # fmt: skip
    return sorted(rows, key=lambda row: (-row["share"], row["bot"]))


def _load(path: str) -> tuple[str, list[dict[str, Any]]]:
    """A report's seating (``rotate`` for reports from before ``--seating``) and its round robins, each row
    checked to keep its deal-level shares."""
    report = json.loads(Path(path).read_text())
    rounds = report.get("round_robin") or []
    for rr in rounds:
        for row in rr["ranking"]:
            if "per_deal" not in row:
                n = rr["players"]
                raise ValueError(f"{path}: its {n}-player round robin keeps no deal-level shares (an older report)")
    return str((report.get("config") or {}).get("seating", "rotate")), rounds


def pooled_round_robins(paths: Sequence[str]) -> list[dict[str, Any]]:
    """The round robins of several reports (other seeds: other deals) pooled over deals, per player count.

    Deals are independent whichever run played them, so a bot's deal-level shares from every report are
    one sample; a bot seated in only some of the runs (the held-out members differ by seed) pools what it has.
    Reports seated otherwise are refused: a bot's share depends on its neighbours, so a pool of both seatings
    would measure neither.
    """
    twice = sorted({path for path in paths if paths.count(path) > 1})
    if twice:
        raise ValueError(f"{', '.join(twice)} given twice: a pool counts each run's deals once")
    reports = {path: _load(path) for path in paths}
    seatings = {how: path for path, (how, _) in reports.items()}
    if len(seatings) > 1:
        said = ", ".join(f"{path} by {how}" for how, path in sorted(seatings.items()))
        raise ValueError(f"the reports are seated differently ({said}): pool runs of one seating")
    per_deal: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    games: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    tables: dict[int, list[list[str]]] = defaultdict(list)
    for _, rounds in reports.values():
        for rr in rounds:
            n = rr["players"]
            tables[n] += rr["tables"]
            for row in rr["ranking"]:
                per_deal[n][row["bot"]] += row["per_deal"]
                games[n][row["bot"]] += row["games"]
    if not tables:
        raise ValueError(f"no round robin in {', '.join(paths)}")
    return [
        {"players": n, "tables": tables[n], "ranking": ranking(per_deal[n], games[n]), "pooled": len(paths)}
        for n in sorted(tables)
    ]


def paired_round_robins(base: str, variant: str) -> list[dict[str, Any]]:
    """Each bot's share in ``variant`` minus its share in ``base``, deal by deal, per player count.

    The two reports must hold the same round robins (same tables, every bot's deals in the same order)
    but for one bot whose name differs, the variant in the base's place; that bot is paired with the one
    it replaced. Every other bot is paired with itself, which shows what the change did to the others.
    """
    (seated_a, rounds_a), (seated_b, rounds_b) = _load(base), _load(variant)
    if seated_a != seated_b:
        raise ValueError(f"{base} seats by {seated_a}, {variant} by {seated_b}: not the same games")
    old = {rr["players"]: rr for rr in rounds_a}
    new = {rr["players"]: rr for rr in rounds_b}
    if not old.keys() & new.keys():
        raise ValueError(f"{base} and {variant} have no round robin at the same player count")
    out = []
    for n in sorted(old.keys() & new.keys()):
        a, b = old[n], new[n]
        renamed = _renaming(a["tables"], b["tables"], base, variant, n)
        rows_a = {row["bot"]: row for row in a["ranking"]}
        rows_b = {row["bot"]: row for row in b["ranking"]}
        rows = []
        for bot_a, row_a in rows_a.items():
            bot_b = renamed.get(bot_a, bot_a)
            if bot_b not in rows_b:
                raise ValueError(f"{n} players: no row for {bot_b} in {variant}: not the same round robin")
            x, y = row_a["per_deal"], rows_b[bot_b]["per_deal"]
            if len(x) != len(y):
                raise ValueError(f"{bot_a}: {len(x)} deals in {base}, {len(y)} in {variant}: not the same round robin")
            diff, lo, hi = share_ci([q - p for p, q in zip(x, y, strict=True)], floor=-1.0)
            rows.append({
                "bot": bot_b, "base": bot_a, "share": row_a["share"], "variant_share": rows_b[bot_b]["share"],
                "difference": diff, "ci": [lo, hi], "deals": len(x),
            })  # fmt: skip
        rows.sort(key=lambda row: (row["bot"] == row["base"], -row["difference"], row["bot"]))
        out.append({"players": n, "tables": b["tables"], "paired": rows})
    return out


def _renaming(tables_a: list[list[str]], tables_b: list[list[str]], base: str, variant: str, n: int) -> dict[str, str]:
    """The bots renamed between two runs of one round robin (at most one), checked table by table."""
    if len(tables_a) != len(tables_b):
        raise ValueError(f"{n} players: {len(tables_a)} tables in {base}, {len(tables_b)} in {variant}")
    renamed: dict[str, str] = {}
    for ta, tb in zip(tables_a, tables_b, strict=True):
        if len(ta) != len(tb):
            raise ValueError(f"{n} players: tables of different sizes in {base} and {variant}")
        for x, y in zip(ta, tb, strict=True):
            if x != y and renamed.setdefault(x, y) != y:
                raise ValueError(f"{n} players: {x} became both {renamed[x]} and {y}")
    if len(renamed) > 1:
        raise ValueError(f"{n} players: more than one bot differs ({', '.join(sorted(renamed))}): pair one change")
    return renamed


def percentile(sorted_values: list[float], q: float) -> float:
    """The ``q`` quantile (0 to 1) of values already sorted: the first value at or above a share ``q`` of them."""
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]
