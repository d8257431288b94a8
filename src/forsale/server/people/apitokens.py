"""API tokens: a bot account's credentials on the Bot API, scoped, named, revocable, stored hashed.

A token is ``fsb_`` and 192 random bits (:func:`forsale.server.tokens.new_token`); the database keeps its sha256
only, so a copy of the database plays no bot. It is shown once, when made (``POST /api/me/tokens``), and sent as
``Authorization: Bearer <token>`` on ``/api/bot/...`` only: no other endpoint reads that header, so a token is
never a session (a person holding a bot's token cannot play as a person), and a session is never a token (the
Bot API reads no cookie). It never appears in a URL, so neither the access log nor the bad-input log, which log
paths, can hold it.

Scopes (:data:`SCOPES`): ``bot:read`` reads the account's notices (its event stream); ``bot:play`` also
answers challenges, takes seats, joins quick pairing and tournaments. Each token is limited to
:data:`RATE` calls a second (bursts of :data:`BURST`) on every node it calls; past it, ``429 rate_limited``.
"""

from __future__ import annotations

import re
import secrets
from collections import OrderedDict

from ..errors import Refused
from ..ops.ratelimit import RateLimit
from ..store.apitokens import TokenOwner, op_create_token, op_list_tokens, op_lookup, op_revoke
from ..store.database import Storage
from ..tokens import hash_token, new_token
from .accounts import Account, Attempts

PREFIX = "fsb_"
"""Every API token starts so: a secret scanner (or a person) recognises one pasted where it should not be."""
SCOPES = ("bot:read", "bot:play")
MAX_TOKENS = 20
"""Tokens one account may hold at once (a bot per machine, a few spare); revoke one to make another."""
RATE = 10.0
BURST = 60.0
"""A token's Bot API calls: 10 a second on average, bursts of 60 (a bot playing six tables at once fits)."""
TOKEN_SHAPE = re.compile(r"fsb_[A-Za-z0-9_-]{16,64}")
"""What a token looks like; anything else is refused before the database is asked."""
MAX_BUCKETS = 10_000
BAD_TOKENS_PER_ADDRESS = 30
"""Wrong tokens one client address may send a minute; then ``429`` there: each costs a database lookup, and a
client guessing (or replaying revoked tokens in a loop) has no business with more."""


class ApiTokens:
    """Making, listing, revoking and checking the tokens of :class:`Storage`'s accounts, and their rate limits."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.buckets: OrderedDict[str, RateLimit] = OrderedDict()  # token id -> its calls (this process's)
        self.wrong = Attempts(BAD_TOKENS_PER_ADDRESS)  # client address -> its wrong tokens of the last minute

    async def create(self, account: Account, name: str, scopes: list[str]) -> tuple[str, str]:
        """A new token for a bot account: ``(its id, the secret)``; the secret is never stored nor shown again."""
        if account.get("bot_account") is not True:
            raise Refused("not_bot_account", "API tokens are for bot accounts: POST /api/me/bot first", 403)
        secret, _ = new_token()
        token = PREFIX + secret
        token_id = secrets.token_urlsafe(9)
        unique = sorted(set(scopes), key=SCOPES.index)
        if not await self.storage.run(
            op_create_token(token_id, account["id"], name, unique, hash_token(token), MAX_TOKENS)
        ):
            raise Refused("too_many_tokens", f"an account holds at most {MAX_TOKENS} tokens: revoke one first", 409)
        return token_id, token

    async def listed(self, account: Account) -> list[dict[str, object]]:
        return await self.storage.run(op_list_tokens(account["id"]))

    async def revoke(self, account: Account, token_id: str) -> None:
        if not await self.storage.run(op_revoke(account["id"], token_id)):
            raise Refused("not_found", "this account has no token with that id", 404)
        self.buckets.pop(token_id, None)

    async def owner(self, authorization: str | None, scope: str, address: str = "?") -> TokenOwner:
        """The bot account a request's ``Authorization: Bearer`` token speaks for, checked for ``scope``.

        ``401 no_token`` without one, ``401 bad_token`` for one that is wrong or revoked, ``403 not_bot_account``
        (the account is a person's), ``403 missing_scope``, ``429 rate_limited`` (past the token's rate, or past
        :data:`BAD_TOKENS_PER_ADDRESS` wrong tokens a minute from ``address``).
        """
        if authorization is None:
            raise Refused("no_token", "send your API token as Authorization: Bearer <token>", 401)
        kind, _, token = authorization.partition(" ")
        token = token.strip()
        wait = self.wrong.wait(address)
        if wait > 0:
            seconds = str(max(1, int(wait + 0.999)))
            raise Refused("rate_limited", "too many wrong API tokens from this address", 429, {"Retry-After": seconds})
        if kind.lower() != "bearer" or not TOKEN_SHAPE.fullmatch(token):
            self.wrong.failed(address)
            raise Refused("bad_token", "the Authorization header is not Bearer fsb_... (an API token)", 401)
        found = await self.storage.run(op_lookup(hash_token(token)))
        if found is None:
            self.wrong.failed(address)
            raise Refused("bad_token", "no API token is this one (revoked, or mistyped)", 401)
        if not found.bot:
            raise Refused("not_bot_account", "this token's account is not a bot account", 403)
        if scope not in found.scopes:
            raise Refused("missing_scope", f"this token lacks the scope {scope}", 403)
        bucket = self.buckets.pop(found.token_id, None) or RateLimit(RATE, BURST)
        self.buckets[found.token_id] = bucket  # the newest last: a flood of tokens forgets the oldest first
        if len(self.buckets) > MAX_BUCKETS:
            self.buckets.popitem(last=False)
        if not bucket.allow():
            raise Refused("rate_limited", f"at most {RATE:g} calls a second per token", 429, {"Retry-After": "1"})
        return found
