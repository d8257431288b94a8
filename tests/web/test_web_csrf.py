"""Login CSRF in a real Chromium: another site's page must not sign its visitor in as the attacker.

The attack of issue 36: a page on another origin auto-submits ``<form enctype="text/plain">`` whose one field is
named so that the body reads as the attacker's JSON credentials (``name=value`` with the ``=`` inside the
password). Before the fix the victim's browser came back signed in as the attacker, and whatever they then played,
wrote or entered (an email address) went to the attacker's account. The server half is
``tests/server/test_server_csrf.py``.
"""

from __future__ import annotations

import http.server
import threading
import uuid
from collections.abc import Callable, Iterator
from html import escape

import httpx
import pytest
from playwright.sync_api import Page

PASSWORD_HEAD = "attacker password"
PASSWORD = PASSWORD_HEAD + "="  # text/plain form bodies are name=value: the "=" ends up in the password


@pytest.fixture
def attacker_site() -> Iterator[Callable[[str], str]]:
    """``attacker_site(html)``: the address of a page served from another origin (another port of this machine)."""
    pages: dict[str, bytes] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def serve(html: str) -> str:
        path = f"/{uuid.uuid4().hex}.html"
        pages[path] = html.encode()
        return f"http://localhost:{server.server_address[1]}{path}"  # localhost: another site, not just a port

    yield serve
    server.shutdown()
    server.server_close()


def forged_sign_in_page(target: str, name: str) -> str:
    field = f'{{"name": "{name}", "password": "{PASSWORD_HEAD}'
    return f"""<!doctype html><html><body>
<form id="f" method="post" enctype="text/plain" action="{escape(target)}">
  <input type="hidden" name="{escape(field)}" value='"}}'>
</form>
<script>document.getElementById("f").submit();</script>
</body></html>"""


def test_another_sites_form_does_not_sign_the_visitor_in(
    new_page: Callable[..., Page], web_server: str, attacker_site: Callable[[str], str]
) -> None:
    name = f"Mallory{uuid.uuid4().hex[:8]}"
    made = httpx.post(f"{web_server}/api/signup", json={"name": name, "password": PASSWORD}, timeout=30)
    assert made.status_code == 201, made.text
    # The refused navigation's status is logged by Chromium as a console error: that one is expected.
    page = new_page(expect=r"status of 403|Failed to load resource")
    page.goto(attacker_site(forged_sign_in_page(f"{web_server}/api/signin", name)))
    page.wait_for_url(f"{web_server}/api/signin")  # the form was sent: the browser shows the server's answer
    answer = page.locator("body").inner_text()
    assert "cross_origin" in answer, answer
    assert not [c for c in page.context.cookies() if c["name"] == "forsale_session"]
    page.goto("/")
    page.wait_for_selector("#sign-in")  # the page says: nobody is signed in here
    assert page.evaluate("fetch('/api/me').then(r => r.json())") == {"account": None}
