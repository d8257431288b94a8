"""The leaderboard and a player's page keep their words whole, in every language, on a laptop and on a phone.

Side by side on a phone, the leaderboard's two filters cut their options ("Tous les nombres", "Personnes et robo"),
and the tables' column headings broke inside a word ("Classem/ent", "Parti/es") where a long name was allowed to
break anywhere. The account's "Change password" and "Delete my account" touched.
"""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from .accounts import sign_up, unique
from .conftest import MENUS_CUT, WORDS_BROKEN

SIZES = [(1280, 800), (390, 844)]
# How far apart two elements' boxes are (the larger of the horizontal and vertical gaps; negative: they overlap).
APART = """([a, b]) => {
  const r = document.querySelector(a).getBoundingClientRect(), s = document.querySelector(b).getBoundingClientRect();
  return Math.max(s.left - r.right, r.left - s.right, s.top - r.bottom, r.top - s.bottom);
}"""


def test_the_leaderboard_and_a_profile_keep_their_words_whole_in_every_language(
    new_page: Callable[..., Page], player, shoot
) -> None:
    page = new_page(width=1280, height=800)
    page.goto("/")
    name = unique("Lea")
    sign_up(page, name)
    page.select_option("#solo-players", "2")
    page.select_option("#solo-bot", "random")
    page.check("#solo-rated")  # a rated game: the player has ratings, the leaderboard rows
    page.click("#play-solo")
    player(page).play_to_end()

    problems = []
    for code in ["en", "fr", "nl", "it", "de"]:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto("/#/")
        page.select_option("#lang", code)  # remembered: the next screens are drawn in it
        expect(page.locator("html")).to_have_attribute("lang", code)
        for screen, ready in (("leaderboard", "#leaderboard tbody tr"), ("me", "#profile-head")):
            page.set_viewport_size({"width": 1280, "height": 800})
            page.goto(f"/#/{screen}")
            page.wait_for_selector(ready)
            expect(page.locator("table.data thead th").first).to_be_visible()
            for width, height in SIZES:
                page.set_viewport_size({"width": width, "height": height})
                where = f"{screen} {code} {width}x{height}"
                problems += [f"{where}: {menu}" for menu in page.evaluate(MENUS_CUT, "#app")]
                if screen == "me":
                    gap = page.evaluate(APART, ["#change-password", "#delete-account"])
                    if gap < 6:
                        problems.append(f"{where}: Change password and Delete my account {gap:.0f} px apart")
                problems += [
                    f"{where}: heading word {word!r} broken"
                    for word in page.evaluate(WORDS_BROKEN, "table.data thead th")
                ]
            shoot(page, f"words-{screen}-{code}")
    assert not problems, "\n".join(problems)
