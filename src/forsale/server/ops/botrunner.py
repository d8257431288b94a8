"""Server-side bots: a seat's view in, an action out, never holding up the event loop or another table.

Bots see exactly what a person at that seat sees: the :class:`View` the
server builds for the seat. Cheap bots (``random`` by default) answer on the
event loop; every other bot thinks in a worker process, so a searching bot
that takes a second per move never holds up the other tables. Views and
rulesets are small frozen dataclasses, so they cross to a worker by pickling.

Anyone may put a bot at a table, so what a bot may cost is bounded twice:

- :func:`validate_spec` refuses, when the table is created, options that
  ask for more thinking than the server allows (``time=`` beyond
  ``max_time`` seconds, non-finite numbers, more than :data:`MAX_SAMPLES`
  sampled deals);
- whatever a bot does, a decision still running :attr:`BotRunner.deadline`
  seconds after it started is stopped by killing its worker (a fresh one
  replaces it) and :class:`BotOverran` is raised, so the table plays the
  clock's safe move instead.

And workers are shared fairly (:class:`Share`), between clients first and
tables second, because one client may hold many tables:

- a table has at most one decision in the workers at a time;
- work where a person waits (a table with someone seated, a hint) goes
  before background work (a table of bots only, a post-game analysis);
- among those, the client (:attr:`Share.owner`: an account, else an
  address) served least recently goes first, then its table served least
  recently: round robin per client, then per table;
- with two workers or more, no client may hold every worker, and
  background work never does either: one worker is always left for
  someone else's table where a person waits. A newcomer's bot therefore
  starts at once, whatever one client has running, unless other clients'
  people-tables hold the workers, and then it waits for one decision.

A worker is never stopped to make room (a decision is short, at most
:attr:`BotRunner.deadline`), so with one worker none can be kept back and
a table waits at most one decision per client ahead of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import logging
import math
import multiprocessing
import random
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from ...actions import Action
from ...bots import DEFAULT_BOT, agent_names, make_agent
from ...bots.protocol import Agent
from ...bots.registry import parse_spec, research_bot
from ...rules import Ruleset
from ...view import View
from ..metrics import BOT_WAITS

log = logging.getLogger("forsale.server")

DEFAULT_MAX_TIME = 5.0
"""Seconds a bot may think per decision unless ``forsale serve --max-bot-time`` says otherwise."""
MAX_SAMPLES = 1000
"""The most sampled deals a bot spec may ask for (``samples=``, which ignores the clock): ~4 s for ``hard``."""
OVERRUN = 1.5
SLACK = 0.25
"""A decision is stopped ``max_time * OVERRUN + SLACK`` seconds after it reached its worker."""


class BotOverran(Exception):
    """A decision ran past the runner's deadline; its worker was killed and replaced."""


class BotFailed(Exception):
    """A bot raised (the worker's traceback is the message), or its worker died under it."""


@functools.lru_cache(maxsize=64)  # bounded: specs come from requests, so there may be any number of them
def _agent(spec: str) -> Agent:
    return make_agent(spec)


def load_bot_modules(modules: tuple[str, ...]) -> None:
    """Import modules that register extra bots (in the server and in every worker process)."""
    for module in modules:
        importlib.import_module(module)


def think(spec: str, v: View, seed: int, budget: float | None) -> Action:
    """One decision (runs in a worker process, or inline for cheap bots)."""
    return _agent(spec).act(v, random.Random(seed), budget)


def _analysis_job(record: dict[str, Any], seats: list[int], budget: int, seed: int, chart: bool) -> dict[str, Any]:
    from ...bots.analysis import analyse

    return analyse(record, seat=seats, budget=budget, seed=seed, chart=chart).to_json()


def _hint_job(v: View, seed: int, budget: int) -> dict[str, Any]:
    from ...bots.analysis import hint

    return hint(v, random.Random(seed), budget)


JOBS: dict[str, Callable[..., Any]] = {"job:analysis": _analysis_job, "job:hint": _hint_job}
"""Work other than a bot's move that also runs in the workers (:meth:`BotRunner.job`): ``(name, *args)``."""


