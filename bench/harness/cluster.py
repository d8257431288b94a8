"""A cluster of ``forsale serve`` nodes behind HAProxy on loopback, for the cluster tests and the cluster benchmark.

:class:`Cluster` starts N nodes (``forsale serve --cluster``, each a
:class:`Node`) on one PostgreSQL database and Debian's ``haproxy`` in front
of them (:class:`Balancer`), configured from ``deploy/haproxy.cfg`` (only the
addresses change: :func:`haproxy_config`), so the tests in
``tests/cluster/`` and ``bench/cluster_load.py`` run the shipped
configuration.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from .db import postgres
from .serve import ROOT, ServeProcess, free_port

HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"

NODE_READY_S = 90.0
"""Seconds a node may take to answer its health route: nodes start together, on a loaded machine."""


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


class Node(ServeProcess):
    """One ``forsale serve --cluster`` process, named, on the cluster's database; ready once
    ``/api/cluster/health`` answers. Every client is on loopback, HAProxy too (a trusted proxy)."""

    def __init__(self, name: str, port: int, db: str, workdir: Path, lease_ttl: float, extra: list[str]) -> None:
        super().__init__(
            db,
            workdir,
            *("--cluster", "--node", name, "--lease-ttl", str(lease_ttl), "--log-level", "info"),
            *("--rest-rate", "100000", "--sockets-per-address", "0", "--trusted-proxy", "127.0.0.1", *extra),
            port=port,
            log_name=f"{name}.log",
            health="/api/cluster/health",
        )
        self.name, self.lease_ttl = name, lease_ttl

    def stop(self, timeout: float = 30) -> None:
        """A clean stop (SIGTERM): the node hands its tables over, then exits."""
        super().stop(timeout)


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
        self.db, self.workdir = db, workdir
        self.nodes = [Node(f"n{i + 1}", free_port(), db, workdir, lease_ttl, list(node_args)) for i in range(nodes)]
        self.by_name = {n.name: n for n in self.nodes}
        self.balancer = Balancer(free_port(), free_port(), self.nodes, workdir)
        from sqlalchemy import create_engine

        from forsale.server.store.database import normalize_url

        self.engine = create_engine(normalize_url(db), pool_size=2)

    def start(self) -> Cluster:
        for node in self.nodes:  # together, on what may be an empty database (the schema is made under a lock)
            node.launch()
        for node in self.nodes:
            node.wait_ready(NODE_READY_S)
        self.balancer.start()
        self.balancer.wait_servers({n.name for n in self.nodes})
        return self

    def restart(self, name: str, wait: bool = True) -> None:
        """Start a node that was killed or stopped again; with ``wait``, until HAProxy sends it requests."""
        node = self.by_name[name]
        node.launch()
        if wait:
            node.wait_ready(NODE_READY_S)
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
        url = db or stack.enter_context(postgres())
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="forsale-cluster-")))
        c = Cluster(url, workdir, nodes, lease_ttl, node_args)
        stack.callback(c.stop)
        yield c.start()
