"""The database out of reach: one retryable refusal for clients, one log line per outage for the operator.

When PostgreSQL restarts, or the network to it breaks, every request that
needs the database fails. Before this module each failure escaped as its
own traceback (thousands for a restart of a few seconds) and clients got an
``internal`` error, without their message's ``id``, that the protocol calls
a bug. Now:

- :func:`is_outage` tells an outage (the connection refused, broken or timed
  out) from a bug (a constraint violated, bad SQL) and from a lock wait that
  ran out (a busy row, which the caller handles itself);
- :class:`Unavailable` is what the storage raises instead: a
  :class:`~forsale.server.errors.Refused` with the code ``unavailable``, so
  the WebSocket loop answers it with the action's ``id`` and REST with
  ``503`` and ``Retry-After``, like any other refusal; nothing was applied
  unless the database says so later (an action is applied only once it
  committed);
- :class:`Outage` logs the first failure of an outage and one line when the
  database answers again, with how long it lasted and how many calls failed
  in between, whichever thread noticed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from ..errors import Refused

RETRY_AFTER = 2
"""Seconds a client is told to wait before trying again (``Retry-After``; the page retries on its own)."""

NOT_OUTAGES = {"55P03", "57014", "40001", "40P01"}
"""PostgreSQL SQLSTATEs that are contention, not an outage: a lock wait past ``lock_timeout``, a statement
cancelled, a serialisation failure, a deadlock. The callers that meet them retry or refuse on their own."""


class Unavailable(Refused):
    """The database did not answer: the request was not carried out; try again in a moment."""

    def __init__(self) -> None:
        super().__init__(
            "unavailable",
            "the database is unavailable for a moment; try again shortly",
            503,
            headers={"Retry-After": str(RETRY_AFTER)},
        )


def is_outage(error: BaseException) -> bool:
    """True for a failure to reach the database (refused, broken, timed out); False for bugs and lock waits."""
    if isinstance(error, PoolTimeout):
        return True
    if isinstance(error, DBAPIError):
        if error.connection_invalidated:
            return True
        if not isinstance(error, (OperationalError, InterfaceError)):
            return False  # IntegrityError, ProgrammingError, ...: a bug or a conflict, not the database's absence
        return getattr(error.orig, "sqlstate", None) not in NOT_OUTAGES
    try:  # the cluster's LISTEN connection uses psycopg directly
        import psycopg
    except ImportError:  # pragma: no cover - SQLite-only installations
        return False
    if isinstance(error, psycopg.OperationalError):
        return getattr(error, "sqlstate", None) not in NOT_OUTAGES
    return isinstance(error, psycopg.InterfaceError)


def first_line(error: BaseException) -> str:
    """The driver's own message, one line, short: enough to tell "connection refused" from "shutting down"."""
    orig = getattr(error, "orig", None) or error
    text = str(orig).strip().splitlines()
    return (text[0] if text else type(orig).__name__)[:200]


class Outage:
    """Logs an outage once when it starts and once when it ends, however many calls fail in between.

    Thread-safe: the storage's writer thread and the cluster's worker threads
    report to the same one. :meth:`recovered` costs one attribute read when
    all is well, so it is called after every successful transaction.
    """

    def __init__(self, log: logging.Logger, clock: Callable[[], float] = time.monotonic) -> None:
        self.log = log
        self.clock = clock
        self.since: float | None = None  # when the current outage began (None: no outage)
        self.failures = 0  # failed calls in the current outage
        self.outages = 0  # outages since start (for metrics)
        self.total_failures = 0
        self._lock = threading.Lock()

    def failed(self, error: BaseException) -> None:
        with self._lock:
            self.total_failures += 1
            if self.since is not None:
                self.failures += 1
                return
            self.since, self.failures = self.clock(), 1
            self.outages += 1
        self.log.warning(
            "database unavailable: %s; clients are told 'unavailable' until it answers again", first_line(error)
        )

    def recovered(self) -> None:
        if self.since is None:
            return
        with self._lock:
            if self.since is None:
                return
            lasted, failures = self.clock() - self.since, self.failures
            self.since, self.failures = None, 0
        self.log.warning("database available again after %.1f s (%d calls failed meanwhile)", lasted, failures)
