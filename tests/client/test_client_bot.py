"""A bot's table (:meth:`forsale.client.BotClient.play`): the seat request broken on the way is asked again."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from forsale.client import BotClient, GameOver


class SeatFailsOnTheWay(BotClient):
    """A seat request whose connection breaks once (the server closing a kept-alive connection as it is reused),
    then a game that ends at once: only :meth:`BotClient.play`'s handling of the seat request is under test."""

    def __init__(self) -> None:
        super().__init__("http://server.invalid", "fsb_test")
        self.asked = 0

    async def seat(self, table_id: str) -> dict[str, Any]:
        self.asked += 1
        if self.asked == 1:
            raise httpx.ReadError("")
        return {"table": {"seats": []}, "seat": 0, "token": "t"}

    async def _session(self, table_id: str, sat: dict[str, Any], policy: Any, backoff: Any) -> GameOver:
        return GameOver(table_id, int(sat["seat"]))


def test_a_seat_request_broken_on_the_way_is_asked_again() -> None:
    async def run() -> GameOver:
        async with SeatFailsOnTheWay() as client:
            over = await asyncio.wait_for(client.play("T", lambda view: None), 5)
            assert client.asked == 2
            return over

    assert asyncio.run(run()) == GameOver("T", 0)
