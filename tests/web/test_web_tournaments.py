"""A Swiss tournament in the page, in Debian's Chromium against a real ``forsale serve`` (issue 34's journey).

Nine players at tables of four, server bots filling the three free seats of each round, three rounds: two people in
browsers (a laptop that creates the tournament with the form, a phone that joins with its button), a bot account
connected with ``forsale.client`` (joined through the Bot API), and six people who joined over the API and never
come to their tables. The server plays for those after its grace period (``--grace 6``, the clock's rule for anyone
away), so the rounds run without a client per seat; the laptop's person goes to its first table with "Go to your
table" and plays it to the end by clicking. The test ends on the final standings, shown on both pages.
"""

from __future__ import annotations

import asyncio
import random
import re
import threading
import uuid
from collections.abc import Callable
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from forsale.client import BotClient, run_bot
from forsale.view import View

from .conftest import Player
from .test_web_a11y import audit_themes
from .test_web_pairing import sign_up

PASSWORD = "correct horse battery staple"


def api_person(base: str, name: str) -> httpx.Client:
    """A person signed up over the API (a cookie session), as a page would: same-origin headers."""
    http = httpx.Client(base_url=base, headers={"Origin": base}, timeout=30)
    assert http.post("/api/signup", json={"name": name, "password": PASSWORD}).status_code == 201
    return http


def bot_token(base: str, name: str) -> str:
    http = api_person(base, name)
    assert http.post("/api/me/bot", json={"password": PASSWORD}).status_code == 200
    made = http.post("/api/me/tokens", json={"name": "tournament"})
    http.close()
    return str(made.json()["token"])


def random_policy(view: View) -> Any:
    return random.choice(view.legal_actions())


def test_a_nine_player_swiss_tournament_runs_three_rounds_to_final_standings(
    server_factory: Callable[..., Any], new_page: Callable[..., Page], player: Callable[[Page], Player]
) -> None:
    # server_factory first: its server stops after the pages close (they poll it until then)
    server = server_factory(None, "--grace", "6", "--bot-delay", "0").start()
    base = server.base
    tag = uuid.uuid4().hex[:6]
    laptop, phone = new_page(), new_page(width=390, height=844)
    laptop.goto(f"{base}/")
    sign_up(laptop, f"Org{tag}")
    laptop.click("#tournaments-link")
    expect(laptop.locator("#tournament-create")).to_be_visible()
    found = audit_themes(laptop, "the tournaments' lists and create form")
    laptop.fill("#tournament-name", f"Cup {tag}")
    laptop.select_option("#tournament-players", "4")
    laptop.fill("#tournament-rounds", "3")
    laptop.fill("#tournament-clock", "30")
    laptop.select_option("#tournament-fill", "random")
    laptop.click("#tournament-submit")
    laptop.wait_for_url(f"{base}/#/tournaments/*")
    tid = laptop.url.rsplit("/", 1)[1]
    expect(laptop.locator("#tournament-status")).to_contain_text("Open for entries")

    phone.goto(f"{base}/#/tournaments/{tid}")
    phone.click("#menu-toggle")
    sign_up(phone, f"Pho{tag}")
    phone.click("#tournament-join")
    expect(phone.locator("#tournament-withdraw")).to_be_visible()

    people = [api_person(base, f"Api{i}{tag}") for i in range(6)]
    for http in people:
        assert http.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    token = bot_token(base, f"Bot{tag}")
    joined = httpx.post(f"{base}/api/bot/tournaments/{tid}/join", json={}, headers={"Authorization": f"Bearer {token}"})
    assert joined.status_code == 200 and joined.json()["entries"] == 9

    games: list[Any] = []

    def bot_plays() -> None:
        async def run() -> None:
            async with BotClient(base, token) as client:
                await asyncio.wait_for(run_bot(client, random_policy, games=3, on_game=games.append), 240)

        asyncio.run(run())

    bot = threading.Thread(target=bot_plays, daemon=True)
    bot.start()

    laptop.click("#tournament-start")
    expect(laptop.locator("#tournament-status")).to_contain_text("round 1 of 3")
    laptop.click("#tournament-go")  # "Go to your table": the seat is the account's (the table resumes it)
    laptop.wait_for_selector(".game[data-phase]")
    me = player(laptop)
    me.play_to_end()
    assert me.turns > 0  # the person played at the tournament's table
    laptop.goto(f"{base}/#/tournaments/{tid}")

    for page in (laptop, phone):
        expect(page.locator("#tournament-status")).to_contain_text("final standings", timeout=180_000)
        expect(page.locator("#tournament-standings tbody tr")).to_have_count(9)
    view = httpx.get(f"{base}/api/tournaments/{tid}").json()
    assert [r["round"] for r in view["schedule"]] == [1, 2, 3]
    for r in view["schedule"]:
        assert [len(t["seats"]) for t in r["tables"]] == [4, 4, 4]
        assert sum(1 for t in r["tables"] for s in t["seats"] if s["name"] is None) == 3  # a server bot a table
        assert all(t["status"] == "over" for t in r["tables"])
    assert all(line["games"] == 3 for line in view["standings"])
    assert [line["bot"] for line in view["standings"]].count(True) == 1  # the bot account, marked
    found += audit_themes(laptop, "a tournament's final standings")
    assert not found, "\n".join(found)
    bot.join(60)
    assert len(games) == 3  # the bot account played its three tables through forsale.client
    replay = laptop.locator("#tournament-rounds a", has_text="Replay").first
    expect(replay).to_have_attribute("href", re.compile(r"^#/replay/[\w-]+$"))
    for http in people:
        http.close()
