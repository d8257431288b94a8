"""A bot's life on a server: answer challenges, wait in quick pairing, play every table it is seated at.

:func:`run_bot` is what ``forsale connect`` runs: it reads the account's event stream (``GET /api/bot/notices``,
a long poll), accepts the challenges its :class:`Acceptance` allows and declines the others with the reason,
plays each table it is ``seated`` at in a task of its own (:meth:`~forsale.client.bot.BotClient.play`), and,
with ``pairing``, joins quick pairing again after each game. It logs one line per game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..rules import MAX_PLAYERS, MIN_PLAYERS
from .bot import Backoff, BotClient, ClientError, GameOver, Policy

log = logging.getLogger("forsale.client")

POLL_WAIT = 25.0
"""Seconds one poll of the event stream waits (the server's longest)."""


@dataclass(frozen=True)
class Acceptance:
    """Which challenges the bot accepts: player counts, rated or casual or both (``rated=None``), rules presets
    (None: any rules), and the shortest move clock it can keep up with (seconds; a table with no clock is fine)."""

    players: frozenset[int] = frozenset(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    rated: bool | None = None
    rules: frozenset[str] | None = None
    min_time: float = 5.0

    def refusal(self, challenge: Mapping[str, Any]) -> str | None:
        """Why to decline ``challenge`` (a decline reason of docs/bot-api.md), or None to accept it."""
        if challenge["players"] not in self.players:
            return "players"
        if self.rated is not None and challenge["rated"] != self.rated:
            return "casual" if self.rated else "rated"
        rules = challenge["rules"]
        if self.rules is not None and (rules or "official") not in self.rules:
            return "rules"
        clock = challenge["time_limit"]
        if clock is not None and clock < self.min_time:
            return "clock"
        return None


async def run_bot(
    client: BotClient,
    policy: Policy,
    *,
    acceptance: Acceptance = Acceptance(),
    pairing: Mapping[str, Any] | None = None,
    tournament: str | None = None,
    games: int | None = None,
    on_game: Callable[[GameOver], None] | None = None,
) -> int:
    """Play until stopped (cancel the task, or Ctrl-C under ``asyncio.run``), or until ``games`` games ended;
    the number of games played. ``pairing``: :meth:`~forsale.client.bot.BotClient.join_pairing`'s arguments,
    to wait in quick pairing whenever the bot is not playing; ``tournament``: a tournament's id to enter (its
    rounds' tables come as ``seated`` notices, like any). A refusal of either at the start (a malformed request,
    a tournament closed or without bots) is raised. On the way out the bot leaves the queue; games still under
    way are left to the server's clock (docs/bot-api.md, *When a bot is slow or gone*).
    """
    playing: dict[str, asyncio.Task[GameOver]] = {}
    played = 0
    done = asyncio.Event()

    def finished(task: asyncio.Task[GameOver]) -> None:
        nonlocal played
        if task.cancelled():
            return
        failure = task.exception()
        if failure is not None:
            log.error("a table's play failed: %s", failure)
            return
        played += 1
        over = task.result()
        log.info("%s", over.line())
        if on_game is not None:
            on_game(over)
        if games is not None and played >= games:
            done.set()
        elif pairing is not None and not playing_now():
            asyncio.get_running_loop().create_task(queue())

    def playing_now() -> bool:
        return any(not t.done() for t in playing.values())

    def play(table_id: str) -> None:
        if table_id not in playing:
            task = asyncio.get_running_loop().create_task(client.play(table_id, policy))
            playing[table_id] = task
            task.add_done_callback(finished)

    async def queue(first: bool = False) -> None:
        """Join quick pairing; the first time, a request the server calls malformed is the caller's error."""
        assert pairing is not None
        try:
            await client.join_pairing(**pairing)
            log.info("waiting in quick pairing")
        except ClientError as refused:
            if first and refused.status == 400:
                raise
            if refused.code != "already_queued":
                log.warning("quick pairing refused: %s", refused)

    async def answer(challenge: Mapping[str, Any]) -> None:
        why = acceptance.refusal(challenge)
        try:
            if why is None:
                accepted = await client.accept(challenge["id"])
                log.info("accepted %s's challenge: table %s", challenge["from"], accepted["table"])
                play(accepted["table"])
            else:
                await client.decline(challenge["id"], why)
                log.info("declined %s's challenge (%s)", challenge["from"], why)
        except ClientError as refused:  # cancelled or expired meanwhile
            log.info("challenge %s: %s", challenge["id"], refused)

    async def listen() -> None:
        # Where the stream starts first, then the games under way: a table made between the two looks is in both
        # (play() takes it once), where the other order missed it (not yet a game, and its notice before `last`).
        last = int((await client.notices())["last"])
        for game in await client.games():
            play(game["id"])
        for challenge in await client.challenges():
            await answer(challenge)
        if pairing is not None and not playing_now():
            await queue(first=True)
        if tournament is not None:
            try:
                await client.join_tournament(tournament)
                log.info("entered tournament %s", tournament)
            except ClientError as refused:
                if refused.code != "already_entered":
                    raise
        backoff = Backoff()
        while True:
            try:
                got = await client.notices(last, POLL_WAIT)
            except (OSError, ClientError) as failure:  # the server restarting, a network break
                if isinstance(failure, ClientError) and failure.status in (401, 403):
                    raise
                log.info("event stream: %s; trying again", failure)
                await backoff.wait()
                continue
            backoff.reset()
            last = int(got["last"])
            for notice in got["notices"]:
                if notice["kind"] == "challenge" and notice["challenge"]["status"] == "pending":
                    await answer(notice["challenge"])
                elif notice["kind"] == "seated":
                    play(str(notice["table"]))

    listener = asyncio.get_running_loop().create_task(listen())
    stopper = asyncio.get_running_loop().create_task(done.wait())
    try:
        await asyncio.wait({listener, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if listener.done():
            listener.result()  # its failure (a revoked token) is the caller's
    finally:
        for task in (listener, stopper, *playing.values()):
            task.cancel()
        await asyncio.gather(listener, stopper, *playing.values(), return_exceptions=True)
        if pairing is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(client.leave_pairing())
        left = sum(1 for t in playing.values() if t.cancelled())
        if left:
            log.info("%d game(s) left under way: the server's clock plays for the bot from now on", left)
    return played
