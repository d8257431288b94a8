"""The web page in English, French, Dutch, Italian and German.

The catalogues (``web/static/i18n/<code>.json``) are checked without a browser:
every language has exactly English's messages, with the same placeholders and
the plural forms its CLDR rules need. In Chromium, a page whose browser speaks
a language shows that language from the lobby to the end of a solo game and in
its replay, with no English UI string left (read from the visible text and the
titles, labels and placeholders a screen reader or a mouse shows); the header's
switch changes the language without a reload and is remembered; money is
written the locale's way.
"""

from __future__ import annotations

import json
import re
import time
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "forsale" / "web" / "static"
CATALOGUES = STATIC / "i18n"
LANGUAGES = ["en", "fr", "nl", "it", "de"]
LOCALES = {"en": "en-US", "fr": "fr-FR", "nl": "nl-NL", "it": "it-IT", "de": "de-DE"}
# The CLDR cardinal plural categories of each language (what Intl.PluralRules.select may answer).
PLURAL_FORMS = {
    "en": {"one", "other"},
    "nl": {"one", "other"},
    "de": {"one", "other"},
    "fr": {"one", "many", "other"},
    "it": {"one", "many", "other"},
}
# The starting 14 coins of a 6-player game as each locale writes money (spaces normalised).
FOURTEEN = {"fr": "14 000 $", "nl": "$ 14.000", "it": "14.000 $", "de": "14.000 $"}
# A short date as each locale writes it (Intl.DateTimeFormat, dateStyle "short").
SHORT_DATES = {"fr": r"\d\d/\d\d/\d{4}", "nl": r"\d\d-\d\d-\d{4}", "it": r"\d\d/\d\d/\d\d", "de": r"\d\d\.\d\d\.\d\d"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")
EXACT_FORM = re.compile(r"=\d+")
"""A form for one number exactly (ICU's ``=8``), which i18n.js's ``t`` takes before the plural forms."""


@cache
def catalogue(code: str) -> dict[str, Any]:
    return json.loads((CATALOGUES / f"{code}.json").read_text(encoding="utf-8"))


def texts(value: str | dict[str, str]) -> list[str]:
    """A message's texts: itself, or each of its plural forms."""
    return list(value.values()) if isinstance(value, dict) else [value]


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


# -- the catalogues, without a browser --------------------------------------------------


def test_english_plurals_have_exactly_one_and_other():
    plural = {key: value for key, value in catalogue("en").items() if isinstance(value, dict)}
    assert plural, "the catalogue has plural messages"
    for key, value in plural.items():
        assert set(value) == PLURAL_FORMS["en"], key
        assert "count" in placeholders(value["other"]), f"{key}: a plural is chosen by {{count}}"


@pytest.mark.parametrize("code", LANGUAGES[1:])
def test_every_catalogue_has_exactly_the_english_messages(code):
    english = catalogue("en")
    theirs = catalogue(code)
    assert sorted(set(english) - set(theirs)) == [], f"{code} lacks these messages"
    assert sorted(set(theirs) - set(english)) == [], f"{code} has messages English does not"
    for key, value in english.items():
        wanted = set().union(*(placeholders(text) for text in texts(value)))
        mine = theirs[key]
        exact = {form for form in mine if EXACT_FORM.fullmatch(form)} if isinstance(mine, dict) else set()
        if exact:  # "=8": the article a number takes by its sound ("l’8"), a form of any message
            assert "other" in mine, f"{code} {key}: exact forms {sorted(exact)} need an 'other' form"
            assert all(placeholders(mine[form]) == wanted for form in exact), f"{code} {key}: {mine}"
        if isinstance(value, dict):
            assert isinstance(mine, dict), f"{code} {key}: English has plural forms here"
            assert set(mine) - exact == PLURAL_FORMS[code], f"{code} {key}: forms {sorted(mine)}"
            for form, text in mine.items():
                got = placeholders(text)
                # The "one" form may say the number in words ("la carte", "un posto"): only it may drop {count}.
                assert got == wanted or (form == "one" and got == wanted - {"count"}), f"{code} {key}[{form}]: {got}"
        elif exact:
            assert set(mine) == exact | {"other"}, f"{code} {key}: English has no plural forms here"
            assert placeholders(mine["other"]) == wanted, f"{code} {key}: placeholders of {mine['other']!r}"
        else:
            assert isinstance(mine, str), f"{code} {key}: English has no plural forms here"
            assert placeholders(mine) == wanted, f"{code} {key}: placeholders {placeholders(mine)} != {wanted}"
            assert mine.strip(), f"{code} {key} is empty"


def test_every_key_the_page_uses_is_in_the_catalogue():
    used: set[str] = set()
    for path in [*STATIC.glob("js/*.js"), STATIC / "index.html"]:
        source = path.read_text(encoding="utf-8")
        used |= set(re.findall(r'\bt\("([^"]+)"', source))
        used |= set(re.findall(r'data-i18n(?:-title|-label)?="([^"]+)"', source))
    assert len(used) > 150
    assert sorted(used - set(catalogue("en"))) == []


@pytest.mark.parametrize("code", ["fr", "it"])
def test_french_and_italian_write_one_apostrophe_and_french_spaces_its_punctuation(code):
    """One apostrophe (’), never a mix with ', and in French a narrow no-break space before ; : ! ? (never a
    breaking space, which lets the sign start a line, and not sometimes one space, sometimes another)."""
    for key, value in catalogue(code).items():
        for text in texts(value):
            assert "'" not in text, f"{code} {key}: {text!r}"
            if code == "fr":
                assert not re.search(r"[ \u00a0][;:!?]", text), f"{code} {key}: {text!r}"


# -- in the browser ------------------------------------------------------------------------


# Money and points in each language, from the page's own modules (the ones the table uses).
_FORMATS = """async (code) => {
  const i18n = await import('/js/i18n.js');
  await i18n.setLanguage(code);
  return {one: i18n.money(1), many: i18n.money(77), point: i18n.t('analysis.points', {count: 1}),
          points: i18n.t('analysis.points', {count: 2})};
}"""


@pytest.mark.parametrize("code", LANGUAGES)
def test_money_has_one_grouping_and_one_point_is_singular(code, new_page):
    page = new_page()
    page.goto("/")
    got = page.evaluate(_FORMATS, code)
    one, many = (re.sub(r"[\u00a0\u202f]", " ", got[x]) for x in ("one", "many"))
    # "1000 $" above "77.000 $" in one score column: the thousands are grouped alike at every size.
    assert one.replace("1", "77", 1) == many, got
    assert got["point"] == catalogue(code)["analysis.points"]["one"].replace("{count}", "1"), got
    assert got["points"].startswith("+2 ") and got["points"] != got["point"].replace("1", "2"), got


def english_fragments(code: str) -> list[str]:
    """The pieces of English UI text that must not appear on a page in ``code``.

    Each English message is cut at its placeholders; a piece counts if it has six
    characters or more once trimmed, and is not also part of one of the target
    language's own messages (a word such as "Lobby" or "Total" that the language
    shares with English).
    """
    own = [text for value in catalogue(code).values() for text in texts(value)]
    pieces = set()
    for value in catalogue("en").values():
        for text in texts(value):
            for piece in PLACEHOLDER.split(text)[::2]:
                piece = piece.strip(" .,:;()·—?…✓●◐")
                if len(piece) >= 6 and re.search(r"[A-Za-z]", piece) and not any(piece in t for t in own):
                    pieces.add(piece)
    return sorted(pieces)


_SHOWN = """() => {
  const said = [document.title, document.body.innerText];
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    for (const name of ['aria-label', 'title', 'placeholder']) if (el.hasAttribute(name)) said.push(el.getAttribute(name));
  }
  return said.join('\\n');
}"""


def assert_no_english(page: Page, code: str, where: str) -> None:
    shown = page.evaluate(_SHOWN)
    left = [p for p in english_fragments(code) if re.search(rf"(?<!\w){re.escape(p)}(?!\w)", shown)]
    assert not left, f"{code} {where}: English left on the page: {left}"


@pytest.mark.parametrize("code", LANGUAGES[1:])
def test_a_solo_game_in_the_browsers_language_shows_no_english(
    code, new_page, player, start_solo, shoot, reveal_settled
):
    page = new_page(locale=LOCALES[code])
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", code)
    expect(page.locator("#solo h2")).to_have_text(catalogue(code)["lobby.solo"])
    expect(page.locator("#lang")).to_have_value(code)
    page.wait_for_selector("#solo-bot option[value=hard]", state="attached")  # the server's bot list arrived
    looking = catalogue(code)["lobby.looking"]
    page.wait_for_function(
        "t => [...document.querySelectorAll('.tables .empty')].every(e => e.textContent !== t)", arg=looking
    )
    page.click("#how-to-play summary")
    expect(page.locator("#how-to-play p").first).to_be_visible()
    assert_no_english(page, code, "lobby")

    table_id = start_solo(page, 6, name="Zoë")
    me = player(page)
    assert me.wait_turn() == "auction"
    amount = page.locator(".me-area .purse .amount").inner_text()
    assert re.sub(r"[\u00a0\u202f]", " ", amount) == FOURTEEN[code]
    assert_no_english(page, code, "auction")
    # The names the server gives (the table's, the bots') are said in the page's language too (the page
    # sends none: the table is "Solo game" on the server, and each page says it in its own language).
    expect(page.locator("#info")).to_contain_text(catalogue(code)["lobby.soloName"])
    bot = catalogue(code)["seat.bot"].replace("{name}", catalogue(code)["seat.botLevel.random"])
    assert page.locator(".seat .name .nm").all_inner_texts() == ["Zoë", *(f"{bot} {s}" for s in range(2, 7))]
    shoot(page, f"table-{code}")

    sale_seen = False
    while (phase := me.play_turn()) != "over":
        if phase == "sale" and not sale_seen:
            sale_seen = True
            assert_no_english(page, code, "sale")
            shoot(page, f"table-sale-{code}")
    assert sale_seen
    page.wait_for_selector("#end")
    reveal_settled(page)
    expect(page.locator(".log li.end")).to_have_text(
        re.compile("^" + re.escape(catalogue(code)["log.end"].split("{")[0]))
    )
    assert_no_english(page, code, "game over")
    shoot(page, f"end-{code}")

    page.click("#replay-link")
    page.wait_for_selector("#replay-stage .seat")
    assert_no_english(page, code, "replay at the end")
    page.click("#replay-rounds button[data-step='0']")
    at_deal = catalogue(code)["replay.step"].replace("{step}", "0").split("{")[0]
    expect(page.locator("#replay-step")).to_have_text(re.compile("^" + re.escape(at_deal)))
    assert_no_english(page, code, "replay at the deal")

    # A solo game is unlisted; a public table of bots, once over, is listed with its date the locale's way.
    made = page.request.post("/api/tables", data={"players": 2, "name": "Zoë", "seats": ["random", "random"]})
    assert made.status == 201, made.text()
    public_id = made.json()["table"]["id"]
    deadline = time.monotonic() + 60
    while page.request.get(f"/api/tables/{public_id}").json()["table"]["status"] != "over":
        assert time.monotonic() < deadline, "the bots' game did not finish"
        time.sleep(0.1)
    page.goto("/")
    listed = page.locator(f"#finished-games li[data-table='{public_id}']")
    expect(listed).to_be_visible()
    expect(page.locator(f"#finished-games li[data-table='{table_id}']")).to_be_visible()  # this browser's solo game too
    expect(listed.locator(".what")).to_contain_text(re.compile(SHORT_DATES[code]))
    expect(listed.locator(".what small")).to_contain_text(f"{bot} 1, {bot} 2")
    assert_no_english(page, code, "lobby after the game")


def test_the_header_switch_changes_the_language_and_is_remembered(new_page):
    page = new_page()
    page.goto("/")
    expect(page.locator("#solo h2")).to_have_text("Play against bots")
    names = page.eval_on_selector_all("#lang option", "els => els.map(e => [e.value, e.textContent, e.lang])")
    assert names == [
        ["en", "English", "en"],
        ["fr", "Français", "fr"],
        ["nl", "Nederlands", "nl"],
        ["it", "Italiano", "it"],
        ["de", "Deutsch", "de"],
    ]
    assert page.get_by_label("Language").count() == 1  # the switch has an accessible name
    page.evaluate("() => { window.notReloaded = true; }")
    page.select_option("#lang", "de")
    expect(page.locator("#solo h2")).to_have_text(catalogue("de")["lobby.solo"])
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("#theme")).to_have_text(catalogue("de")["header.theme"])
    assert page.evaluate("() => window.notReloaded === true")
    page.reload()
    expect(page.locator("#solo h2")).to_have_text(catalogue("de")["lobby.solo"])
    expect(page.locator("#lang")).to_have_value("de")
    expect(page.get_by_label(catalogue("de")["header.language"])).to_have_count(1)


