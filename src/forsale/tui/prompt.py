"""Reading the human's answer from standard input without ever losing a Ctrl-C.

Python's ``input()`` looks for a pending signal only when its blocking
``read`` is interrupted. A Ctrl-C that arrives after the prompt has been
written but before that ``read`` begins (a few microseconds of C code, but a
loaded machine can preempt the process exactly there) runs the C-level
handler, which only sets a flag; the ``read`` then blocks, and the
``KeyboardInterrupt`` waits for a keystroke that may never come. The player
sees their Ctrl-C ignored; a test that sends one sees no exit.

:class:`LineReader` never blocks in a ``read``: it waits with ``select`` on
standard input *and* on a :func:`signal.set_wakeup_fd` pipe, into which the
C handler writes a byte the moment a signal arrives. A signal that came
before the wait therefore ends the wait at once, and the interpreter raises
the ``KeyboardInterrupt`` as soon as ``select`` returns. It reads bytes
itself and splits lines itself, so nothing can sit in a buffer that
``select`` does not see (a pipe may deliver several answers in one read).
"""

from __future__ import annotations

import os
import select
import signal

from rich.console import Console


class LineReader:
    """Lines from file descriptor ``fd``, read only once ``select`` says a read will not block.

    Must be used from the main thread (the only one Python delivers signals to).
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending = b""

    def readline(self) -> str:
        """The next line without its newline; ``EOFError`` at end of input (Ctrl-D at a terminal)."""
        while b"\n" not in self.pending:
            chunk = self._read()
            if not chunk:
                if self.pending:  # a last line without a newline still counts, as with input()
                    break
                raise EOFError
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode(errors="replace")

    def _read(self) -> bytes:
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        old = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        try:
            while True:
                ready, _, _ = select.select([self.fd, wake_r], [], [])
                # A signal whose handler raises (Ctrl-C) leaves here as soon as select
                # returns; any other one only woke the wait: drain the pipe, wait again.
                if self.fd in ready:
                    return os.read(self.fd, 4096)
                os.read(wake_r, 4096)
        finally:
            signal.set_wakeup_fd(old)
            os.close(wake_r)
            os.close(wake_w)


class ConsoleAsk:
    """``ask(prompt)`` for :class:`~forsale.tui.game.Session`: print the prompt with rich, read the answer."""

    def __init__(self, console: Console, fd: int = 0) -> None:
        self.console = console
        self.reader = LineReader(fd)

    def __call__(self, prompt: str) -> str:
        self.console.print(prompt, end="")
        return self.reader.readline()
