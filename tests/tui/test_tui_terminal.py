"""``forsale play`` and ``forsale show`` driven through a real pseudo-terminal (pexpect).

The tests answer prompts the way a person would, including wrong answers
at each kind of prompt, and check what the program says back.
"""

from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from forsale import from_record

BID = re.compile(r"Your bid \(([^)]*)\): ")
SALE = re.compile(r"Sell which house \(([^)]*)\)\? ")
SAVED = "is saved in"


LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def english(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the C locale: these tests read the English messages whatever the machine's locale."""
    # The terminal's size is the pseudo-terminal's own: pytest-xdist's workers carry COLUMNS=80 and LINES=24, which
    # rich would believe before the terminal (and wrap the help text at 80 columns).
    env = {k: v for k, v in env.items() if k not in LOCALE_VARIABLES and k not in ("COLUMNS", "LINES")}
    return dict(env, LANG="C.UTF-8")


def ctrl_c_at_its_default() -> None:
    """In a child before it starts: SIGINT at its default, so Python installs its KeyboardInterrupt handler.

    A shell starts a background job (``nohup pytest &``) with SIGINT ignored
    and children inherit that; Python then leaves it ignored, as it should,
    and a Ctrl-C test would see nothing.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn(env: dict[str, str], *args: str, width: int = 140, **locale: str) -> pexpect.spawn:
    """``forsale *args`` in a pseudo-terminal, with only the locale variables in ``locale`` (English if none).

    What the program writes is kept in ``child.logfile_read`` (a ``StringIO``).
    """
    # The terminal's size is the pseudo-terminal's own: pytest-xdist's workers carry COLUMNS=80 and LINES=24, which
    # rich would believe before the terminal (and wrap the help text at 80 columns).
    env = {k: v for k, v in env.items() if k not in LOCALE_VARIABLES and k not in ("COLUMNS", "LINES")}
    env.update(locale or {"LANG": "C.UTF-8"}, NO_COLOR="1")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "forsale", *args],
        env=env,
        encoding="utf-8",
        dimensions=(60, width),
        timeout=30,
        preexec_fn=ctrl_c_at_its_default,
    )
    child.logfile_read = io.StringIO()
    return child


def bid_range(choices: str) -> tuple[int, int] | None:
    """``"bid 4–7 or pass"`` -> (4, 7); ``"bid 4 or pass"`` -> (4, 4); ``"pass"`` -> None."""
    m = re.match(r"bid (\d+)(?:–(\d+))? or pass", choices)
    if not m:
        assert choices == "pass", choices
        return None
    low = int(m.group(1))
    return low, int(m.group(2) or low)


def answer_error(child: pexpect.spawn, text: str, expected: str) -> None:
    """Send a wrong answer, expect the explanation, then the same prompt again."""
    child.sendline(text)
    child.expect_exact("✗")
    child.expect([BID, SALE])
    assert expected in child.before, child.before


def test_a_whole_game_with_bad_answers_at_every_prompt(tmp_path: Path, forsale_env: dict[str, str]) -> None:
    record_file = tmp_path / "game.json"
    child = spawn(forsale_env, "play", "--players", "3", "--bots", "random", "--seed", "11", "--save", str(record_file))
    child.expect("seed 11")
    tried = {"not a bid": False, "too much": False, "too little": False, "not a house": False, "not held": False}
    bids = sales = 0
    while True:
        i = child.expect([BID, SALE, SAVED, pexpect.EOF])
        if i == 0:
            bids += 1
            choices = child.match.group(1)
            rng = bid_range(choices)
            if not tried["not a bid"]:
                tried["not a bid"] = True
                answer_error(child, "lots", "'lots' is not a bid")
            if rng and not tried["too much"]:
                tried["too much"] = True
                answer_error(child, str(rng[1] + 1), f"you hold {rng[1]} coins; {choices}")
            if rng and rng[0] > 1 and not tried["too little"]:
                tried["too little"] = True
                answer_error(child, str(rng[0] - 1), f"the high bid is {rng[0] - 1}; {choices}")
            # Bid the minimum early in each game to win some houses, otherwise pass.
            child.sendline(f"${rng[0]},000" if rng and rng[0] <= 2 else "p")
        elif i == 1:
            sales += 1
            hand = [int(h) for h in child.match.group(1).split(", ")]
            if not tried["not a house"]:
                tried["not a house"] = True
                answer_error(child, "the big one", "is not a house number; choose one of")
            if not tried["not held"]:
                tried["not held"] = True
                missing = next(h for h in range(1, 31) if h not in hand)
                answer_error(child, str(missing), f"you do not hold house {missing}; choose one of")
            child.sendline(str(hand[-1]))
        elif i == 2:
            assert "Final scores" in child.before
            break
        else:
            pytest.fail(f"the game ended without saving: {child.before}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert all(tried.values()), tried
    assert sales == 8  # 3 players, official rules: 24 cards, 8 sale rounds
    assert bids >= 8
    record = json.loads(record_file.read_text())
    state = from_record(record)
    assert state.is_over
    assert record["players"][0] == "You" and record["bots"] == [None, "random", "random"]
    assert record["seed"] == 11


def test_final_scores_and_winner_are_shown(tmp_path: Path, forsale_env: dict[str, str]) -> None:
    child = spawn(forsale_env, "play", "--players", "3", "--bots", "random", "--seed", "4")
    transcript = []
    while True:
        i = child.expect([BID, SALE, pexpect.EOF])
        transcript.append(child.before)
        if i == 0:
            child.sendline("p")
        elif i == 1:
            child.sendline(child.match.group(1).split(", ")[0])
        else:
            break
    child.close()
    assert child.exitstatus == 0
    out = re.sub(r"\x1b\[[0-9;]*m", "", "".join(transcript))
    assert "Final scores" in out
    assert re.search(r"(wins? with \$[\d,]+|tie on \$[\d,]+)", out)


def test_ctrl_c_leaves_cleanly_and_saves_the_unfinished_game(tmp_path: Path, forsale_env: dict[str, str]) -> None:
    """Ctrl-C the moment the prompt appears: the program may not have reached its read yet.

    With ``input()`` that was a lost Ctrl-C on a loaded machine (see
    :mod:`forsale.tui.prompt`; tests/tui/test_tui_prompt.py pins the reader).
    """
    record_file = tmp_path / "partial.json"
    child = spawn(forsale_env, "play", "--players", "4", "--bots", "random", "--seed", "2", "--save", str(record_file))
    child.expect(BID)
    child.sendline("p")
    child.expect([BID, SALE])
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert "Game abandoned (interrupted)" in child.before
    assert "Traceback" not in child.before
    assert child.exitstatus == 130
    record = json.loads(record_file.read_text())
    assert record["abandoned"] is True
    assert not from_record(record).is_over


def test_end_of_input_leaves_cleanly(forsale_env: dict[str, str]) -> None:
    child = spawn(forsale_env, "play", "--players", "3", "--bots", "random", "--seed", "9")
    child.expect(BID)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert "Game abandoned (end of input)" in child.before
    assert "Traceback" not in child.before
    assert child.exitstatus == 1


def test_quit_and_help(forsale_env: dict[str, str]) -> None:
    child = spawn(forsale_env, "play", "--players", "3", "--bots", "random", "--seed", "9")
    child.expect(BID)
    child.sendline("?")
    child.expect("Passing takes the cheapest house")
    child.expect(BID)
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert "Game abandoned (you left the game)" in child.before
    assert child.exitstatus == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "nosuchbot"], "unknown bot 'nosuchbot'"),
        (["--players", "4", "--bots", "random,random"], "a 4-player game has 3 bots; --bots named 2"),
        (["--players", "7"], "3 to 6 players, not 7"),
        (["--seat", "5"], "--seat must be from 0 to 3"),
        (["--rules", "nonsense"], "unknown ruleset 'nonsense'"),
    ],
)
def test_bad_options_are_refused_with_a_sentence(
    args: list[str], message: str, forsale_cmd: list[str], forsale_env: dict[str, str]
) -> None:
    done = subprocess.run(
        forsale_cmd + ["play", *args], env=english(forsale_env), capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def _finished_record(tmp_path: Path) -> Path:
    from forsale import PASS, new_game, to_record

    game = new_game(3, seed=21)
    while game.phase == "auction":
        game.push(game.current_seat, PASS)
    while not game.is_over:
        game.push_sale([max(hand) for hand in game.hands])
    path = tmp_path / "done.json"
    path.write_text(json.dumps(to_record(game, ["Ann", "Bob", "Cy"])))
    return path


def test_show_renders_a_record_round_by_round(tmp_path: Path, forsale_env: dict[str, str]) -> None:
    path = _finished_record(tmp_path)
    child = spawn(forsale_env, "show", str(path))
    for r in range(1, 9):
        child.expect(f"Auction round {r}: houses")
    for r in range(1, 9):
        child.expect(f"Sale round {r}: cheques")
    child.expect("Final scores")
    child.expect(r"(wins with|tie on)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_show_refuses_an_illegal_record(tmp_path: Path, forsale_cmd: list[str], forsale_env: dict[str, str]) -> None:
    path = _finished_record(tmp_path)
    record = json.loads(path.read_text())
    record["moves"][0] = {"seat": record["deal"]["first"], "bid": 99}
    path.write_text(json.dumps(record))
    done = subprocess.run(forsale_cmd + ["show", str(path)], env=english(forsale_env), capture_output=True, text=True)
    assert done.returncode == 1
    assert "illegal record (move 0)" in done.stderr and "holds 18 coins" in done.stderr
    done = subprocess.run(
        forsale_cmd + ["show", str(tmp_path / "nope.json")], env=english(forsale_env), capture_output=True, text=True
    )
    assert done.returncode == 1 and "cannot read" in done.stderr
