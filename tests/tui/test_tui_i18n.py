"""The terminal's languages: complete, current catalogues, and every sentence in each language.

The catalogues are checked with Babel (a test dependency) against the
sources: the ``.pot`` must be what ``pybabel extract`` finds now, every
``.po`` must translate all of it (every plural form, the same ``{fields}``),
and the committed ``.mo`` must be what ``pybabel compile`` makes of the ``.po``.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from hypothesis import given
from hypothesis import strategies as st

from forsale import PASS, Bid, Sell, bid, new_game, refusals, view
from forsale.rules import Ruleset
from forsale.tui import i18n
from forsale.tui.text import (
    _WORDS,
    BadAnswer,
    choices,
    describe,
    explain,
    join_and,
    parse_bid,
    parse_sale,
    public_log,
    short,
    verdict,
)

from .test_tui_terminal import _finished_record, spawn

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "src" / "forsale" / "locale"
TRANSLATED = [code for code in i18n.LANGUAGES if code != "en"]
FIELD = re.compile(r"\{(\w*)\}")


def catalogue(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def po(code: str) -> Path:
    return LOCALE / code / "LC_MESSAGES" / "forsale.po"


def template_ids() -> set[object]:
    return {m.id for m in catalogue(LOCALE / "forsale.pot") if m.id}


@pytest.fixture
def speak() -> Iterator[object]:
    """``speak(code)`` switches the language for one test; English again afterwards."""
    yield i18n.use
    i18n.use("en")


def test_the_template_holds_every_message_the_sources_mark(tmp_path: Path) -> None:
    out = tmp_path / "now.pot"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg", "-o", str(out), "."],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    now = {m.id for m in catalogue(out) if m.id}
    assert now == template_ids(), "run the pybabel commands in babel.cfg: the catalogues are out of date"


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_language_translates_every_message_with_every_plural_form(code: str) -> None:
    cat = catalogue(po(code))
    assert cat.num_plurals == 2
    messages = {m.id: m for m in cat if m.id}
    missing = template_ids() - set(messages)
    assert not missing, f"{code} lacks {sorted(map(str, missing))}"
    for msgid, message in messages.items():
        assert not message.fuzzy, (code, msgid)
        forms = message.string if isinstance(msgid, tuple) else (message.string,)
        assert len(forms) == cat.num_plurals if isinstance(msgid, tuple) else 1, (code, msgid)
        assert all(form.strip() for form in forms), f"{code}: no translation for {msgid!r}"
        english = msgid if isinstance(msgid, tuple) else (msgid,)
        fields = set(FIELD.findall(english[-1]))
        for form in forms:
            assert set(FIELD.findall(form)) == fields, f"{code}: {form!r} must use the fields {fields} of {msgid!r}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_shipped_mo_files_are_compiled_from_the_po_files(code: str) -> None:
    compiled = io.BytesIO()
    write_mo(compiled, catalogue(po(code)))
    shipped = (LOCALE / code / "LC_MESSAGES" / "forsale.mo").read_bytes()
    assert shipped == compiled.getvalue(), "run pybabel compile (see babel.cfg)"


@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_money_is_written_as_cldr_writes_dollars_like_the_web_page(code: str, speak) -> None:
    """The page formats money with ``Intl.NumberFormat`` (CLDR); the terminal's table must agree with CLDR."""
    locale = Locale.parse({"en": "en_US"}.get(code, f"{code}_{code.upper()}"))
    pattern = locale.currency_formats["standard"].pattern.split(";")[0].replace(".00", "")
    group = locale.number_symbols["latn"]["group"]
    expected = pattern.replace("#,##0", f"14{group}000").replace("¤", "$")
    speak(code)
    assert i18n.money(14) == expected
    assert i18n.money(0) == expected.replace(f"14{group}000", "0")


def test_plural_forms_follow_each_language(speak) -> None:
    forms = {}
    for code in i18n.LANGUAGES:
        speak(code)
        forms[code] = [i18n.ngettext("{n} coin", "{n} coins", n).format(n=n) for n in (0, 1, 2)]
    assert forms == {
        "en": ["0 coins", "1 coin", "2 coins"],
        "fr": ["0 pièce", "1 pièce", "2 pièces"],  # French counts 0 as singular
        "nl": ["0 munten", "1 munt", "2 munten"],
        "it": ["0 monete", "1 moneta", "2 monete"],
        "de": ["0 Münzen", "1 Münze", "2 Münzen"],
    }


