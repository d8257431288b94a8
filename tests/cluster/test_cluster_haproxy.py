"""The shipped ``deploy/haproxy.cfg`` starts as it is, ``global`` section included, within common open-file limits.

The cluster tests run it from ``defaults`` down; its ``maxconn`` was 50000,
which needs about 100,000 open files: HAProxy refused to start wherever the
hard limit was lower ("Cannot raise FD limit"), which is common in containers.
"""

from __future__ import annotations

import re
import resource
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from harness.cluster import HAPROXY_CFG, Node, haproxy_config
from harness.serve import free_port

FLOOR = 20000
"""The hard open-file limit the shipped configuration must start within (docs/deploy.md, "Open files")."""


def test_the_shipped_global_maxconn_starts_within_a_common_open_file_limit(tmp_path: Path) -> None:
    if shutil.which("haproxy") is None:
        pytest.skip("HAProxy is not installed; apt-get install haproxy")
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < FLOOR:
        pytest.skip(f"this machine's hard open-file limit is {hard}, below the {FLOOR} the configuration is made for")
    shipped = HAPROXY_CFG.read_text()
    maxconn = re.search(r"^    maxconn (\d+)$", shipped[: shipped.index("\ndefaults")], re.MULTILINE)
    assert maxconn is not None
    assert 2 * int(maxconn.group(1)) + 1000 <= FLOOR  # what HAProxy asks for, roughly
    stats = free_port()
    nodes = [Node(f"n{i}", free_port(), "", tmp_path, 1.0, []) for i in (1, 2, 3)]
    config = haproxy_config(free_port(), stats, nodes)  # loopback, no node running
    config = config.replace("global\n    maxconn 4000\n", f"global\n    maxconn {maxconn.group(1)}\n", 1)
    (tmp_path / "haproxy.cfg").write_text(config)
    proc = subprocess.Popen(
        ["haproxy", "-db", "-f", str(tmp_path / "haproxy.cfg")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, proc.communicate()[0].decode()[-2000:]
            try:
                if httpx.get(f"http://127.0.0.1:{stats}/;csv", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "HAProxy's stats page never answered"
            time.sleep(0.05)
    finally:
        proc.terminate()
        proc.wait(10)
