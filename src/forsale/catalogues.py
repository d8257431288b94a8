"""The gettext catalogues every client that writes sentences shares: where they are and which languages they hold.

The terminal (:mod:`forsale.tui.i18n`) and the server's "your turn" emails
(:mod:`forsale.server.people.turnmail`) speak the same five languages from the same
catalogues, ``locale/<code>/LC_MESSAGES/forsale.mo`` beside this module
(``babel.cfg`` says how they are made). Neither client imports the other, so
what both need lives here, with nothing beyond the standard library.
"""

from __future__ import annotations

import gettext
from functools import cache
from pathlib import Path

DOMAIN = "forsale"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES: dict[str, str] = {"en": "English", "fr": "Français", "nl": "Nederlands", "it": "Italiano", "de": "Deutsch"}
"""The languages spoken (``--lang`` codes, an account's email language), English first: it is the catalogues' source."""


@cache
def translation(code: str | None) -> gettext.NullTranslations:
    """The catalogue of ``code``, read once; English (the messages as written) for ``None``, ``en`` or a code not spoken.

    >>> translation("de").gettext("Final scores"), translation("pt").gettext("Final scores")
    ('Endwertung', 'Final scores')
    """
    if code not in LANGUAGES or code == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[code])