def _run(job: tuple[Any, ...]) -> Any:
    """A worker's job: a named one of :data:`JOBS`, else a bot decision ``(spec, view, seed, budget)``."""
    named = JOBS.get(job[0])
    return named(*job[1:]) if named is not None else think(*job)


SERVER_ONLY_OPTIONS = frozenset({"weights"})
"""Bot options a public request may not set: ``weights=`` names a file on the server's own disk."""


def validate_spec(
    spec: str, max_time: float = DEFAULT_MAX_TIME, rules: Ruleset | None = None, *, research_bots: bool = False
) -> str:
    """The spec if the registry can build it within this server's bounds (and it plays ``rules``' table, if
    given); ``ValueError`` saying why if not. A research bot (:func:`~forsale.bots.registry.research_bot`) is
    refused unless ``research_bots`` (``forsale serve --research-bots``)."""
    name, options = parse_spec(spec)
    if not research_bots and research_bot(name):
        raise ValueError(
            f"bot {name!r} is a research bot, which this server does not offer (forsale serve --research-bots)"
        )
    refused = sorted(SERVER_ONLY_OPTIONS & options.keys())
    if refused:
        raise ValueError(f"bot option {refused[0]}= is not offered by this server")
    for key, value in options.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"bot option {key}={value} is not a finite number")
    seconds = options.get("time")
    if isinstance(seconds, int | float) and seconds > max_time:
        raise ValueError(f"bot option time={seconds:g} is more than this server allows: at most {max_time:g} s")
    samples = options.get("samples")
    if isinstance(samples, int) and samples > MAX_SAMPLES:
        raise ValueError(f"bot option samples={samples} is more than this server allows: at most {MAX_SAMPLES}")
    make_agent(spec)
    if rules is not None and name not in agent_names(rules):
        raise ValueError(f"bot {name!r} cannot play this table ({rules.describe()})")
    return spec


def default_bot() -> str:
    """The bot the server seats when none is named: the registry's :data:`~forsale.bots.DEFAULT_BOT`."""
    return DEFAULT_BOT


def _serve(conn: Connection, modules: tuple[str, ...]) -> None:
    """A worker process: say ready, then answer one decision at a time until the pipe closes."""
    load_bot_modules(modules)
    agent_names()  # import every bot module before saying ready, not during the first decision
    conn.send(("ready", None))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        try:
            conn.send(("ok", _run(job)))
        except Exception:  # a bot's bug: the server logs it and plays the safe action
            conn.send(("error", traceback.format_exc()))


class _Worker:
    """One worker process and the pipe to it; the event loop reads the pipe, so nothing blocks."""

    def __init__(self, runner: BotRunner) -> None:
        ctx = multiprocessing.get_context("spawn")  # the server has threads (database writer): no fork
        self.runner = runner
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, runner.modules), name="forsale-bot", daemon=True)
        self.process.start()
        child.close()
        self.ready = False
        self.reply: asyncio.Future[tuple[str, Any]] | None = None
        self.loop = asyncio.get_running_loop()
        self.loop.add_reader(self.conn.fileno(), self._readable)

    def _readable(self) -> None:
        try:
            kind, value = self.conn.recv()
        except (EOFError, OSError):
            self.runner._lost(self, "its worker process died")
            return
        if kind == "ready":
            self.ready = True
            self.runner._give(self)
        elif self.reply is not None and not self.reply.done():
            self.reply.set_result((kind, value))

    async def call(self, job: tuple[Any, ...], timeout: float) -> tuple[str, Any]:
        self.reply = self.loop.create_future()
        self.conn.send(job)  # a few hundred bytes: the pipe takes it at once
        try:
            return await asyncio.wait_for(self.reply, timeout)
        finally:
            self.reply = None

    def kill(self) -> None:
        """Stop the process now (it may be mid-decision) and reap it off the event loop."""
        with contextlib.suppress(Exception):
            self.loop.remove_reader(self.conn.fileno())
        reply, self.reply = self.reply, None
        if reply is not None and not reply.done():
            if self.runner._closed:  # shutting down: the decision is just abandoned
                reply.cancel()
            else:
                reply.set_exception(BotFailed("its worker process died"))
        self.process.kill()
        self.conn.close()
        with contextlib.suppress(RuntimeError):  # the loop is closing: the process is a daemon, reaped at exit
            self.loop.run_in_executor(None, self.process.join, 10)


