"""Hostile clients against a real ``forsale serve``, while honest games are played (Hypothesis-driven).

Each run ("example") opens a few all-human tables on a real server over
loopback: one honest WebSocket per seat and an honest spectator play every
game to the end, in lockstep, choosing among the legal actions their own
views offer. Between honest moves, hostile clients send one *probe* at a
time: a mutated valid message (a legal move with an id beyond 64 bits or a
lone surrogate, a bid of ``5.0`` or ``"5"`` or ``true``, a pass of ``1``, a
house out of range, unknown or missing keys, a second hello), an
out-of-turn or replayed act, an unknown type, a JSON value that is not an
object, broken or deeply nested JSON, an oversize frame, a binary frame, a
flood, a wrong token, a connection to a table that does not exist, a
random JSON message from a stranger, or a hostile REST request. Hostile
clients are twins of every seat (they hold the seat's token), spectators,
and strangers that never said hello.

What is checked (each violation is a *finding*; a run lists them all):

- every probe gets exactly one reply, of the kind the protocol documents for
  it (``docs/protocol.md``): an ``error`` with the right code (or
  ``rate_limited``), with its ``id`` echoed when the id is valid and null
  otherwise; a ``pong`` for a valid ping; never a closed connection;
- no probe advances the table (its ``seq``, read over REST after each one);
- REST answers are never a 5xx, and every 4xx has the error envelope;
- every honest move is acknowledged with the next ``seq``, and every
  connection of the table then receives that ``state``;
- every snapshot any connection received (``welcome`` and ``state``) holds
  exactly ``view(state, seat).to_json()`` for the engine state after the same
  moves (rebuilt from the finished game's record), and the event the public
  description of that move;
- the finished game's record holds exactly the honest moves and referees as
  a complete game (:func:`forsale.record.referee`); the server is alive.

``tests/server/test_server_fuzz_ws.py`` runs a few examples as a test
(:func:`run_example` inside :func:`hypothesis_example`); ``bench/fuzz.py``
runs them for minutes against one server.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from hypothesis import strategies as st
from websockets.exceptions import InvalidStatus

from forsale import referee
from forsale.actions import move_to_json

from .probes import (
    BAD_IDS,
    GOOD_IDS,
    INVALID,
    JUNK,
    MAX_FRAME,
    MESSAGE_KEYS,
    MUTATED,
    PASS_JSON,
    PROBES,
    REFUSED,
    WS_ERRORS,
    hostile_body,
    text_of,
    valid_id,
)  # fmt: skip
from .referee import replay_states, rest_problem, snapshot_problem
from .wsclient import Client


@dataclass
class Table:
    """One honest game: its seats' tokens, honest clients, everyone attached, and the moves acknowledged."""

    id: str
    n: int
    tokens: list[str]
    honest: dict[int | None, Client] = field(default_factory=dict)
    attached: list[Client] = field(default_factory=list)  # every client that said hello here (gets broadcasts)
    actions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)  # the honest act messages, for replaying them
    hostile: list[Client] = field(default_factory=list)
    broken: str | None = None  # why the game can no longer be checked move by move

    @property
    def over(self) -> bool:
        return self.honest[None].latest_view()["phase"] == "over"


