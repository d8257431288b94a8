"""Bad input in the server's log: one short line each, a few a minute per kind, then a count.

Hostile or broken clients are normal on a public server, so what they send
is not an error of ours: it gets no traceback (tracebacks are for our own
bugs) and cannot flood the log. Each kind of problem (``bad_json``,
``bad_message``, ``too_large``, ...) logs at most ``per_minute`` lines in a
minute; the rest are counted, and the count is logged when that kind's next
minute begins. The same limit keeps a bot that fails on every move (a bug of
ours, but one a table could repeat fifty times a game) to a few lines a
minute: ``BadInputLog(log, what="bot failure", level=logging.ERROR)``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

DETAIL_CHARS = 160
"""Details are cut to this length: they hold our messages about the input, never the input itself."""


class BadInputLog:
    """Rate-limited one-line warnings about bad input, per kind."""

    def __init__(
        self,
        logger: logging.Logger,
        per_minute: int = 10,
        clock: Callable[[], float] = time.monotonic,
        *,
        what: str = "bad input",
        level: int = logging.WARNING,
    ) -> None:
        self.logger = logger
        self.what, self.level = what, level
        self.per_minute = per_minute
        self.clock = clock
        self._windows: dict[str, list[float]] = {}  # kind -> [start, lines logged, lines suppressed]

    def note(self, kind: str, detail: str) -> None:
        now = self.clock()
        window = self._windows.get(kind)
        if window is None or now - window[0] >= 60:
            if window is not None and window[2]:
                self.logger.log(
                    self.level, "%s (%s): %d more in the minute before, not logged", self.what, kind, window[2]
                )
            window = self._windows[kind] = [now, 0, 0]
        if window[1] < self.per_minute:
            window[1] += 1
            self.logger.log(self.level, "%s (%s): %s", self.what, kind, detail[:DETAIL_CHARS])
        else:
            window[2] += 1