def test_the_words_of_the_printed_games(speak) -> None:
    """Houses, cheques and coins as each language's rules call them (the seeds; German: the published edition)."""
    words = {"fr": ("Maisons", "Chèques", "pièces"), "nl": ("huizen", "cheques", "munten"),
             "it": ("edifici", "assegni", "monete"), "de": ("Häuser", "Schecks", "Münzen")}  # fmt: skip
    for code, expected in words.items():
        speak(code)
        assert (i18n._("houses"), i18n._("cheques"), i18n._("coins")) == expected


def test_text_in_french(speak) -> None:
    speak("fr")
    assert short(14) == "14k"
    assert join_and(["Ann", "Bob", "Cy"]) == "Ann, Bob et Cy"
    assert describe(Ruleset.default(4)) == (
        "official, 4 joueurs : 18 pièces, 2 cartes retirées de chaque pioche, remboursement arrondi à l'inférieur"
    )
    game = new_game(4, seed=8)
    first = game.current_seat
    game.push(first, bid(3))
    game.push(game.current_seat, PASS)
    names = ["Vous", "Ann", "Bob", "Cy"]
    log = [e.text for e in public_log(view(game, 0), names)]
    assert log[0].startswith("Enchères, manche 1 : les Maisons ")
    assert log[1] == (
        "Vous enchérissez 3\u202f000\u00a0$." if first == 0 else f"{names[first]} enchérit 3\u202f000\u00a0$."
    )
    assert log[2].endswith("pour rien.")


def auction_view(high: int = 3, coins: int = 7):
    v = view(new_game(4, seed=1), 0)
    return dataclasses.replace(v, seat=0, turn=0, high=high, coins=(coins, 18, 18, 18))


@pytest.mark.parametrize(
    ("code", "answer", "amount"),
    [("fr", "4\u202f000 $", 4), ("fr", "5 000", 5), ("nl", "$ 4.000", 4), ("de", "6.000 $", 6), ("it", "punta 5", 5)],
)
def test_bids_written_the_language_s_way_are_understood(code: str, answer: str, amount: int, speak) -> None:
    speak(code)
    assert parse_bid(answer, auction_view()) == bid(amount)


@given(code=st.sampled_from(list(i18n.LANGUAGES)), amount=st.integers(1, 18), shown=st.sampled_from(["money", "short"]))
def test_an_amount_typed_as_the_game_shows_it_is_that_bid(code: str, amount: int, shown: str) -> None:
    """Whatever the language, typing back an amount exactly as the table shows it bids that amount."""
    i18n.use(code)
    try:
        text = i18n.money(amount) if shown == "money" else short(amount)
        assert parse_bid(text, auction_view(high=0, coins=18)) == bid(amount)
    finally:
        i18n.use("en")


def test_the_language_s_own_word_passes(speak) -> None:
    for code, word in {"fr": "passer", "nl": "pas", "it": "passa", "de": "passen"}.items():
        speak(code)
        assert parse_bid(word, auction_view()) == PASS


def test_refused_answers_are_explained_in_the_language(speak) -> None:
    speak("de")
    with pytest.raises(BadAnswer, match="^du hast 7 Münzen; biete 4–7 oder passe$"):
        parse_bid("8", auction_view())
    with pytest.raises(BadAnswer, match="^du hast 3 Münzen und das Höchstgebot ist 5; du kannst nur passen$"):
        parse_bid("4", auction_view(high=5, coins=3))
    with pytest.raises(BadAnswer, match="^'viel' ist kein Gebot; biete 4–7 oder passe"):
        parse_bid("viel", auction_view())
    game = new_game(4, seed=3)
    while game.phase == "auction":
        game.push(game.current_seat, PASS)
    v = view(game, 0)
    missing = next(h for h in range(1, 31) if h not in v.hand)
    with pytest.raises(BadAnswer, match=f"^du hast Haus {missing} nicht; wähle eines von "):
        parse_sale(str(missing), v)
    assert parse_sale(f"verkaufe {v.hand[0]}", v) == Sell(v.hand[0])


