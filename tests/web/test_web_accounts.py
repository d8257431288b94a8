"""Accounts in the page, in Debian's Chromium against a real ``forsale serve``.

A person signs up in the header's dialog, plays a rated game against a bot, and finds the rating on their
page (with its plot) and on the leaderboard, beside the bot's; a guest's seat is claimed at sign-in, and
"my games" in a fresh browser (another device) leads back into the game in progress. Every wait is on a
condition of the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from .accounts import PASSWORD, sign_up, unique

# Ratings show on the 1500-centred scale (1500 + 40 * (mu - 3 sigma)): whole numbers near 1500, never "-2.76".
NUMBER = re.compile(r"^1[0-9]{3}$")
PLOT_LABEL = re.compile(r"^Rating after each rated game: 1 game, from 1[0-9]{3} to 1[0-9]{3}$")
CHANGE = re.compile(r"^Your rating: 1500 → (1[0-9]{3}) \(([+−]\d+|±0)\)$")
REPLAY = re.compile(r"^#/replay/[\w-]+$")


def sign_in(page: Page, name: str) -> None:
    page.click("#sign-in")
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.click("#signin-submit")
    expect(page.locator("#account-name-link")).to_have_text(name)


def start_solo(page: Page, rated: bool) -> None:
    page.wait_for_selector("#play-solo")
    page.select_option("#solo-players", "2")
    page.select_option("#solo-bot", "random")
    if rated:
        page.check("#solo-rated")
    page.click("#play-solo")
    page.wait_for_selector(".game[data-phase=auction]")


def test_sign_up_play_a_rated_game_and_find_the_rating(new_page: Callable[..., Page], player, shoot) -> None:
    page = new_page()
    page.goto("/")
    expect(page.locator("#solo-rated")).to_be_hidden()  # a guest has no rating to play for
    name = unique("Ann")
    sign_up(page, name)
    page.click("#account-name-link")
    expect(page.locator("#profile-name")).to_have_text(name)
    expect(page.locator("#profile-head")).to_contain_text("No rated game yet")
    page.goto("/#/")
    expect(page.locator("#solo-rated")).to_be_visible()
    start_solo(page, rated=True)
    player(page).play_to_end()
    # The end screen says what the game did to the rating (a newcomer starts at 1500).
    change = page.locator("#rating-change")
    expect(change).to_have_text(CHANGE)
    after = CHANGE.match(change.inner_text())
    assert after is not None
    shoot(page, "accounts-rated-end")
    page.click("#account-name-link")
    ratings = page.locator("#profile-ratings tbody tr")
    expect(ratings).to_have_count(2)  # every player count, and two players
    overall = page.locator("#profile-ratings tr[data-players='0'] td.rating")
    expect(overall).to_have_text(NUMBER)
    plot = page.locator("#rating-plot")
    expect(plot).to_have_attribute("role", "img")
    expect(plot).to_have_attribute("aria-label", PLOT_LABEL)
    expect(overall).to_have_text(after.group(1))
    # One game is a step from where a newcomer starts, not a lone dot: two points, and 1500 on the axis.
    expect(plot.locator("circle")).to_have_count(2)
    expect(plot.locator("text.tick", has_text="1500")).to_have_count(1)
    shoot(page, "accounts-profile")
    expect(page.locator("#profile-games li")).to_have_count(1)
    expect(page.locator("#profile-games li a", has_text="Replay")).to_have_attribute("href", REPLAY)
    rating = overall.inner_text()
    page.click("#leaderboard-link")
    row = page.locator(f"#leaderboard tr[data-name='{name}']")
    expect(row.locator("td.rating")).to_have_text(rating)
    expect(page.locator("#leaderboard tr[data-kind='bot'][data-name='random']")).to_have_count(1)
    page.select_option("#board-players", "3")
    expect(page.locator("#leaderboard")).to_contain_text("No rated game")  # nobody rated at three players
    page.select_option("#board-players", "2")
    expect(page.locator(f"#leaderboard tr[data-name='{name}']")).to_have_count(1)
    page.select_option("#board-kind", "bots")
    expect(page.locator(f"#leaderboard tr[data-name='{name}']")).to_have_count(0)
    expect(page.locator("#leaderboard tr[data-kind='bot']")).not_to_have_count(0)


def test_a_guest_seat_is_claimed_and_my_games_leads_back_from_another_device(
    new_page: Callable[..., Page], player
) -> None:
    home = new_page()
    home.goto("/")
    start_solo(home, rated=False)  # as a guest, one click as ever
    table = home.evaluate("() => location.hash.split('/')[2]")
    name = unique("Bea")
    home.goto("/#/")
    sign_up(home, name)
    expect(home.locator("#toast")).to_contain_text("1 seat of this browser is now your account's")
    other = new_page()  # another device: no seat token, no session
    other.goto("/")
    sign_in(other, name)
    other.click("#my-games-link")
    going = other.locator(f"#my-games li[data-table='{table}']")
    going.locator("button").click()
    other.wait_for_url(f"**/#/table/{table}")
    me = player(other)
    assert me.wait_turn() in ("auction", "sale")
    me.play_to_end()
    expect(other.locator(".game")).to_have_attribute("data-phase", "over")


def test_a_rated_game_is_never_offered_with_hints(new_page: Callable[..., Page]) -> None:
    """The server refuses hints at a rated table (400 hints_off): the form switches them off and disables them
    while "rated" is ticked, in both lobby forms, and the creator of a rated table gets no hints switch."""
    page = new_page()
    page.goto("/")
    sign_up(page, unique("Hal"))
    for form in ("solo", "friends"):
        hints, rated = page.locator(f"#{form}-hints"), page.locator(f"#{form}-rated")
        hints.check()
        rated.check()
        expect(hints).to_be_disabled()
        expect(hints).not_to_be_checked()
        rated.uncheck()
        expect(hints).to_be_enabled()
    page.locator("#solo-hints").check()
    page.locator("#solo-rated").check()
    page.select_option("#solo-players", "2")
    page.select_option("#solo-bot", "random")
    page.click("#play-solo")  # a rated game, sent without hints: the server takes it
    page.wait_for_selector(".game[data-phase=auction]")
    expect(page.locator("#hints-allowed")).to_have_count(0)
    expect(page.locator("#hint")).to_have_count(0)


# Every frame while the toast shows: whether it is in the window, and which of the dock's controls (the seat's moves)
# it covers. The sampler starts after the toast has placed itself, so in every frame it looks after the placement.
TOAST_FRAMES = """() => {
  window.toastFrames = [];
  const toast = document.getElementById('toast');
  let sampling = false;
  new MutationObserver(() => {
    if (toast.hidden || sampling) return;
    sampling = true;
    requestAnimationFrame(function sample() {
      if (toast.hidden) {
        sampling = false;
        return;
      }
      const t = toast.getBoundingClientRect();
      const covered = [...document.querySelectorAll('.dock button, .dock input')].filter((c) => {
        const r = c.getBoundingClientRect();
        return r.width > 0 && r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom;
      });
      window.toastFrames.push({covered: covered.map((c) => c.id || c.dataset.focus), inView: t.top >= 0 && t.bottom <= innerHeight});
      requestAnimationFrame(sample);
    });
  }).observe(toast, {attributes: true, attributeFilter: ['hidden']});
}"""


def test_the_greeting_after_signing_up_at_a_table_on_a_phone_covers_no_move(
    new_page: Callable[..., Page], player, shoot
) -> None:
    """Signing up at the table (the menu of a phone's header) claims the seat and says so in a toast: the toast stands
    above the dock, where Bid and Pass are, for as long as it shows (at the window's bottom it covered them)."""
    page = new_page(width=390, height=844)
    page.goto("/")
    start_solo(page, rated=False)
    assert player(page).wait_turn() == "auction"  # Bid and Pass in the dock
    page.evaluate(TOAST_FRAMES)
    page.click("#menu-toggle")
    sign_up(page, unique("Tom"))
    toast = page.locator("#toast")
    expect(toast).to_contain_text("1 seat of this browser is now your account's")
    shoot(page, "toast-phone", full_page=False)
    expect(toast).to_be_hidden()
    frames = page.evaluate("() => window.toastFrames")
    assert frames, "the toast was seen in some frame"
    assert [frame for frame in frames if frame["covered"] or not frame["inView"]] == []
