"""``forsale ratings rebuild``: recompute every rating from the stored games (after a change of formula, or a repair).

The server rates each rated game when it ends (:mod:`forsale.server.people.skill`);
this command forgets those ratings and rates every rated game again, in the
order the games ended, so what it leaves is what the server would have
written had it always rated this way. Run it with the server stopped, or at a
quiet moment: a game that ends during the rebuild is rated once it is done.
"""

from __future__ import annotations

import argparse

from ._extras import require

DEFAULT_DB = "sqlite:///forsale.sqlite3"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ratings",
        help="recompute the server's player and bot ratings from its games",
        description="Manage the ratings of a forsale server's database.",
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    rebuild = actions.add_parser(
        "rebuild",
        help="forget every rating and rate every rated game again, in the order they ended",
        description="Forget every rating and rate every rated game again, in the order the games ended.",
    )
    rebuild.add_argument(
        "--db",
        default=DEFAULT_DB,
        help=f"the server's SQLAlchemy database URL (default: {DEFAULT_DB}; postgresql://... works too)",
    )
    rebuild.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    postgres = args.db.partition(":")[0] in ("postgresql", "postgres", "postgresql+psycopg")
    require("ratings", *(["ratings --db postgresql://"] if postgres else []))
    from ..server.people.skill import op_rebuild
    from ..server.store.database import Storage
    from ..server.store.ratings import op_rating_count

    storage = Storage(args.db)
    try:
        games = storage.call(op_rebuild())
        players, count = storage.call(op_rating_count())
    finally:
        storage.close()
    print(f"rated {games} games again: {players} players ({count} ratings, per player count and overall)")
    return 0
