"""A person challenges a bot account from its profile and plays against it to the end, in Debian's Chromium.

The bot is a real ``forsale connect`` process (the random bot, accepting 2-player tables only) with its account's
API token, on the shared ``forsale serve``. The person signs up in the page, opens the bot's profile (marked as a bot
account), is declined for a table of three (the page says why), challenges it for two, is taken to the table when it
accepts, sees its seat marked as a bot account's, and plays the game to its end by clicking. Every wait is on a
condition of the page or of the process.
"""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from collections.abc import Callable
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from harness.serve import checkout_env

from .test_web_a11y import audit_themes

PASSWORD = "correct horse battery staple"
TABLE = re.compile(r"#/table/([\w-]+)$")


def bot_account(base: str) -> tuple[str, str]:
    """A new bot account on the server and an API token of it."""
    name = f"Bot{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=base, timeout=30) as http:
        assert http.post("/api/signup", json={"name": name, "password": PASSWORD}).status_code == 201
        assert http.post("/api/me/bot", json={"password": PASSWORD}).status_code == 200
        return name, http.post("/api/me/tokens", json={"name": "web test"}).json()["token"]


def test_a_person_challenges_a_bot_account_from_its_profile_and_plays_it_to_the_end(
    new_page: Callable[..., Page], web_server: str, player: Callable[[Page], Any]
) -> None:
    bot, token = bot_account(web_server)
    command = [sys.executable, "-m", "forsale", "connect", "--server", web_server, "--bot", "random", "--players", "2",
               "--games", "1"]  # fmt: skip
    process = subprocess.Popen(
        command, env={**checkout_env(), "FORSALE_TOKEN": token}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    try:
        page = new_page()
        page.goto("/")
        page.click("#sign-up")
        page.fill("#account-name", f"Chal{uuid.uuid4().hex[:8]}")
        page.fill("#account-password", PASSWORD)
        page.click("#signup-submit")
        expect(page.locator("#account-name-link")).to_be_visible()

        page.goto(f"/#/player/{bot}")
        expect(page.locator("#profile-bot-account")).to_have_text("bot account")
        expect(page.locator("#challenge-form")).to_be_visible()
        found = audit_themes(page, "a bot account's profile with its challenge form")
        assert not found, "\n".join(found)

        page.select_option("#challenge-players", "3")  # the bot plays tables of two only: it declines, saying so
        page.click("#challenge-send")
        expect(page.locator("#challenge-status")).to_have_text(
            "The bot declined: it does not play at tables of this size."
        )
        expect(page.locator("#challenge-send")).to_be_visible()

        page.select_option("#challenge-players", "2")
        page.select_option("#challenge-clock", "30")
        page.click("#challenge-send")
        page.wait_for_url(TABLE)
        page.wait_for_selector(".game[data-phase]")
        expect(page.get_by_text("bot account").first).to_be_visible()  # the bot's seat, marked
        player(page).play_to_end()
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, out
    assert "declined" in out and re.search(r"table [\w-]+: (won|lost) at seat", out), out
