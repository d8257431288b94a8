"""Post-game analysis and hints during play: ``GET /api/tables/{id}/analysis``, ``POST /api/tables/{id}/hint``.

**Analysis.** A finished game is analysed once by
:func:`forsale.bots.analysis.analyse`, in the bot worker processes (a job
of :meth:`forsale.server.ops.botrunner.BotRunner.job`: the chart, then each
human seat's decisions, one job each so that other tables' bots take turns
with it), never on the event loop. The jobs are background work in the
share of the client who asked (:class:`~forsale.server.ops.botrunner.Share`):
they never go ahead of a table where a person waits, never hold every
worker, and one client asking for many analyses at once has them computed
one after another, in turn with everyone else's work; the result is kept with the game
(``forsale_analyses``), so it is computed once for every later viewer, on
any node, after any restart. The first request starts it and is answered
``202 {"status": "pending"}``; the page asks again until it is ready. The
chart of the seats' chances is public (the game is over); a seat's own
decisions are shown only to that seat, known by its token or its
signed-in account.

**Hints.** At a table whose creator allowed them (the ``hints`` setting,
off by default, like the memory aid), a seat asks what ``hard`` would do
now: :func:`forsale.bots.analysis.hint` in a worker, from that seat's view
only, with :data:`~forsale.bots.analysis.HINT_BUDGET` samples and a seed
fixed by the table, the position and the seat (so asking again at the same
position gives the same answer), answered as ``hard``'s move, a reason code
with its numbers (which the page words in the player's language) and an
English line for other clients. One at a time per seat, and the next not before :data:`HINT_COOLDOWN`
seconds after the last answer.
"""

from __future__ import annotations

import asyncio
import logging
import time
import zlib
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from ....bots.analysis import DEFAULT_BUDGET, HINT_BUDGET
from ...errors import Refused
from ...lobby.fairshare import client_key
from ...ops.botrunner import BotFailed, BotOverran, Share
from ...store.analyses import op_load, op_save
from ...table.seats import check_owner
from ..common import accounts_of, address, body, body_of, errors, readable, seat_held, table_of
from ..deps import TheAccounts
from ..schemas import TokenBody

log = logging.getLogger("forsale.server")

router = APIRouter()

SEED = 0
"""The analysis seed: with the budget, what makes the server's analysis the one ``forsale analyse`` prints."""
JOB_DEADLINE = 600.0
"""Seconds one analysis job (the chart, or one seat's decisions) may run in a worker before it is stopped."""
HINT_DEADLINE = 30.0
HINT_COOLDOWN = 3.0
"""Seconds between two hints for the same seat."""


def analysis_budget(request: Request) -> int:
    """Samples per evaluation of ``hard``'s estimator on this server (``forsale serve --analysis-budget``)."""
    return int(getattr(request.app.state, "analysis_budget", DEFAULT_BUDGET))


def _running(request: Request) -> dict[str, asyncio.Task[None]]:
    """The analyses being computed in this process, by table id."""
    state = request.app.state
    if not hasattr(state, "analyses_running"):
        state.analyses_running = {}
    running: dict[str, asyncio.Task[None]] = state.analyses_running
    return running


# -- computing ----------------------------------------------------------------------------
async def _compute(table: Any, budget: int, owner: str) -> None:
    """Analyse ``table``'s finished game in the bot workers, in ``owner``'s share, and store it."""
    record = table.record()
    humans = [s.index for s in table.seats if s.kind == "human"]
    runner = table.lobby.runner
    started = time.monotonic()
    share = Share(owner, background=True)  # nobody's move waits on it: live tables where people wait go first
    data = await runner.job("job:analysis", (record, [], budget, SEED, True), table, JOB_DEADLINE, share)
    data["seats"] = humans
    for seat in humans:
        part = await runner.job("job:analysis", (record, [seat], budget, SEED, False), table, JOB_DEADLINE, share)
        data["decisions"].extend(part["decisions"])
        data["costliest"].update(part["costliest"])
    await table.storage.run(op_save(table.id, budget, SEED, data))
    log.info("analysis of table %s: %d seats in %.1f s", table.id, len(humans), time.monotonic() - started)


def _start(request: Request, table: Any, owner: str) -> None:
    running = _running(request)
    task = running.get(table.id)
    if task is not None and not task.done():
        return
    task = asyncio.get_running_loop().create_task(_compute(table, analysis_budget(request), owner))
    running[table.id] = task

    def finished(done: asyncio.Task[None]) -> None:
        """Forget the task once it is over (one entry per game analysed would stay forever); a failure is logged
        (and so retrieved), and the next request for the analysis tries again."""
        if running.get(table.id) is done:
            del running[table.id]
        if not done.cancelled() and done.exception() is not None:
            log.error("analysis of table %s failed: %s; the next request tries again", table.id, done.exception())

    task.add_done_callback(finished)


