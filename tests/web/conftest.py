"""Fixtures for the browser tests: a real server (uvicorn subprocess) and Debian's Chromium.

The server runs ``forsale serve`` on a free port with a temporary SQLite
database and bots that act at once (``--bot-delay 0``), so whole games take
seconds. Every page a test opens records its console errors and uncaught
exceptions; a test fails if there were any. Screenshots go to
``test-artifacts/web/`` (gitignored) for people to look at.

Waits are on conditions, with generous timeouts (60 s): CI runs the suite on
a loaded 2-core machine, and a wait on a condition returns as soon as it holds.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Route, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Every wait of a page (and of ``expect``) is on a condition: a long limit costs nothing when
# things are fast, and a short one fails a test on a machine busy with other work.
TIMEOUT_MS = 60_000
expect.set_options(timeout=TIMEOUT_MS)


ANALYSIS_BUDGET = "4"
"""The shared server's post-game analysis, sampled thinly: every end screen asks for one, and at the default budget
each took the server's bot workers about 2 s of CPU (more on a loaded machine) that the browsers and the tests of
the 2-core CI machine waited behind. No test of this server checks the analysis's numbers: test_web_analysis does,
against ``forsale analyse`` at its own budget, on its own server."""


@pytest.fixture(scope="session")
def web_server(serve_process: type[Any]) -> Iterator[str]:
    """The base URL of a real ``forsale serve`` with a fresh SQLite database."""
    workdir = Path(tempfile.mkdtemp(prefix="forsale-web-"))
    server = serve_process(
        f"sqlite:///{workdir / 'web.sqlite3'}", workdir, "--analysis-budget", ANALYSIS_BUDGET
    ).start()
    try:
        yield server.base
    finally:
        server.stop()


@pytest.fixture
def server_factory(tmp_path: Path, serve_process: type[Any]) -> Iterator[Callable[..., Any]]:
    """Servers a test starts, kills and restarts itself, on one database (stopped at the end)."""
    made: list[Any] = []

    def make(port: int | None = None, *extra: str) -> Any:
        """A server on ``port`` (a free one if None), with ``extra`` arguments for ``forsale serve``."""
        server = serve_process(f"sqlite:///{tmp_path / 'own.sqlite3'}", tmp_path, *extra, port=port)
        made.append(server)
        return server

    yield make
    for server in made:
        server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def new_page(browser: Browser, web_server: str) -> Iterator[Callable[..., Page]]:
    """Open pages in fresh browser contexts (separate localStorage: separate people).

    Each page's console errors and uncaught exceptions fail the test.
    """
    contexts = []
    problems: list[str] = []

    def make(
        width: int = 1200,
        height: int = 900,
        theme: str | None = None,
        expect: str | None = None,
        locale: str = "en-US",
        reduced_motion: str | None = None,
    ) -> Page:
        """A page; ``expect`` is a regex for console errors the test causes on purpose.

        ``locale`` is the browser's language (``navigator.language``), which the page
        follows: English unless a test asks for another. ``reduced_motion="reduce"`` is the
        system setting ``prefers-reduced-motion: reduce``.
        """
        context = browser.new_context(
            viewport={"width": width, "height": height},
            base_url=web_server,
            locale=locale,
            reduced_motion=reduced_motion,  # "reduce": the person asked their system for less motion
        )
        if theme:
            context.add_init_script(f"localStorage.setItem('forsale.theme', {theme!r})")
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)

        def on_console(message: ConsoleMessage) -> None:
            if message.type == "error" and not (expect and re.search(expect, message.text)):
                problems.append(f"console error: {message.text}")

        page.on("console", on_console)
        page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not problems, "\n".join(problems)


# Whether the last sale's reveal is drawn and every animation on its cards (the flips, the
# cheques sliding in) has finished: a picture or a measurement taken earlier catches them mid-way.
_REVEAL_SETTLED = """() => {
  const cards = [...document.querySelectorAll('.felt .reveal .card')];
  return cards.length > 0 && cards.every(c => c.getAnimations().every(a => a.playState === 'finished'));
}"""


@pytest.fixture
def reveal_settled() -> Callable[[Page], None]:
    """``reveal_settled(page)`` waits until the page's reveal of the last sale has stopped moving."""

    def wait(page: Page) -> None:
        page.wait_for_function(_REVEAL_SETTLED)

    return wait


@pytest.fixture
def start_solo() -> Callable[..., str]:
    """``start_solo(page, players)``: a solo game against random bots from the lobby, as a person starts one.

    It waits for the game's first auction and returns the table's id. ``name`` is the seat's name; ``hints``
    ticks "allow hints" first; ``lobby`` is the lobby's URL (a test with a server of its own passes its own).
    """

    def start(page: Page, players: int = 4, name: str = "Ann", hints: bool = False, lobby: str = "/") -> str:
        page.goto(lobby)
        page.fill("#solo-name", name)
        page.select_option("#solo-players", str(players))
        page.select_option("#solo-bot", "random")
        if hints:
            page.check("#solo-hints")
        page.click("#play-solo")
        page.wait_for_selector(".game[data-phase=auction]")
        return str(page.evaluate("() => location.hash.split('/')[2]"))

    return start


@pytest.fixture
def shoot() -> Callable[[Page, str], Path]:
    """``shoot(page, name)`` saves a screenshot under test-artifacts/web/ for people to look at."""

    def save(page: Page, name: str, full_page: bool = True) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return save


