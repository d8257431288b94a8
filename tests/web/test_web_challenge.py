"""A person challenges a bot account from its profile and plays against it to the end, in Debian's Chromium.

The bot's owner signs up in the page, makes the account a bot account on its own page and makes an API token there
(shown once); a real ``forsale connect`` process (the random bot, accepting 2-player tables only) plays with that
token on the shared ``forsale serve``. A person signs up, opens the bot's profile (marked as a bot account), is
declined for a table of three (the page says why), challenges it for two, is taken to the table when it accepts,
sees its seat marked as a bot account's, and plays the game to its end by clicking; the owner then revokes the
token. Every wait is on a condition of the page or of the process.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from harness.serve import checkout_env

from . import accounts
from .accounts import PASSWORD, unique
from .test_web_a11y import audit_themes

TABLE = re.compile(r"#/table/([\w-]+)$")


def sign_up(page: Page, name: str) -> None:
    page.goto("/")
    accounts.sign_up(page, name)


def bot_account(page: Page) -> tuple[str, str]:
    """A bot account made in the page, on its own profile, and an API token made there: its name and the token."""
    name = unique("Bot")
    sign_up(page, name)
    page.goto("/#/me")
    page.click("#become-bot")
    page.fill("#bot-password", PASSWORD)
    page.click("#bot-dialog-submit")
    expect(page.locator("#profile-bot-account")).to_have_text("bot account")
    expect(page.locator("#bot-tokens")).to_contain_text("No token yet.")
    page.fill("#bot-token-name", "laptop")
    page.fill("#bot-token-password", PASSWORD)
    page.click("#bot-token-create")
    expect(page.locator("#bot-token-status")).to_have_text("Copy the token now: it will not be shown again.")
    expect(page.locator("#bot-tokens li")).to_contain_text("laptop")
    found = audit_themes(page, "a bot account's own page with a new token")
    assert not found, "\n".join(found)
    token = page.input_value("#bot-token-secret")
    assert token.startswith("fsb_")
    return name, token


def test_a_person_challenges_a_bot_account_from_its_profile_and_plays_it_to_the_end(
    new_page: Callable[..., Page], web_server: str, player: Callable[[Page], Any]
) -> None:
    owner = new_page()
    bot, token = bot_account(owner)
    command = [sys.executable, "-m", "forsale", "connect", "--server", web_server, "--bot", "random", "--players", "2",
               "--games", "1"]  # fmt: skip
    process = subprocess.Popen(
        command, env={**checkout_env(), "FORSALE_TOKEN": token}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    try:
        page = new_page()
        sign_up(page, unique("Chal"))

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
    owner.reload()  # the token's last use is listed; revoking it ends it
    expect(owner.locator("#bot-tokens li")).to_contain_text("last used")
    owner.click("#bot-tokens li button")
    expect(owner.locator("#bot-token-status")).to_have_text("Token revoked.")
    expect(owner.locator("#bot-tokens")).to_contain_text("No token yet.")
