"""Property-based WebSocket fuzzing of a real ``forsale serve``, interleaved with honest play.

Hypothesis drives the harness's fuzzer (:mod:`harness.fuzzer`, shared with
the longer run of ``bench/fuzz.py``): a few all-human tables are played to the end over
real WebSockets on loopback while hostile twins of every seat, spectators
and strangers send mutated, out-of-turn, replayed, malformed, oversize,
binary and flooding messages, and hostile REST requests go in between. The
example fails on any *finding*: a probe without its documented error reply
(or with its id not echoed), a probe that advanced a table, a 5xx, an honest
move not acknowledged or not delivered, a snapshot that is not
``view(state, seat)`` for the engine state after the same moves, a record
that is not exactly the honest moves. The server must be alive at the end
and its log free of tracebacks (bad input is no bug of ours).

The budget is a few deterministic examples (well under 90 s on two cores);
``python bench/fuzz.py --minutes 10`` runs the same for longer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.fuzzer import hypothesis_example, run_example

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def server(serve_process: type[Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    workdir: Path = tmp_path_factory.mktemp("fuzz-ws")
    proc = serve_process(f"sqlite:///{workdir / 'fuzz.sqlite3'}", workdir, "--rest-rate", "1000000").start()
    try:
        yield proc
    finally:
        proc.stop()


def test_hostile_messages_never_desynchronise_honest_games(server: Any) -> None:
    """Three random examples of two tables each (seeds 0-2); the findings of all of them are listed together.

    Hypothesis only generates here (:func:`~harness.fuzzer.hypothesis_example`): an
    example talks to a live server, so it cannot be replayed draw for draw,
    and a failing one is not shrunk; its findings say what went wrong.
    """
    findings: list[tuple[str, str]] = []
    counts = {"examples": 0, "moves": 0, "probes": 0}

    def body(draw: Any) -> None:
        fuzzer = run_example(server.base, draw, tables=2, steps_between=2)
        findings.extend(fuzzer.findings)
        counts["moves"] += fuzzer.honest_moves
        counts["probes"] += sum(fuzzer.probes.values())

    for seed in range(3):
        counts["examples"] += hypothesis_example(seed, body)
    assert counts["examples"] == 3 and counts["moves"] > 0 and counts["probes"] > 0, counts
    assert not findings, f"{len(findings)} findings:\n" + "\n".join(
        f"- {kind}: {details}" for kind, details in findings
    )


def test_the_server_survived_without_a_traceback(server: Any) -> None:
    """Runs after the fuzzing (tests run in file order): alive, and no traceback for anything a client sent."""
    assert server.proc.poll() is None, "the server died under the fuzzer"
    assert httpx.get(server.base + "/api/health", timeout=10).status_code == 200
    log = server.log.read_text(errors="replace")
    assert "Traceback" not in log, f"the server logged {log.count('Traceback')} tracebacks:\n{log[-3000:]}"
