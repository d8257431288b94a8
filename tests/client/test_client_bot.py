"""A bot's table (:meth:`forsale.client.BotClient.play`): the seat request broken on the way is asked again; a
seat another copy of the bot keeps taking is given up after a few losses in a row, one ended by the owner is not."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from forsale.client import BotClient, ClientError, GameOver
from forsale.client.bot import TAKEN_LIMIT


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


class SeatTakenBack(BotClient):
    """Each session ends with the ``bad_token`` error of ``losses`` in turn, then (if any left) the game's end:
    :meth:`BotClient.play`'s answer to losing its seat, without a server."""

    retake_backoff = (0.001, 0.004)

    def __init__(self, losses: list[dict[str, Any]]) -> None:
        super().__init__("http://server.invalid", "fsb_test")
        self.losses, self.asked = losses, 0

    async def seat(self, table_id: str) -> dict[str, Any]:
        self.asked += 1
        return {"table": {"seats": []}, "seat": 0, "token": "t"}

    async def _session(self, table_id: str, sat: dict[str, Any], policy: Any, backoff: Any) -> Any:
        if self.losses:
            return self.losses.pop(0)
        return GameOver(table_id, 0)


TAKEN = {"type": "error", "code": "bad_token", "message": "the bot took this seat up again with a fresh token"}


def test_another_copy_taking_the_seat_again_and_again_ends_this_copys_play_of_the_table() -> None:
    async def fight() -> SeatTakenBack:
        async with SeatTakenBack([TAKEN] * 10) as client:
            with pytest.raises(ClientError) as stopped:
                await asyncio.wait_for(client.play("T", lambda view: None), 5)
            assert stopped.value.code == "seat_taken" and "another copy of this bot" in stopped.value.message
            return client

    client = asyncio.run(fight())
    assert client.asked == TAKEN_LIMIT and len(client.losses) == 10 - TAKEN_LIMIT  # it stopped taking the seat


def test_a_token_ended_by_the_owner_is_taken_up_again_and_does_not_count_as_a_fight() -> None:
    ended = [{**TAKEN, "params": {"why": why}} for why in ("password_changed", "token_revoked", "signed_out")]

    async def run() -> tuple[GameOver, int]:
        async with SeatTakenBack([TAKEN, TAKEN, *ended]) as client:
            return await asyncio.wait_for(client.play("T", lambda view: None), 5), client.asked

    assert asyncio.run(run()) == (GameOver("T", 0), 6)
