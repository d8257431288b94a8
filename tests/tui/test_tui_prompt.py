"""The terminal prompt's reader: answers line by line, and a Ctrl-C is never lost.

The lost Ctrl-C this guards against: ``input()`` checks for a signal only
when its blocking ``read`` is interrupted, so a SIGINT whose C handler runs
just before that ``read`` starts is noticed only after the next keystroke.
A signal raised from another thread reproduces that exactly and
deterministically: its handler runs in that thread, so the main thread's
system call is never interrupted; only the handler's flag (and the wakeup
byte) tell the main thread anything.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator

import pytest

from forsale.tui.prompt import LineReader

from .test_tui_terminal import ctrl_c_at_its_default

GENEROUS = 30.0  # seconds: a condition that normally holds within milliseconds, on a loaded machine


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """In this process: SIGINT raises KeyboardInterrupt, as at a terminal, whoever started the suite."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    r, w = os.pipe()
    yield r, w
    for fd in (r, w):
        with contextlib.suppress(OSError):  # the test may have closed it
            os.close(fd)


def test_answers_come_one_line_at_a_time_even_when_they_arrive_together(pipe: tuple[int, int]) -> None:
    r, w = pipe
    reader = LineReader(r)
    os.write(w, "p\n4k\n$5,000\nlast, no newline é".encode())
    os.close(w)
    assert [reader.readline() for _ in range(4)] == ["p", "4k", "$5,000", "last, no newline é"]
    with pytest.raises(EOFError):
        reader.readline()


def test_undecodable_bytes_are_replaced_not_fatal(pipe: tuple[int, int]) -> None:
    r, w = pipe
    os.write(w, b"\xff4\n")
    assert LineReader(r).readline() == "\ufffd4"


def _wait_line() -> int:
    """The line of ``LineReader._read`` that blocks in ``select``."""
    lines, first = inspect.getsourcelines(LineReader._read)
    return first + next(i for i, line in enumerate(lines) if "select.select(" in line)


def test_a_ctrl_c_the_blocked_wait_never_sees_still_ends_the_prompt(pipe: tuple[int, int], ctrl_c: None) -> None:
    r, w = pipe
    reader = LineReader(r)
    main = threading.main_thread().ident
    assert main == threading.get_ident(), "signals reach Python handlers in the main thread only"
    waiting_at = _wait_line()
    interrupted = threading.Event()
    problems: list[str] = []

    def press_ctrl_c() -> None:
        deadline = time.monotonic() + GENEROUS
        while time.monotonic() < deadline:
            frame = sys._current_frames().get(main)
            if frame is not None and frame.f_code is LineReader._read.__code__ and frame.f_lineno == waiting_at:
                break
            interrupted.wait(0.001)
        else:
            problems.append("the main thread never reached the wait")
        signal.raise_signal(signal.SIGINT)  # handled in this thread: the main thread's select is not interrupted
        if not interrupted.wait(GENEROUS):
            problems.append("the prompt went on waiting after Ctrl-C")
            os.write(w, b"unblock\n")  # end the wait so the test fails instead of hanging

    helper = threading.Thread(target=press_ctrl_c)
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            reader.readline()
    finally:
        interrupted.set()
        helper.join()
    assert not problems, problems


def test_control_a_plain_blocking_read_loses_that_same_ctrl_c() -> None:
    """What ``input()`` does: the same thread-delivered SIGINT leaves ``os.read`` blocked for good."""
    program = textwrap.dedent(
        """
        import os, signal, sys, threading, time
        r, w = os.pipe()
        main = threading.main_thread().ident
        def press():
            deadline = time.monotonic() + GENEROUS
            while getattr(sys._current_frames().get(main), "f_lineno", None) != READ_LINE:
                if time.monotonic() > deadline:
                    print("the main thread never reached the read", flush=True)
                    return
                threading.Event().wait(0.001)
            signal.raise_signal(signal.SIGINT)
            print("sent", flush=True)
        threading.Thread(target=press, daemon=True).start()
        os.read(r, 1)
        print("returned", flush=True)
        """
    )
    read_line = program.splitlines().index("os.read(r, 1)") + 1
    proc = subprocess.Popen(
        [sys.executable, "-c", program.replace("READ_LINE", str(read_line)).replace("GENEROUS", str(GENEROUS))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_at_its_default,  # else an ignored SIGINT would pass this control for the wrong reason
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "sent\n"  # blocks until the handler has run
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=1)  # it would exit at once if the read had noticed; it never does
    finally:
        proc.kill()
        proc.communicate()
