"""Databases for a server under test or measurement: a throw-away PostgreSQL cluster, or a fresh SQLite file.

:func:`postgres` runs ``initdb`` and ``pg_ctl`` from Debian's packages in a
temporary directory (as the ``postgres`` user when run as root: PostgreSQL
refuses to run as root) and removes it afterwards. The test suite's
``postgres_url`` fixture starts one with ``fast=True`` (no fsync: tests
measure nothing); the benchmarks start it as PostgreSQL ships, so that a
measured commit costs what it costs on a server.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .serve import free_port


class PostgresMissing(RuntimeError):
    """PostgreSQL's binaries are not installed (``/usr/lib/postgresql/<version>/bin``)."""


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's ``bin`` directory, if any (versions compared as numbers)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    return Path(found[-1]).parent if found else None


@contextlib.contextmanager
def postgres(database: str = "bench", *, fast: bool = False) -> Iterator[str]:
    """A temporary PostgreSQL cluster holding an empty ``database``: its URL, while the block runs.

    ``fast``: no fsync, 50 connections at most and an immediate stop (for tests); otherwise PostgreSQL's
    own settings and a fast (clean) stop. :class:`PostgresMissing` if PostgreSQL is not installed.
    """
    bindir = postgres_bin()
    if bindir is None:
        raise PostgresMissing(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb); apt-get install postgresql"
        )
    base = Path(tempfile.mkdtemp(prefix="forsale-pg-"))
    prefix: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(base, "postgres", "postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    data = base / "data"
    port = free_port()
    initdb = [*prefix, str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"]
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1"
    if fast:
        initdb.append("--no-sync")
        options += " -c fsync=off -c max_connections=50"
    try:
        subprocess.run(initdb, check=True, capture_output=True)
        subprocess.run(
            [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "log"), "-w", "start"],
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [*prefix, str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", database],
            check=True,
            capture_output=True,
        )
        yield f"postgresql://postgres@127.0.0.1:{port}/{database}"
    finally:
        mode = "immediate" if fast else "fast"
        subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", mode, "stop"], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


@contextlib.contextmanager
def database(db: str, workdir: Path) -> Iterator[str]:
    """A fresh SQLite file in ``workdir`` (``sqlite``), a throw-away PostgreSQL cluster (``postgresql``), or the
    URL given, as the bench scripts' ``--db`` options read it."""
    if db == "sqlite":
        yield f"sqlite:///{workdir / 'bench.sqlite3'}"
    elif db in ("postgresql", "postgres"):
        with postgres() as url:
            yield url
    else:
        yield db
