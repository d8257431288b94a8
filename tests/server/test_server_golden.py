"""The REST and WebSocket protocol, pinned: scripted games' traffic compared with a recorded golden file.

The server's modules may move and be renamed; what a client sees must not change. A real
``forsale serve`` plays the same scripted session every time (sign-up and sign-in, a table of three
people and a spectator with chat, refusals and a whole game, then a game of one person against two
bots), and every request, answer and WebSocket frame is written down in order, then compared with
``golden/traffic.json``, byte for byte once what is random by nature is replaced by placeholders.

Determinism: the server is started with a ``sitecustomize`` module that seeds the sources of randomness
the server draws from (the deals' ``random.SystemRandom``, ``secrets``' tokens and the bots' seeds),
so the same cards fall every run; ids, tokens, cookies and times are still replaced by stable
placeholders (``<id:1>``, ``<time>``...) in order of appearance, so the comparison does not depend on
how many random draws happened before. Nothing waits on a clock: every step reads the frames it
causes until the one that ends it (a state of a known ``seq``, an ack, an error), and the person
playing against bots acts only when every bot of that round has acted, so the order of frames is the
game's own.

To record the file again after an intended change of the protocol:
``FORSALE_GOLDEN=record .venv/bin/python -m pytest tests/server/test_server_golden.py``, then read the
diff of ``tests/server/golden/traffic.json`` before committing it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

pytestmark = pytest.mark.timeout(180)

GOLDEN = Path(__file__).with_name("golden") / "traffic.json"

SEEDING = """
import random, secrets
deals, tokens, seeds = random.Random(31), random.Random(32), random.Random(33)
class Seeded(random.Random):
    def __init__(self, x=None):
        super().__init__(deals.getrandbits(64))
random.SystemRandom = Seeded
secrets.token_bytes = lambda n=None: tokens.randbytes(32 if n is None else n)
secrets.randbits = seeds.getrandbits
secrets.choice = tokens.choice
secrets.randbelow = tokens.randrange
"""
"""A ``sitecustomize`` module for the server's process only (Python imports it at start-up from ``PYTHONPATH``):
the seeded randomness of a test, not a switch of the server's."""

TIME_KEYS = frozenset(
    {"at", "time", "now", "created_at", "started_at", "ended_at", "finished_at", "updated_at", "since"}
)
"""Keys whose numbers are clock readings: replaced by ``<time>`` (the values of ``deadlines`` too)."""
VOLATILE_KEYS = frozenset({"ready", "busy", "waiting"})
"""Keys whose numbers depend on timing (``/api/health``'s bot workers starting up): replaced by ``<volatile>``."""
RANDOM_KEYS = frozenset({"id", "table", "token", "creator_token", "game_id", "game", "invite", "session"})
"""Keys whose strings are drawn at random (ids, tokens): replaced by placeholders in order of appearance."""


