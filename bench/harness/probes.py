"""What a hostile client sends, and what the protocol allows back: the fuzzer's probes as Hypothesis strategies.

The limits and codes here are the protocol's (``docs/protocol.md``): ids the
server echoes (:func:`valid_id`), the error codes of the WebSocket and the
statuses of REST, the probes the fuzzer draws (:data:`PROBES`), mutated valid
messages (:data:`MUTATED`) and hostile request bodies (:func:`hostile_body`).
``tests/server/test_server_fuzz_rest.py`` sends the bodies to every route;
:mod:`harness.fuzzer` sends the rest.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

SAFE_INT = 2**53 - 1
"""The largest integer every JSON implementation holds exactly: the issue's bound for message ids."""
MAX_ID_CHARS = 64
MAX_FRAME = 64 * 1024
WS_ERRORS = {
    "bad_json", "bad_message", "too_large", "rate_limited", "hello_first", "bad_token", "not_seated",
    "not_started", "not_your_turn", "illegal", "game_over", "not_found", "timeout",
    "private_table", "not_your_seat", "cross_origin", "chat_closed", "not_finished", "no_rematch", "rematch_started",
}  # fmt: skip
REST_ERROR_STATUSES = {400, 403, 404, 409, 413, 429}
BROADCASTS = ("state", "table", "chat_history")
"""Message types that answer nobody in particular: the ``error``, ``ack``, ``pong``, ``left``, ``welcome``,
``chat`` and ``rematch`` a client's message gets are its replies (a ``chat`` or ``rematch`` without an id is a
broadcast too: the sender's own copy carries its id)."""
REFUSED = {"not_your_turn", "illegal", "game_over"}
INVALID = {"bad_message"}


def valid_id(value: Any) -> bool:
    """An id the protocol echoes: null, an integer within the JSON-safe range, or a short string of valid Unicode."""
    if value is None:
        return True
    if type(value) is int:
        return -SAFE_INT <= value <= SAFE_INT
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate
            return False
        return len(value) <= MAX_ID_CHARS
    return False


def text_of(message: Any) -> str:
    """JSON text as a hostile client would send it: lone surrogates as ``\\ud800`` escapes."""
    return json.dumps(message, ensure_ascii=True)


GOOD_IDS = st.one_of(
    st.none(),
    st.integers(-SAFE_INT, SAFE_INT),
    st.sampled_from([0, -1, SAFE_INT, -SAFE_INT]),
    st.text(max_size=8),
    st.sampled_from(["", "x" * MAX_ID_CHARS, "\u00e9\U0001f600", "17", "null"]),
)
BAD_IDS = st.one_of(
    st.sampled_from([2**53, -(2**53), 2**63, 2**64, -(2**63) - 1, 10**30, -(10**30), 10**400]),
    st.integers(min_value=SAFE_INT + 1),
    st.sampled_from(["\ud800", "\udfff", "a\udc00b", "x" * (MAX_ID_CHARS + 1), "y" * 1000]),
    st.sampled_from([True, False, 1.0, 2.5, -0.0, 1e300, [], [1], {}, {"id": 1}]),
)
JUNK = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=6),
        st.sampled_from([10**30, "\ud800", "act", "hello", "ping", "leave", "pass", "bid", "sell", "chat", "rematch"]),
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip
MESSAGE_KEYS = st.sampled_from(
    ["type", "action", "id", "token", "bid", "pass", "sell", "seat", "Type", "", "text", "accept", "invite"]
)


