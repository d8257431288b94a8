"""Every install path works: ``forsale`` with optional packages missing, and a real bare install.

Most tests run the real command in a subprocess with a ``sys.meta_path``
finder in front that makes chosen packages unimportable, exactly as if they
were not installed (an import raises ``ModuleNotFoundError``). With every
optional package blocked, ``--help`` and ``replay`` must work and every other
subcommand must exit 2 with one line naming its extra; with one package
blocked, only what needs it may fail; with everything but one extra
blocked, that extra's commands must work. The last tests make a fresh
virtual environment without site packages, install the package into it with
no dependencies, and run the command there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest

from forsale.commands import _simtools
from forsale.commands._extras import NEEDS

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "data" / "golden"
RECORD = GOLDEN / "4p-official.json"
EXPECTED = json.loads((GOLDEN / "4p-official.expected.json").read_text())

IMPORT_NAMES = {
    "numpy": "numpy",
    "matplotlib": "matplotlib",
    "rich": "rich",
    "openskill": "openskill",
    "ray": "ray",
    "fastapi": "fastapi",
    "fastapi-offline": "fastapi_offline",
    "prometheus-client": "prometheus_client",
    "starlette": "starlette",
    "uvicorn": "uvicorn",
    "websockets": "websockets",
    "httpx": "httpx",
    "sqlalchemy": "sqlalchemy",
    "psycopg": "psycopg",
    "pydantic": "pydantic",
    "orjson": "orjson",
    "argon2-cffi": "argon2",
    "gymnasium": "gymnasium",
    "pettingzoo": "pettingzoo",
    "open_spiel": "pyspiel",
    "torch": "torch",
}
"""The top-level import name of every distribution an extra declares."""


def _extras() -> dict[str, set[str]]:
    """``extra -> the import names of its packages``, read from pyproject.toml.

    Left out: ``all`` (every other one) and the tools for developers (``docs``, ``test``), which no command
    imports. An extra that includes another (``forsale[rl]``) installs that one's packages too.
    """
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    extras = {}
    for extra, requirements in declared.items():
        if extra in ("all", "docs", "test"):
            continue
        names = {re.match(r"[A-Za-z0-9_.-]+", r).group(0) for r in requirements}  # type: ignore[union-attr]
        extras[extra] = {IMPORT_NAMES[name] for name in names - {"forsale"}}
        for included in re.findall(r"forsale\[(\w+)\]", " ".join(requirements)):
            extras[extra] |= extras[included]
    return extras


EXTRAS = _extras()
OPTIONAL = sorted(set().union(*EXTRAS.values()))
"""Every optional top-level package: with all of them blocked, only the engine is left."""

INVOCATIONS = {
    "simulate": ["simulate", "--games", "20", "--quiet", "--seed", "1"],
    "simulate --plot": ["simulate", "--games", "20", "--quiet", "--seed", "1", "--plot", "out.png"],
    "lab": ["lab", "--games", "20", "--players", "3", "--quiet", "--seed", "1"],
    "lab --plot": ["lab", "--games", "20", "--players", "3", "--quiet", "--seed", "1", "--plot", "out.png"],
    "tournament": ["tournament", "--players", "2", "--bots", "random,random", "--games", "2", "--quiet"],
    "tournament --plot": [
        *("tournament", "--players", "2", "--bots", "random,random", "--games", "2", "--quiet"),
        *("--plot", "out.png"),
    ],
    "tournament --backend ray": [
        *("tournament", "--players", "2", "--bots", "random,random", "--games", "2", "--quiet"),
        *("--backend", "ray"),
    ],
    "play": ["play", "--bots", "random", "--seed", "1"],
    "show": ["show", str(RECORD)],
    "analyse": ["analyse", str(RECORD), "--seat", "0", "--budget", "1"],
    "serve": ["serve", "--port", "0"],
    "serve --db postgresql://": ["serve", "--port", "0", "--db", "postgresql://nobody@127.0.0.1:1/nothing"],
    "ratings": ["ratings", "rebuild", "--db", "sqlite:///ratings.sqlite3"],
    "ratings --db postgresql://": ["ratings", "rebuild", "--db", "postgresql://nobody@127.0.0.1:1/nothing"],
    "connect": ["connect", "--server", "http://127.0.0.1:1", "--token", "fsb_x", "--bot", "random"],
    "train": ["train", "value", "--players", "3", "--games", "20", "--epochs", "1", "--quiet", "--seed", "1"],
    "train --plot": [
        *("train", "value", "--players", "3", "--games", "20", "--epochs", "1", "--quiet", "--seed", "1"),
        *("--plot", "out.png"),
    ],
}
"""A typical command line for every feature in ``NEEDS`` (the features' extras are what they test)."""

SUBCOMMANDS = sorted({feature.split()[0] for feature in NEEDS} | {"replay"})

BLOCKER = """
import runpy, sys
blocked = [name for name in sys.argv[1].split(",") if name]

def is_blocked(name):
    return any(name == b or name.startswith(b + ".") for b in blocked)

class NotInstalled:
    # First on sys.meta_path: a blocked module is not found, as if it were not installed.
    @staticmethod
    def find_spec(name, path=None, target=None):
        if is_blocked(name):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

already = sorted(m for m in sys.modules if is_blocked(m))
if already:
    raise SystemExit(f"imported before the blocker: {already}")
sys.meta_path.insert(0, NotInstalled())
sys.argv = ["forsale", *sys.argv[2:]]
runpy.run_module("forsale", run_name="__main__", alter_sys=True)
"""


@pytest.fixture
def forsale_without(forsale_env, tmp_path):
    """``run(blocked, *argv)``: ``python -m forsale ARGV`` with the packages ``blocked`` unimportable."""

    def run(blocked, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", BLOCKER, ",".join(blocked), *argv],
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=forsale_env,
            cwd=tmp_path,
            timeout=120,
        )

    return run


def needs_line(feature: str, module: str) -> str:
    extra = NEEDS[feature][0]
    return f"forsale {feature} needs the {extra!r} extra: pip install 'forsale[{extra}]' ({module} is not installed)\n"


# -- the tables agree with pyproject.toml and with the simulator -----------------


def test_every_feature_needs_packages_of_its_own_extra():
    for feature, (extra, modules) in NEEDS.items():
        assert set(modules) <= EXTRAS[extra], feature


def test_every_feature_has_an_invocation_here():
    assert set(INVOCATIONS) == set(NEEDS)


def test_the_parsers_copies_of_the_simulators_names_agree_with_it():
    from forsale.sim.policies import POLICIES
    from forsale.sim.run import DEFAULT_CHUNK

    assert _simtools.POLICY_NAMES == tuple(sorted(POLICIES))
    assert _simtools.DEFAULT_CHUNK == DEFAULT_CHUNK


# -- with every optional package missing ----------------------------------------


def test_help_and_version_need_nothing(forsale_without):
    top = forsale_without(OPTIONAL, "--help")
    assert top.returncode == 0, top.stderr
    for command in SUBCOMMANDS:
        assert command in top.stdout
    version = forsale_without(OPTIONAL, "--version")
    assert (version.returncode, version.stdout.split()[0]) == (0, "forsale"), version.stderr
    bare = forsale_without(OPTIONAL)
    assert bare.returncode == 2 and "usage: forsale" in bare.stderr and "Traceback" not in bare.stderr


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommands_help_needs_nothing(forsale_without, command):
    proc = forsale_without(OPTIONAL, command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: forsale {command}")


def test_replay_needs_nothing(forsale_without):
    from_file = forsale_without(OPTIONAL, "replay", str(RECORD))
    assert (from_file.returncode, from_file.stderr) == (0, "")
    assert json.loads(from_file.stdout) == EXPECTED
    from_stdin = forsale_without(OPTIONAL, "replay", "-", stdin=RECORD.read_text())
    assert (from_stdin.returncode, from_stdin.stderr) == (0, "")
    assert json.loads(from_stdin.stdout) == EXPECTED


@pytest.mark.parametrize("feature", sorted(INVOCATIONS))
def test_every_other_subcommand_names_its_extra_in_one_line(forsale_without, feature):
    proc = forsale_without(OPTIONAL, *INVOCATIONS[feature])
    command = feature.split()[0]  # with everything missing, the subcommand's own extra is the first refusal
    extra = NEEDS[command][0]
    assert proc.returncode == 2, proc.stderr
    assert re.fullmatch(
        rf"forsale {command} needs the '{extra}' extra: pip install 'forsale\[{extra}\]' \(\w+ is not installed\)\n",
        proc.stderr,
    ), proc.stderr
    assert proc.stdout == ""


# -- one package missing --------------------------------------------------------

ONE_MISSING = [(feature, module) for feature, (_, modules) in NEEDS.items() for module in modules]


@pytest.mark.parametrize(("feature", "module"), ONE_MISSING, ids=[f"{f}-{m}" for f, m in ONE_MISSING])
def test_one_missing_package_refuses_what_needs_it(forsale_without, feature, module):
    proc = forsale_without([module], *INVOCATIONS[feature])
    assert (proc.returncode, proc.stderr) == (2, needs_line(feature, module))


@pytest.mark.parametrize(
    ("module", "argv"),
    [
        ("matplotlib", INVOCATIONS["simulate"]),
        ("matplotlib", INVOCATIONS["tournament"]),
        ("ray", INVOCATIONS["tournament"]),
    ],
)
def test_one_missing_package_leaves_the_rest_working(forsale_without, module, argv):
    proc = forsale_without([module], *argv)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout


def test_a_missing_module_of_our_own_is_a_bug_with_a_traceback(forsale_without):
    proc = forsale_without(["forsale.sim.policies"], *INVOCATIONS["simulate"])
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr
    assert "ModuleNotFoundError: No module named 'forsale.sim.policies'" in proc.stderr


# -- one extra installed, nothing else ------------------------------------------


def only(extra: str) -> list[str]:
    """Every optional package that ``extra`` does not install."""
    return sorted(set(OPTIONAL) - EXTRAS[extra])


@pytest.mark.parametrize(
    ("extra", "argv"),
    [
        ("sim", INVOCATIONS["simulate --plot"]),
        ("sim", INVOCATIONS["lab"]),
        ("arena", INVOCATIONS["tournament --plot"]),
        ("tui", INVOCATIONS["show"]),
        ("train", INVOCATIONS["train --plot"]),
    ],
)
def test_one_extra_is_enough_for_its_commands(forsale_without, tmp_path, extra, argv):
    proc = forsale_without(only(extra), *argv)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout
    if "--plot" in argv:
        assert (tmp_path / "out.png").stat().st_size > 0


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read()


def test_the_server_extra_alone_serves_the_page_and_every_bot(serve_process, tmp_path):
    """What ``scripts/serve`` installs (the server extra, nothing else) is enough to serve the page and the bots.

    psycopg is blocked too: with SQLite the PostgreSQL driver is never imported. The server offers its research
    bots, so that ppo (numpy's) would be listed if the blocked extras were imported.
    """
    blocked = ",".join([*only("server"), "psycopg"])
    db = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    server = serve_process(db, tmp_path, "--research-bots", main=("-c", BLOCKER, blocked), log_name="server.log")
    try:
        base = server.start().base
        assert json.loads(_get(base + "/api/health"))["status"] == "ok"
        assert b"<html" in _get(base + "/").lower()
        bots = json.loads(_get(base + "/api/bots"))  # imports every bot module the lobby offers
        assert {"random", "medium", "hard", "expert"} <= set(bots["names"])
        assert "ppo" not in bots["names"] and "ppo" not in bots["bots"]  # it needs numpy: offered nowhere here
        request = urllib.request.Request(
            base + "/api/solo",
            data=json.dumps({"players": 4, "bot": "hard"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 201
    finally:
        server.stop()
    assert "Traceback" not in server.log.read_text()


# -- a real bare install ---------------------------------------------------------


def _copy_of_the_package(to: Path) -> Path:
    """What a fresh clone holds for pip: pyproject.toml, README.md and src/ (no build leftovers)."""
    to.mkdir()
    shutil.copy(REPO / "pyproject.toml", to / "pyproject.toml")
    shutil.copy(REPO / "README.md", to / "README.md")
    shutil.copytree(REPO / "src", to / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return to


# pip builds in isolation, so it fetches setuptools from the package index as for any user: the same
# index scripts/test installs the test environment from, a few seconds per install.
@pytest.mark.parametrize("editable", [True, False], ids=["pip install -e .", "pip install ."])
def test_a_bare_install_runs_help_and_replay_and_names_the_extras(tmp_path, editable):
    package = _copy_of_the_package(tmp_path / "forsale")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    # This test's pip, run against the new interpreter (``--python``): the same install as the new
    # venv's own pip would do, without spending seconds on ensurepip.
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
    install += ["-e", str(package)] if editable else [str(package)]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(install, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr

    def forsale(*argv: str, module: bool = False, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        prefix = [str(python), "-m", "forsale"] if module else [str(venv / "bin" / "forsale")]
        return subprocess.run(
            [*prefix, *argv], input=stdin, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
        )

    assert subprocess.run([str(python), "-c", "import numpy"], capture_output=True, env=env).returncode == 1
    where = subprocess.run(
        [str(python), "-c", "import forsale, pathlib; print(pathlib.Path(forsale.__file__).parent)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    ).stdout.strip()
    installed = Path(where)
    assert installed.is_relative_to(package / "src" if editable else venv)  # this install, not the checkout
    assert (installed / "web" / "static" / "index.html").is_file()  # the page ships with the package
    for module in (False, True):
        top = forsale("--help", module=module)
        assert top.returncode == 0 and "replay" in top.stdout, top.stderr
        replay = forsale("replay", str(RECORD), module=module)
        assert (replay.returncode, json.loads(replay.stdout)) == (0, EXPECTED), replay.stderr
        piped = forsale("replay", "-", module=module, stdin=RECORD.read_text())
        assert (piped.returncode, json.loads(piped.stdout)) == (0, EXPECTED), piped.stderr
    # Both installs run the same code; the non-editable one checks what pip copied, so one refusal will do.
    refusals = INVOCATIONS if editable else {"simulate": INVOCATIONS["simulate"]}
    for feature, argv in refusals.items():
        command = feature.split()[0]
        proc = forsale(*argv)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(f"forsale {command} needs the '{NEEDS[command][0]}' extra: ")
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
