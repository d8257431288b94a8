"""A password change ends the account's seat tokens, and the page that changed it plays on (real Chromium).

The server replaces the seat tokens of the account's games under way when its password changes (a thief's copy of
the old session may have fetched one with ``resume``: ``tests/server/test_server_csrf.py``), and tells the
sockets seated with them ``bad_token`` with ``why: password_changed``. The page still signed in (the one that
changed the password) takes its seat back with a fresh token at once, instead of dropping to watching.
"""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from .accounts import PASSWORD, sign_up, unique

CHANGE = """async ([old_password, new_password]) => (await fetch("/api/me/password", {
  method: "POST",
  headers: {"content-type": "application/json"},
  body: JSON.stringify({old_password, new_password}),
})).status"""
TOKEN = """() => {
  const id = location.hash.split("/")[2];
  return (JSON.parse(localStorage.getItem("forsale.seats") || "{}")[id] || {}).token || null;
}"""

CREATOR = TOKEN.replace(").token ||", ").creator ||")
SETTINGS = """async ([id, creator_token]) => (await fetch(`/api/tables/${id}/settings`, {
  method: "POST",
  headers: {"content-type": "application/json"},
  body: JSON.stringify({creator_token, memory_aid: false}),
})).status"""


def test_the_page_that_changed_the_password_keeps_its_seat(new_page: Callable[..., Page], player) -> None:
    page = new_page()
    page.goto("/")
    name = unique("Pat")
    sign_up(page, name)
    page.wait_for_selector("#play-solo")
    page.select_option("#solo-players", "2")
    page.select_option("#solo-bot", "random")
    page.click("#play-solo")
    page.wait_for_selector(".game[data-phase=auction]")
    me = player(page)
    me.play_turn()
    before = page.evaluate(TOKEN)
    creator = page.evaluate(CREATOR)
    assert before and creator
    assert page.evaluate(CHANGE, [PASSWORD, "another long password"]) == 200
    # The old token ended; the page resumed the seat with its new session: a new token, and the seat plays on.
    page.wait_for_function(f"() => ({TOKEN})() && ({TOKEN})() !== {before!r}")
    assert me.play_turn() in ("auction", "sale", "over")
    # The creator token ended too (a thief's copy would keep the creator's rights: tests/server/test_server_csrf.py);
    # the page got a fresh one, which works.
    page.wait_for_function(f"() => ({CREATOR})() && ({CREATOR})() !== {creator!r}")
    table_id = page.evaluate("() => location.hash.split('/')[2]")
    assert page.evaluate(SETTINGS, [table_id, page.evaluate(CREATOR)]) == 200
    assert page.locator("#toast").is_hidden() or "watching" not in page.locator("#toast").inner_text()
