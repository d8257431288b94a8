"""Every code example of README.md and docs/*.md runs as written.

The convention (also stated in the README's last section):

- a fenced block tagged ``python`` is executed; the blocks of one page run in
  document order in one namespace, so a later example may use an earlier one's
  names;
- in a block tagged ``console``, every line starting with ``$ `` is a shell
  command (a trailing backslash continues it on the next line; other lines are
  the output a reader would see and are not checked), run with bash in the
  page's temporary directory with the test environment's ``bin`` first on
  ``PATH``; it must exit with status 0;
- a page's python and console blocks share that temporary directory (a
  record written by a python block can be refereed by ``$ forsale replay``);
- the line ``<!-- skip-test: REASON -->`` right before a fence skips that
  block (servers, interactive play, long benchmarks, installs);
- other fences (``text``, ``json``, ``bash``, none) are shown, never run.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = {"python": "python", "py": "python", "console": "console"}
SKIP = re.compile(r"^<!--\s*skip-test:(.*?)-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
COMMAND_TIMEOUT_S = 60


def pages() -> list[Path]:
    """README.md and every Markdown page of the docs, in a stable order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: Path
    index: int  # position among the page's runnable blocks
    lang: str  # "python" or "console"
    line: int  # 1-based line of the opening fence
    code: str
    skip: str | None  # the skip-test reason, if any

    @property
    def name(self) -> str:
        try:
            return f"{self.page.relative_to(ROOT)}:{self.line}"
        except ValueError:  # a page outside the checkout (the runner's own tests)
            return f"{self.page.name}:{self.line}"


def parse_blocks(page: Path, text: str | None = None) -> list[Block]:
    """The page's python and console blocks, skipped ones included."""
    lines = (page.read_text() if text is None else text).splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, marker, tag = opening.groups()
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(marker):
            end += 1
        body = "\n".join(line.removeprefix(indent) for line in lines[i + 1 : end]) + "\n"
        lang = RUNNABLE.get(tag.lower())
        if lang:
            marker_line = SKIP.match(lines[i - 1].strip()) if i else None
            reason = marker_line.group(1).strip() if marker_line else None
            blocks.append(Block(page, len(blocks), lang, i + 1, body, reason))
        i = end + 1
    return blocks


def stray_skip_markers(page: Path) -> list[str]:
    """Skip markers that no runnable fence follows, or that give no reason."""
    lines = page.read_text().splitlines()
    problems = []
    for number, line in enumerate(lines, 1):
        marker = SKIP.match(line.strip())
        if not marker:
            continue
        following = lines[number] if number < len(lines) else ""
        fence = FENCE.match(following)
        if not fence or fence.group(3).lower() not in RUNNABLE:
            problems.append(f"line {number}: a skip-test marker not right before a python or console fence")
        if not marker.group(1).strip():
            problems.append(f"line {number}: a skip-test marker without a reason")
    return problems


def console_commands(code: str) -> list[str]:
    """The ``$ `` commands of a console block, continuation lines joined."""
    commands: list[str] = []
    continuing = False
    for line in code.splitlines():
        if continuing:
            commands[-1] += "\n" + line
        elif line.startswith("$ "):
            commands.append(line[2:])
        else:
            continue
        continuing = line.endswith("\\")
    return commands


def example_env() -> dict[str, str]:
    """The environment of console commands: this interpreter's bin first on PATH."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "Agg"
    env.pop("PYTHONPATH", None)  # the installed package, as a reader would have it
    return env


def run_python(block: Block, namespace: dict, cwd: Path) -> str | None:
    """Execute a python block in the page's namespace; the failure, or None."""
    if not block.code.strip():
        return f"{block.name}: an empty python block"
    out = io.StringIO()
    try:
        code = compile(block.code, block.name, "exec")
        with contextlib.chdir(cwd), contextlib.redirect_stdout(out):
            exec(code, namespace)
    except (Exception, SystemExit):  # any failure of an example is reported; Ctrl-C still stops the suite
        return f"{block.name}: the example raised\n{traceback.format_exc()}\noutput:\n{out.getvalue()[-2000:]}"
    return None


