"""A cluster of ``forsale serve`` nodes behind HAProxy on loopback: the harness, and its load benchmark.

:class:`Cluster` starts N nodes (``forsale serve --cluster``) on one
PostgreSQL database and Debian's ``haproxy`` in front of them, configured
from ``deploy/haproxy.cfg`` (only the addresses change), so the tests in
``tests/cluster/`` and this benchmark run the shipped configuration.

The benchmark (``python bench/cluster_load.py``) measures, through HAProxy:

- actions per second and the p50/p99 acknowledgement latency of
  ``bench/server_load.py``'s clients, with one node and with three (on one
  machine the nodes share its cores, so the CPU per action, all nodes
  together, is reported too);
- failover: bot tables spread over the nodes, one node killed with
  SIGKILL, and the time until every one of its tables has a new event
  appended by another node ("moving again").

    nice python bench/cluster_load.py --tables 60 --duration 20 --plot docs/cluster-load.png
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"


def server_load() -> ModuleType:
    """``bench/server_load.py`` (its clients, its PostgreSQL and its percentiles), imported by its own name.

    Its client processes are spawned, and find their code by module name: so
    ``bench/`` goes on ``sys.path`` (which spawned children inherit).
    """
    import importlib

    bench = str(Path(__file__).resolve().parent)
    if bench not in sys.path:
        sys.path.insert(0, bench)
    return importlib.import_module("server_load")


def wait_for(condition: Callable[[], Any], timeout: float, what: str, every: float = 0.05) -> Any:
    """Poll ``condition`` until it returns something true (returned), or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout:g} s")
        time.sleep(every)


def checkout_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    return env


class Node:
    """One ``forsale serve --cluster`` process (started, killed, paused, restarted by name)."""

    def __init__(self, name: str, port: int, db: str, workdir: Path, lease_ttl: float, extra: list[str]) -> None:
        self.name, self.port, self.db, self.workdir = name, port, db, workdir
        self.lease_ttl, self.extra = lease_ttl, extra
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = workdir / f"{name}.log"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Node:
        cmd = [sys.executable, "-m", "forsale", "serve", "--cluster", "--node", self.name, "--db", self.db]
        cmd += ["--port", str(self.port), "--lease-ttl", str(self.lease_ttl), "--log-level", "info"]
        cmd += ["--rest-rate", "100000", "--sockets-per-address", "0"]  # every client is on loopback
        cmd += ["--tables-per-client", "0", "--bot-tables-per-client", "0", "--games-per-client", "0"]
        cmd += ["--trusted-proxy", "127.0.0.1", *self.extra]  # HAProxy on loopback
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                cmd, env=checkout_env(), cwd=self.workdir, stdout=log, stderr=subprocess.STDOUT
            )
        return self

    def healthy(self) -> bool:
        if self.proc is None or self.proc.poll() is not None:
            raise RuntimeError(f"node {self.name} exited: {self.log.read_text()[-3000:]}")
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(self.base + "/api/cluster/health", timeout=2).status_code == 200
        return False

    def wait_healthy(self, timeout: float = 90) -> None:
        wait_for(self.healthy, timeout, f"node {self.name} healthy", every=0.1)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill9(self) -> None:
        """``kill -9``: no shutdown code runs, no lease is released."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def stop(self, timeout: float = 30) -> None:
        """A clean stop (SIGTERM): the node hands its tables over, then exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # in case it was paused
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def haproxy_config(port: int, stats_port: int, nodes: list[Node]) -> str:
    """``deploy/haproxy.cfg`` from ``defaults`` down, on loopback: the listening and node addresses replaced."""
    text = HAPROXY_CFG.read_text()
    text = text[text.index("\ndefaults") + 1 :]
    text = text.replace("    bind :80\n", f"    bind 127.0.0.1:{port}\n")
    text = text.replace("    bind 127.0.0.1:8404\n", f"    bind 127.0.0.1:{stats_port}\n")
    text = text.replace("    log global\n", "").replace("    option httplog\n", "")
    ports = {n.name: n.port for n in nodes}

    def server(match: re.Match[str]) -> str:
        name = match.group(1)
        return f"    server {name} 127.0.0.1:{ports[name]}" if name in ports else ""

    text = re.sub(r"^    server (\S+) \S+:8000", server, text, flags=re.MULTILINE)
    return "global\n    maxconn 4000\n\n" + text  # within a test runner's open-file limit


