"""Batch simulator speed against the C reference, measured in the same run.

``bench/limit.c`` plays complete 4-player games (official rules) between
uniformly random players in plain C on one core. This script compiles it
with ``gcc -O2`` in a temporary directory, runs it, runs the numpy batch
simulator on the same policy (``random``: raise by one with probability 1/2
when able, else pass; sell a uniformly random house), alternating the two a
few times because the machine may be shared, and prints both rates and
their ratio (wall clock, and CPU time of each process, which a busy machine
disturbs less). Then it runs ``forsale simulate --games 1000000 --players 4
--policy random`` as a separate process and reports its own games/s line
and its peak resident memory.

Run: ``python bench/sim.py [--games N] [--repeats R] [--million-games M]``.
The last lines are ``ratio_wall X``, ``ratio_cpu X`` and ``peak_rss_mb X``.
"""

from __future__ import annotations

import os

# One core: keep any threaded numpy backend on a single thread (set before numpy loads).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"  # forsale simulate's PYTHONPATH: this checkout's package, whatever is installed

from forsale import Ruleset  # noqa: E402
from forsale.sim.memory import retain_freed_memory  # noqa: E402
from forsale.sim.run import simulate  # noqa: E402


def compile_reference(workdir: Path) -> Path:
    if shutil.which("gcc") is None:
        raise SystemExit("gcc is needed to build the C reference (bench/limit.c)")
    source = workdir / "limit.c"
    shutil.copy(HERE / "limit.c", source)
    binary = workdir / "limit"
    subprocess.run(["gcc", "-O2", "-o", str(binary), str(source)], check=True)
    return binary


def run_reference(binary: Path, games: int) -> tuple[float, float]:
    """(games/s by the program's own wall clock, games/s of CPU time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([str(binary), str(games)], check=True, capture_output=True, text=True).stdout.split()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return float(out[out.index("games_per_s") + 1]), games / cpu


def run_simulator(games: int, seed: int) -> tuple[float, float]:
    rules = Ruleset.preset("official", 4)
    cpu = time.process_time()
    summary = simulate(rules, "random", games, seed=seed)
    cpu = time.process_time() - cpu
    return games / summary.seconds, games / cpu


def run_million(games: int, seed: int) -> tuple[str, float, dict]:
    """``forsale simulate`` as its own process: (its games/s line, peak RSS in MB, its JSON)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "million.json"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])))
        cmd = [sys.executable, "-m", "forsale", "simulate", "--games", str(games), "--players", "4"]
        cmd += ["--policy", "random", "--seed", str(seed), "--quiet", "--json", str(out)]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
        stdout = proc.stdout.read() if proc.stdout else ""
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise SystemExit(f"forsale simulate failed with status {proc.returncode}")
        line = next((ln for ln in stdout.splitlines() if "games/s" in ln), "")
        return line.strip(), usage.ru_maxrss / 1024, json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games per measurement (default 1000000)")
    parser.add_argument("--repeats", type=int, default=2, help="alternating measurements of each (default 2)")
    parser.add_argument("--million-games", type=int, default=1_000_000, help="games of the forsale simulate run")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    retained = retain_freed_memory()  # as forsale simulate does (see forsale/sim/memory.py)
    print(f"glibc keeps freed memory between chunks: {retained}")

    with tempfile.TemporaryDirectory() as tmp:
        binary = compile_reference(Path(tmp))
        c_wall, c_cpu, s_wall, s_cpu = [], [], [], []
        for i in range(args.repeats):
            wall, cpu = run_reference(binary, args.games)
            c_wall.append(wall), c_cpu.append(cpu)
            print(f"C reference (gcc -O2)   {wall:12,.0f} games/s wall  {cpu:12,.0f} games/s cpu", flush=True)
            wall, cpu = run_simulator(args.games, args.seed + i)
            s_wall.append(wall), s_cpu.append(cpu)
            print(f"numpy batch simulator   {wall:12,.0f} games/s wall  {cpu:12,.0f} games/s cpu", flush=True)
    ratio_wall = max(s_wall) / max(c_wall)
    ratio_cpu = max(s_cpu) / max(c_cpu)
    print(f"best of {args.repeats}: simulator/C = {ratio_wall:.2f}x (wall), {ratio_cpu:.2f}x (cpu); target 0.5x")

    line, peak, figures = run_million(args.million_games, args.seed)
    print(f"forsale simulate --games {args.million_games} --players 4 --policy random: {line}")
    print(
        f"  json: games {figures['games']}, seconds {figures['seconds']:.2f}, games_per_s {figures['games_per_s']:,.0f}"
    )
    print(f"ratio_wall {ratio_wall:.3f}")
    print(f"ratio_cpu {ratio_cpu:.3f}")
    print(f"peak_rss_mb {peak:.0f}")


if __name__ == "__main__":
    main()
