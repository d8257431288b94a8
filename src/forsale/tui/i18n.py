r"""The terminal's language: gettext catalogues, the choice of language, and money in that language.

Every sentence the terminal shows is an English ``msgid`` marked with
:func:`_` or :func:`ngettext` (so ``pybabel extract`` finds it, see
``babel.cfg``) and looked up in ``src/forsale/locale/<lang>/LC_MESSAGES/forsale.mo``
with the standard library's :mod:`gettext` (:mod:`forsale.catalogues`, which the
server's emails share): Babel is needed only to extract and compile the
catalogues, never to play.

The language is process-wide (one terminal, one player): :func:`use` sets
it, from ``--lang`` or from the locale variables (:func:`from_environment`).

Money is written as each language's CLDR currency pattern writes dollars
with the plain ``$`` sign and no cents, which is what the web page's
``Intl.NumberFormat`` (``currencyDisplay: "narrowSymbol"``) shows, so the
terminal and the page agree: ``$14,000``, ``14 000 $``, ``$ 14.000``,
``14.000 $``. Five languages make a table of five lines (:data:`MONEY`, checked
against Babel's CLDR data by the tests), so playing needs no Babel.

>>> use("fr"); money(14), _("Final scores")
('14\u202f000\xa0$', 'Scores finaux')
>>> use("en"); money(14)
'$14,000'
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping

from ..catalogues import DOMAIN, LANGUAGES, LOCALE_DIR, translation

__all__ = ["DOMAIN", "LANGUAGES", "LOCALE_DIR", "MONEY", "check", "choose", "from_environment", "language", "money",
           "ngettext", "number", "pgettext", "use", "_"]  # fmt: skip

MONEY: dict[str, tuple[str, str]] = {
    "en": ("${amount}", ","),
    "fr": ("{amount}\u00a0$", "\u202f"),
    "nl": ("$\u00a0{amount}", "."),
    "it": ("{amount}\u00a0$", "."),
    "de": ("{amount}\u00a0$", "."),
}
"""Per language: where the dollar sign goes, and the thousands separator (CLDR's; no-break spaces keep an amount on one line)."""

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"


def check(code: str) -> str:
    """``code`` if the terminal speaks it, else ``ValueError`` with a sentence naming the choices."""
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {code!r}; choose one of {', '.join(LANGUAGES)}")
    return code


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language the locale variables ask for, as :mod:`gettext` reads them, or English.

    The first of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is
    set decides (``LANGUAGE`` may list several, ``fr:de``: the first one spoken
    wins); ``C``, ``POSIX`` and languages the terminal does not speak mean English.

    >>> from_environment({"LANG": "de_DE.UTF-8"}), from_environment({"LC_ALL": "C", "LANG": "fr_FR"})
    ('de', 'en')
    >>> from_environment({"LANGUAGE": "pt:it", "LANG": "fr_FR"}), from_environment({})
    ('it', 'en')
    """
    env = os.environ if environ is None else environ
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(variable, "")
        if not value:
            continue
        for entry in value.split(":"):
            code = entry.split(".")[0].split("@")[0].split("_")[0].lower()
            if code in LANGUAGES:
                return code
        if variable != "LANGUAGE":
            return "en"  # the locale is set to something we do not speak (C, POSIX, ja_JP...)
    return "en"


def use(code: str) -> None:
    """Speak ``code`` from now on (``ValueError`` if it is not one of :data:`LANGUAGES`)."""
    global _translation, _language
    _translation = translation(check(code))
    _language = code


def choose(code: str | None) -> str:
    """Speak ``code``, or the locale's language when it is ``None`` (``--lang`` not given); returns the code."""
    chosen = check(code) if code is not None else from_environment()
    use(chosen)
    return chosen


def language() -> str:
    """The code of the language in use."""
    return _language


def _(message: str) -> str:
    """``message`` in the language in use."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` that the language in use gives to ``n``."""
    return _translation.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the language in use, where ``context`` tells translators which sense of a word is meant."""
    return _translation.pgettext(context, message)


def number(value: int) -> str:
    """A whole number with the language's thousands separator: ``14,000``, ``14.000``, ``14 000``."""
    return f"{value:,}".replace(",", MONEY[_language][1])


def money(thousands: int) -> str:
    """Coins or a cheque in dollars, the way the language writes them: ``$14,000``, ``14 000 $``, ``$ 14.000``."""
    return MONEY[_language][0].format(amount=number(thousands * 1000))