def run_console(block: Block, cwd: Path) -> str | None:
    """Run every command of a console block; the first failure, or None."""
    commands = console_commands(block.code)
    if not commands:
        return f"{block.name}: a console block with no '$ ' command to run"
    for command in commands:
        try:
            done = subprocess.run(
                ["bash", "-o", "pipefail", "-c", command],
                cwd=cwd,
                env=example_env(),
                capture_output=True,
                text=True,
                timeout=COMMAND_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return f"{block.name}: `{command}` ran over {COMMAND_TIMEOUT_S} s"
        if done.returncode != 0:
            return (
                f"{block.name}: `{command}` exited with status {done.returncode}\n"
                f"stdout:\n{done.stdout[-2000:]}\nstderr:\n{done.stderr[-3000:]}"
            )
    return None


@dataclass
class PageRun:
    """Runs one page's blocks in order, once each, remembering every outcome."""

    page: Path
    cwd: Path
    blocks: list[Block] = field(init=False)
    outcomes: list[str | None] = field(default_factory=list)  # per block run so far; None = passed or skipped
    namespace: dict = field(default_factory=lambda: {"__name__": "__docs_example__"})

    def __post_init__(self) -> None:
        self.blocks = parse_blocks(self.page)

    def through(self, index: int) -> list[str | None]:
        """Run the blocks up to ``index`` (those not run yet); all outcomes so far."""
        while len(self.outcomes) <= index:
            block = self.blocks[len(self.outcomes)]
            if block.skip is not None:
                outcome = None
            elif block.lang == "python":
                outcome = run_python(block, self.namespace, self.cwd)
            else:
                outcome = run_console(block, self.cwd)
            self.outcomes.append(outcome)
        return self.outcomes[: index + 1]


# --- the tests -------------------------------------------------------------

ALL_BLOCKS = [block for page in pages() for block in parse_blocks(page)]


@pytest.fixture(scope="session")
def page_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, PageRun]:
    """One runner per page, shared by that page's tests (they run in order)."""
    runs: dict[Path, PageRun] = {}
    for page in pages():
        cwd = tmp_path_factory.mktemp(re.sub(r"\W", "_", str(page.relative_to(ROOT))))
        runs[page] = PageRun(page, cwd)
    return runs


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=[f"{b.name}-{b.lang}" for b in ALL_BLOCKS])
def test_example_runs(block: Block, page_runs: dict[Path, PageRun]) -> None:
    outcomes = page_runs[block.page].through(block.index)
    earlier = [o for o in outcomes[:-1] if o is not None]
    if block.skip is not None:
        pytest.skip(f"{block.name}: {block.skip}")
    assert not earlier, f"an earlier example of {block.page.name} failed, so this one cannot run:\n{earlier[0]}"
    assert outcomes[-1] is None, outcomes[-1]


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_skip_markers_are_placed_and_explained(page: Path) -> None:
    assert stray_skip_markers(page) == []


def test_the_readme_engine_example_is_run() -> None:
    readme = [b for b in ALL_BLOCKS if b.page.name == "README.md"]
    engine = [b for b in readme if b.lang == "python" and "new_game(" in b.code]
    assert engine, "the README's engine example is gone"
    assert all(b.skip is None for b in engine)


def test_the_examples_are_found() -> None:
    """The parser sees both kinds of block, and a skipped one, on a page made for it."""
    text = (
        "Text.\n\n```python\nx = 1\n```\n\n<!-- skip-test: a server -->\n```console\n$ forsale serve\n```\n\n"
        "```json\n{}\n```\n\n```console\n$ forsale tournament --players 4 \\\n    --games 2\noutput line\n$ ls\n```\n"
    )
    blocks = parse_blocks(ROOT / "README.md", text)
    assert [(b.lang, b.skip) for b in blocks] == [("python", None), ("console", "a server"), ("console", None)]
    assert console_commands(blocks[2].code) == ["forsale tournament --players 4 \\\n    --games 2", "ls"]
    assert len([b for b in ALL_BLOCKS if b.skip is None]) >= 10


def test_a_failing_example_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nx = 1\n```\n\n```python\nraise ValueError(x)\n```\n\n```console\n$ exit 3\n```\n\n```console\nno command\n```\n"
    )
    run = PageRun(page, tmp_path)
    outcomes = run.through(3)
    assert outcomes[0] is None
    assert "ValueError: 1" in outcomes[1]
    assert "exited with status 3" in outcomes[2]
    assert "no '$ ' command" in outcomes[3]
