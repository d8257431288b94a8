"""The README's research-environment examples run as written."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def section_examples() -> list[str]:
    text = README.read_text()
    section = text.split("## Research environments", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})
    return out.getvalue()


def test_there_are_two_examples():
    assert len(section_examples()) == 2


def test_ismcts_example():
    out = run(section_examples()[0])
    assert re.fullmatch(r"(pass|bid \d+)\n", out), out


def test_evaluation_example():
    out = run(section_examples()[1])
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["masked_random", "frugal"]
    for line in lines:
        won = int(re.search(r"won (\d+) of 100", line).group(1))
        assert 0 <= won <= 100
