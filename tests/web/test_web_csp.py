"""The Content-Security-Policy in a real Chromium: the page and the API docs run under it without one violation.

The policy (``forsale.server.app.CONTENT_SECURITY_POLICY``) allows no inline script, no inline style and nothing
from another origin, so an injected ``<script>``, ``onclick=`` or ``style=`` does nothing. That only holds if the
page itself needs none of them: every ``securitypolicyviolation`` event a page raises is collected (an init script
listens before the page's own scripts run) and must stay empty while a game is played, the account dialog opened
and the theme switched. A probe at the end shows the policy is really in force (an inline script is blocked), so
"no violation" is not an empty claim.
"""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, Request

COLLECT = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
});
"""
PROBE = """() => {
  const s = document.createElement("script");
  s.textContent = "window.__inlineRan = true";
  document.head.append(s);
  const d = document.createElement("div");
  d.setAttribute("style", "color: red");
  document.body.append(d);
  return {ran: window.__inlineRan === true, styled: getComputedStyle(d).color === "rgb(255, 0, 0)"};
}"""
REFUSED = r"Content Security Policy|Refused to (execute|apply)"
"""What Chromium logs for the probe's refusals (console errors the test causes on purpose)."""


def watched(new_page: Callable[..., Page]) -> Page:
    page = new_page(expect=REFUSED)
    page.add_init_script(COLLECT)
    return page


def violations(page: Page) -> list[str]:
    return list(page.evaluate("window.__violations"))


def test_the_page_plays_under_a_strict_policy_without_a_violation(new_page: Callable[..., Page], player) -> None:
    page = watched(new_page)
    answer = page.goto("/")
    assert answer is not None
    policy = answer.headers["content-security-policy"]
    for directive in ("default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'none'"):
        assert directive in policy, policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    page.wait_for_selector("#play-solo")
    page.click("#theme")  # the theme switch, and back
    page.click("#theme")
    page.click("#sign-up")  # the account dialog
    page.keyboard.press("Escape")
    page.fill("#solo-name", "Ann")
    page.select_option("#solo-players", "3")
    page.select_option("#solo-bot", "random")
    page.click("#play-solo")
    page.wait_for_selector(".game[data-phase=auction]")
    me = player(page)
    for _ in range(4):  # a few moves: the board, the cards, the coins (styled through the CSSOM) are drawn
        me.play_turn()
    page.goto("/")  # back to the lobby: its lists and headings
    page.wait_for_selector("#play-solo")
    assert violations(page) == []
    probe = page.evaluate(PROBE)
    assert probe == {"ran": False, "styled": False}, probe
    assert len(violations(page)) == 2  # the probe's script and style, refused and reported


def test_the_api_docs_come_from_this_server_and_pass_the_policy(new_page: Callable[..., Page], web_server: str) -> None:
    page = watched(new_page)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if isinstance(request, Request) else None)
    answer = page.goto("/api/docs")
    assert answer is not None and answer.status == 200
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    page.wait_for_selector(".opblock")  # Swagger UI drew the operations of /api/openapi.json
    assert page.locator(".opblock").count() >= 10
    elsewhere = [url for url in asked if not url.startswith(web_server) and not url.startswith("data:")]
    assert elsewhere == [], elsewhere  # nothing from a CDN: the docs work offline, and no third party runs here
    assert violations(page) == []
