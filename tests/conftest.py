"""Shared fixtures: how tests run the real ``forsale`` command, and ``forsale serve`` in a subprocess."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"


@pytest.fixture
def forsale_cmd() -> list[str]:
    """The argv prefix that runs this checkout's ``forsale`` command."""
    return [sys.executable, "-m", "forsale"]


def checkout_env() -> dict[str, str]:
    """This process's environment, with ``PYTHONPATH`` leading to this checkout's package."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


@pytest.fixture
def forsale_env() -> dict[str, str]:
    """An environment in which ``forsale_cmd`` imports this checkout's package."""
    return checkout_env()


class ServeProcess:
    """``forsale serve`` in a subprocess: a real uvicorn on a free port (or ``port``), bots acting at once.

    ``db`` is a database URL; the server runs in ``workdir`` and logs there.
    The server tests and the browser tests both use it (through the
    ``serve_process`` fixture). Every test talks to it from 127.0.0.1, and the
    browser tests share one server all session, so the limits on tables per
    client are off unless ``table_limits`` (a test of those limits) keeps
    ``forsale serve``'s defaults; ``extra`` may set them too.
    """

    def __init__(
        self, db: str, workdir: Path, *extra: str, port: int | None = None, table_limits: bool = False
    ) -> None:
        if not table_limits:
            extra = ("--tables-per-client", "0", "--bot-tables-per-client", "0", "--games-per-client", "0", *extra)
        self.db, self.workdir, self.extra = db, workdir, extra
        self.port = port or self.free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = workdir / f"server-{self.port}.log"

    @staticmethod
    def free_port() -> int:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> ServeProcess:
        """Start it and wait until ``/api/health`` answers (polled; 60 s at most, for a loaded machine)."""
        import httpx

        env = checkout_env()
        cmd = [sys.executable, "-m", "forsale", "serve", "--port", str(self.port), "--db", self.db]
        cmd += ["--bot-delay", "0", "--log-level", "warning", *self.extra]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base + "/api/health", timeout=1).status_code == 200:
                    return self
            time.sleep(0.1)
        raise RuntimeError(f"the server did not answer /api/health within 60 s: {self.log.read_text()}")

    def kill9(self) -> None:
        """``kill -9``: no shutdown code runs, nobody is told goodbye."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture(scope="session")
def serve_process() -> type[ServeProcess]:
    """The :class:`ServeProcess` class (fixtures cannot import from a conftest)."""
    return ServeProcess
