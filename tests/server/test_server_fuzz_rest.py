"""The REST API fuzzed from its own OpenAPI schema (Schemathesis) against a real ``forsale serve``.

Schemathesis reads ``/api/openapi.json`` from a running server, generates
requests for every operation (valid ones, and, in its negative mode, ones
the schema forbids) and sends them over loopback; every response is checked
with all of Schemathesis' checks: never a 5xx, and status code, content
type, headers and body exactly as the schema documents them. Path and query
parameters are drawn partly from what the schema allows and partly from
real tables (waiting, playing, finished) and real tokens, so the handlers
behind the 404 are exercised too.

A schema that does not document what the server accepts makes the fuzzing
blind: :func:`test_every_post_operation_documents_its_json_body` asks that
each ``POST`` describes its body, so the generated bodies reach the
validation code.

The budget is bounded (a fixed number of examples per operation, a
deterministic seed) so the whole module runs in well under a minute; the
longer, randomised run is ``bench/fuzz.py``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forsale.server import create_app

pytestmark = pytest.mark.timeout(120)

MAX_EXAMPLES = 25
"""Examples per operation and generation mode: 13 operations answer within the module's minute."""


class Fixtures:
    """A real server with tables in every state, and the ids and tokens that hold something."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.table_ids: list[str] = []
        self.tokens: list[str] = []

    def populate(self) -> None:
        with httpx.Client(base_url=self.base, timeout=30) as http:
            waiting = http.post("/api/tables", json={"players": 3, "join": True}).json()
            solo = http.post("/api/solo", json={"players": 2, "bot": "random"}).json()
            bots = http.post("/api/tables", json={"players": 2, "seats": ["random", "random"]}).json()
            self.table_ids = [waiting["table"]["id"], solo["table"]["id"], bots["table"]["id"]]
            self.tokens = [waiting["token"], waiting["creator_token"], solo["token"]]
            deadline = time.monotonic() + 30
            while http.get(f"/api/tables/{bots['table']['id']}").json()["table"]["status"] != "over":
                assert time.monotonic() < deadline, "a table of two random bots did not finish within 30 s"
                time.sleep(0.05)


@pytest.fixture(scope="module")
def server(serve_process: type[Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fixtures]:
    workdir: Path = tmp_path_factory.mktemp("fuzz-rest")
    # Rate limits off: the fuzzer sends far more than 50 POST requests a second, and a 429 is not what it tests.
    proc = serve_process(f"sqlite:///{workdir / 'fuzz.sqlite3'}", workdir, "--rest-rate", "1000000").start()
    try:
        fixtures = Fixtures(proc.base)
        fixtures.populate()
        yield fixtures
        assert proc.proc.poll() is None, "the server died under the fuzzer"
    finally:
        proc.stop()
        log = proc.log.read_text(errors="replace")
        assert "Traceback" not in log, f"the server logged a traceback:\n{log[-4000:]}"


def served_schema() -> dict[str, Any]:
    """The OpenAPI document the server serves at ``/api/openapi.json`` (built without starting it).

    Schemathesis's lazy loader (``schemathesis.pytest.from_fixture``) cannot
    run under pytest 9 (it sets ``Function._nodeid``, which pytest 9 no
    longer has), so the schema is loaded when the module is collected, from
    the application itself; :func:`test_the_server_serves_the_schema_the_fuzzer_uses`
    checks that the running server serves exactly this document.
    """
    return create_app("sqlite:///:memory:").openapi()


SPEC = served_schema()
schema = schemathesis.openapi.from_dict(SPEC)


@schema.parametrize()
@schema.given(data=st.data())
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
def test_no_request_gets_a_5xx_or_an_answer_outside_the_schema(case: Any, data: Any, server: Fixtures) -> None:
    if "table_id" in (case.path_parameters or {}) and data.draw(st.booleans(), label="real table"):
        case.path_parameters["table_id"] = data.draw(st.sampled_from(server.table_ids), label="table_id")
    if case.query is not None and "token" in case.query and data.draw(st.booleans(), label="real token"):
        case.query["token"] = data.draw(st.sampled_from(server.tokens), label="token")
    case.call_and_validate(base_url=server.base)


def test_every_post_operation_documents_its_json_body(server: Fixtures) -> None:
    """The server refuses unknown keys and wrong types in every POST body; the schema must say what it takes."""
    spec = httpx.get(f"{server.base}/api/openapi.json").json()
    undocumented = [
        path
        for path, operations in spec["paths"].items()
        if "post" in operations
        and "application/json" not in operations["post"].get("requestBody", {}).get("content", {})
    ]
    assert not undocumented, f"POST operations whose JSON body the schema does not describe: {undocumented}"


def hostile_json() -> st.SearchStrategy[Any]:
    """JSON values a hostile client sends: huge and negative integers, floats, lone surrogates, deep nests."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([2**63, 2**64, -(2**63) - 1, 10**30, 0, -1, 1, 5, 1000, 1001]),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=80),
        st.sampled_from(["\ud800", "\udfff", "x" * 5000, "hard:time=1e9", "medium", "human", "30", "official"]),
    )
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
        max_leaves=12,
    )


KEYS = ["players", "rules", "seats", "time_limit", "memory_aid", "private", "join", "player_name", "name", "bot",
        "bots", "seat", "token", "creator_token", "starting_coins", "removed", "refund"]  # fmt: skip


@st.composite
def hostile_body(draw: st.DrawFn) -> bytes:
    """A request body: an object of the API's own keys with hostile values, or raw hostile bytes."""
    kind = draw(st.sampled_from(["object", "value", "nested", "bytes"]))
    if kind == "object":
        body = draw(st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), hostile_json(), max_size=5))
        return json.dumps(body).encode("utf-8", "surrogatepass")
    if kind == "value":
        return json.dumps(draw(hostile_json())).encode("utf-8", "surrogatepass")
    if kind == "nested":
        depth = draw(st.integers(1, 20_000))
        opener = draw(st.sampled_from(["[", '{"a":']))
        return (opener * depth).encode()[: 60 * 1024]
    return draw(st.binary(max_size=300))


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(path=st.sampled_from(["/api/tables", "/api/solo", "join", "leave", "settings"]), body=hostile_body(),
       table=st.integers(0, 2))  # fmt: skip
def test_hostile_bodies_get_a_documented_answer(server: Fixtures, path: str, body: bytes, table: int) -> None:
    """Whatever the body, the answer is a 2xx or a documented 4xx with the error envelope, never a 5xx."""
    if not path.startswith("/"):
        path = f"/api/tables/{server.table_ids[table]}/{path}"
    response = httpx.post(server.base + path, content=body, headers={"Content-Type": "application/json"}, timeout=30)
    assert response.status_code < 500, (path, body[:200], response.status_code, response.text[:300])
    if response.status_code >= 400:
        assert response.status_code in (400, 403, 404, 409, 413), (path, body[:200], response.status_code)
        error = response.json()["error"]
        assert set(error) == {"code", "message"} and isinstance(error["message"], str), response.text
    assert httpx.get(server.base + "/api/health", timeout=30).status_code == 200



def test_the_server_serves_the_schema_the_fuzzer_uses(server: Fixtures) -> None:
    assert httpx.get(f"{server.base}/api/openapi.json").json() == SPEC
