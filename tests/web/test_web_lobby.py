"""The lobby: custom rules, and choices that survive the page's own redraws.

Knobs that make a game create it; for knobs that do not, the engine's reason is shown by the knobs.
"""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Route, expect

from forsale import Ruleset
from forsale.errors import RulesError

from .conftest import MENUS_CUT


def engine_refusal(players: int, starting_coins: int, removed: int, refund: str) -> str:
    """What the engine says about these knobs (the page must show exactly this)."""
    with pytest.raises(RulesError) as refused:
        Ruleset.custom(players, starting_coins=starting_coins, removed=removed, refund=refund)
    return str(refused.value)


def test_a_refused_combination_shows_the_engines_reason_inline_then_a_good_one_plays(new_page, web_server, shoot):
    # The browser reports the refused request (a 400) on its console; that one is on purpose.
    page = new_page(expect=r"Failed to load resource: .* 400")
    page.goto("/")
    page.fill("#solo-name", "Ann")
    page.select_option("#solo-players", "4")
    page.select_option("#solo-bot", "random")
    custom = page.locator("#solo-custom")
    assert custom.is_hidden()  # presets first; the knobs only on asking

    # Choose "Custom rules…" with the keyboard: the knobs appear, filled in with the default for 4 players.
    page.focus("#solo-rules")
    for _ in range(5):
        if page.input_value("#solo-rules") == "custom":
            break
        page.keyboard.press("ArrowDown")
    expect(custom).to_be_visible()
    coins = custom.get_by_label("Starting coins")
    removed = custom.get_by_label("Cards removed")
    refund = custom.get_by_label("A pass gets back")
    # The defaults come from /api/rulesets, which may answer after the knobs are shown: wait for them,
    # and touch no knob before (a person's own value is never overwritten, so it would stay empty).
    default = Ruleset.default(4)
    expect(coins).to_have_value(str(default.starting_coins))
    expect(removed).to_have_value(str(default.removed))
    expect(refund).to_have_value(default.refund)

    # 29 houses cannot be dealt to 4 players: typed and sent with Enter, refused by the engine.
    coins.fill("25")
    removed.fill("1")
    removed.press("Enter")
    error = page.locator("#solo-rules-error")
    expected = engine_refusal(4, 25, 1, "down")
    expect(error).to_have_text(expected)
    assert error.get_attribute("role") == "alert"
    for field in (coins, removed, refund):
        assert "solo-rules-error" in (field.get_attribute("aria-describedby") or "").split()
        assert field.get_attribute("aria-invalid") == "true"
    assert page.evaluate("() => document.activeElement.id") == "solo-removed"  # back at the knob to fix
    expect(page.locator("#solo .error-box:not(#solo-rules-error)")).to_have_text("")
    assert "#/table/" not in page.url
    shoot(page, "lobby-custom-rules-refused")

    # Fixing the knob clears the message; 6 removed deal 6 rounds of 4, with refunds rounded up.
    removed.fill("6")
    expect(error).to_have_text("")
    assert removed.get_attribute("aria-invalid") is None
    refund.select_option("up")
    removed.press("Enter")
    page.wait_for_selector(".game[data-phase=auction]")
    table_id = page.evaluate("() => location.hash.split('/')[2]")
    table = httpx.get(f"{web_server}/api/tables/{table_id}").json()["table"]
    assert table["rules"] == {"starting_coins": 25, "removed": 6, "refund": "up"}
    # The page plays by them: 25 coins each (Ann has bid nothing), six rounds. Not "auction 1/6" exactly: if
    # the three random bots pass, the first auction ends without Ann, and the page may already show the second.
    expect(page.locator(".me-area .purse .amount")).to_have_text("$25,000")
    expect(page.locator("#info")).to_contain_text(re.compile(r"auction [1-6]/6"))


