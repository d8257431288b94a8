"""Optional accounts: names, argon2 password hashes, sign-in limits, and seats that belong to an account.

Playing as a guest needs none of this: a seat token is still all a seat
needs. An account adds an identity that follows a player between devices:
seats taken while signed in (or claimed later with their token) are linked
to it, and ``GET /api/me/games`` lists them.

Names are compared as people read them: NFKC-normalised and casefolded, so
``Ann``, ``ANN`` and the fullwidth ``Ａnn`` are one name. Passwords are
NFKC-normalised too (the same password typed on another keyboard still
matches), hashed with argon2id off the event loop, and never stored or
logged. Wrong passwords are limited per account and per client address;
an unknown name costs a hash of a dummy password, so timing does not tell
which names exist.
"""

from __future__ import annotations

import asyncio
import enum
import math
import secrets
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ..errors import Refused
from ..names import hidden, person_name_problem, skeleton
from ..store import sessions as session_rows
from ..store.accounts import Conflict, op_create, op_find, op_games, op_set_password, op_taken
from ..store.database import Storage
from . import sessions as session_store

NAME_MAX = 24
NAME_PUNCTUATION = frozenset(" -_.")
PASSWORD_MIN = 8
PASSWORD_MAX = 256
ATTEMPTS_PER_ACCOUNT = 5
"""Wrong passwords an account may receive a minute from one client address; then sign-in waits (429) there.

Per address, so that a stranger's five guesses do not lock the owner out everywhere."""
ATTEMPTS_PER_ACCOUNT_EVERYWHERE = 200
"""Wrong passwords an account may receive a minute from all addresses together (guessing from many machines).

Only a ceiling: 40 addresses guessing at their full per-address rate reach it, so a handful of machines cannot lock
the owner out (13 addresses x 5 guesses reached the old 60), yet a botnet still gets at most 200 guesses a minute
at one account. An address the account signed in from lately (:data:`KNOWN_ADDRESS_SECONDS`) is not held to it."""
KNOWN_ADDRESS_SECONDS = 30 * 24 * 3600.0
"""How long an address an account signed in from stays the owner's: the global ceiling does not apply there."""
KNOWN_ADDRESSES_PER_ACCOUNT = 8
"""The addresses remembered per account (the latest): home, work, a phone or two."""
ATTEMPTS_PER_ADDRESS = 20
"""Wrong passwords a client address may send a minute, over all names (several people may share one address)."""
WINDOW = 60.0
MAX_KEYS = 100_000
"""Keys one :class:`Attempts` remembers at most."""
SIGN_UPS_PER_ADDRESS = 30
"""Accounts a client address may make an hour (a class behind one address may sign up together); then 429."""
SIGN_UP_WINDOW = 3600.0

HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
"""argon2id at OWASP's minimum (19 MiB, 2 passes): about 20 ms a hash, so the limits above bound the work."""


def normal_name(raw: str) -> str:
    """The name as it is stored and shown (NFKC), or :class:`Refused` ``bad_name`` saying what is wrong."""
    name = unicodedata.normalize("NFKC", raw)
    if not 1 <= len(name) <= NAME_MAX:
        raise Refused("bad_name", f"a name has 1 to {NAME_MAX} characters")
    if name.strip(" ") != name or "  " in name:
        raise Refused("bad_name", "a name neither starts nor ends with a space, nor holds two in a row")
    for ch in name:
        kind = unicodedata.category(ch)
        if not (kind[0] in "LM" or kind == "Nd" or ch in NAME_PUNCTUATION):
            raise Refused("bad_name", "a name holds only letters, digits, spaces and the marks - _ .")
    if unicodedata.category(name[0])[0] == "M":
        raise Refused("bad_name", "a name starts with a letter, a digit or one of - _ .")
    if any(hidden(ch) for ch in name):  # the Hangul fillers are letters drawn as nothing
        raise Refused("bad_name", "a name holds no invisible letters")
    problem = person_name_problem(name)
    if problem is not None:
        raise Refused("bad_name", problem)
    return name