class Balancer:
    """Debian's ``haproxy`` in the foreground, configured by :func:`haproxy_config`."""

    def __init__(self, port: int, stats_port: int, nodes: list[Node], workdir: Path) -> None:
        self.port, self.stats_port = port, stats_port
        self.config = workdir / "haproxy.cfg"
        self.config.write_text(haproxy_config(port, stats_port, nodes))
        self.log = workdir / "haproxy.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> Balancer:
        check = subprocess.run(["haproxy", "-c", "-q", "-f", str(self.config)], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"haproxy refused its configuration: {check.stderr}")
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                ["haproxy", "-db", "-f", str(self.config)], stdout=log, stderr=subprocess.STDOUT
            )
        return self

    def status(self) -> dict[tuple[str, str], str]:
        """``(backend, server) -> UP/DOWN/...`` from the stats page's CSV."""
        if self.proc is None or self.proc.poll() is not None:
            raise RuntimeError(f"haproxy exited: {self.log.read_text()[-2000:]}")
        with contextlib.suppress(httpx.HTTPError):
            rows = httpx.get(f"http://127.0.0.1:{self.stats_port}/;csv", timeout=2).text.splitlines()
            out = {}
            for row in rows[1:]:
                fields = row.split(",")
                if len(fields) > 17 and fields[1] not in ("FRONTEND", "BACKEND"):
                    out[(fields[0], fields[1])] = fields[17]
            return out
        return {}

    def wait_servers(self, names: set[str], state: str = "UP", timeout: float = 60) -> None:
        def ready() -> bool:
            status = self.status()
            return bool(status) and all(
                status.get((b, n), "").startswith(state) for b in ("by_table", "any_node") for n in names
            )

        wait_for(ready, timeout, f"haproxy sees {sorted(names)} {state}", every=0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


class Cluster:
    """N nodes on one database and HAProxy in front (see the module docstring)."""

    def __init__(
        self, db: str, workdir: Path, nodes: int = 3, lease_ttl: float = 2.5, node_args: tuple[str, ...] = ()
    ) -> None:
        load = server_load()
        self.db, self.workdir = db, workdir
        self.nodes = [
            Node(f"n{i + 1}", load.free_port(), db, workdir, lease_ttl, list(node_args)) for i in range(nodes)
        ]
        self.by_name = {n.name: n for n in self.nodes}
        self.balancer = Balancer(load.free_port(), load.free_port(), self.nodes, workdir)
        from sqlalchemy import create_engine

        from forsale.server.storage import normalize_url

        self.engine = create_engine(normalize_url(db), pool_size=2)

    def start(self) -> Cluster:
        for node in self.nodes:  # together, on what may be an empty database (the schema is made under a lock)
            node.start()
        for node in self.nodes:
            node.wait_healthy()
        self.balancer.start()
        self.balancer.wait_servers({n.name for n in self.nodes})
        return self

    def restart(self, name: str, wait: bool = True) -> None:
        """Start a node that was killed or stopped again; with ``wait``, until HAProxy sends it requests."""
        node = self.by_name[name]
        node.start()
        if wait:
            node.wait_healthy()
            self.balancer.wait_servers({name})

    def sql(self, query: str, **params: Any) -> list[Any]:
        from sqlalchemy import text

        with self.engine.begin() as conn:
            return list(conn.execute(text(query), params).all())

    def owners(self) -> dict[str, tuple[str, int]]:
        """``game id -> (node, epoch)`` of every live lease."""
        rows = self.sql(
            "SELECT game_id, node, epoch FROM forsale_leases WHERE expires_at > extract(epoch from clock_timestamp())"
        )
        return {g: (n, e) for g, n, e in rows}

    def events(self, game_id: str) -> list[Any]:
        return self.sql(
            "SELECT seq, seat, action::text, source FROM forsale_events WHERE game_id = :g ORDER BY seq", g=game_id
        )

    def stop(self) -> None:
        self.balancer.stop()
        for node in self.nodes:
            node.stop()
        self.engine.dispose()


@contextlib.contextmanager
def cluster(db: str | None, nodes: int, lease_ttl: float, node_args: tuple[str, ...]) -> Iterator[Cluster]:
    """A started cluster on ``db`` (or a throw-away PostgreSQL), stopped at the end."""
    with contextlib.ExitStack() as stack:
        url = db or stack.enter_context(server_load().postgres())
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="forsale-cluster-")))
        c = Cluster(url, workdir, nodes, lease_ttl, node_args)
        stack.callback(c.stop)
        yield c.start()


def load_run(nodes: int, args: argparse.Namespace) -> dict[str, Any]:
    """``bench/server_load.py``'s clients through HAProxy in front of ``nodes`` nodes."""
    with cluster(None, nodes, args.lease_ttl, ("--bot-delay", "0")) as c:
        load = server_load()
        ns = argparse.Namespace(
            tables=args.tables, think=args.think, procs=args.procs, duration=args.duration,
            stagger=args.stagger, seed=args.seed, plot=None, server_arg=[],
        )  # fmt: skip
        assert c.balancer.proc is not None
        haproxy0 = load.cpu_seconds(c.balancer.proc.pid)
        out = load.measure(c.balancer.base, c.balancer.ws, [n.proc.pid for n in c.nodes if n.proc], ns, "postgresql")
        out["haproxy_cpu_s"] = round(load.cpu_seconds(c.balancer.proc.pid) - haproxy0, 2)
        out["nodes"] = nodes
        return out


