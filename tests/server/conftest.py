"""Fixtures for the server tests: databases (SQLite files and a real PostgreSQL), apps, subprocesses."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A throw-away PostgreSQL cluster (initdb + pg_ctl in a temporary directory), its URL.

    As root the cluster runs as the ``postgres`` user (PostgreSQL refuses to
    run as root). Without the binaries the tests that need it are skipped,
    except under CI (``CI=true``), where that is a failure: CI installs them.
    """
    bindir = _pg_bin()
    if bindir is None:
        message = "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb); apt-get install postgresql"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    root = os.geteuid() == 0
    base = Path(tempfile.mkdtemp(prefix="forsale-pg-"))
    prefix: list[str] = []
    if root:
        shutil.chown(base, "postgres", "postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    data = base / "data"
    port = free_port()
    run = {"check": True, "capture_output": True, "text": True}
    subprocess.run(
        [*prefix, str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync"], **run
    )  # type: ignore[call-overload]
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50"
    try:
        subprocess.run(
            [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "log"), "-w", "start"],
            **run,  # type: ignore[call-overload]
        )
        subprocess.run(
            [*prefix, str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "forsale_test"],
            **run,  # type: ignore[call-overload]
        )
        yield f"postgresql://postgres@127.0.0.1:{port}/forsale_test"
    finally:
        subprocess.run(
            [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def fresh_postgres(postgres_url: str) -> str:
    """The PostgreSQL URL with the server's tables dropped, so each test starts empty."""
    from sqlalchemy import create_engine

    from forsale.server.storage import metadata, normalize_url

    engine = create_engine(normalize_url(postgres_url))
    metadata.drop_all(engine)
    engine.dispose()
    return postgres_url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each storage test runs on a SQLite file and on the PostgreSQL cluster."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'forsale.sqlite3'}"
    return str(request.getfixturevalue("fresh_postgres"))


class Server:
    """``forsale serve`` in a subprocess (a real uvicorn on a free port)."""

    def __init__(self, db: str, tmp: Path, *extra: str) -> None:
        self.db, self.tmp, self.extra = db, tmp, extra
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tmp / f"server-{self.port}.log"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> Server:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
        cmd = [sys.executable, "-m", "forsale", "serve", "--port", str(self.port), "--db", self.db]
        cmd += ["--bot-delay", "0", "--log-level", "warning", *self.extra]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=self.tmp)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base + "/api/health", timeout=1).status_code == 200:
                    return self
            time.sleep(0.1)
        raise RuntimeError(f"the server did not start: {self.log.read_text()}")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.kill()  # SIGKILL: no shutdown code runs
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[type[Server]]:
    """Start ``forsale serve`` subprocesses: ``serve(db_url, tmp_path).start()``; all stopped at the end."""
    started: list[Server] = []

    class Tracked(Server):
        def start(self) -> Server:
            started.append(self)
            return super().start()

    yield Tracked
    for server in started:
        server.stop()
