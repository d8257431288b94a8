"""The bot runner's start (:func:`forsale.client.run_bot`): no table made while it starts is missed."""

from __future__ import annotations

import asyncio
from typing import Any

from forsale.client import BotClient, GameOver, run_bot


class SeatedWhileStarting(BotClient):
    """A server, in memory, that seats the bot at table ``T`` just after the runner's first look (at its games or
    at its notices, whichever comes first): the moment a restarted bot's tournament round or accepted challenge
    can fall in. Only the order of the looks is under test here; the whole runner against a real server is
    ``tests/server/test_server_botapi.py``'s."""

    def __init__(self) -> None:
        super().__init__("http://server.invalid", "fsb_test")
        self.seated = False
        self.played: list[str] = []

    def _look(self) -> bool:
        seated, self.seated = self.seated, True
        return seated

    async def games(self) -> list[dict[str, Any]]:
        return [{"id": "T"}] if self._look() else []

    async def challenges(self) -> list[dict[str, Any]]:
        return []

    async def notices(self, after: int = -1, wait: float = 0.0) -> dict[str, Any]:
        if after == -1:
            return {"notices": [], "last": 1 if self._look() else 0}
        if after < 1:
            return {"notices": [{"id": 1, "kind": "seated", "table": "T", "seat": 0}], "last": 1}
        await asyncio.sleep(wait)
        return {"notices": [], "last": after}

    async def play(self, table_id: str, policy: Any) -> GameOver:
        self.played.append(table_id)
        return GameOver(table_id, 0)


def test_a_table_made_between_the_runners_first_looks_is_played_once() -> None:
    async def run() -> int:
        async with SeatedWhileStarting() as client:
            played = await asyncio.wait_for(run_bot(client, lambda view: None, games=1), 5)
            assert client.played == ["T"]
            return played

    assert asyncio.run(run()) == 1
