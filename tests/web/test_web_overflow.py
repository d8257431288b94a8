"""Every screen in every language at a laptop's and a phone's size: nothing wider than the window, no text cut by
its box, no control on top of another; a screenshot of each under test-artifacts/web/ to look at.

One page goes through the screens (lobby, table, end screen, leaderboard, profile) and at each screen is loaded
again in each language (the language the page remembers, then a reload: the page as it is drawn for someone who
comes in that language), resized to each size: the whole tour costs one short game, not one per language.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from playwright.sync_api import Page

from .accounts import sign_up, unique
from .conftest import ARTIFACTS, MENUS_CUT

LOCALES = {"en": "en-US", "fr": "fr-FR", "nl": "nl-NL", "it": "it-IT", "de": "de-DE"}
SIZES = [(1280, 800), (390, 844)]

# What is wrong on the page as it is drawn: a list of sentences, empty when all is well.
#  - the page wider than the window (a sideways scroll);
#  - an element that hides its overflow and cuts its text without an ellipsis meant for it;
#  - two visible controls (in the window, each on top at its centre) whose boxes intersect by more than a pixel;
# and (conftest's MENUS_CUT) a menu too narrow for the words of one of its options.
PROBLEMS = """() => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > innerWidth) out.push(`page ${doc.scrollWidth}px wide in a ${innerWidth}px window`);
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
  for (const e of document.body.querySelectorAll('*')) {
    if (!shown(e) || e.closest('svg, .sr-only')) continue;  // .sr-only: a screen reader's text, hidden on purpose
    const st = getComputedStyle(e);
    if (!['hidden', 'clip'].includes(st.overflowX) || st.textOverflow === 'ellipsis') continue;
    if (e.scrollWidth > e.clientWidth + 1 && e.textContent.trim()) out.push(`${name(e)} cuts its text (${e.scrollWidth} > ${e.clientWidth})`);
  }
  const controls = [...document.querySelectorAll('button, input, select, textarea, a.btn')].filter((e) => {
    if (!shown(e) || e.closest('[hidden], details:not([open]) > :not(summary)')) return false;
    const r = e.getBoundingClientRect();
    if (r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) return false;
    const top = document.elementFromPoint(Math.min(innerWidth - 1, Math.max(0, r.left + r.width / 2)), Math.min(innerHeight - 1, Math.max(0, r.top + r.height / 2)));
    return top && (top === e || e.contains(top) || top.closest('label') === e.closest('label'));  // covered: behind the dock, reached by scrolling
  });
  for (let i = 0; i < controls.length; i++) {
    for (let j = i + 1; j < controls.length; j++) {
      const a = controls[i].getBoundingClientRect(), b = controls[j].getBoundingClientRect();
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1 && !controls[i].contains(controls[j]) && !controls[j].contains(controls[i])) out.push(`${name(controls[i])} overlaps ${name(controls[j])}`);
    }
  }
  return out;
}"""


SETTLED = """() => [...document.querySelectorAll('.felt .reveal .card')].every(
  c => c.getAnimations().every(a => a.playState === 'finished'))"""


def look(page: Page, screen: str, code: str, problems: list[str]) -> None:
    """At each size: a screenshot of the window, and what is wrong in it."""
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")  # laid out
        page.evaluate("() => scrollTo(0, 0)")
        page.wait_for_function(SETTLED)  # the last sale's reveal has stopped moving, for the picture
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"overflow-{screen}-{code}-{width}.png"))
        problems += [f"{screen} {code} {width}x{height}: {p}" for p in page.evaluate(PROBLEMS)]
        problems += [f"{screen} {code} {width}x{height}: {m}" for m in page.evaluate(MENUS_CUT, "body")]


def in_each_language(page: Page, screen: str, ready: str, problems: list[str]) -> None:
    """The screen loaded again in each language (``ready``: what shows it is drawn), then :func:`look` at it."""
    for code in LOCALES:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.evaluate("code => localStorage.setItem('forsale.lang', code)", code)
        page.reload()
        page.wait_for_selector(f"html[lang={code}]", state="attached")
        page.wait_for_selector(ready, state="attached")
        look(page, screen, code, problems)


def test_every_screen_fits_its_window_in_each_language(new_page: Callable[..., Page], player) -> None:
    started = time.monotonic()
    page = new_page(width=1280, height=800)
    problems: list[str] = []
    page.goto("/")
    page.wait_for_selector("#solo-bot option[value=hard]", state="attached")
    sign_up(page, unique("Fit"))
    in_each_language(page, "lobby", "#solo-bot option[value=hard]", problems)

    page.set_viewport_size({"width": 1280, "height": 800})
    page.select_option("#solo-players", "4")
    page.select_option("#solo-bot", "random")
    page.click("#play-solo")
    page.wait_for_selector(".game[data-phase=auction]")
    me = player(page)
    assert me.wait_turn() == "auction"
    # The seat's turn to bid: the page shows its bid controls (the table, reloaded, waits for the seat's move).
    in_each_language(page, "table", "button[data-focus=pass]:not([disabled])", problems)
    me.play_to_end()
    page.wait_for_selector("#end")
    in_each_language(page, "end", "#end", problems)

    page.goto("/#/leaderboard")
    in_each_language(page, "leaderboard", "#leaderboard", problems)
    page.goto("/#/me")
    in_each_language(page, "profile", "#profile-head", problems)
    assert not problems, "\n".join(problems)
    print(f"every language: {time.monotonic() - started:.1f} s")  # the tour's cost, for whoever keeps the suite short