def every_refusal_a_prompt_meets() -> Iterator[refusals.Refusal]:
    """The engine's refusals (``you=True``) of every bid and sale a prompt can send, over a range of situations."""
    for coins in range(0, 20):
        for high in range(0, 20):
            for amount in range(0, 22):
                r = refusals.refusal("auction", 0, 0, coins, high, False, (), Bid(amount), you=True)
                if r is not None:
                    yield r
    for hand in [(3,), (1, 5, 30), tuple(range(1, 11))]:
        for house in range(0, 40):
            r = refusals.refusal("sale", 0, None, 5, 0, False, hand, Sell(house), you=True)
            if r is not None:
                yield r


def test_every_refusal_a_prompt_can_meet_is_translated(speak) -> None:
    met = list(every_refusal_a_prompt_meets())
    assert len({r.message for r in met}) > 100
    assert {str((r.params or {}).get("why")) for r in met} <= set(_WORDS), "an explanation the terminal cannot word"
    for code in TRANSLATED:
        speak(code)
        untranslated = {r.message for r in met if explain(r) == r.message}
        assert not untranslated, f"{code}: the engine's {sorted(untranslated)[:3]} have no translation"
    speak("en")
    for r in met:  # English words them as the engine does, with "1 coin" in the singular
        assert explain(r) == re.sub(r"\b1 coins\b", "1 coin", r.message)
    assert choices(5, 5) == "pass"


def test_a_refusal_with_no_known_explanation_keeps_the_engine_s_words(speak) -> None:
    speak("de")
    odd = refusals.Refusal("illegal", "something new", {"why": "from_the_future"})
    assert explain(odd) == "something new"
    assert explain(refusals.Refusal("illegal", "no facts")) == "no facts"


def test_the_tie_break_sentence_in_italian(speak) -> None:
    game = new_game(4, seed=5)
    while game.phase == "auction":
        game.push(game.current_seat, PASS)
    while not game.is_over:
        game.push_sale([min(h) for h in game.hands])
    speak("it")
    tie = dataclasses.replace(view(game, 0), cheques_won=((20,), (15,), (1,), (0,)), coins=(2, 7, 0, 0))
    assert verdict(tie, ["Tu", "Ann", "Bob", "Cy"]) == (
        "Ann e Tu sono pari a 22.000 $; la parità va a chi ha più monete rimaste (Ann 7.000 $ e Tu 2.000 $), "
        "quindi vince Ann."
    ).replace(" $", "\u00a0$")


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown language 'pt'; choose one of en, fr, nl, it, de"):
        i18n.use("pt")
    assert i18n.language() == "en"


