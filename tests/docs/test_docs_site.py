"""The documentation builds as a site with nothing broken, and the README's links lead somewhere.

``mkdocs build --strict`` turns every warning into a failure: a link to a
missing page or anchor, a page left out of the nav (``validation`` in
mkdocs.yml), an API reference entry naming a module that is gone. The README
lives outside ``docs/``, so its relative links are checked here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return out


def test_the_site_builds_strictly_with_every_page(site: Path) -> None:
    for page in sorted((ROOT / "docs").rglob("*.md")):
        relative = page.relative_to(ROOT / "docs").with_suffix("")
        built = site / ("index.html" if relative.name == "index" else relative / "index.html")
        assert built.is_file(), f"{page} was not built"


def test_the_api_reference_is_generated_from_the_docstrings(site: Path) -> None:
    state = (site / "api" / "state" / "index.html").read_text()
    assert 'id="forsale.state.State.push"' in state  # a method rendered with its own anchor
    assert "The game state and its transitions" in state  # the module docstring
    for page in (site / "api").rglob("*.html"):
        html = page.read_text()
        assert 'class="doc doc-object' in html, f"{page} documents nothing"
        # docs/_hooks/roles.py turns the docstrings' reST roles into references
        assert not re.search(r":(class|meth|func|mod|attr|exc|data):<code>", html), page
    assert 'href="#forsale.state.State.clone"' in state


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"^(```|~~~).*?^\1", "", page.read_text(), flags=re.M | re.S)
    return {slugify(heading.strip(), "-") for heading in re.findall(r"^#{1,6}\s+(.*?)\s*#*$", text, flags=re.M)}


def readme_links() -> list[str]:
    text = re.sub(r"^```.*?^```", "", (ROOT / "README.md").read_text(), flags=re.M | re.S)
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


def test_the_readme_has_relative_links() -> None:
    links = readme_links()
    assert "docs/img/table.png" in links
    assert any(link.startswith("docs/") and link.endswith(".md") for link in links)


@pytest.mark.parametrize("target", sorted(set(readme_links())))
def test_a_readme_link_points_to_an_existing_file(target: str) -> None:
    path, _, anchor = target.partition("#")
    resolved = ROOT / (path or "README.md")  # "#heading" is a link within the README
    assert resolved.exists(), f"README.md links to {target}, which does not exist"
    if anchor:
        assert anchor in _anchors(resolved), f"README.md links to {target}, which has no such heading"


def readme_extras() -> dict[str, str]:
    """The README's extras table: extra (``""`` for none) → what its row says it enables."""
    text = (ROOT / "README.md").read_text().split("## Extras and commands", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (?:`(\w+)`|\*\(none\)\*) \| [^|]* \| ([^|]*) \|$", text, flags=re.M)
    return {extra: enables for extra, enables in rows}


def test_the_readme_extras_table_names_every_extra_and_what_needs_it() -> None:
    from forsale.commands._extras import NEEDS

    table = readme_extras()
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(table) - {""} == set(declared)
    assert "`forsale replay`" in table[""]
    for feature, (extra, _modules) in NEEDS.items():
        command, *option = feature.split(" ", 1)
        if option and option[0].startswith("--backend"):
            assert f"`forsale {feature}`" in table[extra], feature
        else:  # --plot and --db postgresql:// need the command's own extra
            assert f"`forsale {command}`" in table[extra], f"README: forsale {command} needs the {extra!r} extra"