def test_custom_rules_for_friends_follow_the_player_count(new_page, web_server):
    page = new_page()
    page.goto("/")
    page.select_option("#friends-players", "2")
    # Two players: the unofficial two-player preset, or custom knobs starting from it.
    options = page.eval_on_selector_all("#friends-rules option", "os => os.map(o => o.value)")
    assert options == ["two-player", "custom"]
    page.select_option("#friends-rules", "custom")
    two = Ruleset.default(2)
    removed = page.locator("#friends-removed")
    expect(removed).to_have_value(str(two.removed))  # once /api/rulesets has answered
    # Untouched knobs follow a new player count ...
    page.select_option("#friends-players", "5")
    assert page.input_value("#friends-rules") == "custom"
    expect(removed).to_have_value(str(Ruleset.default(5).removed))
    # ... and a person's own choice stays put.
    page.fill("#friends-coins", "30")
    page.select_option("#friends-players", "3")
    assert page.input_value("#friends-coins") == "30"
    page.fill("#friends-removed", "3")  # 27 houses: 9 rounds of 3
    page.select_option("#friends-seat-1", "random")
    page.select_option("#friends-seat-2", "random")
    page.click("#create-table")
    page.wait_for_selector("#go-to-table")
    expect(page.locator("#friends-rules-error")).to_have_text("")
    table_id = (page.get_attribute("#go-to-table", "href") or "").split("/")[-1]
    table = httpx.get(f"{web_server}/api/tables/{table_id}").json()["table"]
    assert table["rules"] == {"starting_coins": 30, "removed": 3, "refund": "down"}
    # The form that made a table is done with (disabled); a fresh lobby's form remembers the custom rules.
    expect(page.locator("#friends-rules")).to_be_disabled()
    page.reload()
    expect(page.locator("#friends-rules")).to_have_value("custom")
    # Back to a preset: the knobs are hidden, and what is sent is the preset's name.
    page.select_option("#friends-rules", "official")
    assert page.locator("#friends-custom").is_hidden()


def test_choices_made_before_the_bot_list_arrives_are_kept(new_page, web_server):
    assert httpx.get(f"{web_server}/api/bots").json()["default"] != "random"  # else this would prove nothing
    page = new_page()
    held = []  # the /api/bots request, answered only once the person has chosen
    page.route("**/api/bots", lambda route: held.append(route))
    page.goto("/")
    page.select_option("#solo-bot", "random")
    page.select_option("#friends-players", "3")
    page.select_option("#friends-seat-1", "random")
    page.wait_for_function("() => document.querySelectorAll('#friends-seat-2').length === 1")
    assert len(held) == 1
    held[0].fulfill(response=held[0].fetch())
    page.wait_for_function("() => document.querySelectorAll('#solo-bot option').length > 1")
    page.wait_for_function("() => document.querySelectorAll('#friends-seat-1 option').length > 3")
    assert page.input_value("#solo-bot") == "random"
    assert page.input_value("#friends-seat-1") == "random"
    # A new seat count keeps the seats already chosen, and the new seat starts open.
    page.select_option("#friends-seat-2", "medium")
    page.select_option("#friends-players", "4")
    assert [page.input_value(f"#friends-seat-{i}") for i in range(4)] == ["me", "random", "medium", "human"]


def test_the_bot_menu_offers_levels_described_for_players_and_research_bots_only_when_asked(
    new_page, web_server, server_factory
):
    """People choose a level by what it means to them; the research bots are the developers' and stay folded away.

    A public server (``forsale serve``) offers no research bots, so the page offers no switch for them; a server
    started with ``--research-bots`` lists them, folded behind the switch. The description sits beside the
    menu, not in it, so that a select never cuts it ("medium — the ex…").
    """
    assert httpx.get(f"{web_server}/api/bots").json()["names"] == ["easy", "hard", "medium", "random"]
    page = new_page(locale="fr-FR", width=390, height=844)
    page.goto("/")
    page.wait_for_selector("#solo-bot option[value=hard]", state="attached")
    values = page.eval_on_selector_all("#solo-bot option", "os => os.map(o => o.value)")
    assert values == ["easy", "medium", "hard", "random"]
    expect(page.locator("#show-research")).to_be_hidden()  # nothing to show on this server
    seat_values = page.eval_on_selector_all("#friends-seat-1 option", "os => os.map(o => o.value)")
    assert seat_values == ["human", "easy", "medium", "hard", "random"]
    page.select_option("#solo-bot", "medium")
    expect(page.locator("#solo-bot-about")).to_have_text("un joueur régulier et expérimenté")
    # The menu shows the level's name only: nothing cut, whatever the language.
    assert page.eval_on_selector("#solo-bot", "s => s.options[s.selectedIndex].text") == "moyen"

    research = server_factory(None, "--research-bots").start()
    assert {"hard-v1", "value"} <= set(httpx.get(f"{research.base}/api/bots").json()["names"])
    page = new_page(locale="fr-FR", width=390, height=844)
    page.goto(research.base + "/")
    page.wait_for_selector("#solo-bot option[value=hard]", state="attached")
    values = page.eval_on_selector_all("#solo-bot option", "os => os.map(o => o.value)")
    assert values == ["easy", "medium", "hard", "random"]  # folded until asked for
    page.check("#show-research")
    page.wait_for_selector("#solo-bot optgroup option[value=hard-v1]", state="attached")
    # The page keeps no list of its own: the server's research bots are the folded group, its bots for people
    # the menu's head (the bots' registry says which is which).
    listed = httpx.get(f"{research.base}/api/bots").json()
    assert page.eval_on_selector_all("#solo-bot optgroup option", "os => os.map(o => o.value)") == listed["research"]
    assert page.eval_on_selector_all("#solo-bot > option", "os => os.map(o => o.value)") == listed["players"]
    assert page.locator("#friends-seat-1 option[value=value]").count() == 1
    page.select_option("#solo-bot", "value")
    expect(page.locator("#solo-bot-about")).to_have_text("")  # the server's English note is not shown in French
    page.uncheck("#show-research")
    assert page.locator("#solo-bot option[value=value]").count() == 0
    assert page.input_value("#solo-bot") == "easy"


