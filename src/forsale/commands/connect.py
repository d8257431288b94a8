"""``forsale connect``: put a bot online as a server's bot account, through the Bot API (docs/bot-api.md).

Any registered bot (``--bot hard``) or any Python callable ``act(view) -> action`` (``--agent my_module:act``)
plays as the bot account whose API token it is given: it accepts the challenges its flags allow (declining the
others with the reason), optionally waits in quick pairing between games (``--pairing``), plays every table it
is seated at, and logs one line per game. Ctrl-C leaves cleanly: the bot leaves the queue, and games under way
are left to the server's clock. The token is read from ``--token`` or, better (a command line is visible to
other users of the machine), from the ``FORSALE_TOKEN`` environment variable.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import random
import sys
from collections.abc import Callable
from typing import Any

from ..rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from ._extras import require

TOKEN_ENV = "FORSALE_TOKEN"


def player_counts(text: str) -> frozenset[int]:
    """``"2,3"`` -> {2, 3}; ``argparse`` turns a ValueError into a usage error."""
    counts = frozenset(int(part) for part in text.split(","))
    if not counts or not all(MIN_PLAYERS <= n <= MAX_PLAYERS for n in counts):
        raise ValueError(text)
    return counts


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "connect",
        help="play on a forsale server as a bot account (its API token), with any bot or Python callable",
        description=(
            "Connect a bot to a forsale server's Bot API as a bot account: accept challenges, optionally wait in "
            "quick pairing, play every table it is seated at, until stopped (Ctrl-C). See docs/bot-api.md."
        ),
    )
    p.add_argument("--server", required=True, help="the server's address, e.g. https://forsale.example")
    p.add_argument(
        "--token", help=f"the bot account's API token (default: ${TOKEN_ENV}, which keeps it off the command line)"
    )
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--bot", help="a registered bot spec to play with (forsale.bots: easy, medium, hard, ...)")
    who.add_argument(
        "--agent", help="MODULE:NAME of a callable act(view) -> action (forsale.view.View, forsale.actions)"
    )
    p.add_argument(
        "--players", type=player_counts, default=frozenset(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
        help="the player counts of the challenges it accepts, e.g. 2,3,4 (default: all)",
    )  # fmt: skip
    p.add_argument("--rated", choices=("any", "rated", "casual"), default="any", help="challenges it accepts")
    p.add_argument(
        "--rules", action="append", choices=PRESETS, help="rules presets it accepts (repeat; default: any rules)"
    )
    p.add_argument(
        "--min-time", type=float, default=5.0,
        help="decline challenges whose move clock is shorter (seconds; default 5)",
    )  # fmt: skip
    p.add_argument("--pairing", action="store_true", help="wait in quick pairing whenever it is not playing")
    p.add_argument("--pairing-players", default="any", help="quick pairing's table sizes: any, or e.g. 3,4")
    p.add_argument("--pairing-rated", action="store_true", help="rated quick pairing (default: casual)")
    p.add_argument("--tournament", metavar="ID", help="enter this tournament and play its rounds")
    p.add_argument("--games", type=int, help="stop after this many games (default: play until stopped)")
    p.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    p.set_defaults(run=run)


def load_agent(spec: str) -> Callable[[Any], Any]:
    """``module:name`` -> the callable (an object with ``act(view, rng, budget)``, as the registry's bots, works too)."""
    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise SystemExit(f"forsale connect: --agent is MODULE:NAME, e.g. my_bot:act, not {spec!r}")
    sys.path.insert(0, os.getcwd())  # a module beside the user, as `python -m` finds one
    try:
        found = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError) as err:
        raise SystemExit(f"forsale connect: cannot load --agent {spec}: {err}") from None
    return as_policy(found)


def as_policy(found: Any) -> Callable[[Any], Any]:
    """A callable ``act(view)`` as it is; an agent (``act(view, rng, budget)``) wrapped with its own random source."""
    if hasattr(found, "act") and callable(found.act):
        rng = random.Random()
        return lambda view: found.act(view, rng)
    if not callable(found):
        raise SystemExit(f"forsale connect: {found!r} is not callable")
    return found


def run(args: argparse.Namespace) -> int:
    require("connect")
    from ..client.bot import BotClient, ClientError, check_server
    from ..client.runner import Acceptance, run_bot

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # its lines would name every call, ours say what matters
    token = args.token or os.environ.get(TOKEN_ENV)
    if not token:
        print(f"forsale connect: give the bot account's API token with --token or ${TOKEN_ENV}", file=sys.stderr)
        return 2
    try:
        server = check_server(args.server)
    except ValueError as err:
        print(f"forsale connect: {err}", file=sys.stderr)
        return 2
    if args.bot is not None:
        from ..bots import make_agent

        try:
            policy = as_policy(make_agent(args.bot))
        except ValueError as err:
            print(f"forsale connect: --bot {args.bot}: {err}", file=sys.stderr)
            return 2
    else:
        policy = load_agent(args.agent)
    acceptance = Acceptance(
        players=args.players,
        rated={"any": None, "rated": True, "casual": False}[args.rated],
        rules=frozenset(args.rules) if args.rules else None,
        min_time=args.min_time,
    )
    pairing = None
    if args.pairing:
        sizes: Any = (
            args.pairing_players if args.pairing_players == "any" else sorted(player_counts(args.pairing_players))
        )
        pairing = {"players": sizes, "rated": args.pairing_rated}

    async def main() -> int:
        async with BotClient(server, token) as client:
            try:
                me = await client.account()
            except ClientError as refused:
                print(
                    f"forsale connect: {server} refused the token: {refused.message} ({refused.code})", file=sys.stderr
                )
                return 2
            except OSError as err:
                print(f"forsale connect: cannot reach {server}: {err}", file=sys.stderr)
                return 2
            logging.getLogger("forsale.client").info("connected to %s as %s", server, me["account"]["name"])
            try:
                await run_bot(
                    client, policy, acceptance=acceptance, pairing=pairing, tournament=args.tournament, games=args.games
                )
            except ClientError as refused:  # the token revoked meanwhile; pairing or a tournament refused
                print(f"forsale connect: {server} refused: {refused.message} ({refused.code})", file=sys.stderr)
                return 2
            return 0

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return 0
