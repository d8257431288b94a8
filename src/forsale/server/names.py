"""What a name may hold, so that nobody can pass for somebody else, for a bot or for the server.

Names are what people go by at a table, in the lobby and in records, so they
are where an impostor works. Three checks, from the cheapest:

- **Visible characters** (:data:`HIDDEN`, every name: seats, tables, accounts):
  no format characters (Unicode's ``Cf``: zero-width space, word joiner,
  joiners, tags...), no default-ignorable code points (variation selectors
  other than the emoji ones, the combining grapheme joiner), no letters that
  are drawn as nothing (the Hangul fillers, the braille blank), no line or
  paragraph separators, no private-use characters. Such characters make
  ``Ann`` and ``Ann\\u200b`` two names that read the same, or a name that
  reads as blank. :mod:`forsale.server.http.schemas` builds the OpenAPI pattern
  from the same set, so the schema says what is refused.
- **One script** (:func:`script_problem`, the names people go by): each
  name's letters come from one script, besides the signs every script uses
  (digits, punctuation, symbols, combining accents), except the usual
  combinations of Japanese (Han, Hiragana, Katakana) and Korean (Han and
  Hangul), as Unicode's "highly restrictive" level (UTS #39) allows. So
  ``Раul`` (a Cyrillic ``Ра`` before a Latin ``ul``) is refused.
- **Look-alikes** (:func:`skeleton`): names are compared by a skeleton that
  maps the letters of other scripts drawn like Latin ones (Cyrillic ``а``,
  Greek ``Α``...), and the classic ``l``/``I``/``1`` and ``O``/``0``, to one
  form, casefolded. Names whole in another script that read as a Latin one
  (Cyrillic ``Асе``) are caught there: two accounts cannot share a skeleton,
  a guest cannot take an account's, and no person takes the server's own
  names (:func:`reserved`).

The script of a letter is read from its Unicode name (``CYRILLIC SMALL
LETTER A``): the standard library has no script property, and the first
word of the name is the script for every script in :data:`SCRIPTS`, the
scripts people write names in; letters of other scripts are refused in the
names people go by (historic scripts such as Old Italic are drawn like Latin,
and nobody's name needs them).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from pathlib import Path

# -- characters that do not show --------------------------------------------------------------
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
"""Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): drawn as nothing when not understood."""
_BLANK = (0x2028, 0x2029, 0x2800, 0x1D159)
"""The line and paragraph separators (line breaks), the braille blank (a letter-like blank), and the musical
null notehead (a symbol fonts draw as an empty square's width of nothing)."""
_PRIVATE = ((0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))
"""Private use: drawn as whatever a font puts there, if anything."""
EMOJI_SELECTORS = frozenset("\ufe0e\ufe0f")
"""Text and emoji presentation selectors: they follow an emoji (``❤️``), so they are allowed, but do not show."""


def _ranges(codes: list[int]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for code in sorted(set(codes)):
        if out and out[-1][1] == code - 1:
            out[-1] = (out[-1][0], code)
        else:
            out.append((code, code))
    return tuple(out)


def _hidden() -> tuple[tuple[int, int], ...]:
    codes = [c for low, high in (*_IGNORABLE, *_PRIVATE) for c in range(low, high + 1)]
    codes += _BLANK
    # Format characters: where the Unicode Character Database of this Python puts them (planes 0, 1 and 14).
    codes += [c for c in (*range(0x20000), *range(0xE0000, 0xE1000)) if unicodedata.category(chr(c)) == "Cf"]
    return _ranges([c for c in codes if chr(c) not in EMOJI_SELECTORS])


HIDDEN_RANGES = _hidden()
"""The code points no name holds, as ranges (first, last): the checks and the schema's pattern read these."""
HIDDEN = frozenset(chr(c) for low, high in HIDDEN_RANGES if high < 0xE0000 for c in range(low, high + 1))


def hidden(ch: str) -> bool:
    """Whether ``ch`` is a character no name may hold (see the module's docstring)."""
    code = ord(ch)
    return ch in HIDDEN or (0xE0000 <= code <= 0x10FFFF and any(lo <= code <= hi for lo, hi in HIDDEN_RANGES))


def shows(ch: str) -> bool:
    """Whether ``ch`` is something to read: not a space, nor hidden, nor a presentation selector."""
    return not ch.isspace() and ch not in EMOJI_SELECTORS and not hidden(ch)


def regex_ranges(ranges: tuple[tuple[int, int], ...]) -> str:
    """``ranges`` as the inside of a regular expression's character class (``\\u200b-\\u200f...``)."""

    def one(code: int) -> str:
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"

    return "".join(one(lo) if lo == hi else f"{one(lo)}-{one(hi)}" for lo, hi in ranges)


# -- scripts --------------------------------------------------------------------------------
SCRIPTS = frozenset(
    [
        "LATIN",
        "GREEK",
        "CYRILLIC",
        "ARMENIAN",
        "HEBREW",
        "ARABIC",
        "SYRIAC",
        "THAANA",
        "DEVANAGARI",
        "BENGALI",
        "GURMUKHI",
        "GUJARATI",
        "ORIYA",
        "TAMIL",
        "TELUGU",
        "KANNADA",
        "MALAYALAM",
        "SINHALA",
        "THAI",
        "LAO",
        "TIBETAN",
        "MYANMAR",
        "GEORGIAN",
        "HANGUL",
        "ETHIOPIC",
        "KHMER",
        "MONGOLIAN",
        "HIRAGANA",
        "KATAKANA",
        "BOPOMOFO",
        "HAN",
    ]
)
"""The scripts names may be written in (Unicode's recommended scripts for identifiers, UAX #31, near enough)."""
_ALIASES = {"CJK": "HAN", "IDEOGRAPHIC": "HAN", "ARABIC-INDIC": "ARABIC", "EXTENDED": "ARABIC"}
_COMMON_WORDS = frozenset({"DIGIT", "MODIFIER", "COMBINING", "KATAKANA-HIRAGANA", "VARIATION"})
"""First words of letters, digits and marks every script uses (``COMBINING ACUTE ACCENT``, ``DIGIT ONE``)."""
COMBINATIONS = (frozenset({"HAN", "HIRAGANA", "KATAKANA"}), frozenset({"HAN", "HANGUL"}),
                frozenset({"HAN", "BOPOMOFO"}))  # fmt: skip
"""Scripts written together: Japanese, Korean, and Chinese with its phonetic Bopomofo."""


def script_of(ch: str) -> str | None:
    """The script of a letter, digit or mark (``"LATIN"``); None for what every script uses, and for signs."""
    if unicodedata.category(ch)[0] not in "LM" and unicodedata.category(ch) != "Nd":
        return None
    word = unicodedata.name(ch, "UNKNOWN").split(" ")[0]
    if word in _COMMON_WORDS:
        return None
    return _ALIASES.get(word, word)


def scripts(text: str) -> frozenset[str]:
    """The scripts of the letters of ``text`` once NFKC-normalised (fullwidth ``Ａ`` is a Latin ``A``)."""
    return frozenset(s for ch in unicodedata.normalize("NFKC", text) if (s := script_of(ch)) is not None)


def script_problem(text: str) -> str | None:
    """Why ``text`` cannot be a person's name for its letters (mixed or unusual scripts), or None."""
    found = scripts(text)
    strange = sorted(found - SCRIPTS)
    if strange:
        return f"a name's letters come from a script people write names in (not {strange[0].lower()})"
    if len(found) > 1 and not any(found <= allowed for allowed in COMBINATIONS):
        listed = " and ".join(sorted(s.title() for s in found))
        return f"a name's letters come from one script, not {listed} mixed (so that no name looks like another)"
    return None


# -- look-alikes ------------------------------------------------------------------------------
_LOOKS_LIKE = {
    # Cyrillic drawn as Latin
    "а": "a", "в": "b", "е": "e", "ё": "ë", "г": "r", "і": "i", "ї": "ï", "ј": "j", "к": "k", "м": "m", "н": "h",
    "о": "o", "п": "n", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w",
    "ӏ": "l", "ү": "y", "һ": "h", "ѡ": "w", "ɡ": "g", "ь": "b", "Ь": "b",
    "А": "A", "В": "B", "Е": "E", "Ё": "Ë", "І": "l", "Ї": "Ï", "Ј": "J", "К": "K", "М": "M", "Н": "H", "О": "O",
    "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "l", "Ү": "Y",
    "Һ": "H",
    # Greek drawn as Latin
    "α": "a", "β": "ß", "γ": "y", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "ϲ": "c", "ϳ": "j", "ω": "w",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "l", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P",
    "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J",
    # Armenian drawn as Latin
    "օ": "o", "ս": "u", "ց": "g", "հ": "h", "ո": "n", "զ": "q", "ա": "w", "Տ": "S", "Ս": "U", "Օ": "O", "Լ": "L",
    # Latin (and digits) drawn as one another, in the fonts names are shown in
    "I": "l", "1": "l", "|": "l", "ǀ": "l", "0": "O", "ı": "i", "ɑ": "a", "ʏ": "y",
}  # fmt: skip


def _small_capitals() -> dict[str, str]:
    """Latin small capitals (``ᴘ``, ``ʀ``, ``ꜱ``...) as the lower-case letters they are drawn as, at a name's size."""
    found = {}
    for code in (*range(0x0250, 0x02B0), *range(0x1D00, 0x1D2C), *range(0xA720, 0xA800), *range(0xAB30, 0xAB70)):
        name = unicodedata.name(chr(code), "")
        if name.startswith("LATIN LETTER SMALL CAPITAL "):
            letter = name.removeprefix("LATIN LETTER SMALL CAPITAL ")
            if len(letter) == 1:
                found[chr(code)] = letter.lower()
            elif letter in ("AE", "OE"):
                found[chr(code)] = {"AE": "æ", "OE": "œ"}[letter]
    return found


_LOOKS_LIKE.update(_small_capitals())
_LOOKS_LIKE_TABLE = str.maketrans(_LOOKS_LIKE)
_PAIRS = (("rn", "m"), ("vv", "w"))
"""Letter pairs drawn as one letter (UTS #39 confusables)."""


def skeleton(text: str) -> str:
    """What two names that look the same share: ``skeleton("Раul") == skeleton("PAUL") == skeleton("paul")``.

    NFKC (fullwidth and styled letters), hidden characters out, the look-alikes of :data:`_LOOKS_LIKE`
    mapped to one form, casefolded, NFD (so an accent typed apart is the accent typed with its letter),
    spaces and ``-_.`` collapsed to one space. The mapping is applied before casefolding because
    ``I`` (capital i) reads as ``l`` and ``i`` does not.
    """
    name = "".join(ch for ch in unicodedata.normalize("NFKC", text) if not hidden(ch) and ch not in EMOJI_SELECTORS)
    name = unicodedata.normalize("NFD", name.translate(_LOOKS_LIKE_TABLE))
    name = name.translate(_LOOKS_LIKE_TABLE).casefold().translate(_LOOKS_LIKE_TABLE).casefold()
    for pair, one in _PAIRS:
        name = name.replace(pair, one)
    return " ".join(re.split(r"[\s\-_.]+", name)).strip()


# -- the server's own names -------------------------------------------------------------------
_NUMBER = 7319  # a number no default name holds, to find where a default name's number goes
_DIGITS = "[0-9ol]+"  # a number's skeleton: 0 reads as O and 1 as l
CATALOGUES = Path(__file__).resolve().parent.parent / "web" / "static" / "i18n"
"""The web page's catalogues (shipped in the package): the page shows the server's names in its language."""
_EXACT_KEYS = ("seat.you", "chat.spectator", "lobby.soloName", "seat.badge.free", "seat.deleted")
"""Page texts that stand for a whole name: "You" ("Du", "Vous"...), the spectator, a solo game, a free seat, a
deleted account ("joueur supprimé")."""
_NUMBERED_KEYS = ("seat.number", "seat.player", "table.name")
"""Page texts with a number in them: "Seat {seat}" ("Platz {seat}", "Place {seat}"...), "Player {seat}"
("Joueur {seat}"), "Table {id}"."""
_NAMED_KEYS = ("seat.bot", "seat.leftToBot", "seat.mine", "profile.botTitle", "lobby.botSeat")
"""Page texts around a name: "{name} bot" ("{name} (Bot)"), "{name} (left; bot)", "{name} (you)", "Bot: {name}"."""
_BADGE_KEYS = ("seat.badge.account", "seat.badge.bot")
"""Badges drawn after a seat's name: a name ending in one (``Rita account``) reads as another's badge."""
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _words(text: str) -> str:
    """The skeleton's letters and digits, one space between words: ``hard (Bot)`` -> ``hard bot``."""
    return " ".join("".join(ch if unicodedata.category(ch)[0] in "LMN" else " " for ch in skeleton(text)).split())


def _compact(text: str) -> str:
    """The skeleton's letters and digits only: ``Seat #2``, ``seat2`` and ``hard-bot`` read as ``seat2``..."""
    return _words(text).replace(" ", "")


_BRACKETS = str.maketrans("[{<", "(((", "]}>")


def _marked(text: str) -> str:
    """Letters, digits, brackets and colons only: ``Ann (gegangen; Bot)`` -> ``ann(gegangenbot)``.

    Keeps what tells a name's addition apart from the name: ``Anh Tu`` is a name, ``Anh (tu)`` the page's
    way of saying the seat is the reader's own.
    """
    return "".join(
        ch for ch in skeleton(text).translate(_BRACKETS) if unicodedata.category(ch)[0] in "LMN" or ch in "():"
    )


def page_texts() -> dict[str, list[str]]:
    """The page's texts for the server's names in every language it speaks (key -> the texts, English first)."""
    texts: dict[str, list[str]] = {}
    for path in sorted(CATALOGUES.glob("*.json"), key=lambda p: (p.stem != "en", p.stem)):
        catalogue = json.loads(path.read_text(encoding="utf-8"))
        for key in (*_EXACT_KEYS, *_NUMBERED_KEYS, *_NAMED_KEYS, *_BADGE_KEYS):
            value = catalogue.get(key)
            if isinstance(value, str) and value not in texts.setdefault(key, []):
                texts[key].append(value)
    return texts


# -- the names the server gives (tables, seats, bots, spectators, deleted accounts): people may not take them --
SOLO_NAME = "Solo game"


def table_name(players: int) -> str:
    """A table created without a name."""
    return f"Table of {players}"


def open_seat_name(index: int) -> str:
    """A seat nobody sits at yet."""
    return f"Seat {index + 1}"


def joined_name(index: int) -> str:
    """A person who sat down, or made a table and took its seat, without giving a name: a name of the seat's
    own, which the page says in its language ("Joueur 2"), and as "You" to the person who sits there."""
    return f"Player {index + 1}"


def bot_name(spec: str) -> str:
    """A bot's seat: the bot's name, options aside (``hard:time=0.5`` is "hard bot")."""
    return f"{spec.split(':')[0]} bot"


def left_name(name: str) -> str:
    """A person's seat after they left a game under way and a bot took it over."""
    return f"{name} (left; bot)"


SPECTATOR = "Spectator"
"""Who a chat line from a watcher who is not signed in comes from."""
DELETED_NAME = "deleted player"
"""What a deleted account's seats are called from then on, in every game, record and replay."""


@functools.cache
def _reserved() -> tuple[
    frozenset[str], tuple[re.Pattern[str], ...], tuple[re.Pattern[str], ...], tuple[re.Pattern[str], ...]
]:
    """The server's names: every form above (tables, seats, bots), the chat's spectator, a deleted account,
    and the page's forms of them in every language (its catalogues). Returned as compact keys of whole names,
    and patterns over :func:`_compact` (numbered forms), :func:`_words` and :func:`_marked` (forms around a
    name); built once, at the first name checked (bots register late)."""
    from ..bots.registry import agent_names

    texts = page_texts()
    exact = {
        SOLO_NAME,
        SPECTATOR,
        DELETED_NAME,
        "You",
        "bot",
        "robot",
        *(t for k in _EXACT_KEYS for t in texts.get(k, [])),
    }
    for name in agent_names():
        exact.update((name, bot_name(name), f"{name} (robot)"))
    numbered = [open_seat_name(_NUMBER - 1), joined_name(_NUMBER - 1), table_name(_NUMBER)]
    numbered += [_PLACEHOLDER.sub(str(_NUMBER), t) for k in _NUMBERED_KEYS for t in texts.get(k, [])]
    number = _compact(str(_NUMBER))
    compact = []
    for form in numbered:
        parts = _compact(form).split(number)
        compact.append(re.compile(_DIGITS.join(re.escape(p) for p in parts)))
    # Forms around a name: "... bot", "... (left; bot)", "... (robot)", "{name} (Bot)", "Bot: {name}"...
    named = [bot_name("{name}"), left_name("{name}"), "{name} (robot)"]
    named += [t for k in _NAMED_KEYS for t in texts.get(k, [])]
    named += [f"{{name}} {t}" for k in _BADGE_KEYS for t in texts.get(k, [])]
    named += [f"{{name}} ({t})" for k in _BADGE_KEYS for t in texts.get(k, [])]
    words, marked = [], []
    for form in named:
        before, _, after = form.partition("{name}")
        if all(ch.isalnum() or ch.isspace() for ch in before + after):  # plain words: "{name} bot"
            head, tail = _words(before), _words(after)
            words.append(
                re.compile((f"{re.escape(head)} " if head else "") + ".+" + (f" {re.escape(tail)}" if tail else ""))
            )
        else:  # brackets or a colon tell it apart from a name: "{name} (you)" refuses "Ann (tu)", not "Anh Tu"
            marked.append(re.compile(re.escape(_marked(before)) + ".+" + re.escape(_marked(after))))
    return frozenset(_compact(name) for name in exact), tuple(compact), tuple(words), tuple(marked)


def reserved(text: str) -> bool:
    """Whether ``text`` reads as one of the names the server gives or the page shows (``Seat 2``, ``Platz 2``,
    ``hard bot``, ``hard (Bot)``, ``Spectator``, ``Zuschauer``, ``Vous``...), in any language of the page."""
    exact, compact, words, marked = _reserved()
    key = _compact(text)
    if key in exact or any(p.fullmatch(key) for p in compact):
        return True
    spaced, kept = _words(text), _marked(text)
    return any(p.fullmatch(spaced) for p in words) or any(p.fullmatch(kept) for p in marked)


UNSHOWN_CATEGORIES = frozenset({"Cn", "Cs", "Co"})
"""Unassigned code points (``Paul\u0378``: a font draws nothing, or a box, and a later Unicode may make it a
letter), lone surrogates and private use: nothing anybody reads the same way. Refused in the names people go
by as ``bad_name`` (the schema's pattern leaves them to this check: unassigned code points change with each
Unicode version, the pattern must not)."""

MAX_MARKS = 3
"""Combining marks in a row on one letter: Vietnamese stacks two, no script needs more than three; more is
"Zalgo" text that draws over the names above and below it."""


def marks_problem(text: str) -> str | None:
    """Why ``text`` stacks too many accents on one letter, or None."""
    run = 0
    for ch in unicodedata.normalize("NFC", text):
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        if run > MAX_MARKS:
            return f"a letter of a name carries at most {MAX_MARKS} accents"
    return None


def person_name_problem(text: str) -> str | None:
    """Why ``text`` cannot be the name a person goes by (mixed scripts, stacked accents, the server's), or None."""
    if any(unicodedata.category(ch) in UNSHOWN_CATEGORIES for ch in text):
        return "a name holds only characters Unicode gives a meaning (no unassigned, surrogate or private ones)"
    problem = script_problem(text) or marks_problem(text)
    if problem is not None:
        return problem
    if reserved(text):
        return "that name is the server's (a free seat, a bot, a spectator...): choose another"
    return None


BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Direction marks, embeddings, overrides and isolates: in a name or a chat line they would turn the text
around them backwards on every screen (``\u202e`` makes ``Ann`` read ``nnA`` and whatever follows it too)."""
