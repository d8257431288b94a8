"""``forsale serve`` is a subcommand of the ``forsale`` command."""

from __future__ import annotations

import subprocess


def test_serve_is_listed_and_documents_its_options(forsale_cmd: list[str], forsale_env: dict[str, str]) -> None:
    listed = subprocess.run(forsale_cmd + ["--help"], env=forsale_env, capture_output=True, text=True)
    assert listed.returncode == 0 and "serve" in listed.stdout
    helped = subprocess.run(forsale_cmd + ["serve", "--help"], env=forsale_env, capture_output=True, text=True)
    assert helped.returncode == 0
    for option in ("--host", "--port", "--db", "--grace", "--bot-delay", "--full-gc-every"):
        assert option in helped.stdout
    assert "sqlite:///forsale.sqlite3" in helped.stdout


def test_bad_seconds_are_refused_before_anything_starts(forsale_cmd: list[str], forsale_env: dict[str, str]) -> None:
    for bad in ("0", "-5", "soon", "inf"):
        refused = subprocess.run(
            forsale_cmd + ["serve", "--full-gc-every", bad], env=forsale_env, capture_output=True, text=True, timeout=60
        )
        assert refused.returncode == 2
        assert "--full-gc-every" in refused.stderr and "seconds" in refused.stderr