# What the page offers the seat now: "auction" (bid or pass), "sale" (choose a
# house), "over", or false while others play. The page disables its buttons
# the moment an action is sent, so after a click this waits for the next state.
_MY_TURN = """() => {
  const game = document.querySelector('.game');
  if (!game) return false;
  if (game.dataset.phase === 'over') return 'over';
  if (document.querySelector('button[data-focus=pass]:not([disabled])')) return 'auction';
  if (document.querySelector('button.card.house:not([disabled])')) return 'sale';
  return false;
}"""


class Player:
    """Plays one seat by clicking (and sometimes the keyboard), like a person would."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.turns = 0

    def wait_turn(self) -> str:
        return str(self.page.wait_for_function(_MY_TURN).json_value())

    def turn(self) -> str | bool:
        """What the page offers the seat now (see ``_MY_TURN``), without waiting or acting."""
        return self.page.evaluate(_MY_TURN)

    def moves(self) -> int:
        return int(self.page.get_attribute(".game", "data-moves") or 0)

    def play_turn(self) -> str:
        """Wait for this seat's turn and take it; returns the phase it acted in (or "over")."""
        phase = self.wait_turn()
        self.act(phase)
        return phase

    def try_turn(self) -> str | bool:
        """Take this seat's turn if it has one now; returns the phase, "over", or False."""
        phase = self.turn()
        if phase:
            self.act(phase)
        return phase

    def act(self, phase: str) -> None:
        page = self.page
        self.turns += 1
        # Locators, not element handles: a message from the server may redraw the table at any time.
        if phase == "auction":
            plus1 = page.locator("button[data-focus=plus1]:not([disabled])")
            coins = page.evaluate("() => Number(document.querySelector('#bid-amount')?.max || 0)")
            high = page.evaluate("() => Number(document.querySelector('#bid-amount')?.min || 1) - 1")
            if plus1.count() and self.turns % 4 == 1 and high < 4 and coins > 8:
                plus1.click()  # a cheap raise with the +1 button
            elif self.turns % 4 == 3 and high < 3 and coins > 8:
                field = page.locator("#bid-amount")  # type a bid and press Enter
                field.fill(str(high + 2))
                field.press("Enter")
            elif self.turns % 2:
                page.click("button[data-focus=pass]")
            else:
                page.keyboard.press("p")  # the keyboard shortcut for pass
        elif phase == "sale":
            cards = page.locator("button.card.house:not([disabled])")
            cards.nth(self.turns % cards.count()).click()  # choose ...
            page.click("button[data-focus=sell]")  # ... and confirm

    def play_to_end(self, limit: int = 400) -> None:
        for _ in range(limit):
            if self.play_turn() == "over":
                return
        raise AssertionError("the game did not end")


def hold_a_look(page: Page, url: str) -> list[Route]:
    """The page's next ``GET`` of ``url`` (a glob), held for the caller to answer late, as on a slow line; every
    other request to it passes. The list gets the held route once the page asks (:func:`held_look`)."""
    held: list[Route] = []

    def hold(route: Route) -> None:
        if route.request.method == "GET" and not held:
            held.append(route)
        else:
            route.continue_()

    page.route(url, hold)
    return held


def held_look(page: Page, held: list[Route]) -> Route:
    """The route :func:`hold_a_look` holds, once the page has asked (its polls come every few seconds)."""
    while not held:
        page.wait_for_timeout(50)
    return held[0]


def play_together(*players: Player, seconds: float = 600) -> None:
    """Pages at one table take their turns as they come (bots play the other seats) until every one shows the end.

    No one page can be waited on: a move reaches the mover's page before the others', and a page offers its
    next move only once the server has answered its last one, which may come after the new state. Waiting on
    the wrong page deadlocked (a CI run), so this looks at every page in turn; ``seconds`` bounds a game that hangs.
    """
    deadline = time.monotonic() + seconds
    while True:
        phases = [p.try_turn() for p in players]
        if all(phase == "over" for phase in phases):
            return
        assert time.monotonic() < deadline, "the game did not end"
        if not any(phase in ("auction", "sale") for phase in phases):
            time.sleep(0.05)  # polling: each page waits for another page or a bot


@pytest.fixture
def player() -> Callable[[Page], Player]:
    return Player


# What each visible menu under ``root`` (a selector) needs to show its widest option whole (Chromium sizes a select
# with width: auto to that), against the width it has: a narrower menu cuts the words of some option.
MENUS_CUT = """(root) => [...document.querySelectorAll(`${root} select`)].filter((s) => s.offsetWidth > 0).flatMap((s) => {
  const probe = s.cloneNode(true);
  probe.removeAttribute('id');
  Object.assign(probe.style, {width: 'auto', minWidth: '0', maxWidth: 'none', position: 'absolute', visibility: 'hidden'});
  s.parentNode.append(probe);
  const needs = probe.getBoundingClientRect().width;
  probe.remove();
  const has = s.getBoundingClientRect().width;
  return needs > has + 0.5 ? [`#${s.id} needs ${Math.ceil(needs)} px, has ${Math.floor(has)}`] : [];
})"""

# The words under ``root`` (a selector) that a line break cuts in two: a word drawn in more than one box.
WORDS_BROKEN = """(root) => [...document.querySelectorAll(root)].flatMap((el) => {
  const broken = [];
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    for (const word of node.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      if (range.getClientRects().length > 1) broken.push(word[0]);
    }
  }
  return broken;
})"""
