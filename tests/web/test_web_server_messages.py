"""The server's refusals in the page's language (web/static/js/refused.js).

Every code the server can send (found in its source: each ``Refused(...)``,
``Refusal(...)``, ``rest_error(...)`` and WebSocket ``error(...)``) and every
``why`` a refused move gives (``forsale.refusals``) has a message in all five
catalogues; and in Chromium a move the rules refuse, sent over a real
WebSocket, comes back with its facts and is said in French with the numbers
the server gave.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from .test_web_i18n import LANGUAGES, LOCALES, catalogue

SRC = Path(__file__).resolve().parents[2] / "src" / "forsale"
# The calls that make an error a client receives, and which positional argument is its code.
_MAKERS = {"Refused": 0, "Refusal": 0, "rest_error": 0, "error": 0, "refuse": 1}


def _constants(tree: ast.Module) -> dict[str, str]:
    """A module's string constants (``ILLEGAL = "illegal"``, ``A, B = "a", "b"``)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = (
                zip(target.elts, node.value.elts)
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                else [(target, node.value)]
            )
            for name, value in pairs:
                if isinstance(name, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    out[name.id] = value.value
    return out


def server_codes() -> dict[str, set[str]]:
    """Every error code in the package's source -> the modules that send it."""
    codes: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        consts = _constants(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            # A bare error(...) (sockets.error), never a logger's log.error(...); self.refuse(conn, code, ...).
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name not in _MAKERS or (name == "error" and not isinstance(func, ast.Name)):
                continue
            if len(node.args) <= _MAKERS[name]:
                continue
            arg = node.args[_MAKERS[name]]
            code = (
                arg.value
                if isinstance(arg, ast.Constant)
                else consts.get(arg.id)
                if isinstance(arg, ast.Name)
                else None
            )
            if isinstance(code, str):
                codes.setdefault(code, set()).add(str(path.relative_to(SRC)))
    return codes


def refusal_whys() -> set[str]:
    """Every ``why`` a refusal gives: the literal ``{"why": "..."}`` and ``why = "..."`` of the package."""
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found |= set(re.findall(r'"why": "(\w+)"', text))
        found |= set(re.findall(r'\bwhy(?:, message)? = "(\w+)"', text))
    return found


def test_the_scan_finds_the_codes_it_must() -> None:
    """Not vacuous: the codes of the engine, the tables, the lobby, REST and the WebSocket are all found."""
    codes = server_codes()
    for code in (
        "illegal",
        "not_your_turn",
        "game_over",
        "seat_taken",
        "bad_rules",
        "not_found",
        "hello_first",
        "internal",
    ):
        assert code in codes, code
    assert {"too_low", "above_coins", "not_held", "turn", "chosen"} <= refusal_whys()


def test_every_code_the_server_can_send_has_a_message_in_every_language() -> None:
    codes = server_codes()
    for code in LANGUAGES:
        words = catalogue(code)
        missing = {c: sorted(where) for c, where in codes.items() if f"error.{c}" not in words}
        assert not missing, f"{code}: no error.<code> message for {missing}"


def test_every_reason_of_a_refused_move_has_a_message_in_every_language() -> None:
    for code in LANGUAGES:
        missing = sorted(why for why in refusal_whys() if f"error.why.{why}" not in catalogue(code))
        assert not missing, f"{code}: no error.why.<why> message for {missing}"


# Over the page's own seat token, a second connection to its table makes a move the rules refuse
# (a bid above the seat's coins), and the page's refused.js says the answer.
_REFUSED_MOVE = """async () => {
  const id = location.hash.split('/')[2];
  const token = JSON.parse(localStorage.getItem('forsale.seats'))[id].token;
  const ws = new WebSocket(`ws://${location.host}/ws/tables/${id}`);
  const answer = await new Promise((resolve, reject) => {
    ws.onopen = () => ws.send(JSON.stringify({type: 'hello', token}));
    ws.onmessage = (event) => {
      const msg = JSON.parse(event.data);
      if (msg.type === 'welcome') ws.send(JSON.stringify({type: 'act', action: {bid: 999}, id: 7}));
      if (msg.type === 'error' && msg.id === 7) resolve(msg);
    };
    ws.onerror = () => reject(new Error('no connection'));
  });
  ws.close();
  const { refusedText } = await import('/js/refused.js');
  return { answer, said: refusedText(answer) };
}"""


def test_a_refused_move_is_said_in_the_players_language(new_page: Callable[..., Page], player) -> None:
    page = new_page(locale=LOCALES["fr"])
    page.goto("/")
    page.select_option("#solo-players", "3")
    page.select_option("#solo-bot", "random")
    page.click("#play-solo")
    assert player(page).wait_turn() == "auction"  # my turn: the refusal is about the bid, not the turn
    got = page.evaluate(_REFUSED_MOVE)
    answer, said = got["answer"], got["said"]
    assert answer["code"] == "illegal" and answer["params"]["why"] == "above_coins", answer
    coins, high = answer["params"]["coins"], answer["params"]["high"]
    assert f"you hold {coins} coins" in answer["message"]  # the English message is still there, as before
    choices = catalogue("fr")["error.choices.range"].replace("{low}", f"{high + 1} k").replace("{high}", f"{coins} k")
    wanted = catalogue("fr")["error.why.above_coins"].replace("{coins}", f"{coins} k").replace("{choices}", choices)
    assert re.sub(r"[\u00a0\u202f]", " ", said) == re.sub(r"[\u00a0\u202f]", " ", wanted)
