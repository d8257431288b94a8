"""``forsale serve``: run the game server (and the web page) under uvicorn."""

from __future__ import annotations

import argparse
import logging
import math
import os
import socket
import sys
from typing import Any

from ..bots.analysis import DEFAULT_BUDGET as DEFAULT_ANALYSIS_BUDGET
from ._extras import require


def seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number of seconds")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="run the game server and the web page",
        description="Run the For Sale game server: REST lobby, WebSocket tables, the web page at /.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.add_argument(
        "--db",
        default="sqlite:///forsale.sqlite3",
        help="SQLAlchemy database URL (default: sqlite:///forsale.sqlite3 in this directory; "
        "postgresql://user:pass@host/db works too)",
    )
    p.add_argument("--grace", type=float, default=60.0, help="seconds a disconnected seat keeps its turn (default 60)")
    p.add_argument("--bot-delay", type=float, default=0.6, help="seconds a bot waits before acting (default 0.6)")
    p.add_argument(
        "--bot-workers",
        type=int,
        default=2,
        help="worker processes for searching bots (default 2: with two, no one table can keep another's bots waiting)",
    )
    p.add_argument(
        "--max-bot-time",
        type=seconds,
        default=5.0,
        metavar="SECONDS",
        help="the most seconds a bot may think per decision (default 5): tables asking for more are refused, "
        "and a bot still thinking well past it is stopped and the clock's safe move played",
    )
    p.add_argument(
        "--analysis-budget",
        type=int,
        default=DEFAULT_ANALYSIS_BUDGET,
        metavar="SAMPLES",
        help=f"samples per evaluation of the post-game analysis, hard's estimator (default {DEFAULT_ANALYSIS_BUDGET}; "
        "forsale analyse --budget gives the same numbers)",
    )
    p.add_argument(
        "--research-bots",
        action="store_true",
        help="also offer and seat the research bots (expert, hard-v1, ppo, the baselines), for a server that "
        "measures bots; by default only people's levels are offered (easy, medium, hard, random)",
    )
    p.add_argument(
        "--bot-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE to register more bots (repeatable)",
    )
    p.add_argument(
        "--rest-rate", type=float, default=50.0, help="POST requests a second per client address (default 50)"
    )
    p.add_argument(
        "--full-gc-every",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="seconds between full garbage collections (default 600; each pauses the server briefly, "
        "about 0.3 s with 2,000 connections open)",
    )
    p.add_argument(
        "--smtp",
        metavar="URL",
        default=os.environ.get("FORSALE_SMTP"),
        help="send 'your turn' emails for games with a long clock through this SMTP server: "
        "smtp://host:25, smtp://user:password@host:587?starttls=true or smtps://user:password@host:465 "
        "(default: $FORSALE_SMTP, which keeps a password out of the process list)",
    )
    p.add_argument("--mail-from", metavar="ADDRESS", default="forsale@localhost", help="the emails' sender")
    p.add_argument(
        "--public-url", metavar="URL", help="this server's address as players reach it, for the links in emails"
    )
    p.add_argument(
        "--log-level",
        default="info",
        help="log level of the server and uvicorn: debug, info, warning, error (default info)",
    )
    p.add_argument(
        "--sockets-per-address",
        type=int,
        metavar="N",
        default=None,
        help="WebSockets one client address may hold open at once (default 256; 0: no limit)",
    )
    p.add_argument(
        "--sockets-retry-after",
        type=int,
        metavar="SECONDS",
        default=None,
        help="seconds a client refused for holding that many is told to wait before it tries again (default 10)",
    )
    p.add_argument(
        "--tables-per-client",
        type=int,
        metavar="N",
        default=None,
        help="tables one client (account, else address) may have waiting for players at once (default 5; 0: no limit)",
    )
    p.add_argument(
        "--bot-tables-per-client",
        type=int,
        metavar="N",
        default=None,
        help="tables of bots only one client may have playing at once (default 3; 0: no limit)",
    )
    p.add_argument(
        "--games-per-client",
        type=int,
        metavar="N",
        default=None,
        help="games one client may have under way at once, people only or with bots, solo games too, whether created "
        "full or filled by joins (default 20; 0: no limit)",
    )
    p.add_argument(
        "--waiting-expiry",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="seconds a table waiting for players, or a casual game its people left (no long clock), stays open "
        "with nobody connected to it (default 1800; at a waiting table with a long clock, at least its turn limit)",
    )
    p.add_argument(
        "--trusted-proxy",
        metavar="ADDRESSES",
        default="",
        help="comma-separated addresses of proxies whose X-Forwarded-For and X-Forwarded-Proto headers are "
        "believed (default none: a client could name any address and slip past the per-address limits)",
    )
    p.add_argument(
        "--metrics-from",
        metavar="ADDRESSES",
        default="127.0.0.1,::1",
        help="comma-separated addresses or networks (10.0.0.5, 10.0.0.0/24) that may read /metrics; others get "
        "403 (default 127.0.0.1,::1: this machine only; 0.0.0.0/0,::/0: anyone)",
    )
    p.add_argument(
        "--cluster",
        action="store_true",
        help="run as one node of a cluster sharing the --db PostgreSQL database, behind a load balancer "
        "(see docs/deploy.md)",
    )
    p.add_argument("--node", metavar="NAME", help="this node's name, unique in the cluster (default: the host name)")
    p.add_argument(
        "--lease-ttl",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="with --cluster: seconds a node's tables stay its own without a heartbeat, so about how long a "
        "dead node's tables wait before another node takes them (default 10)",
    )
    p.set_defaults(run=run)


