"""Bot accounts: accounts that play only through the Bot API, never as a person.

An account becomes a bot account with ``POST /api/me/bot`` (signed in, its password again), once and for good,
as on Lichess: a rating earned by a person must not become a program's, nor a program's a person's. So the
upgrade is refused to an account that has played a rated game (``409 played_rated``) or holds a seat at a table
not over (``409 playing``). From then on the account's session may manage it (its tokens, its profile) but not
sit anywhere (``403 bot_account`` from create, join, solo and resume: :func:`~forsale.server.people.accounts.refuse_bot_account`;
its session's table sockets only watch);
it plays with API tokens (:mod:`forsale.server.people.apitokens`) at the tables it is seated at by a challenge,
quick pairing or a tournament. A bot account is rated on the people's scale (:mod:`forsale.server.people.skill`):
it is an account.
"""

from __future__ import annotations

from ..errors import Refused
from ..store.apitokens import op_bot_ids, op_make_bot
from ..store.database import Storage
from ..store.ratings import ACCOUNT
from .accounts import Account

BOT_ACCOUNT = "bot_account"
"""The key an :class:`~forsale.server.people.accounts.Account` of a bot account carries (``True``), as
``/api/me`` shows it; a person's has none (so that no person's answer changed)."""

UPGRADE_REFUSALS = {
    "already": ("already_bot", "this account is a bot account already"),
    "rated": ("played_rated", "an account that has played rated games as a person cannot become a bot account"),
    "playing": (
        "playing",
        "finish or leave your games and tournaments under way first: a bot account cannot hold a person's seat",
    ),
}


def is_bot(account: Account | None) -> bool:
    return account is not None and account.get(BOT_ACCOUNT) is True


async def upgrade(storage: Storage, account: Account) -> Account:
    """Make ``account`` a bot account, or :class:`Refused` (409) saying why not (:data:`UPGRADE_REFUSALS`)."""
    why = await storage.run(op_make_bot(account["id"], ACCOUNT + account["id"]))
    if why is not None:
        code, message = UPGRADE_REFUSALS[why]
        raise Refused(code, message, 409)
    return Account(id=account["id"], name=account["name"], **{BOT_ACCOUNT: True})


async def bot_accounts_among(storage: Storage, account_ids: list[str]) -> set[str]:
    """Which of these accounts are bot accounts (for the marks on seats and names)."""
    return await storage.run(op_bot_ids(account_ids))