PASS_JSON = {"pass": True}
PROBES = [
    "legal act, bad id", "legal act, bad id", "ping, bad id", "hello, bad id", "leave, bad id",
    "unknown type, bad id", "illegal act", "illegal act", "replayed act", "mutated field", "mutated field",
    "mutated field", "second hello", "wrong token", "not an object", "bad json", "nested json", "oversize",
    "binary", "ping", "random", "random", "rest", "rest", "flood", "no such table",
]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn) -> tuple[dict[str, Any], bool]:
    """A valid message with one field broken: ``(message, ambiguous)``.

    ``ambiguous`` marks values the protocol may refuse either as malformed or
    as against the rules (a house 31, a bid of 10**30): both are errors.
    """
    choice = draw(st.integers(0, 9))
    if choice == 0:
        value = draw(st.sampled_from([5.0, "5", True, False, None, [5], {"n": 5}, 1.5, "\ud800", -0.0]))
        return {"type": "act", "action": {"bid": value}}, False
    if choice == 1:
        value = draw(st.sampled_from([1, 1.0, 0, False, "true", None, [True], "\ud800"]))
        return {"type": "act", "action": {"pass": value}}, False
    if choice == 2:
        value = draw(st.sampled_from([5.0, "5", True, None, [5], 17.0]))
        return {"type": "act", "action": {"sell": value}}, False
    if choice == 3:
        value = draw(st.sampled_from([0, -1, 31, 2**31, 10**30, -(10**30), 2**64]))
        return {"type": "act", "action": {draw(st.sampled_from(["bid", "sell"])): value}}, True
    if choice == 4:
        action = draw(st.sampled_from([{}, {"bid": 1, "pass": True}, {"bid": 1, "x": 1}, {"sell": 5, "bid": 1},
                                       {"Bid": 1}, {"pass": True, "sell": 3}]))  # fmt: skip
        return {"type": "act", "action": action}, False
    if choice == 5:
        return {"type": "act", "action": draw(st.sampled_from([None, [], "pass", 5, [{"pass": True}]]))}, False
    if choice == 6:
        return {"type": "act"}, False
    if choice == 7:
        kind = draw(st.sampled_from(["ACT", "act ", " act", "Ping", 1, None, True, ["act"], "\ud800", ""]))
        return {"type": kind, "action": {"pass": True}}, False
    if choice == 8:
        return {"type": draw(st.sampled_from(["act", "ping", "leave"])), "action": {"pass": True}, "extra": 1}, False
    token = draw(st.sampled_from([5, ["t"], {"t": 1}, True, "t" * 201, "\ud800"]))
    return {"type": "hello", "token": token}, False


MUTATED = mutated()


def hostile_json() -> st.SearchStrategy[Any]:
    """JSON values a hostile client sends in a request body."""
    leaves = st.one_of(
        st.none(), st.booleans(), st.integers(),
        st.sampled_from([2**63, 2**64, -(2**63) - 1, 10**30, 0, -1, 1, 5, 1000, 1001, 1e9, float("inf")]),
        st.floats(allow_nan=False), st.text(max_size=8),
        st.sampled_from(["\ud800", "x" * 5000, "hard:time=1e9", "hard:time=inf", "medium", "human", "30", "official"]),
    )  # fmt: skip
    return st.recursive(
        leaves, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=6,
    )  # fmt: skip


BODY_KEYS = st.sampled_from([
    "players", "rules", "seats", "time_limit", "memory_aid", "private", "join", "player_name", "name", "bot",
    "bots", "seat", "token", "creator_token", "starting_coins", "removed", "refund",
])  # fmt: skip


@st.composite
def hostile_body(draw: st.DrawFn) -> bytes:
    """A request body: an object of the API's own keys with hostile values, another JSON value, deep nesting, bytes."""
    kind = draw(st.sampled_from(["object", "object", "value", "nested", "bytes"]))
    if kind == "object":
        body = draw(st.dictionaries(BODY_KEYS | st.text(max_size=4), hostile_json(), max_size=4))
        return text_of(body).encode()
    if kind == "value":
        return text_of(draw(hostile_json())).encode()
    if kind == "nested":
        return (draw(st.sampled_from(["[", '{"a":', '{"rules":'])) * draw(st.integers(1, 20_000))).encode()[:MAX_FRAME]
    return draw(st.binary(max_size=64))