def test_switching_at_the_table_redraws_it_in_place(new_page, player):
    page = new_page()
    page.goto("/")
    page.select_option("#solo-players", "3")
    page.select_option("#solo-bot", "random")
    page.click("#play-solo")
    me = player(page)
    assert me.wait_turn() == "auction"
    expect(page.locator("#prompt")).to_have_text("Your turn to bid or pass.")
    page.evaluate("() => { window.notReloaded = true; }")
    page.select_option("#lang", "it")
    expect(page.locator("#prompt")).to_have_text(catalogue("it")["prompt.auction"])
    expect(page.locator("#conn")).to_have_text(catalogue("it")["conn.open"])
    assert page.evaluate("() => window.notReloaded === true")
    # The chat panel outlives the table's redraws: it follows the switch too, and so do the bots' levels.
    italian = catalogue("it")
    expect(page.locator("#chat-title")).to_have_text(italian["chat.title"])
    expect(page.locator("label[for=chat-input]")).to_have_text(italian["chat.label"])
    expect(page.locator("#chat-send")).to_have_text(italian["chat.send"])
    expect(page.locator("#chat-log li.empty")).to_have_text(italian["chat.empty"])
    bot = italian["seat.bot"].replace("{name}", italian["seat.botLevel.random"])
    assert page.locator(".seat .name .nm").all_inner_texts()[1:] == [f"{bot} 2", f"{bot} 3"]
    assert me.play_turn() == "auction"  # the redrawn table still plays (a +1 bid: the Player's first move)
    expect(page.locator(".log li.bid", has_text=re.compile("^Hai puntato"))).to_have_count(1)