def test_no_menu_of_the_lobby_cuts_its_words_in_any_language(new_page, web_server, shoot):
    """Every option of every lobby menu shows whole, in each language, on a laptop and on a phone.

    The rules menu names a preset in a word or two, on a line of its own, and says what the preset means under it
    (a phone showed "Règles personnal", and the custom refund menu "la moitié de la mise, arrondie à l’infér").
    """
    page = new_page(width=1280, height=800)
    page.goto("/")
    page.wait_for_selector("#solo-bot option[value=hard]", state="attached")
    page.select_option("#solo-rules", "refund-up")
    about = page.locator("#solo-rules-about")
    expect(about).to_have_text("The official rules, but a pass gets back half its bid rounded up.")
    assert page.get_attribute("#solo-rules", "aria-describedby") == "solo-rules-about"

    cut = []
    for code in ["en", "fr", "nl", "it", "de"]:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.select_option("#lang", code)  # the lobby is drawn again in the new words
        expect(page.locator("html")).to_have_attribute("lang", code)
        page.wait_for_selector("#solo-bot option[value=hard]", state="attached")
        for form in ("solo", "friends"):
            page.select_option(f"#{form}-rules", "custom")  # the custom knobs' refund menu shows too
            expect(page.locator(f"#{form}-refund")).to_be_visible()
        for width, height in ((1280, 800), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            cut += [f"{code} {width}x{height}: {menu}" for menu in page.evaluate(MENUS_CUT, ".lobby")]
        shoot(page, f"lobby-menus-{code}")
    assert not cut, "\n".join(cut)


def test_a_finished_solo_game_is_among_the_finished_games_of_its_browser(new_page, web_server, player, start_solo):
    """The server lists only listed tables' games to everyone; the lobby adds this browser's own finished games (its
    seats' tables), so that a solo game is there to replay ("No finished games yet." after three games, before)."""
    page = new_page()
    table_id = start_solo(page, 2)
    player(page).play_to_end()
    page.wait_for_selector("#end")
    listed = httpx.get(f"{web_server}/api/tables", params={"status": "over", "limit": 100}).json()["tables"]
    assert table_id not in [game["id"] for game in listed]  # a solo game is unlisted: the server never lists it

    # The lists are asked for again every 5 s. Their answers are held to the first ones here, as on a quiet server:
    # an answer that changes nothing leaves the lists as they are, so the keyboard's focus stays on its link (each
    # refresh redrew them, and the focus fell back to the page).
    first: dict[str, str] = {}

    def same_answer(route: Route) -> None:
        if route.request.url not in first:
            first[route.request.url] = route.fetch().text()
        route.fulfill(status=200, content_type="application/json", body=first[route.request.url])

    page.route(re.compile(r"/api/tables\?status="), same_answer)
    page.goto("/#/")
    game = page.locator(f"#finished-games li[data-table='{table_id}']")
    expect(game).to_contain_text("Solo game")
    expect(game).to_contain_text("Ann, random bot")
    replay = game.get_by_role("link", name="Replay")
    replay.focus()
    page.evaluate("() => { document.activeElement.focusedBefore = true; }")
    with page.expect_response(lambda response: "status=over" in response.url, timeout=15_000):
        pass  # the next refresh, at most 5 s away
    page.evaluate("() => new Promise((done) => setTimeout(done, 100))")  # its answers drawn (or, now, not)
    assert page.evaluate("() => document.activeElement.focusedBefore === true"), "a refresh took the focus away"
    page.unroute(re.compile(r"/api/tables\?status="), same_answer)
    replay.click()
    expect(page.locator("#replay-step")).to_contain_text("move")
    assert page.url.endswith(f"#/replay/{table_id}")

    stranger = new_page()  # another browser: not its game, so not in its list
    stranger.goto("/")
    expect(stranger.locator("#finished-games li").first).not_to_have_text("Looking…")
    assert stranger.locator(f"#finished-games li[data-table='{table_id}']").count() == 0