@dataclass(frozen=True)
class Share:
    """Whose share of the workers a decision or a job is, and whether a person waits on it.

    ``owner``: the client the table (or the request) belongs to, any hashable key
    (:func:`forsale.server.lobby.fairshare.client_key`); ``background``: nobody seated waits
    for it (a table of bots only, an analysis), so it never goes ahead of work where
    someone does, and never takes the worker left for them.
    """

    owner: object
    background: bool = False


class _Ticket:
    """A decision or job waiting for a worker."""

    __slots__ = ("background", "future", "key", "order", "owner")

    def __init__(self, key: object, share: Share, order: int) -> None:
        self.key, self.owner, self.background, self.order = key, share.owner, share.background, order
        self.future: asyncio.Future[_Worker] = asyncio.get_running_loop().create_future()


class BotRunner:
    """Runs bot decisions: inline for the names in ``inline``, else in ``workers`` worker processes.

    ``max_time``: the most seconds a bot may think per decision (see the
    module docstring for how it is enforced, and for how workers are shared).
    Workers start when the first decision needs one.
    """

    def __init__(
        self,
        workers: int = 1,
        inline: tuple[str, ...] = ("random",),
        modules: tuple[str, ...] = (),
        max_time: float = DEFAULT_MAX_TIME,
    ) -> None:
        self.size = max(1, workers)
        self.inline = frozenset(inline)
        self.modules = tuple(modules)
        load_bot_modules(self.modules)
        self.max_time = max_time
        self.deadline = max_time * OVERRUN + SLACK
        self._workers: set[_Worker] = set()  # alive: starting, idle or busy
        self._idle: list[_Worker] = []
        self._waiting: list[_Ticket] = []  # in arrival order; few (one per table and seat thinking at most)
        self._busy: set[object] = set()  # tables with a decision in a worker
        self._held: Counter[object] = Counter()  # owner -> workers it holds now
        self._background = 0  # workers held by background work
        self._queued: Counter[object] = Counter()  # owner or table -> its tickets waiting or running
        self._served: dict[object, int] = {}  # owner or table -> when it last got a worker (a count of hand-outs)
        self._handed = 0
        self._closed = False

    async def act(
        self, spec: str, v: View, seed: int, budget: float | None, table: object = None, share: Share | None = None
    ) -> Action:
        """One decision for ``table`` (any hashable key; None: a key of its own), in ``share``'s turn
        (default: the table is its own client, and a person waits).

        Raises :class:`BotOverran` past the deadline, :class:`BotFailed` if
        the bot raised or its worker died.
        """
        if spec.split(":", 1)[0] in self.inline:
            return think(spec, v, seed, budget)
        action: Action = await self._call((spec, v, seed, budget), table, self.deadline, share)
        return action

    async def job(
        self, name: str, args: tuple[Any, ...], table: object, deadline: float, share: Share | None = None
    ) -> Any:
        """Run job ``name`` of :data:`JOBS` in a worker, in ``table``'s and ``share``'s turn like bots' decisions.

        ``deadline``: seconds it may run before its worker is stopped (:class:`BotOverran`).
        """
        return await self._call((name, *args), table, deadline, share)

    async def _call(self, job: tuple[Any, ...], table: object, deadline: float, share: Share | None) -> Any:
        key = object() if table is None else table
        ticket = _Ticket(key, share or Share(key), self._handed)
        queued = time.monotonic()
        worker = await self._take(ticket)
        BOT_WAITS.observe(time.monotonic() - queued)
        try:
            kind, value = await worker.call(job, deadline)
        except TimeoutError:
            self._lost(worker, None)
            raise BotOverran(f"still thinking after {deadline:g} s; worker {worker.process.pid} stopped") from None
        except BaseException:  # cancelled (the table closed) or the pipe broke: the worker's state is unknown
            self._lost(worker, None)
            raise
        else:
            self._give(worker)
        finally:
            self._release(ticket)
            self._dispatch()
        if kind == "error":
            raise BotFailed(value)
        return value

    async def _take(self, ticket: _Ticket) -> _Worker:
        self._waiting.append(ticket)
        self._queued[ticket.owner] += 1
        self._queued[ticket.key] += 1
        self._start_workers()
        self._dispatch()
        try:
            return await ticket.future
        except asyncio.CancelledError:
            if ticket.future.done() and not ticket.future.cancelled():  # handed a worker just as we were cancelled
                worker = ticket.future.result()
                self._release(ticket)
                self._give(worker)
            else:
                with contextlib.suppress(ValueError):
                    self._waiting.remove(ticket)
                self._forget(ticket)
            raise

    def _may_take(self, ticket: _Ticket) -> bool:
        """Whether ``ticket`` may have a worker now: its table has none, and (with two workers or more) one
        is still left afterwards for another client's table where a person waits."""
        if ticket.key in self._busy:
            return False
        if self.size < 2:
            return True
        spare = self.size - 1
        return self._held[ticket.owner] < spare and (not ticket.background or self._background < spare)

    def _rank(self, ticket: _Ticket) -> tuple[bool, int, int, int]:
        """Who goes first: a person waiting, then the client served least recently, then its table, then the oldest."""
        served = self._served
        return (ticket.background, served.get(ticket.owner, -1), served.get(ticket.key, -1), ticket.order)

    def _dispatch(self) -> None:
        """Hand idle workers to waiting decisions, fairly (see the module docstring)."""
        while self._idle and self._waiting:
            best: _Ticket | None = None
            for ticket in self._waiting:
                if self._may_take(ticket) and (best is None or self._rank(ticket) < self._rank(best)):
                    best = ticket
            if best is None:
                return
            self._waiting.remove(best)
            if best.future.done():  # its caller was cancelled
                self._forget(best)
                continue
            self._handed += 1
            self._served[best.owner] = self._served[best.key] = self._handed
            self._busy.add(best.key)
            self._held[best.owner] += 1
            self._background += best.background
            best.future.set_result(self._idle.pop())

    def _release(self, ticket: _Ticket) -> None:
        """A ticket's worker is back (or gone): its table and client may have another."""
        self._busy.discard(ticket.key)
        self._held[ticket.owner] -= 1
        if self._held[ticket.owner] <= 0:
            del self._held[ticket.owner]
        self._background -= ticket.background
        self._forget(ticket)

    def _forget(self, ticket: _Ticket) -> None:
        """Drop what is kept of a client or table with nothing waiting or running (memory stays bounded)."""
        for k in (ticket.owner, ticket.key):
            self._queued[k] -= 1
            if self._queued[k] <= 0:
                del self._queued[k]
                self._served.pop(k, None)

    def stats(self) -> dict[str, int]:
        """The workers now (for ``/api/health``): how many there may be, are ready, are busy; decisions waiting."""
        ready = sum(1 for w in self._workers if w.ready)
        return {"size": self.size, "ready": ready, "busy": ready - len(self._idle), "waiting": len(self._waiting)}

    def _give(self, worker: _Worker) -> None:
        if worker in self._workers:
            self._idle.append(worker)
            self._dispatch()

    def _start_workers(self) -> None:
        while not self._closed and len(self._workers) < self.size:
            self._workers.add(_Worker(self))

    def _lost(self, worker: _Worker, why: str | None) -> None:
        """A worker killed (overrun, cancelled) or dead (``why``): replace it."""
        if worker not in self._workers:
            return
        self._workers.discard(worker)
        with contextlib.suppress(ValueError):
            self._idle.remove(worker)
        if why is not None:
            log.error("bot worker %s: %s; starting another", worker.process.pid, why)
        was_ready = worker.ready
        worker.kill()
        if self._closed:
            return
        if was_ready:
            self._start_workers()
        else:  # it died while starting: try again in a second rather than in a tight loop
            asyncio.get_running_loop().call_later(1.0, self._start_workers)

    def close(self) -> None:
        self._closed = True
        for worker in list(self._workers):
            self._workers.discard(worker)
            worker.kill()
        self._idle.clear()
        for ticket in self._waiting:
            ticket.future.cancel()
        self._waiting.clear()
