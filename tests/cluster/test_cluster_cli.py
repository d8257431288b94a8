"""``forsale serve --cluster`` refuses what cannot work before it starts anything."""

from __future__ import annotations

import subprocess

import pytest


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--db", "sqlite:///forsale.sqlite3"], "--cluster needs a PostgreSQL --db"),
        (["--db", "postgresql://nobody@127.0.0.1:1/none", "--node", "n 1"], "a node name is 1-64 letters"),
        (["--db", "postgresql://nobody@127.0.0.1:1/none", "--node", "n1", "--lease-ttl", "0.1"], "lease time"),
    ],
)
def test_serve_cluster_refuses_a_database_or_node_it_cannot_run_with(
    forsale_cmd: list[str], forsale_env: dict[str, str], tmp_path: object, args: list[str], says: str
) -> None:
    proc = subprocess.run(
        [*forsale_cmd, "serve", "--cluster", *args], capture_output=True, text=True, env=forsale_env, cwd=tmp_path,
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert says in proc.stderr
