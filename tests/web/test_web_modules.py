"""Every module of the page is type-checked: it says ``// @ts-check`` on its first line.

``scripts/test`` runs TypeScript's checker over the modules (tsconfig.json's ``checkJs``), but an editor opening a
module alone reads only its own first line; a new module without it would be checked in CI and nowhere else.
"""

from __future__ import annotations

from pathlib import Path

import forsale

STATIC_JS = Path(forsale.__file__).parent / "web" / "static" / "js"


def test_every_page_module_says_ts_check() -> None:
    modules = sorted(STATIC_JS.glob("*.js"))
    assert len(modules) > 20
    assert [m.name for m in modules if m.read_text(encoding="utf-8").splitlines()[0] != "// @ts-check"] == []
