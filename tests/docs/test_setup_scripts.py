"""The README's set-up (`scripts/serve`, `scripts/test`): the part both share, `scripts/venv.sh`, on its bad days.

A newcomer meets it once, on a bare machine; a wrong Python or a virtual
environment left half-made by an earlier failed run must end in a sentence
that says what to do, or be mended, never in a pip traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def source_venv_sh(where: Path, python: str) -> subprocess.CompletedProcess[str]:
    """Source a copy of scripts/venv.sh in ``where`` (as the scripts do, from the checkout's root)."""
    (where / "scripts").mkdir(exist_ok=True)
    shutil.copy(ROOT / "scripts" / "venv.sh", where / "scripts" / "venv.sh")
    env = {**os.environ, "PYTHON": python}
    return subprocess.run(
        ["bash", "-c", "set -euo pipefail; . scripts/venv.sh"],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_python_older_than_311_is_named_with_what_to_do(tmp_path):
    old = tmp_path / "python3.9"
    old.write_text('#!/bin/sh\nif [ "$1" = --version ]; then echo "Python 3.9.2"; else exit 1; fi\n')
    old.chmod(0o755)
    proc = source_venv_sh(tmp_path, str(old))
    assert proc.returncode == 1
    assert "needs Python 3.11 or newer" in proc.stderr and "Python 3.9.2" in proc.stderr
    assert "PYTHON=python3.11" in proc.stderr
    assert not (tmp_path / ".venv").exists()


def test_a_half_made_environment_is_made_again(tmp_path):
    # What `python3 -m venv` leaves behind on Debian without python3-venv: a python, no pip.
    broken = tmp_path / ".venv" / "bin"
    broken.mkdir(parents=True)
    (broken / "python").write_text("#!/bin/sh\necho 'No module named pip' >&2; exit 1\n")
    (broken / "python").chmod(0o755)
    proc = source_venv_sh(tmp_path, sys.executable)
    assert proc.returncode == 0, proc.stderr
    pip = subprocess.run(
        [str(tmp_path / ".venv" / "bin" / "python"), "-m", "pip", "--version"], capture_output=True, text=True
    )
    assert pip.returncode == 0 and str(tmp_path / ".venv") in pip.stdout