class QuietSockets(logging.Filter):
    """Drops uvicorn's lines for each WebSocket opened or closed (``"WebSocket /ws/..." [accepted]``,
    ``connection open``, ``connection closed``): two or three INFO lines per player per reconnect drowned
    the server's own lines; refused handshakes still show."""

    NOISE = frozenset({"connection open", "connection closed"})

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (message in self.NOISE or ('"WebSocket ' in message and message.endswith("[accepted]")))


def log_config(level: str) -> dict[str, Any]:
    """uvicorn's logging configuration, plus the server's own ``forsale`` loggers at ``level``, on stderr.

    uvicorn configures only its own loggers: without this, the ``forsale.*``
    loggers had no handler, so Python's last-resort handler printed their
    warnings and dropped every INFO line the docs promise ("took table ...",
    "cluster node ... started").
    """
    import copy

    from uvicorn.config import LOG_LEVELS, LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["quiet_sockets"] = {"()": QuietSockets}
    config["handlers"]["default"]["filters"] = ["quiet_sockets"]
    config["loggers"]["forsale"] = {
        "handlers": ["default"],
        "level": LOG_LEVELS.get(level.lower(), level.upper()),
        "propagate": False,
    }
    return config


def run(args: argparse.Namespace) -> int:
    postgres = args.db.partition(":")[0] in ("postgresql", "postgres", "postgresql+psycopg")
    require("serve", *(["serve --db postgresql://"] if postgres else []))
    import uvicorn

    from ..server import create_app
    from ..server.http.routes.metrics import networks
    from ..server.http.schemas import MAX_MESSAGE_BYTES
    from ..server.http.ws import RETRY_AFTER, SOCKETS_PER_ADDRESS
    from ..server.lobby.fairshare import BOT_TABLES, GAMES, OPEN_TABLES, WAITING_EXPIRY
    from ..server.ops import gctuning as collector
    from ..server.ops.slowclients import with_head_deadline
    from ..server.people.mailer import SmtpSettings

    cluster = None
    if args.cluster:
        from ..server.lobby.cluster import ClusterConfig

        if not postgres:
            print("forsale serve: --cluster needs a PostgreSQL --db (postgresql://...)", file=sys.stderr)
            return 2
        try:
            cluster = ClusterConfig(args.node or socket.gethostname().split(".")[0], args.lease_ttl)
        except ValueError as error:
            print(f"forsale serve: --node/--lease-ttl: {error}", file=sys.stderr)
            return 2
    if args.analysis_budget < 1:
        print(f"forsale serve: --analysis-budget must be at least 1, not {args.analysis_budget}", file=sys.stderr)
        return 2
    if args.sockets_per_address is not None and args.sockets_per_address < 0:
        print(
            f"forsale serve: --sockets-per-address must be 0 or more, not {args.sockets_per_address}", file=sys.stderr
        )
        return 2
    if args.sockets_retry_after is not None and args.sockets_retry_after < 1:
        print(
            f"forsale serve: --sockets-retry-after must be at least 1, not {args.sockets_retry_after}", file=sys.stderr
        )
        return 2
    for flag, limit in (
        ("--tables-per-client", args.tables_per_client),
        ("--bot-tables-per-client", args.bot_tables_per_client),
        ("--games-per-client", args.games_per_client),
    ):
        if limit is not None and limit < 0:
            print(f"forsale serve: {flag} must be 0 or more, not {limit}", file=sys.stderr)
            return 2
    try:
        networks(args.metrics_from)
    except ValueError as error:
        print(f"forsale serve: --metrics-from: {error}", file=sys.stderr)
        return 2
    if args.smtp:
        try:
            SmtpSettings.parse(args.smtp)
        except ValueError as error:
            print(f"forsale serve: --smtp: {error}", file=sys.stderr)
            return 2

    app = create_app(
        args.db,
        grace=args.grace,
        bot_delay=args.bot_delay,
        bot_workers=args.bot_workers,
        max_bot_time=args.max_bot_time,
        bot_modules=tuple(args.bot_module),
        research_bots=args.research_bots,
        rest_rate=args.rest_rate,
        metrics_from=args.metrics_from,
        rest_burst=max(500.0, 10 * args.rest_rate),
        full_gc_every=args.full_gc_every or collector.FULL_EVERY,
        smtp_url=args.smtp,
        mail_from=args.mail_from,
        public_url=args.public_url or f"http://{args.host}:{args.port}",
        cluster=cluster,
        analysis_budget=args.analysis_budget,
        sockets_per_address=(
            SOCKETS_PER_ADDRESS if args.sockets_per_address is None else (args.sockets_per_address or None)
        ),
        sockets_retry_after=args.sockets_retry_after or RETRY_AFTER,
        tables_per_client=OPEN_TABLES if args.tables_per_client is None else (args.tables_per_client or None),
        bot_tables_per_client=BOT_TABLES
        if args.bot_tables_per_client is None
        else (args.bot_tables_per_client or None),
        games_per_client=GAMES if args.games_per_client is None else (args.games_per_client or None),
        waiting_expiry=args.waiting_expiry or WAITING_EXPIRY,
    )
    collector.tune()  # short garbage-collector pauses; full collections on a timer (see the module)
    print(f"forsale: serving on http://{args.host}:{args.port}  (database {args.db})", file=sys.stderr, flush=True)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws_max_size=4 * MAX_MESSAGE_BYTES,  # larger frames are cut off; up to this the app answers with an error
        ws_per_message_deflate=False,  # compressing every snapshot costs more CPU than loopback or LAN bandwidth
        # Keep-alive pings: often enough for proxies that drop connections idle for 60 s, and a peer that
        # vanished without closing is noticed within 50 s. Each ping costs a write, a read and two timers;
        # at every 20 s they were 3-4% of the server's CPU with 2,000 connections open.
        ws_ping_interval=30,
        ws_ping_timeout=20,
        access_log=False,
        log_config=log_config(args.log_level),
        # uvicorn believes X-Forwarded-For from 127.0.0.1 unless told otherwise: a local client could then
        # claim a new address with every request and never meet a per-address limit.
        http=with_head_deadline(),  # a connection that never finishes its request head is closed
        proxy_headers=bool(args.trusted_proxy),
        forwarded_allow_ips=args.trusted_proxy or None,
    )
    return 0