def name_key(name: str) -> str:
    """What two names must share to be the same name (Unicode's NFKC_Casefold, near enough)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def normal_password(raw: str) -> str:
    """The password as it is hashed (NFKC), or :class:`Refused` ``bad_password``; never echoed back."""
    password = unicodedata.normalize("NFKC", raw)
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise Refused("bad_password", f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")
    if any(unicodedata.category(ch) == "Cc" for ch in password):
        raise Refused("bad_password", "a password holds no control characters")
    return password


class Attempts:
    """Failures per key in a sliding window: how long until a key may try again."""

    def __init__(self, limit: int, window: float = WINDOW, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self.failures: dict[str, deque[float]] = {}

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        times = self.failures.get(key)
        if times is None:
            return 0.0
        now = self.clock()
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self.failures[key]
            return 0.0
        return times[0] + self.window - now if len(times) >= self.limit else 0.0

    def failed(self, key: str) -> None:
        if key not in self.failures and len(self.failures) >= MAX_KEYS:
            # A flood of distinct keys: forget the one that failed longest ago (dicts keep their order), so the
            # memory stays bounded and a flood cannot wipe the counts of the keys under watch now.
            del self.failures[next(iter(self.failures))]
        times = self.failures.pop(key, None) or deque()
        times.append(self.clock())
        self.failures[key] = times  # to the end: the newest failure

    def forget(self, key: str) -> None:
        self.failures.pop(key, None)


def _too_many(wait: float) -> Refused:
    seconds = max(1, math.ceil(wait))
    return Refused(
        "rate_limited", f"too many wrong passwords; try again in {seconds} s", 429, {"Retry-After": str(seconds)}
    )


class Account(dict[str, Any]):
    """``{"id": ..., "name": ...}``: what the API shows of an account."""


BOT_ACCOUNT_PLAYS = "a bot account plays only through the Bot API, with an API token (docs/bot-api.md)"


def refuse_bot_account(account: Account | None) -> None:
    """``403 bot_account`` when a bot account's session would take a seat as a person does: it plays through
    the Bot API only (:mod:`forsale.server.people.botaccounts`)."""
    if account is not None and account.get("bot_account") is True:
        raise Refused("bot_account", BOT_ACCOUNT_PLAYS, 403)


class Keep(enum.Enum):
    """The type of :data:`KEEP`: a setting left as it is (``None`` already means "none")."""

    KEEP = "keep"


KEEP = Keep.KEEP


class Accounts:
    """Sign-up, sign-in and passwords over :class:`Storage`; the per-request session helpers."""

    def __init__(self, storage: Storage, clock: Callable[[], float] = time.monotonic) -> None:
        self.storage = storage
        self.by_account = Attempts(ATTEMPTS_PER_ACCOUNT, clock=clock)  # keyed by name and address
        self.by_name = Attempts(ATTEMPTS_PER_ACCOUNT_EVERYWHERE, clock=clock)
        self.by_address = Attempts(ATTEMPTS_PER_ADDRESS, clock=clock)
        self.sign_ups = Attempts(SIGN_UPS_PER_ADDRESS, SIGN_UP_WINDOW, clock)
        self.clock = clock
        self.known: dict[str, dict[str, float]] = {}  # name key -> address -> when it last signed in there
        self.revocations = 0  # password changes so far (see revocation_mark)
        self.revoked: dict[str, int] = {}  # account id -> revocations when its seat tokens were last ended
        self._dummy: str | None = None

    # -- passwords ------------------------------------------------------------------
    async def _verify(self, password_hash: str | None, password: str) -> bool:
        """Check ``password``; with no hash (an unknown name) check a dummy one, so both cost the same."""
        if password_hash is None:
            if self._dummy is None:
                self._dummy = await asyncio.to_thread(HASHER.hash, secrets.token_urlsafe(16))
            password_hash = self._dummy
            password = password + "\x00"  # never the dummy's password
        try:
            return await asyncio.to_thread(HASHER.verify, password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    async def _check(self, key: str, address: str, password_hash: str | None, password: str) -> bool:
        """Verify under the limits: 429 while the account (from here, or in all), or the address, waits."""
        pair = f"{key}\x00{address}"
        everywhere = 0.0 if self._known(key, address) else self.by_name.wait(key)
        wait = max(self.by_account.wait(pair), everywhere, self.by_address.wait(address))
        if wait > 0:
            raise _too_many(wait)
        if await self._verify(password_hash, password):
            self.by_account.forget(pair)
            self._remember(key, address)
            return True
        self.by_account.failed(pair)
        self.by_name.failed(key)
        self.by_address.failed(address)
        return False

    def _known(self, key: str, address: str) -> bool:
        """Whether the account signed in from ``address`` lately (then guesses from elsewhere cannot lock it)."""
        when = self.known.get(key, {}).get(address)
        return when is not None and self.clock() - when < KNOWN_ADDRESS_SECONDS

    def _remember(self, key: str, address: str) -> None:
        if key not in self.known and len(self.known) >= MAX_KEYS:
            del self.known[next(iter(self.known))]  # bounded, as Attempts is: the account seen longest ago goes
        addresses = self.known.pop(key, {})
        addresses.pop(address, None)
        addresses[address] = self.clock()
        while len(addresses) > KNOWN_ADDRESSES_PER_ACCOUNT:
            del addresses[next(iter(addresses))]
        self.known[key] = addresses

    # -- the operations -------------------------------------------------------------
    async def sign_up(self, raw_name: str, raw_password: str, address: str = "?") -> Account:
        name, password = normal_name(raw_name), normal_password(raw_password)
        wait = self.sign_ups.wait(address)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise Refused("rate_limited", f"too many new accounts from this address; try again in {seconds} s", 429,
                          {"Retry-After": str(seconds)})  # fmt: skip
        taken = Refused("name_taken", "that name is taken, or one that looks like it (names are compared as they "
                        "read: ignoring case, width and letters of other scripts drawn alike)", 409)  # fmt: skip
        if await self.storage.run(op_taken(name_key(name), skeleton(name))):
            raise taken  # before hashing: a taken name must cost no argon2 work, however often it is tried
        account_id = secrets.token_urlsafe(12)
        password_hash = await asyncio.to_thread(HASHER.hash, password)
        try:
            created = await self.storage.run(op_create(account_id, name, name_key(name), password_hash, skeleton(name)))
        except Conflict:  # taken in the meantime
            raise taken from None
        if not created:  # a look-alike was taken in the meantime (the skeleton has no unique index)
            raise taken
        self.sign_ups.failed(address)  # counted once made: refused names cost nothing
        return Account(id=account_id, name=name)

    async def sign_in(self, raw_name: str, raw_password: str, address: str) -> Account:
        key = name_key(raw_name)
        row = await self.storage.run(op_find(key)) if "\x00" not in key else None  # PostgreSQL text holds no NUL
        if not await self._check(key, address, row[2] if row else None, unicodedata.normalize("NFKC", raw_password)):
            raise Refused("wrong_password", "no account has that name and password", 401)
        assert row is not None
        return Account(id=row[0], name=row[1])

    async def change_password(self, account: Account, old: str, new: str, address: str) -> None:
        password = normal_password(new)
        key = name_key(account["name"])
        row = await self.storage.run(op_find(key))
        if row is None or not await self._check(key, address, row[2], unicodedata.normalize("NFKC", old)):
            raise Refused("wrong_password", "the old password is not this account's", 403)
        password_hash = await asyncio.to_thread(HASHER.hash, password)
        await self.storage.run(op_set_password(account["id"], password_hash))
        await self.end_all_sessions(account)

    async def end_all_sessions(self, account: Account) -> None:
        """End every session of the account (a new password, or signing out everywhere).

        The caller ends the seat tokens too (:func:`end_seat_tokens`): they are the sessions' credentials.
        """
        await self.storage.run(session_rows.op_end_all(account["id"]))
        # After the sessions ended, never before: see revocation_mark.
        self.revocations += 1
        self.revoked[account["id"]] = self.revocations

    def revocation_mark(self) -> int:
        """Read before a request's session is looked up; :meth:`revoked_since` then says if it may still mint a token.

        A request that found its session valid was looked up before a password change ended the sessions; the
        change counts itself only after that, so a mark read before the lookup is always older than the change.
        An endpoint that mints a seat token for the account checks, under the table's lock, that no change came
        in between: else a resume racing a password change could mint a token after the change ended them all.
        """
        return self.revocations

    def revoked_since(self, account: Account, mark: int) -> bool:
        return self.revoked.get(account["id"], 0) > mark

    async def seat_name(self, account: Account | None, requested: str | None) -> str | None:
        """The name a seat taken by this request goes by (None: the server's default for a guest).

        A signed-in person sits under their account's name, whatever the body asks (the seat shows
        ``"account": true``), so nobody's account can sit as another's. A guest's name must be one a person
        can go by (:func:`forsale.server.names.person_name_problem`) and must not read as an account's name.
        """
        if account is not None:
            refuse_bot_account(account)
            return str(account["name"])
        if requested is None:
            return None
        problem = person_name_problem(requested)
        if problem is not None:
            raise Refused("bad_name", problem)
        if await self.storage.run(op_taken(name_key(requested), skeleton(requested))):
            raise Refused("bad_name", "that name is an account's (or looks like one): sign in to play under it")
        return requested

    async def verify(self, account: Account, password: str, address: str) -> None:
        """``403 wrong_password`` unless ``password`` is the account's (limited as sign-in is)."""
        key = name_key(account["name"])
        row = await self.storage.run(op_find(key))
        if row is None or not await self._check(key, address, row[2], unicodedata.normalize("NFKC", password)):
            raise Refused("wrong_password", "that is not this account's password", 403)

    async def games(self, account_id: str, limit: int = 200) -> list[dict[str, Any]]:
        return await self.storage.run(op_games(account_id, limit))

    # -- sessions ---------------------------------------------------------------------
    async def current(self, request: session_store.Asking, changing: bool = False) -> Account | None:
        """The account the request's session cookie signs in, if any.

        ``changing``: the request changes something, so a cookie it carries
        must come from one of this server's pages (CSRF): else 403. A request
        with no cookie is a guest's, and passes as it always did.
        """
        session_id = session_store.cookie_of(request)
        if session_id is None:
            return None
        if changing and not session_store.same_origin(request.headers, request.url.scheme):
            raise Refused("cross_origin", "a signed-in request must come from this server's own pages", 403)
        found = await self.storage.run(session_rows.op_lookup(session_store.hash_session(session_id)))
        if found is None:
            return None
        # A bot account's says so (forsale.server.people.botaccounts), a person's has no such key.
        return (
            Account(id=found[0], name=found[1], bot_account=True) if found[2] else Account(id=found[0], name=found[1])
        )

    async def required(self, request: session_store.Asking, changing: bool = False) -> Account:
        account = await self.current(request, changing)
        if account is None:
            raise Refused("not_signed_in", "sign in first (POST /api/signin)", 401)
        return account

    async def start_session(self, request: session_store.Asking, account: Account) -> str:
        """A new session for ``account``, replacing the request's (so an id planted before sign-in is worth nothing)."""
        session_id, id_hash = session_store.new_session()
        old = session_store.cookie_of(request)
        ended = session_store.hash_session(old) if old is not None else None
        await self.storage.run(session_rows.op_start(account["id"], id_hash, session_store.SESSION_SECONDS, ended))
        return session_id

    async def end_session(self, request: session_store.Asking) -> None:
        session_id = session_store.cookie_of(request)
        if session_id is not None:
            await self.storage.run(session_rows.op_end(session_store.hash_session(session_id)))