async def _viewer(request: Request, table: Any, token: str | None) -> tuple[int | None, str]:
    """The seat of whoever asks (the one ``token`` holds, else the signed-in account's; ``None``: a spectator),
    and who they are for the bot workers' shares (:func:`~forsale.server.lobby.fairshare.client_key`)."""
    account = await accounts_of(request).current(request)
    who = client_key(address(request), account)
    if token is not None:
        seat = seat_held(table, token)
        check_owner(account, table.seats[seat])
        return seat, who
    if account is not None:
        return next((s.index for s in table.seats if s.account_id == account["id"]), None), who
    return None, who


def shown(data: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """What one viewer sees of a stored analysis: the chart, and the viewer's own decisions if seated."""
    out = {k: data[k] for k in ("players", "budget", "seed", "complete", "chances")}
    mine = [d for d in data["decisions"] if d["seat"] == seat]
    by_move = {d["move"]: d for d in mine}
    out["seat"] = seat
    out["decisions"] = mine
    out["costliest"] = [by_move[m] for m in data["costliest"].get(str(seat), [])]
    return out


PENDING: dict[int | str, dict[str, Any]] = {
    202: {"description": 'being computed: `{"status": "pending"}`; ask again in a second'}
}


@router.get("/api/tables/{table_id}/analysis", responses={**PENDING, **errors(403, 404, 409)})
async def analysis(
    request: Request, table_id: str, token: str | None = None, invite: str | None = None
) -> JSONResponse:
    """The chart of each seat's chance of winning over a finished game, and the viewer's costliest decisions.

    ``202 {"status": "pending"}`` while it is computed (ask again); ``409 not_finished`` before the end.
    """
    table = await readable(request, table_id, token=token, invite=invite)
    if not table.state.is_over:
        raise Refused("not_finished", "the analysis is available once the game is over", 409)
    seat, who = await _viewer(request, table, token)
    stored = await table.storage.run(op_load(table.id))
    if stored is None:
        _start(request, table, who)
        return JSONResponse({"status": "pending", "retry_after": 1}, status_code=202, headers={"Retry-After": "1"})
    return JSONResponse(
        {"status": "ready", "table": table.id, "computed_at": stored["created_at"], **shown(stored["data"], seat)}
    )


# -- hints ----------------------------------------------------------------------------------
def hints_allowed(table: Any) -> bool:
    """Whether the table's seats may ask for hints: its creator allowed them, and it is not rated
    (a rated table refuses them when made and in ``/settings``; one stored otherwise still gives none)."""
    return table.config.hints_shown


def _last_hints(request: Request) -> dict[tuple[str, int], float]:
    state = request.app.state
    if not hasattr(state, "last_hints"):
        state.last_hints = {}
    last: dict[tuple[str, int], float] = state.last_hints
    return last


@router.post(
    "/api/tables/{table_id}/hint",
    responses=errors(400, 403, 404, 409, 413, 429),
    openapi_extra=body(TokenBody, required=True),
)
async def hint(request: Request, accounts: TheAccounts, table_id: str) -> dict[str, Any]:
    """What ``hard`` would do now for the seat ``token`` holds, and why (if the table allows hints)."""
    account = await accounts.current(request, changing=True)
    message = await body_of(request, TokenBody)
    table = await table_of(request, table_id)
    seat = seat_held(table, message.token)
    check_owner(account, table.seats[seat])
    if not hints_allowed(table):
        if table.config.rated:
            raise Refused("hints_off", "a rated game gives no hints: its ratings must be its players' own play", 403)
        raise Refused("hints_off", "hints are not allowed at this table (its creator may allow them)", 403)
    if table.state.is_over:
        raise Refused("game_over", "the game is over: see its analysis instead", 409)
    v = table.snapshots.view_of(seat)
    if not v.legal_actions():
        raise Refused("not_your_turn", "there is nothing for you to decide now", 409)
    last = _last_hints(request)
    now = time.monotonic()
    for key in [key for key, when in last.items() if now - when >= HINT_COOLDOWN]:
        del last[key]  # past its cooldown it tells nothing: one entry per seat that ever asked would stay forever
    wait = HINT_COOLDOWN - (now - last.get((table.id, seat), -HINT_COOLDOWN))
    if wait > 0:
        seconds = max(1, round(wait))
        raise Refused("rate_limited", f"one hint every {HINT_COOLDOWN:g} s; try again in {seconds} s", 429,
                      {"Retry-After": str(seconds)})  # fmt: skip
    last[(table.id, seat)] = now
    seed = zlib.crc32(f"{table.id}:{table.seq}:{seat}".encode())
    try:
        share = Share(client_key(address(request), account))  # a person waits on it, in their own share
        out = await table.lobby.runner.job("job:hint", (v, seed, HINT_BUDGET), table, HINT_DEADLINE, share)
    except (BotOverran, BotFailed) as error:  # a position too big to weigh in time (or a bug): no hint, no 500
        log.warning("hint at table %s seat %d: %s", table.id, seat, str(error).strip().splitlines()[-1:])
        raise Refused("no_hint", "no hint this time: weighing this position took too long", 503) from None
    finally:
        last[(table.id, seat)] = time.monotonic()  # the cooldown runs from the answer
    return {"hint": out, "seat": seat, "seq": table.seq}