def failover(args: argparse.Namespace) -> dict[str, Any]:
    """Bot tables on three nodes, one node killed: seconds until each of its tables has a new event elsewhere."""
    with cluster(None, 3, args.lease_ttl, ("--bot-delay", str(args.bot_delay))) as c:
        made = []
        with httpx.Client(base_url=c.balancer.base, timeout=60) as http:
            for _ in range(args.failover_tables):  # POST /api/tables is balanced round robin: spread over the nodes
                created = http.post("/api/tables", json={"players": 4, "seats": ["random"] * 4, "private": True})
                made.append(created.json()["table"]["id"])

        def last_seqs() -> dict[str, int]:
            rows = c.sql(
                "SELECT game_id, max(seq) FROM forsale_events WHERE game_id = ANY(:ids) GROUP BY game_id", ids=made
            )
            return {g: s for g, s in rows}

        wait_for(lambda: len(last_seqs()) == len(made), 120, "every bot table under way")
        owners = c.owners()
        victim = max(c.by_name, key=lambda name: sum(1 for t in made if owners.get(t, ("",))[0] == name))
        theirs = [t for t in made if owners.get(t, ("",))[0] == victim]
        c.by_name[victim].kill9()
        killed = time.monotonic()
        at_kill = last_seqs()  # read after the kill: nothing of the dead node's can be appended any more
        moved: dict[str, float] = {}
        while len(moved) < len(theirs) and time.monotonic() - killed < 120:
            now = last_seqs()
            for t in theirs:
                if t not in moved and now.get(t, 0) > at_kill.get(t, 0):
                    moved[t] = time.monotonic() - killed
            time.sleep(0.02)
        times = sorted(moved.values())
        return {
            "lease_ttl": args.lease_ttl,
            "tables": len(made),
            "tables_on_the_dead_node": len(theirs),
            "moved": len(moved),
            "first_moved_s": round(times[0], 2) if times else None,
            "median_moved_s": round(times[len(times) // 2], 2) if times else None,
            "all_moved_s": round(times[-1], 2) if len(times) == len(theirs) else None,
            "times_s": [round(t, 3) for t in times],
        }


def plot(runs: list[dict[str, Any]], moved: dict[str, Any], path: str) -> None:
    """Throughput, latency and CPU per action by node count; the dead node's tables moving again over time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
    labels = [f"{r['nodes']} node{'s' if r['nodes'] > 1 else ''}" for r in runs]
    axes[0].bar(labels, [r["actions_per_s"] for r in runs], color="#4c72b0")
    axes[0].set_title("actions / s (through HAProxy)")
    width = 0.35
    xs = range(len(runs))
    axes[1].bar([x - width / 2 for x in xs], [r["p50_ms"] for r in runs], width, label="p50")
    axes[1].bar([x + width / 2 for x in xs], [r["p99_ms"] for r in runs], width, label="p99")
    axes[1].set_xticks(list(xs), labels)
    axes[1].set_title("ack latency (ms)")
    axes[1].legend()
    times = moved["times_s"]
    axes[2].step([0, *times], [0, *range(1, len(times) + 1)], where="post")
    axes[2].axvline(moved["lease_ttl"], color="red", linewidth=0.8, label=f"lease {moved['lease_ttl']:g} s")
    axes[2].set_xlabel("seconds since kill -9")
    axes[2].set_title(f"the dead node's {moved['tables_on_the_dead_node']} tables moving again")
    axes[2].legend()
    fig.suptitle(
        "cluster on one 2-core machine: "
        + ", ".join(f"{lab}: {r['server_cpu_ms_per_action']} ms CPU/action" for lab, r in zip(labels, runs)),
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", default="1,3", help="node counts to measure, comma-separated (default 1,3)")
    parser.add_argument("--tables", type=int, default=60, help="concurrent tables of four clients (default 60)")
    parser.add_argument("--think", type=float, default=0.0, help="mean pause before each decision (default 0)")
    parser.add_argument("--procs", type=int, default=1, help="client processes (default 1)")
    parser.add_argument("--duration", type=float, default=20.0, help="measurement window, seconds (default 20)")
    parser.add_argument("--stagger", type=float, default=3.0, help="tables start over this many seconds (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lease-ttl", type=float, default=5.0, help="the nodes' --lease-ttl (default 5)")
    parser.add_argument("--failover-tables", type=int, default=30, help="bot tables for the failover (default 30)")
    parser.add_argument("--bot-delay", type=float, default=0.3, help="the failover bots' delay (default 0.3 s)")
    parser.add_argument("--plot", help="save the figures to this image file (PNG)")
    args = parser.parse_args()
    runs = [load_run(int(n), args) for n in args.nodes.split(",")]
    moved = failover(args)
    for r in runs:
        print(json.dumps(r))
    print(json.dumps({"failover": moved}))
    for r in runs:
        print(
            f"cluster_load nodes={r['nodes']} tables={r['tables']} think={r['think']}s: {r['actions_per_s']} actions/s, "
            f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, nodes' CPU {r['server_cpu_ms_per_action']} ms/action, "
            f"haproxy {r['haproxy_cpu_s']} s CPU"
        )
    print(
        f"failover: lease {moved['lease_ttl']:g} s, {moved['tables_on_the_dead_node']} tables on the killed node, "
        f"first moving again after {moved['first_moved_s']} s, median {moved['median_moved_s']} s, "
        f"all {moved['all_moved_s']} s"
    )
    if args.plot:
        plot(runs, moved, args.plot)


if __name__ == "__main__":
    main()