@pytest.mark.parametrize(
    ("environ", "code"),
    [
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LC_MESSAGES": "nl_BE.UTF-8", "LANG": "fr_FR.UTF-8"}, "nl"),
        ({"LC_ALL": "it_IT@euro", "LC_MESSAGES": "nl_NL"}, "it"),
        ({"LANGUAGE": "de:fr", "LC_ALL": "C"}, "de"),
        ({"LC_ALL": "C.UTF-8", "LANG": "fr_FR"}, "en"),
        ({"LANG": "ja_JP.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
    ],
)
def test_the_language_follows_the_locale_variables(environ: dict[str, str], code: str) -> None:
    assert i18n.from_environment(environ) == code


# -- the real program in a pseudo-terminal ------------------------------------------


def english_fragments() -> set[str]:
    """The English words of every message (between fields and punctuation) that no French message also uses."""
    french = " ".join(
        " ".join(m.string) if isinstance(m.id, tuple) else m.string for m in catalogue(po("fr")) if m.id
    ).lower()
    pieces: set[str] = set()
    for msgid in template_ids():
        for text in msgid if isinstance(msgid, tuple) else (msgid,):
            for piece in re.split(r"\{\w*\}|[.;:,()?!\n]", text):
                piece = piece.strip()
                if sum(c.isalpha() for c in piece) >= 4 and piece.lower() not in french:
                    pieces.add(piece)
    return pieces


def test_a_whole_game_in_french_shows_no_english(tmp_path: Path, forsale_env: dict[str, str]) -> None:
    import pexpect

    record = tmp_path / "partie.json"
    child = spawn(
        forsale_env, "play", "--lang", "fr", "--players", "3", "--bots", "random", "--seed", "11",
        "--save", str(record), width=250, LANG="en_US.UTF-8",
    )  # fmt: skip
    bid_prompt = re.compile(r"Votre enchère \(([^)]*)\) : ")
    sale_prompt = re.compile(r"Vendre quelle Maison \(([^)]*)\) \? ")
    child.expect("graine 11")
    wrong = ["?", "beaucoup", "99"]
    wrong_sale = ["la grande", "31"]
    while True:
        i = child.expect([bid_prompt, sale_prompt, "est enregistrée dans", pexpect.EOF])
        if i == 0:
            if wrong:
                child.sendline(wrong.pop(0))
                continue
            choices = child.match.group(1)
            low = re.match(r"enchérir (\d+)", choices)
            child.sendline(f"{low.group(1)}\u202f000 $" if low and int(low.group(1)) <= 2 else "passer")
        elif i == 1:
            if wrong_sale:
                child.sendline(wrong_sale.pop(0))
                continue
            child.sendline(child.match.group(1).split(", ")[-1])
        elif i == 2:
            break
        else:
            pytest.fail(f"the game ended without saving: {child.before}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    out = child.logfile_read.getvalue()
    for french in (
        "Vous êtes Vous", "Enchères, manche 1 sur 8", "Maisons à vendre : ", "n'est pas une enchère",
        "vous avez 18 pièces ; enchérir", "Vente : tapez le numéro", "Vente, manche 8 sur 8",
        "n'est pas un numéro de Maison", "cette Maison n'existe pas", "Chèques proposés : ", "Scores finaux",
        "\u202f000\u00a0$",
    ):  # fmt: skip
        assert french in out, french
    shown = out.replace("For Sale", "").replace("forsale replay", "")
    fragments = english_fragments()
    control = "Auction round 1 of 8 · You pass and take house 4 for nothing. Your hand: no houses yet"
    assert {"Auction round", "You pass and take house", "for nothing", "Your hand", "no houses yet"} <= {
        piece for piece in fragments if piece in control
    }  # the check below would see English
    english = sorted(piece for piece in fragments if re.search(rf"\b{re.escape(piece)}\b", shown))
    assert not english, f"English in the French game: {english}"
    assert json.loads(record.read_text())["players"][0] == "Vous"


def test_a_german_locale_speaks_german(forsale_env: dict[str, str]) -> None:
    import pexpect

    child = spawn(
        forsale_env, "play", "--players", "3", "--bots", "random", "--seed", "9", width=250, LANG="de_DE.UTF-8"
    )
    child.expect(r"Dein Gebot \((biete \d+–\d+ oder passe)\): ")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert "Spiel abgebrochen (du hast das Spiel verlassen) in Versteigerung 1." in child.before
    assert child.exitstatus == 0


def test_an_unknown_language_is_one_line_and_exit_2(forsale_cmd: list[str], forsale_env: dict[str, str]) -> None:
    for command in (["play"], ["show", "-"]):
        done = subprocess.run(
            forsale_cmd + [*command, "--lang", "pt"], env=forsale_env, capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 2
        assert done.stderr == f"forsale {command[0]}: unknown language 'pt'; choose one of en, fr, nl, it, de\n"


def test_show_in_dutch(tmp_path: Path, forsale_env: dict[str, str]) -> None:
    import pexpect

    path = _finished_record(tmp_path)
    child = spawn(forsale_env, "show", str(path), width=250, LC_ALL="nl_NL.UTF-8", LANG="fr_FR.UTF-8")
    child.expect("Spelers: Ann \\(plaats 0\\), Bob \\(plaats 1\\), Cy \\(plaats 2\\)")
    for r in range(1, 9):
        child.expect(f"Veiling {r}: de huizen")
    for r in range(1, 9):
        child.expect(f"Verkoop {r}: de cheques")
    child.expect("Eindstand")
    child.expect(r"(wint met \$\u00a0[\d.]+|staan gelijk op)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