def test_the_browsers_language_picks_the_page_language(new_page):
    dutch = new_page(locale="nl-BE")
    dutch.goto("/")
    expect(dutch.locator("html")).to_have_attribute("lang", "nl")
    expect(dutch.locator("#play-solo")).to_have_text(catalogue("nl")["lobby.play"])
    spanish = new_page(locale="es-ES")  # a language the page does not speak: English
    spanish.goto("/")
    expect(spanish.locator("#play-solo")).to_have_text("Play now")
    expect(spanish.locator("html")).to_have_attribute("lang", "en")


def test_the_english_check_finds_english(new_page):
    """The check above is not vacuous: on the English page it finds the English lobby's words."""
    page = new_page()
    page.goto("/")
    expect(page.locator("#play-solo")).to_have_text("Play now")
    with pytest.raises(AssertionError, match="Play against bots"):
        assert_no_english(page, "fr", "English lobby")
    assert len(english_fragments("fr")) > 150


@pytest.mark.parametrize("code", ["fr", "de"])
def test_a_table_for_friends_shows_no_english(code, new_page):
    """The screens a solo game never shows: the share links, the waiting table, a seat taken, the join form."""
    ann = new_page(locale=LOCALES[code])
    ann.goto("/")
    ann.fill("#friends-name", "Ann")
    ann.select_option("#friends-players", "3")
    ann.select_option("#friends-seat-2", "random")
    ann.click("#create-table")
    link = ann.locator("#share-links input[data-seat='1']")
    url = link.input_value()
    assert_no_english(ann, code, "share links")
    ann.click("#go-to-table")
    ann.wait_for_selector("#waiting")
    assert_no_english(ann, code, "waiting for players")
    # A table left unnamed ("Table of 3" on the server), the free seat and the bot are said in the page's language.
    expect(ann.locator("#info")).to_contain_text(catalogue(code)["lobby.tableOf"].replace("{count}", "3"))
    seat = catalogue(code)["seat.number"].replace("{seat}", "2")
    bot = catalogue(code)["seat.bot"].replace("{name}", catalogue(code)["seat.botLevel.random"])
    expect(ann.locator(".seat[data-seat='1'] .name .nm")).to_have_text(seat)
    expect(ann.locator(".seat[data-seat='2'] .name .nm")).to_have_text(bot)

    bob = new_page(locale=LOCALES[code])
    bob.goto(url)
    bob.wait_for_selector("#join-name")
    assert_no_english(bob, code, "join form")
    bob.fill("#join-name", "Bob")
    bob.click("form button[type=submit]")
    bob.wait_for_selector(".game[data-phase=auction]")
    assert_no_english(bob, code, "table for friends")

    cy = new_page(locale=LOCALES[code])
    cy.goto(url)
    cy.wait_for_selector("#seat-taken")
    expect(cy.locator("#seat-taken h2")).to_have_text(catalogue(code)["join.taken"].replace("{seat}", "2"))
    assert_no_english(cy, code, "seat taken")
