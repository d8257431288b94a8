"""The API tokens' checks on their own (:mod:`forsale.server.people.apitokens`), over a real database: the
limit on wrong tokens from one address, and what each refusal says, on SQLite and PostgreSQL. The same rules over HTTP, with a real server,
are ``test_server_botapi.py``; this limit is tested here because that module's tests share one address."""

from __future__ import annotations

import asyncio

import pytest

from forsale.server.errors import Refused
from forsale.server.people.accounts import Accounts
from forsale.server.people.apitokens import BAD_TOKENS_PER_ADDRESS, ApiTokens
from forsale.server.people.botaccounts import upgrade
from forsale.server.store.database import Storage

WRONG = "Bearer fsb_" + "x" * 32


async def refusal(tokens: ApiTokens, authorization: str | None, scope: str, address: str) -> str:
    with pytest.raises(Refused) as refused:
        await tokens.owner(authorization, scope, address)
    return refused.value.code


def test_wrong_tokens_are_limited_per_address_and_a_good_one_names_its_bot(db_url: str) -> None:
    storage = Storage(db_url)

    async def run() -> None:
        person = await Accounts(storage).sign_up("Robo", "correct horse battery staple")
        assert await refusal(ApiTokens(storage), None, "bot:read", "10.0.0.1") == "no_token"
        tokens = ApiTokens(storage)
        with pytest.raises(Refused, match="bot accounts"):
            await tokens.create(person, "laptop", ["bot:read"])
        bot = await upgrade(storage, person)
        _, reader = await tokens.create(bot, "laptop", ["bot:read"])
        assert (await tokens.owner(f"Bearer {reader}", "bot:read", "10.0.0.1")).name == "Robo"
        assert await refusal(tokens, f"Bearer {reader}", "bot:play", "10.0.0.1") == "missing_scope"
        for _ in range(BAD_TOKENS_PER_ADDRESS):
            assert await refusal(tokens, WRONG, "bot:read", "10.0.0.1") == "bad_token"
        assert await refusal(tokens, WRONG, "bot:read", "10.0.0.1") == "rate_limited"
        assert await refusal(tokens, f"Bearer {reader}", "bot:read", "10.0.0.1") == "rate_limited"  # until it waits
        assert await refusal(tokens, WRONG, "bot:read", "10.0.0.2") == "bad_token"  # another address is not held
        assert (await tokens.owner(f"Bearer {reader}", "bot:read", "10.0.0.2")).bot is True

    try:
        asyncio.run(run())
    finally:
        storage.close()
