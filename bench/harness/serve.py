"""``forsale serve`` in a subprocess, started and polled until it answers: written once, for tests and benchmarks.

:class:`ServeProcess` runs this checkout's server (``python -m forsale serve``
with ``src/`` on ``PYTHONPATH``) on a free port of loopback, logs to a file in
its working directory, and :meth:`~ServeProcess.start` returns once its
health route answers 200 (``/api/health``; a cluster node's
``/api/cluster/health``). The test suite's ``serve_process`` fixture, the
fuzzer, the soak test, the load benchmark and the cluster harness all start
their servers with it, so "started" means the same everywhere: the process
is alive and answers, or the start fails with its log.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
"""The checkout: ``bench/harness/`` is two levels below it."""

SRC = ROOT / "src"

NO_CLIENT_LIMITS = ("--tables-per-client", "0", "--bot-tables-per-client", "0", "--games-per-client", "0")
"""``forsale serve``'s per-client limits off: every test and benchmark client comes from 127.0.0.1."""


_GIVEN: set[int] = set()


def free_port() -> int:
    """A TCP port of loopback free at the time of asking, never one this process was given before.

    The kernel may hand out a port again as soon as the socket that asked is closed: a cluster asks for its
    nodes', HAProxy's and its stats page's ports before anything binds them, and once got the same port for
    HAProxy's front end and its stats page (half the benchmark's requests were answered by the stats page).
    """
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in _GIVEN:
            _GIVEN.add(port)
            return port


def checkout_env() -> dict[str, str]:
    """This process's environment, with ``PYTHONPATH`` leading to this checkout's package."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


class ServeProcess:
    """``forsale serve`` in a subprocess: a real uvicorn on a free port (or ``port``), bots acting at once.

    ``db`` is a database URL; the server runs in ``workdir`` and logs to ``log_name`` there (default
    ``server-<port>.log``). Every client is on 127.0.0.1, so the limits on tables per client are off
    unless ``table_limits`` (a test of those limits) keeps ``forsale serve``'s defaults. ``extra``
    comes last on the command line, so it may override anything before it (``--log-level info``).
    ``health`` is the route polled until it answers 200; ``main`` what Python runs instead of
    ``-m forsale`` (a wrapper, as ``FORSALE_BENCH_SERVER_MAIN`` gives the load benchmark).
    """

    def __init__(
        self,
        db: str,
        workdir: Path,
        *extra: str,
        port: int | None = None,
        table_limits: bool = False,
        log_name: str | None = None,
        health: str = "/api/health",
        main: tuple[str, ...] = ("-m", "forsale"),
    ) -> None:
        if not table_limits:
            extra = (*NO_CLIENT_LIMITS, *extra)
        self.db, self.workdir, self.extra = db, Path(workdir), extra
        self.port = port or free_port()
        self.health, self.main = health, main
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = self.workdir / (log_name or f"server-{self.port}.log")

    # The tests' fixture hands out the class, and its callers ask it for ports.
    free_port = staticmethod(free_port)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        cmd = [sys.executable, *self.main, "serve", "--port", str(self.port), "--db", self.db]
        return [*cmd, "--bot-delay", "0", "--log-level", "warning", *self.extra]

    def launch(self) -> ServeProcess:
        """Start the process and return at once (:meth:`wait_ready` waits for it): nodes of a cluster start
        together."""
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                self.command(), env=checkout_env(), stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir
            )
        return self

    def healthy(self) -> bool:
        """Whether the health route answers 200 now; ``RuntimeError`` with the log if the process has exited."""
        if self.proc is None or self.proc.poll() is not None:
            raise RuntimeError(f"the server exited: {self.log.read_text(errors='replace')[-3000:]}")
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(self.base + self.health, timeout=2).status_code == 200
        return False

    def wait_ready(self, timeout: float = 60) -> ServeProcess:
        """Poll :meth:`healthy` until it is true (``timeout`` seconds at most: generous, for a loaded machine)."""
        deadline = time.monotonic() + timeout
        while not self.healthy():
            if time.monotonic() > deadline:
                log = self.log.read_text(errors="replace")[-3000:]
                raise RuntimeError(f"the server did not answer {self.health} within {timeout:g} s: {log}")
            time.sleep(0.1)
        return self

    def start(self, timeout: float = 60) -> ServeProcess:
        """Start it and wait until it answers (:meth:`launch`, then :meth:`wait_ready`)."""
        return self.launch().wait_ready(timeout)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill9(self) -> None:
        """``kill -9``: no shutdown code runs, nobody is told goodbye, no lease is released."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def stop(self, timeout: float = 15) -> None:
        """A clean stop (SIGTERM, after a SIGCONT in case it was paused); killed if it takes over ``timeout`` s."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def tracebacks(self) -> int:
        """Tracebacks in its log so far (a server that logged one has a bug, whatever the clients saw)."""
        return self.log.read_text(errors="replace").count("Traceback") if self.log.exists() else 0