class Normaliser:
    """Replaces random strings by ``<kind:n>`` (the same string, the same placeholder, everywhere) and times."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def learn(self, value: Any, key: str) -> None:
        if isinstance(value, str) and len(value) >= 6 and value not in self.names:
            self.names[value] = f"<{key}:{sum(1 for v in self.names.values() if v.startswith(f'<{key}:')) + 1}>"

    def walk(self, data: Any, key: str = "") -> Any:
        if key == "deadlines" and isinstance(data, dict):
            return {k: "<time>" for k in data}
        if isinstance(data, dict):
            return {k: self.walk(v, k) for k, v in data.items()}
        if isinstance(data, list):
            return [self.walk(v, key) for v in data]
        if isinstance(data, int | float) and not isinstance(data, bool):
            return "<time>" if key in TIME_KEYS else "<volatile>" if key in VOLATILE_KEYS else data
        if key in RANDOM_KEYS:
            self.learn(data, key)
        return self.text(data) if isinstance(data, str) else data

    def text(self, text: str) -> str:
        for value, name in self.names.items():
            text = text.replace(value, name)
        return text


class Recorder:
    """The session's traffic, in order: requests with their answers, frames sent and received per socket."""

    def __init__(self, base: str, ws: str) -> None:
        self.base, self.ws_base = base, ws
        self.norm = Normaliser()
        self.log: list[dict[str, Any]] = []
        self.http = httpx.Client(base_url=base, timeout=30)
        self.sockets = contextlib.ExitStack()

    def request(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        response = self.http.request(method, path, json=body, **kw)
        data = response.json() if response.headers.get("content-type", "").startswith("application/json") else None
        entry: dict[str, Any] = {"request": f"{method} {self.norm.text(path)}", "status": response.status_code}
        if body is not None:
            entry["body"] = self.norm.walk(body)
        entry["answer"] = self.norm.walk(data) if data is not None else response.headers.get("content-type")
        cookie = response.headers.get("set-cookie")
        if cookie:
            entry["set-cookie"] = re.sub(r"=[^;]*", "=<value>", cookie, count=1)
            entry["set-cookie"] = re.sub(r"expires=[^;]*", "expires=<time>", entry["set-cookie"], flags=re.I)
        self.log.append(entry)
        return data

    def socket(self, name: str, table: str, **kw: Any) -> Socket:
        return Socket(self, name, self.sockets.enter_context(connect(f"{self.ws_base}/ws/tables/{table}", **kw)))

    def close(self) -> None:
        self.sockets.close()
        self.http.close()


class Socket:
    """One WebSocket of the session: what it sends and every frame it reads are written to the log."""

    def __init__(self, recorder: Recorder, name: str, ws: ClientConnection) -> None:
        self.rec, self.name, self.ws = recorder, name, ws
        self.latest: dict[str, Any] = {}

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))
        self.rec.log.append({"socket": self.name, "sent": self.rec.norm.walk(message)})

    def read_until(self, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Read frames (each written down) until one for which ``done`` holds; that one."""
        while True:
            frame = json.loads(self.ws.recv(timeout=30))
            self.rec.log.append({"socket": self.name, "got": self.rec.norm.walk(frame)})
            if frame["type"] in ("welcome", "state"):
                self.latest = frame
            if done(frame):
                return frame

    def until_seq(self, seq: int) -> dict[str, Any]:
        return self.read_until(lambda f: f["type"] in ("welcome", "state") and f["seq"] >= seq)

    def until_type(self, kind: str) -> dict[str, Any]:
        return self.read_until(lambda f: f["type"] == kind)


def first_legal(view: dict[str, Any]) -> Any:
    """A fixed choice: the lowest bid above the current one (else a pass), the first card in a sale."""
    return view["legal"][0] if view["phase"] != "auction" else view["legal"][min(1, len(view["legal"]) - 1)]


def people_game(rec: Recorder) -> None:
    """Three people and a spectator: joins, refusals, chat, a ping and a whole game in lockstep."""
    created = rec.request("POST", "/api/tables", {"players": 3, "name": "Golden", "spectator_chat": True})
    table = created["table"]["id"]
    rec.request("GET", "/api/tables")
    tokens = [rec.request("POST", f"/api/tables/{table}/join", {"seat": 0, "name": "Ann"})["token"]]
    rec.request("POST", f"/api/tables/{table}/join", {"seat": 0, "name": "Imposter"})  # taken
    rec.request("POST", f"/api/tables/{table}/join", {"seat": 7, "name": "Nobody"})  # no such seat
    rec.request("POST", f"/api/tables/{table}/settings", {"creator_token": created["creator_token"], "hints": True})
    ann = rec.socket("ann", table)
    ann.send({"type": "hello", "token": tokens[0], "id": 1})
    ann.until_type("welcome")
    watcher = rec.socket("watcher", table)
    watcher.send({"type": "hello", "id": 1})
    watcher.until_type("welcome")
    ann.until_type("table")  # the watcher counted
    for seat, name in ((1, "Bob"), (2, "Cid")):
        tokens.append(rec.request("POST", f"/api/tables/{table}/join", {"seat": seat, "name": name})["token"])
        for ws in (ann, watcher):
            ws.until_type("table")
    bob, cid = rec.socket("bob", table), rec.socket("cid", table)
    for seat, ws in ((1, bob), (2, cid)):
        ws.send({"type": "hello", "token": tokens[seat], "id": 1})
        ws.until_type("welcome")
        for other in (ann, watcher, bob)[: 2 + (seat == 2)]:
            other.until_type("table")  # seen connecting
    sockets = {0: ann, 1: bob, 2: cid}
    bob.send({"type": "hello", "token": "not-a-token-at-all", "id": 2})
    bob.until_type("error")
    ann.send({"type": "chat", "text": "good luck!", "id": 2})
    for ws in (ann, watcher, bob, cid):
        ws.until_type("chat")
    watcher.send({"type": "chat", "text": "hello from the stands", "id": 2})
    for ws in (ann, watcher, bob, cid):
        ws.until_type("chat")
    watcher.send({"type": "act", "action": {"pass": True}, "id": 3})
    watcher.until_type("error")
    ann.send({"type": "ping", "id": 3})
    ann.until_type("pong")
    ann.send({"type": "act", "action": {"bid": "3"}, "id": 4})
    ann.until_type("error")
    message_id, refused_once = 10, False
    while ann.latest["status"] != "over":
        view = ann.latest["view"]
        seat = view["to_act"][0]
        if not refused_once:
            idle = sockets[(seat + 1) % 3]
            idle.send({"type": "act", "action": {"pass": True}, "id": message_id})
            idle.until_type("error")  # not its turn
            refused_once = True
        actor = sockets[seat]
        actor.send({"type": "act", "action": first_legal(actor.latest["view"]), "id": message_id})
        ack = actor.read_until(lambda f: f["type"] in ("ack", "error"))
        assert ack["type"] == "ack", ack
        for ws in (ann, watcher, bob, cid):
            ws.until_seq(ack["seq"])
        message_id += 1
    rec.request("GET", f"/api/tables/{table}")
    rec.request("GET", f"/api/tables/{table}/record")
    rec.request("GET", f"/api/tables/{table}/chat")


def bot_game(rec: Recorder) -> None:
    """One person against two random bots: the person acts only when every bot of the round has acted.

    The game starts when it is created, and the bots may move before the person's socket says hello:
    what the socket reads up to its first turn is not written down (its welcome's ``seq`` is timing's),
    but the game's record, fetched at the end, holds those moves."""
    created = rec.request("POST", "/api/solo", {"players": 3, "bot": "random", "player_name": "Dee"})
    table, token = created["table"]["id"], created["token"]
    dee = rec.socket("dee", table)
    dee.send({"type": "hello", "token": token, "id": 1})

    def waiting_for_me(frame: dict[str, Any]) -> bool:
        if frame["type"] not in ("welcome", "state"):
            return False
        to_act = frame["view"]["to_act"]
        return frame["status"] == "over" or to_act == [frame["seat"]]

    def after(seq: int) -> Callable[[dict[str, Any]], bool]:
        return lambda frame: frame["type"] == "state" and frame["seq"] >= seq and waiting_for_me(frame)

    log, rec.log = rec.log, []
    frame = dee.read_until(waiting_for_me)
    rec.log = log
    message_id = 1
    while frame["status"] != "over":
        dee.send({"type": "act", "action": first_legal(frame["view"]), "id": message_id})
        ack = dee.read_until(lambda f: f["type"] in ("ack", "error"))
        assert ack["type"] == "ack", ack
        frame = dee.read_until(after(ack["seq"]))
        message_id += 1
    rec.request("GET", f"/api/tables/{table}/record")
    rec.request("GET", f"/api/tables/{table}/replay")


def accounts(rec: Recorder) -> None:
    """Sign up, a refused second sign-up, sign out, a wrong password, sign in, who am I."""
    body, same = {"name": "Golda", "password": "a long enough password"}, {"Origin": rec.base}
    rec.request("POST", "/api/signup", body, headers=same)
    rec.request("POST", "/api/signup", body, headers=same)
    rec.request("GET", "/api/me")
    rec.request("POST", "/api/signout", {}, headers=same)
    rec.request("POST", "/api/signin", {**body, "password": "not the password"}, headers=same)
    rec.request("POST", "/api/signin", body, headers=same)
    rec.request("GET", "/api/me")
    rec.request("GET", "/api/players/Golda")
    rec.request("POST", "/api/signout", {}, headers=same)


def test_the_traffic_of_scripted_games_matches_the_golden_file(
    tmp_path: Path, serve_process: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeding = tmp_path / "seeding"
    seeding.mkdir()
    (seeding / "sitecustomize.py").write_text(SEEDING, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(seeding), os.environ.get("PYTHONPATH")])))
    server = serve_process(f"sqlite:///{tmp_path / 'golden.sqlite3'}", tmp_path)
    server.start()
    try:
        rec = Recorder(server.base, server.ws)
        for path in ("/api/health", "/api/bots", "/api/rulesets"):
            rec.request("GET", path)
        people_game(rec)
        bot_game(rec)
        accounts(rec)
        rec.close()
    finally:
        server.stop()
    lines = (json.dumps(entry, ensure_ascii=False, sort_keys=True) for entry in rec.log)
    text = "[\n" + ",\n".join(lines) + "\n]\n"  # one entry a line: a change reads as a diff of lines
    if os.environ.get("FORSALE_GOLDEN") == "record":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    golden = GOLDEN.read_text(encoding="utf-8")
    assert text == golden, "the traffic differs from golden/traffic.json (FORSALE_GOLDEN=record to see the diff)"
