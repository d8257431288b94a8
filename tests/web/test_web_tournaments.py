"""A Swiss tournament in the page, in Debian's Chromium against a real ``forsale serve`` (issue 34's journey).

Nine players at tables of four, server bots filling the three free seats of each round, three rounds: two people in
browsers (a laptop that creates the tournament with the form, a phone that joins with its button), a bot account
connected with ``forsale.client`` (joined through the Bot API), and six people who joined over the API. The laptop's
person goes to its first table with "Go to your table" and plays it to the end by clicking; every other seat is
played at once by an API client of its account (:class:`Person`, the phone's person's and the laptop's later ones
too), as a person with a second device would: no table waits for the server's grace to play for someone who is not
there (it did, 6 s a round), so the rounds take as long as their games. The test ends on the final standings, shown
on both pages.
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
from playwright.sync_api import Page, Route, expect

from forsale.client import BotClient, GameOver, run_bot
from forsale.server.people.sessions import COOKIE
from forsale.view import View

from .conftest import Player, held_look, hold_a_look
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
    made = http.post("/api/me/tokens", json={"name": "tournament", "password": PASSWORD})
    http.close()
    return str(made.json()["token"])


def random_policy(view: View) -> Any:
    return random.choice(view.legal_actions())


class Person(BotClient):
    """A person's API session (its cookie) playing the tables it is seated at with ``forsale.client``'s loop
    (:func:`run_bot`): the same WebSocket play as a bot account's, through a person's endpoints (``/api/me/notices``,
    ``resume``). ``after``: the notice from which its seats are its own to play (those before, a page plays)."""

    def __init__(self, base: str, session: str, after: int = 0) -> None:
        super().__init__(base, "none")
        del self.http.headers["Authorization"]
        self.http.headers.update({"Origin": base, "Cookie": f"{COOKIE}={session}"})  # a page's same-origin calls
        self.after = after

    async def games(self) -> list[dict[str, Any]]:
        return []  # its tables come as seated notices after self.after

    async def challenges(self) -> list[dict[str, Any]]:
        return []

    async def notices(self, after: int = -1, wait: float = 0.0) -> dict[str, Any]:
        if after == -1:  # run_bot's first look, for where to start: here, not at the newest
            return {"notices": [], "last": self.after}
        return await self.call("GET", "/api/me/notices", params={"after": after, "wait": wait})

    async def seat(self, table_id: str) -> dict[str, Any]:
        return await self.call("POST", f"/api/tables/{table_id}/resume", {})


def playing(make: Callable[[], list[tuple[BotClient, int]]], ended: list[GameOver]) -> threading.Thread:
    """A thread whose event loop plays each client's next ``n`` games (``make``: clients and their ``n``)."""

    async def run() -> None:
        clients = make()
        try:
            runs = (run_bot(c, random_policy, games=n, on_game=ended.append) for c, n in clients)
            await asyncio.wait_for(asyncio.gather(*runs), 240)
        finally:
            for client, _ in clients:
                await client.aclose()

    thread = threading.Thread(target=asyncio.run, args=(run(),), daemon=True)
    thread.start()
    return thread


# From now on, whether the page draws Join again.
_WATCH_JOIN = """() => {
  window.joinAgain = false;
  const actions = document.getElementById('tournament-actions');
  new MutationObserver(() => (window.joinAgain ||= !!document.getElementById('tournament-join')))
    .observe(actions, {childList: true});
}"""


def join_across_a_late_look(phone: Page, tid: str, held: list[Route]) -> None:
    """The phone joins while a look at the tournament that the server answered before the Join arrives after it (a
    slow line). The page must stay joined: it drew the late look, Join again, until its next look 3 s later (the
    test checks ``window.joinAgain`` a while after, when the late answer has long been taken in)."""
    look = held_look(phone, held)  # the page's next look
    early = look.fetch()  # answered now, before the Join: the tournament without the phone's person
    phone.click("#tournament-join")
    expect(phone.locator("#tournament-withdraw")).to_be_visible()
    phone.evaluate(_WATCH_JOIN)
    look.fulfill(response=early)
    phone.unroute(f"**/api/tournaments/{tid}")


def session_of(page: Page) -> str:
    return next(c["value"] for c in page.context.cookies() if c["name"] == COOKIE)


def test_a_nine_player_swiss_tournament_runs_three_rounds_to_final_standings(
    server_factory: Callable[..., Any], new_page: Callable[..., Page], player: Callable[[Page], Player]
) -> None:
    # server_factory first: its server stops after the pages close (they poll it until then)
    server = server_factory(None, "--grace", "30", "--bot-delay", "0").start()  # 30 s: the laptop's to come
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
    held = hold_a_look(phone, f"**/api/tournaments/{tid}")

    people = [api_person(base, f"Api{i}{tag}") for i in range(6)]
    for http in people:
        assert http.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    join_across_a_late_look(phone, tid, held)
    token = bot_token(base, f"Bot{tag}")
    joined = httpx.post(f"{base}/api/bot/tournaments/{tid}/join", json={}, headers={"Authorization": f"Bearer {token}"})
    assert joined.status_code == 200 and joined.json()["entries"] == 9

    sessions = [http.cookies[COOKIE] for http in people] + [session_of(phone)]
    games: list[GameOver] = []  # the bot account's
    played: list[GameOver] = []  # the people's, by their API clients
    bot = playing(lambda: [(BotClient(base, token), 3)], games)
    others = playing(lambda: [(Person(base, session), 3) for session in sessions], played)

    assert phone.evaluate("() => window.joinAgain") is False, "a look answered late drew Join again"
    laptop.click("#tournament-start")
    expect(laptop.locator("#tournament-status")).to_contain_text("round 1 of 3")
    laptop.click("#tournament-go")  # "Go to your table": the seat is the account's (the table resumes it)
    laptop.wait_for_selector(".game[data-phase]")
    me = player(laptop)
    me.play_to_end()
    assert me.turns > 0  # the person played at the tournament's table
    mine = session_of(laptop)
    notices = httpx.get(f"{base}/api/me/notices", cookies={COOKIE: mine}).json()["notices"]  # round 2's, maybe
    first = next(n for n in notices if n["kind"] == "seated" and n["source"]["round"] == 1)
    later = playing(lambda: [(Person(base, mine, after=first["id"]), 2)], played)  # its rounds 2 and 3
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
    for thread in (bot, others, later):
        thread.join(60)
    assert len(games) == 3  # the bot account played its three tables through forsale.client
    assert len(played) == 7 * 3 + 2  # the people theirs, through their API clients: all but the laptop's first
    replay = laptop.locator("#tournament-rounds a", has_text="Replay").first
    expect(replay).to_have_attribute("href", re.compile(r"^#/replay/[\w-]+$"))
    for http in people:
        http.close()
