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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.specs.openapi.checks import positive_data_acceptance
from websockets.sync.client import connect

from forsale.server import create_app
from harness.probes import hostile_body
from harness.referee import rest_problem

pytestmark = pytest.mark.timeout(120)

MAX_EXAMPLES = 25
"""Examples per operation and generation mode: 13 operations answer within the module's minute."""


class Fixtures:
    """A real server with tables in every state, and the ids and tokens that hold something."""

    def __init__(self, base: str, process: Any) -> None:
        self.base, self.process = base, process
        self.http = httpx.Client(base_url=base, timeout=30)  # one keep-alive connection: a broken one shows
        self.table_ids: list[str] = []
        self.tokens: list[str] = []

    def populate(self) -> None:
        with httpx.Client(base_url=self.base, timeout=30) as http:
            waiting = http.post("/api/tables", json={"players": 3, "join": True}).json()
            solo = http.post("/api/solo", json={"players": 2, "bot": "random"}).json()
            bots = http.post("/api/tables", json={"players": 2, "seats": ["random", "random"]}).json()
            self.table_ids = [waiting["table"]["id"], solo["table"]["id"], bots["table"]["id"]]
            self.tokens = [waiting["token"], waiting["creator_token"], solo["token"]]
        # watch the table of bots to its end, so that one table is finished (records, replays)
        with connect(f"ws{self.base[4:]}/ws/tables/{self.table_ids[2]}", open_timeout=30) as ws:
            ws.send(json.dumps({"type": "hello"}))
            while json.loads(ws.recv(timeout=30)).get("status") != "over":
                pass


@pytest.fixture(scope="module")
def server(serve_process: type[Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fixtures]:
    workdir: Path = tmp_path_factory.mktemp("fuzz-rest")
    # Rate limits off: the fuzzer sends far more than 50 POST requests a second, and a 429 is not what it tests.
    proc = serve_process(f"sqlite:///{workdir / 'fuzz.sqlite3'}", workdir, "--rest-rate", "1000000").start()
    try:
        fixtures = Fixtures(proc.base, proc)
        fixtures.populate()
        yield fixtures
        fixtures.http.close()
    finally:
        proc.stop()


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

REFUSALS_NO_SCHEMA_CAN_STATE = frozenset(
    {"bad_seats", "bad_bot", "bad_rules", "bad_name", "bad_password", "bad_clock", "hints_off"}
)
"""400 codes for bodies the schema allows but the game cannot: as many seats as players, a bot the registry
can build, rules whose knobs deal whole rounds, account names and passwords as they read once NFKC-normalised,
no hints at a rated table (nor a bot with options, nor bots alone). JSON Schema cannot say these, so they are the
only refusals a schema-valid body may get; a ``bad_request`` or ``bad_json`` for one would mean the schema and the
server disagree."""


@schemathesis.check
def schema_valid_bodies_are_accepted_or_refused_for_the_game(ctx: Any, response: Any, case: Any) -> bool | None:
    """Schemathesis' positive-data check, except for the refusals in :data:`REFUSALS_NO_SCHEMA_CAN_STATE`."""
    if response.status_code == 400:
        try:
            code = json.loads(response.content)["error"]["code"]
        except (ValueError, KeyError, TypeError):
            code = None
        if code in REFUSALS_NO_SCHEMA_CAN_STATE:
            return None
    return positive_data_acceptance(ctx, response, case)


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
    case.call_and_validate(
        base_url=server.base,
        excluded_checks=[positive_data_acceptance],
        additional_checks=[schema_valid_bodies_are_accepted_or_refused_for_the_game],
    )


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


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(path=st.sampled_from(["/api/tables", "/api/solo", "join", "leave", "settings"]), body=hostile_body(),
       table=st.integers(0, 2))  # fmt: skip
def test_hostile_bodies_get_a_documented_answer(server: Fixtures, path: str, body: bytes, table: int) -> None:
    """Whatever the body, the answer is a 2xx or a documented 4xx with the error envelope, never a 5xx."""
    if not path.startswith("/"):
        path = f"/api/tables/{server.table_ids[table]}/{path}"
    response = server.http.post(path, content=body, headers={"Content-Type": "application/json"})
    assert rest_problem(response) is None, (path, body[:200], rest_problem(response))
    assert server.http.get("/api/health").status_code == 200


def test_the_server_serves_the_schema_the_fuzzer_uses(server: Fixtures) -> None:
    assert httpx.get(f"{server.base}/api/openapi.json").json() == SPEC


def test_the_server_survived_without_a_traceback(server: Fixtures) -> None:
    """Runs last (tests run in file order): alive, and no traceback for anything a client sent."""
    assert server.process.proc.poll() is None, "the server died under the fuzzer"
    log = server.process.log.read_text(errors="replace")
    assert "Traceback" not in log, f"the server logged {log.count('Traceback')} tracebacks:\n{log[-3000:]}"
