"""MkDocs hook: turn the docstrings' reST roles into cross-references.

The package's docstrings are written for ``help()`` and doctest, with Sphinx
roles (``:class:`View```, ``:meth:`State.push```, ``:mod:`forsale.view```).
mkdocstrings renders them as literal text followed by code. This hook rewrites
each role into an *optional* autorefs reference: mkdocs-autorefs links it when
the object is documented on the site and leaves plain code otherwise, so a role
naming something outside the API reference never breaks ``mkdocs build --strict``.

A short name is looked up first in the module the page documents, then at the
top of the package (``forsale.X``, where the engine re-exports its names).
"""

from __future__ import annotations

import html
import re
from typing import Any

ROLE = re.compile(r":(?:py:)?(?:class|meth|func|mod|attr|exc|data|obj|const):<code>(~?)([\w.]+)(\(\))?</code>")
API_PAGE = re.compile(r"^api/(\w+)\.md$")


def _page_module(src_uri: str) -> str | None:
    """The module an API page documents (``api/state.md`` → ``forsale.state``)."""
    match = API_PAGE.match(src_uri)
    return f"forsale.{match.group(1)}" if match else None


def _reference(match: re.Match[str], module: str | None) -> str:
    tilde, name, call = match.groups()
    shown = name.rsplit(".", 1)[-1] if tilde else name
    title = f"<code>{html.escape(shown)}{call or ''}</code>"
    if name.startswith("forsale."):
        first, second = name, name
    else:
        first = f"{module}.{name}" if module else f"forsale.{name}"
        second = f"forsale.{name}"
    return f'<autoref identifier="{html.escape(first)}" slug="{html.escape(second)}" optional>{title}</autoref>'


def on_page_content(html_text: str, page: Any, **_: Any) -> str:
    """Rewrite every role on the page (only API pages contain docstrings)."""
    module = _page_module(page.file.src_uri)
    return ROLE.sub(lambda match: _reference(match, module), html_text)
