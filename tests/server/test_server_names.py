"""The names the server gives what nobody named, and the web page that says them in its own language.

The server stores and sends these names in English (records keep them); the page recognises their forms
(``shownName`` and ``shownTableName`` in ``web/static/js/format.js``) and shows them in the page's language.
This holds the page's copy of each form to the server's, so that changing one without the other fails here;
tests/web/test_web_i18n.py watches the page show them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from forsale.server import names

FORMAT_JS = (Path(names.__file__).parents[1] / "web" / "static" / "js" / "format.js").read_text()


def js_constant(name: str) -> str:
    """The source of ``const NAME = ...;`` in format.js."""
    found = re.search(rf"^const {name} = (.+);$", FORMAT_JS, re.MULTILINE)
    assert found, f"format.js has no constant {name}"
    return found.group(1)


def test_the_page_knows_a_player_who_left_for_a_bot() -> None:
    suffix = js_constant("LEFT").strip('"')
    assert names.left_name("Ann") == "Ann" + suffix


def test_the_page_knows_a_solo_game() -> None:
    assert js_constant("SOLO").strip('"') == names.SOLO_NAME


@pytest.mark.parametrize("players", range(2, 7))
def test_the_page_knows_an_unnamed_table_by_its_player_count(players: int) -> None:
    assert names.table_name(players) == js_constant("TABLE_OF").strip('"') + str(players)
    assert "name === TABLE_OF + players" in FORMAT_JS


def test_the_page_knows_a_bot_by_its_name_options_aside() -> None:
    suffix = js_constant("BOT").strip('"')
    assert 'const base = bot.split(":")[0];' in FORMAT_JS and "name === base + BOT" in FORMAT_JS
    assert names.bot_name("hard:time=0.5") == "hard" + suffix == "hard bot"
    assert names.bot_name("medium") == "medium" + suffix


@pytest.mark.parametrize("seat", range(6))
def test_the_page_knows_a_player_who_gave_no_name_by_the_seat(seat: int) -> None:
    assert names.joined_name(seat) == js_constant("PLAYER").strip('"') + str(seat + 1)
    assert "name === PLAYER + (index + 1)" in FORMAT_JS


def test_the_page_knows_a_deleted_account() -> None:
    assert js_constant("DELETED").strip('"') == names.DELETED_NAME
