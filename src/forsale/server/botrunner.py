"""Server-side bots: a seat's view in, an action out, without blocking the event loop.

Bots see exactly what a person at that seat sees: the :class:`View` the
server builds for the seat. Cheap bots (``random`` by default) answer on the
event loop; every other bot thinks in a worker process
(:class:`~concurrent.futures.ProcessPoolExecutor`), so a searching bot that
takes a second per move never holds up the other tables. Views and rulesets
are small frozen dataclasses, so they cross to the worker by pickling.
"""

from __future__ import annotations

import asyncio
import importlib
import multiprocessing
import random
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..actions import Action
from ..bots import agent_names, make_agent
from ..bots.protocol import Agent
from ..view import View

_AGENTS: dict[str, Agent] = {}


def _agent(spec: str) -> Agent:
    agent = _AGENTS.get(spec)
    if agent is None:
        agent = _AGENTS[spec] = make_agent(spec)
    return agent


def load_bot_modules(modules: tuple[str, ...]) -> None:
    """Import modules that register extra bots (in the server and in every worker process)."""
    for module in modules:
        importlib.import_module(module)


def think(spec: str, v: View, seed: int, budget: float | None) -> Action:
    """One decision (runs in a worker process, or inline for cheap bots)."""
    return _agent(spec).act(v, random.Random(seed), budget)


def validate_spec(spec: str) -> str:
    """The spec if the registry can build it; ``ValueError`` with the registry's message if not."""
    make_agent(spec)
    return spec


def default_bot() -> str:
    """``medium`` once the bots package registers it, ``random`` until then."""
    return "medium" if "medium" in agent_names() else "random"


class BotRunner:
    """Runs bot decisions: inline for the names in ``inline``, else in worker processes."""

    def __init__(self, workers: int = 1, inline: tuple[str, ...] = ("random",), modules: tuple[str, ...] = ()) -> None:
        self.workers = max(1, workers)
        self.inline = frozenset(inline)
        self.modules = tuple(modules)
        load_bot_modules(self.modules)
        self._pool: Executor | None = None

    def _executor(self) -> Executor:
        if self._pool is None:
            # spawn: the server process has threads (database writer); forking it is unsafe.
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=load_bot_modules,
                initargs=(self.modules,),
            )
        return self._pool

    async def act(self, spec: str, v: View, seed: int, budget: float | None) -> Action:
        name = spec.split(":", 1)[0]
        if name in self.inline:
            return think(spec, v, seed, budget)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), think, spec, v, seed, budget)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool once and retry.
            self._pool = None
            return await loop.run_in_executor(self._executor(), think, spec, v, seed, budget)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