class Fuzzer:
    """One example: a few tables, honest play and probes interleaved as ``draw`` decides; findings collected."""

    def __init__(self, base: str, ws_base: str, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        self.base, self.ws_base, self.draw = base, ws_base, draw
        self.findings: list[tuple[str, str]] = []  # (kind, details)
        self.probes: Counter[str] = Counter()
        self.honest_moves = 0
        self.http: httpx.AsyncClient | None = None
        self.next_id = 1

    def pick(self, items: list[Any]) -> Any:
        """One of ``items``, drawn by index (so that a failing example prints small draws)."""
        return items[self.draw(st.integers(0, len(items) - 1))]

    def finding(self, kind: str, details: str) -> None:
        self.findings.append((kind, details[:600]))

    # -- setting up ------------------------------------------------------------------------
    async def new_table(self, n: int) -> Table:
        assert self.http is not None
        created = (await self.http.post("/api/tables", json={"players": n, "private": True})).json()
        table_id = created["table"]["id"]
        tokens = []
        for _ in range(n):
            tokens.append((await self.http.post(f"/api/tables/{table_id}/join", json={})).json()["token"])
        table = Table(table_id, n, tokens)
        for seat in [*range(n), None]:
            client = await Client.open(self.ws_base, table_id, f"honest seat {seat}")
            await client.ws.send(text_of({"type": "hello", "token": tokens[seat] if seat is not None else None}))
            welcome = await client.reply()
            assert welcome is not None and welcome["type"] == "welcome", (table_id, seat, welcome)
            client.status, client.seat = ("seated", seat) if seat is not None else ("spectator", None)
            table.honest[seat] = client
            table.attached.append(client)
        return table

    async def hostile_client(self, table: Table, role: str) -> Client:
        """A twin of a seat (its token), a spectator, or a stranger who has not said hello."""
        client = await Client.open(self.ws_base, table.id, f"hostile {role}")
        table.hostile.append(client)
        if role == "new":
            return client
        seat = self.draw(st.integers(0, table.n - 1)) if role == "twin" else None
        await client.ws.send(text_of({"type": "hello", "token": table.tokens[seat] if seat is not None else None}))
        welcome = await client.reply()
        if welcome is None or welcome.get("type") != "welcome":
            self.finding("hello refused", f"{role} hello got {welcome} (closed: {client.close_code})")
            return client  # still "new" (a refused hello changes nothing)
        client.status, client.seat = ("seated", seat) if seat is not None else ("spectator", None)
        table.attached.append(client)
        return client

    # -- honest play -----------------------------------------------------------------------
    async def honest_move(self, table: Table) -> None:
        spectator = table.honest[None].latest_view()
        seat = self.draw(st.sampled_from(spectator["to_act"]))
        v = table.honest[seat].latest_view()
        legal = v["legal"]
        if v["phase"] == "auction" and len(legal) > 1 and self.draw(st.booleans()):
            action = legal[self.draw(st.integers(1, min(3, len(legal) - 1)))]
        else:
            action = legal[0] if v["phase"] == "auction" else self.draw(st.sampled_from(legal))
        msg_id = self.next_id
        self.next_id += 1
        message = {"type": "act", "action": action, "id": msg_id}
        client = table.honest[seat]
        for _ in range(100):
            await client.ws.send(text_of(message))
            answer = await client.reply()
            if answer is None or answer.get("code") != "rate_limited":
                break
            await asyncio.sleep(0.1)  # the documented answer to rate_limited: slow down (20 a second)
        expected_seq = len(table.actions) + 1
        if answer != {"type": "ack", "id": msg_id, "seq": expected_seq}:
            table.broken = f"honest move {action} by seat {seat} at seq {expected_seq - 1} answered {answer}"
            self.finding("honest move not acknowledged", f"table {table.id}: {table.broken}")
            return
        table.actions.append((seat, action))
        table.sent.append(message)
        self.honest_moves += 1
        for other in list(table.attached):
            got = await other.wait(lambda other=other: other.seq() >= expected_seq or None)
            if got is None and other in table.honest.values():
                table.broken = f"{other.label} did not receive state {expected_seq} (closed: {other.close_code})"
                self.finding("state not delivered", f"table {table.id}: {table.broken}")
                return
            if got is None:
                table.attached.remove(other)  # a hostile connection the server closed (a flood, say)

    # -- probes ----------------------------------------------------------------------------
    async def probe(self, tables: list[Table]) -> None:
        table = self.pick(tables)
        kind = self.draw(st.sampled_from(PROBES))
        self.probes[kind] += 1
        if kind == "rest":
            await self.rest_probe(table)
            return
        if kind == "no such table":
            await self.no_such_table()
            return
        if kind == "flood":
            await self.flood(table)
            return
        role = self.draw(st.sampled_from(["twin", "twin", "spectator", "new"]))
        reuse = [c for c in table.hostile if not c.closed and c.status == {"twin": "seated"}.get(role, role)]
        client = self.pick(reuse) if reuse and self.draw(st.booleans()) else None
        if client is None:
            client = await self.hostile_client(table, role)
        await self.send_probe(table, client, kind)

    async def send_probe(self, table: Table, client: Client, kind: str) -> None:
        frame, expected, msg_id = self.build(table, client, kind)
        before = len(table.actions)
        await client.ws.send(frame)
        answer = await client.reply()
        what = f"{kind} from {client.label} ({client.status}) at table {table.id} seq {before}: {frame[:300]!r}"
        if answer is None:
            self.finding(f"{kind}: no reply", f"{what}: connection closed with code {client.close_code}")
        else:
            self.check_reply(kind, what, answer, expected, msg_id, client)
        await self.check_seq(table, what)

    def check_reply(
        self, kind: str, what: str, answer: dict[str, Any], expected: set[str], msg_id: Any, client: Client
    ) -> None:
        if answer.get("type") == "error":
            code = answer.get("code")
            shape = set(answer) - {"params"}  # a refused move's facts, for the page's own words (docs/protocol.md)
            params_ok = isinstance(answer.get("params", {}), dict)
            if (
                shape != {"type", "code", "message", "id"}
                or not isinstance(answer.get("message"), str)
                or not params_ok
            ):
                self.finding(f"{kind}: malformed error", f"{what}: {answer}")
            elif code == "rate_limited":
                return
            elif "*" not in expected and code not in expected:
                self.finding(f"{kind}: wrong code", f"{what}: expected {sorted(expected)}, got {answer}")
            elif code not in WS_ERRORS:
                self.finding(f"{kind}: undocumented code", f"{what}: {answer}")
            expected_id = msg_id if valid_id(msg_id) and code not in ("bad_json", "too_large") else None
            if answer.get("id") != expected_id:
                self.finding(f"{kind}: id not echoed", f"{what}: expected id {expected_id!r}, got {answer}")
        elif answer.get("type") == "pong" and ("pong" in expected or "*" in expected):
            if answer.get("id") != msg_id or type(answer.get("time")) is not int:
                self.finding(f"{kind}: bad pong", f"{what}: {answer}")
        elif answer.get("type") in ("chat", "rematch") and "*" in expected:  # junk that was a valid chat or rematch
            if answer.get("id") != msg_id:
                self.finding(f"{kind}: id not echoed", f"{what}: expected id {msg_id!r}, got {answer}")
        elif answer.get("type") == "welcome" and "*" in expected and client.status == "new":
            client.status = "spectator" if answer.get("seat") is None else "seated"
        else:
            self.finding(f"{kind}: unexpected reply", f"{what}: expected {sorted(expected)}, got {answer}")

    async def check_seq(self, table: Table, what: str) -> None:
        if table.broken:
            return
        assert self.http is not None
        response = await self.http.get(f"/api/tables/{table.id}")
        if response.status_code >= 500:
            self.finding("rest 5xx", f"GET /api/tables/{table.id} after {what}: {response.status_code}")
            return
        seq = response.json()["table"]["seq"]
        if seq != len(table.actions):
            table.broken = f"seq {seq} after {what}, but {len(table.actions)} honest moves"
            self.finding("probe advanced the game", table.broken)

    def build(self, table: Table, client: Client, kind: str) -> tuple[str | bytes, set[str], Any]:
        """The frame to send, the reply codes the protocol allows for it, and the id it carries."""
        draw = self.draw
        good_id = draw(GOOD_IDS)
        v = table.honest[client.seat].latest_view() if client.seat is not None else table.honest[None].latest_view()
        before_hello = {"hello_first"} if client.status == "new" else None
        if kind == "legal act, bad id":  # the desync of issue 13: the move is legal, the id is not
            action = draw(st.sampled_from(v["legal"])) if client.status == "seated" and v["legal"] else PASS_JSON
            msg_id = draw(BAD_IDS)
            return text_of({"type": "act", "action": action, "id": msg_id}), INVALID, msg_id
        if kind in ("ping, bad id", "hello, bad id", "leave, bad id", "unknown type, bad id"):
            msg_id = draw(BAD_IDS)
            message: dict[str, Any] = {
                "ping, bad id": {"type": "ping"},
                "hello, bad id": {"type": "hello", "token": draw(st.sampled_from([*table.tokens, "x" * 32, None]))},
                "leave, bad id": {"type": "leave"},
                "unknown type, bad id": {"type": draw(st.text(max_size=6))},
            }[kind]
            return text_of({**message, "id": msg_id}), INVALID, msg_id
        if kind == "illegal act":
            action = self.illegal_action(table, client, v)
            if action is None:
                return text_of({"type": "ping", "id": good_id}), {"pong"}, good_id
            code = before_hello or ({"not_seated"} if client.status == "spectator" else REFUSED)
            return text_of({"type": "act", "action": action, "id": good_id}), code, good_id
        if kind == "replayed act" and table.sent:
            message = draw(st.sampled_from(table.sent))
            action = message["action"]
            if client.status == "seated" and action in v["legal"]:
                return text_of({"type": "ping", "id": good_id}), {"pong"}, good_id
            code = before_hello or ({"not_seated"} if client.status == "spectator" else REFUSED)
            return text_of(message), code, message["id"]
        if kind == "mutated field":
            message, ambiguous = draw(MUTATED)
            allowed = INVALID | (REFUSED | {"not_seated"} if ambiguous else set()) | (before_hello or set())
            if ambiguous and client.status == "seated" and self.maybe_legal(message, v):
                return text_of({"type": "ping", "id": good_id}), {"pong"}, good_id
            return text_of({**message, "id": good_id}), allowed, good_id
        if kind == "second hello" and client.status != "new":
            return text_of({"type": "hello", "token": None, "id": good_id}), INVALID, good_id
        if kind == "wrong token" and client.status == "new":
            token = draw(st.sampled_from(["A" * 32, "", "\u00e9" * 32, "t" * 200]))
            return text_of({"type": "hello", "token": token, "id": good_id}), {"bad_token"}, good_id
        if kind == "not an object":
            return (
                text_of(draw(st.one_of(st.lists(JUNK, max_size=3), st.integers(), st.text(max_size=8), st.none()))),
                INVALID,
                None,
            )
        if kind == "bad json":
            text = draw(st.sampled_from(['{"type": "ping"', "{", "}", "", "nul", "[1,]", '{"type":"ping",}', "\u00ff"]))
            return text, {"bad_json"}, None
        if kind == "nested json":
            depth = draw(st.integers(1, 20_000))
            opener = draw(st.sampled_from(["[", '{"a":', '{"type":"act","action":']))
            return (opener * depth)[:MAX_FRAME], {"bad_json", "bad_message"}, None
        if kind == "oversize":
            size = draw(st.integers(MAX_FRAME + 1, 200 * 1024))
            return text_of({"type": "ping", "id": good_id, "pad": "z" * size}), {"too_large"}, None
        if kind == "binary":
            return draw(st.binary(max_size=32)) + b"{}", INVALID, None
        if kind == "ping":
            return text_of({"type": "ping", "id": good_id}), {"pong"}, good_id
        # random JSON from anyone: a reply of any documented kind (a seated client's junk is never a legal act
        # nor a leave: those would change the honest game)
        junk = draw(st.dictionaries(MESSAGE_KEYS, JUNK, max_size=4))
        if client.status == "seated" and isinstance(junk.get("action"), dict):
            junk["action"] = [junk["action"]]
        if client.status == "seated" and junk.get("type") == "leave":  # a valid leave would give the seat away
            junk["type"] = "leave!"
        if junk.get("type") in ("chat", "rematch") and junk.get("id") is None:
            junk["id"] = "junk"  # a valid one's answer is told from the broadcasts by its id
        return text_of(junk), {"*"}, junk.get("id")

    def illegal_action(self, table: Table, client: Client, v: dict[str, Any]) -> dict[str, Any] | None:
        """An action against the rules for this client's seat now (or any action from a stranger)."""
        seat = client.seat if client.seat is not None else 0
        coins = v["coins"][seat] if v["coins"] else 0
        candidates = [
            {"pass": True}, {"bid": v["high"] + 1}, {"bid": max(1, v["high"])}, {"bid": coins + 1}, {"bid": 1},
            {"bid": 1000}, {"bid": 1001}, {"bid": 123_456}, {"sell": self.draw(st.integers(1, 30))},
        ]  # fmt: skip
        if client.status == "seated":
            candidates = [a for a in candidates if a not in v["legal"]]
        return self.draw(st.sampled_from(candidates)) if candidates else None

    @staticmethod
    def maybe_legal(message: dict[str, Any], v: dict[str, Any]) -> bool:
        return message.get("type") == "act" and message.get("action") in v["legal"]

    async def flood(self, table: Table) -> None:
        """A fresh spectator sends many pings at once: each gets one reply, a pong or ``rate_limited``."""
        client = await self.hostile_client(table, "spectator")
        count = self.draw(st.integers(41, 120))
        for i in range(count):
            await client.ws.send(text_of({"type": "ping", "id": i}))
        for i in range(count):
            answer = await client.reply()
            if answer is None:
                self.finding("flood: no reply", f"reply {i} of {count} pings never came (closed: {client.close_code})")
                return
            if answer.get("type") == "pong" and answer.get("id") != i:
                self.finding("flood: replies out of order", f"ping {i} answered {answer}")
            elif answer.get("type") != "pong" and answer.get("code") != "rate_limited":
                self.finding("flood: unexpected reply", f"ping {i} answered {answer}")
        await self.check_seq(table, "a flood of pings")

    async def no_such_table(self) -> None:
        table_id = self.draw(
            st.sampled_from(["nosuchtable", "x" * 33, "a%2Fb", "%2F", "..", "a%20b", "%00", "%C3%A9", "%ED%A0%80"])
        )
        what = f"a connection to /ws/tables/{table_id}"
        try:
            client = await Client.open(self.ws_base, table_id, "stranger")
        except InvalidStatus as refused:
            self.finding("no such table: handshake refused", f"{what}: HTTP {refused.response.status_code}")
            return
        answer = await client.reply()
        await client.wait(lambda: None if not client.closed else True)
        if answer is None or answer.get("code") != "not_found" or client.close_code != 4404:
            self.finding("no such table: wrong answer", f"{what}: {answer}, close code {client.close_code}")
        await client.close()

    async def rest_probe(self, table: Table) -> None:
        assert self.http is not None
        path = self.draw(st.sampled_from(["/api/tables", "/api/solo", "join", "leave", "settings", "view", "get"]))
        body = self.draw(hostile_body())
        if path == "view":
            token = self.draw(st.sampled_from([*table.tokens, "%ED%A0%80", "x" * 5000, "%2F", "%00", "%FF"]))
            response = await self.http.get(f"/api/tables/{table.id}/view?token={token}")
        elif path == "get":
            response = await self.http.get(f"/api/tables/{self.draw(st.sampled_from([table.id, 'a%2Fb', 'x' * 40]))}")
        else:
            url = path if path.startswith("/") else f"/api/tables/{table.id}/{path}"
            response = await self.http.post(url, content=body, headers={"Content-Type": "application/json"})
        what = f"{response.request.method} {response.request.url.path} {body[:200]!r}"
        problem = rest_problem(response)
        if problem:
            self.finding(f"rest: {problem}", what)
        await self.check_seq(table, what)

    # -- the whole example -----------------------------------------------------------------
    async def run(self, tables: int, steps_between: int) -> None:
        async with httpx.AsyncClient(base_url=self.base, timeout=30) as self.http:
            games = [await self.new_table(self.draw(st.integers(3, 6))) for _ in range(tables)]
            try:
                while True:
                    live = [t for t in games if not t.broken and not t.over]
                    if not live:
                        break
                    for _ in range(self.draw(st.integers(min(1, steps_between), steps_between))):
                        await self.probe(live)
                    await self.honest_move(self.pick(live))
                for table in games:
                    if not table.broken:
                        await self.check_game(table)
                health = await self.http.get("/api/health")
                if health.status_code != 200:
                    self.finding("server down", f"/api/health answered {health.status_code}")
            finally:
                for table in games:
                    for client in [*table.honest.values(), *table.hostile]:
                        await client.close()

    async def check_game(self, table: Table) -> None:
        """The record holds exactly the honest moves; every snapshot anyone got is the engine's view."""
        assert self.http is not None
        response = await self.http.get(f"/api/tables/{table.id}/record")
        if response.status_code != 200:
            self.finding("record unavailable", f"table {table.id}: {response.status_code} {response.text[:200]}")
            return
        record = response.json()
        states = replay_states(record, table.actions)
        if record["moves"] != [move_to_json(seat, action) for seat, action in states[-1].moves]:
            self.finding("record is not the honest moves", f"table {table.id}")
        status, result = referee(json.dumps(record))
        if status != 0 or not result.get("complete"):
            self.finding("record does not referee", f"table {table.id}: {result}")
        for client in [*table.honest.values(), *table.hostile]:
            for message in client.messages:
                problem = snapshot_problem(message, client.seat, states, table.actions)
                if problem:
                    self.finding("snapshot is not the seat's view", f"{client.label} at table {table.id}: {problem}")
                    break


def run_example(base: str, draw: Callable[[Any], Any], tables: int = 2, steps_between: int = 3) -> Fuzzer:
    """One example against the server at ``base`` (``http://host:port``); returns the fuzzer with its findings."""
    fuzzer = Fuzzer(base, "ws" + base[len("http") :], draw)
    asyncio.run(fuzzer.run(tables, steps_between))
    return fuzzer


def hypothesis_example(seed: int, body: Callable[[Callable[[Any], Any]], None]) -> bool:
    """Run ``body(draw)`` once on a random example Hypothesis generates from ``seed``; False if it drew none.

    An example's draws depend on what the server answered (whose turn it is,
    how many legal moves there are, how long the game lasts), so the same
    choices never replay the same way. Hypothesis assumes they do: when a
    new example shares a prefix of choices with an earlier one and then
    draws differently, it stops with ``FlakyStrategyDefinition``. So each
    call runs exactly one real example: Hypothesis's first example is always
    the simplest one (every choice minimal), which is skipped at its first
    draw; its second is random, and the last. Nothing is replayed or shrunk;
    the caller collects the findings.
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    ran = False

    @hypothesis_seed(seed)
    @settings(max_examples=2, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(st.data())
    def example(data: Any) -> None:
        nonlocal ran
        if data.draw(st.integers(0, 2**62)) == 0:  # the simplest example: every later choice would be minimal too
            return
        ran = True
        body(data.draw)

    example()
    return ran
