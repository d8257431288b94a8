"""A challenge's row settles once (:mod:`forsale.server.store.challenges`), on SQLite and PostgreSQL: the first of
two answers wins, an expired challenge takes none, the limits per challenger hold, old rows are pruned."""

from __future__ import annotations

import time
from typing import Any

from forsale.server.lobby.challenges import shown
from forsale.server.store import challenges as store
from forsale.server.store.database import Storage


def row(challenge_id: str, expires_in: float = 60.0) -> dict[str, Any]:
    now = time.time()
    terms = {"from": "Ann", "to": "Botty", "players": 2, "rules": None, "time_limit": 60.0, "rated": False, "bots": []}
    return {"id": challenge_id, "challenger_id": "ann", "bot_id": "botty", "terms": terms, "status": store.PENDING,
            "table_id": None, "reason": None, "created_at": now, "expires_at": now + expires_in}  # fmt: skip


def test_a_challenge_is_answered_once_and_not_after_it_expired(db_url: str) -> None:
    storage = Storage(db_url)
    try:
        assert storage.call(store.op_create(row("c1"), pending_limit=2, per_minute=9)) == "created"
        assert storage.call(store.op_create(row("c2", expires_in=-1), 2, 9)) == "created"  # its minute is up
        assert storage.call(store.op_create(row("c3"), 2, 9)) == "created"  # an expired one is not pending
        assert storage.call(store.op_create(row("c4"), 2, 9)) == "pending"  # two pending: no third
        assert [r["id"] for r in storage.call(store.op_pending_for("botty"))] == ["c1", "c3"]

        assert storage.call(store.op_settle("c1", "declined", "later"))
        assert not storage.call(store.op_settle("c1", "accepted"))  # answered already: the second answer loses
        assert not storage.call(store.op_settle("c2", "accepted"))  # expired
        assert shown(storage.call(store.op_get("c2")))["status"] == "expired"
        declined = shown(storage.call(store.op_get("c1")))
        assert (declined["status"], declined["reason"], declined["from"]) == ("declined", "later", "Ann")

        assert storage.call(store.op_settle("c3", "accepted"))
        storage.call(store.op_set_table("c3", "T1"))
        assert shown(storage.call(store.op_get("c3")))["table"] == "T1"
        assert storage.call(store.op_pending_for("botty")) == []
    finally:
        storage.close()


def test_challenges_a_minute_are_limited_and_old_ones_pruned(db_url: str) -> None:
    storage = Storage(db_url)
    try:
        for i in range(3):  # made and cancelled at once: never pending, yet counted
            assert storage.call(store.op_create(row(f"m{i}"), pending_limit=2, per_minute=3)) == "created"
            assert storage.call(store.op_settle(f"m{i}", "cancelled"))
        wait = storage.call(store.op_create(row("m3"), pending_limit=2, per_minute=3))
        assert isinstance(wait, float) and 59 < wait <= 60  # till the first leaves the minute
        assert storage.call(store.op_get("m3")) is None
        old = {**row("old"), "created_at": time.time() - 90000, "expires_at": time.time() - 89940}
        storage.call(lambda conn: conn.execute(store.challenges.insert().values(**old)))  # made yesterday
        assert storage.call(store.op_prune(time.time() - 86400)) == 1  # a day old, answered or not; the rest stay
        assert storage.call(store.op_get("old")) is None and storage.call(store.op_get("m0")) is not None
    finally:
        storage.close()
