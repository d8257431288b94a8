"""Leases and fencing on a real PostgreSQL, without any server: exactly one taker, no write without the lease."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import Connection, func, select, text
from sqlalchemy.exc import InternalError, OperationalError

from forsale.server.store import leases
from forsale.server.store.cluster import session_settings
from forsale.server.store.database import Fence, LeaseLost, Storage, StoredGame, StoredSeat, check_fences, fenced
from forsale.server.store.schema import events

from .conftest import LEASE_TTL


@pytest.fixture
def storage(cluster_db: str) -> Iterator[Storage]:
    s = Storage(cluster_db)
    yield s
    s.close()


def a_game(game_id: str) -> StoredGame:
    seats = [StoredSeat(i, "bot", "random bot", "random", None) for i in range(3)]
    return StoredGame(game_id, "lease test", "playing", 3, {}, {}, "x" * 64, time.time(), None, None, seats)


def new_game(storage: Storage, game_id: str) -> None:
    storage.call(Storage.op_create_game(a_game(game_id)))


def append(storage: Storage, game_id: str, seq: int, fence: Fence | None) -> None:
    storage.call(fenced(game_id, fence, Storage.op_append(game_id, seq, 0, {"pass": True}, "bot")))


def logged(storage: Storage, game_id: str) -> int:
    return storage.call(lambda conn: conn.execute(select(func.count()).where(events.c.game_id == game_id)).scalar())


def expired(storage: Storage, game_id: str) -> bool:
    query = text("SELECT expires_at < extract(epoch from clock_timestamp()) FROM forsale_leases WHERE game_id = :g")
    return bool(storage.call(lambda conn: conn.execute(query, {"g": game_id}).scalar()))


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        time.sleep(0.02)


def test_two_nodes_taking_the_same_tables_at_once_exactly_one_wins_each(storage: Storage) -> None:
    ids = [f"race{i}" for i in range(40)]
    for game_id in ids:
        new_game(storage, game_id)
    won: dict[str, list[tuple[str, int]]] = {g: [] for g in ids}
    start = threading.Barrier(2)

    def node(owner: str) -> None:
        engine = Storage(storage.url).engine  # a connection of its own, as another node has
        start.wait()
        for game_id in ids:
            with engine.begin() as conn:
                epoch = leases.take(conn, game_id, owner, owner, 60)
            if epoch is not None:
                won[game_id].append((owner, epoch))
        engine.dispose()

    threads = [threading.Thread(target=node, args=(name,)) for name in ("a/1", "b/1")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(len(w) == 1 for w in won.values()), won
    # Once they have all expired, a second round of racing again gives each table to exactly one, at epoch 2.
    storage.call(lambda conn: conn.execute(text("UPDATE forsale_leases SET expires_at = 0")))
    for game_id in ids:
        won[game_id].clear()
    threads = [threading.Thread(target=node, args=(name,)) for name in ("a/2", "b/2")]
    start.reset()
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(len(w) == 1 and w[0][1] == 2 for w in won.values()), won


def test_a_node_whose_lease_expired_cannot_append_and_one_that_lost_it_never_can(storage: Storage) -> None:
    new_game(storage, "fence1")
    epoch = storage.call(lambda conn: leases.take(conn, "fence1", "a/1", "a", 0.5))
    assert epoch == 1
    append(storage, "fence1", 1, ("a/1", epoch))  # while the lease lasts, its holder appends
    wait_until(lambda: expired(storage, "fence1"))
    with pytest.raises(LeaseLost):
        append(storage, "fence1", 2, ("a/1", epoch))  # expired, though nobody took it yet
    assert storage.call(lambda conn: leases.renew(conn, "a/1", LEASE_TTL)) == {}  # an expired lease is not renewed
    assert storage.call(lambda conn: leases.take(conn, "fence1", "b/1", "b", 60)) == 2
    with pytest.raises(LeaseLost):
        append(storage, "fence1", 2, ("a/1", epoch))  # the old holder, whatever it believes
    with pytest.raises(LeaseLost):
        append(storage, "fence1", 2, ("b/1", 1))  # the new holder with a stale epoch
    append(storage, "fence1", 2, ("b/1", 2))
    assert logged(storage, "fence1") == 2


def test_one_lost_lease_in_a_group_commit_spoils_only_its_own_append(storage: Storage) -> None:
    for game_id in ("group1", "group2", "group3"):
        new_game(storage, game_id)
        storage.call(lambda conn, g=game_id: leases.take(conn, g, "a/1", "a", 60))
    storage.call(lambda conn: conn.execute(text("UPDATE forsale_leases SET owner = 'b/1' WHERE game_id = 'group2'")))
    futures = [
        storage.submit(fenced(g, ("a/1", 1), Storage.op_append(g, 1, 0, {"pass": True}, "bot")))
        for g in ("group1", "group2", "group3")
    ]  # queued together: the writer runs them as one group, then one by one when the group fails
    outcomes = [f.exception(30) for f in futures]
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], LeaseLost)
    assert [logged(storage, g) for g in ("group1", "group2", "group3")] == [1, 0, 1]


def test_a_write_other_than_an_append_is_fenced_too(storage: Storage) -> None:
    new_game(storage, "seat1")
    storage.call(lambda conn: leases.take(conn, "seat1", "a/1", "a", 60))
    seat = StoredSeat(0, "human", "Ann", None, "y" * 64)
    with pytest.raises(LeaseLost):
        storage.call(fenced("seat1", ("a/1", 7), Storage.op_update_seat("seat1", seat)))
    storage.call(fenced("seat1", ("a/1", 1), Storage.op_update_seat("seat1", seat)))
    assert storage.call(Storage.op_load("seat1")).seats[0].name == "Ann"


def test_a_stale_session_holding_a_nodes_liveness_lock_is_ended_but_not_a_strangers(cluster_db: str) -> None:
    """A notice connection broken without a word leaves its session holding the lock: the node ends it.

    Only a session with the node's own ``application_name`` is ended, so two owners whose keys collide
    never end each other's connections.
    """
    import psycopg

    from forsale.server.store.cluster import libpq_url

    url, owner = libpq_url(cluster_db), leases.incarnation("n9")
    name = "forsale-notice n9"
    with (
        psycopg.connect(url, autocommit=True, application_name=name) as stale,
        psycopg.connect(url, autocommit=True, application_name=name) as fresh,
        psycopg.connect(url, autocommit=True, application_name="forsale-notice other") as stranger,
    ):
        take = leases.liveness_lock(owner)
        assert stranger.execute(take).fetchone() == (True,)  # another owner whose key happens to be the same
        assert fresh.execute(leases.stale_holder(owner)).fetchall() == []  # not ended: not this node's session
        assert stranger.execute("SELECT 1").fetchone() == (1,)
        stranger.execute(f"SELECT pg_advisory_unlock({leases.LIVENESS}, {leases.liveness_key(owner)})")
        assert stale.execute(take).fetchone() == (True,)
        assert fresh.execute(take).fetchone() == (False,)
        assert fresh.execute(leases.stale_holder(owner)).fetchall() == [(True,)]
        deadline = time.monotonic() + 10
        while fresh.execute(take).fetchone() != (True,):  # the ended session lets go of the lock
            assert time.monotonic() < deadline, "the stale session kept the lock"
            time.sleep(0.05)
        with pytest.raises(psycopg.OperationalError):
            stale.execute("SELECT 1")


PAUSED_WRITER = """
import sys, time
from forsale.server.store.cluster import session_settings
from forsale.server.store import leases
from forsale.server.store.database import Storage, StoredGame, StoredSeat, fenced

url, owner, ttl = sys.argv[1], sys.argv[2], float(sys.argv[3])
storage = Storage(url)
session_settings(storage.engine, ttl, "paused")
storage.engine.dispose()  # every connection from here on has the node's settings
seats = [StoredSeat(i, "bot", "random bot", "random", None) for i in range(3)]
for n in range(10**6):  # a table at a time, appended to as fast as a node's writer goes until its lease is taken
    game_id = f"w{n}-{owner[-8:]}"
    try:
        storage.call(Storage.op_create_game(StoredGame(game_id, "w", "playing", 3, {}, {}, "x" * 64, time.time(), None, None, seats)))
        epoch = storage.call(lambda conn: leases.take(conn, game_id, owner, "paused", 3600))
        print(game_id, flush=True)
        for seq in range(1, 10**6):
            storage.call(fenced(game_id, (owner, epoch), Storage.op_append(game_id, seq, 0, {"pass": True}, "bot")))
    except Exception:  # its lease was taken (LeaseLost), or its session ended while it was paused
        pass
"""


END_LEASES = text(
    f"UPDATE forsale_leases SET expires_at = 0 WHERE owner = :o AND expires_at > {leases.NOW} RETURNING game_id"
)
ACTIVE = text(
    "SELECT state, wait_event, left(query, 50) FROM pg_stat_activity"
    " WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'"
)


def test_a_node_paused_in_the_middle_of_an_append_never_keeps_its_table_from_the_others(cluster_db: str) -> None:
    """A node stopped (``SIGSTOP``) at any moment of its appends lets its tables go once their leases expire.

    An append holds its lease row ``FOR KEY SHARE`` until it commits, and a
    taker waits for that lock; PostgreSQL ends a session left idle in its
    transaction (``idle_in_transaction_session_timeout``, half a lease time),
    so the lock goes with it. Unless the session's timer is off: psycopg's
    ``executemany`` (a pipeline) left it off until the next statement, so a
    writer paused between its insert and its commit kept the row, and the
    table, for as long as it stayed paused (the cluster failover test's "not
    taken over"). Each round pauses the writer at a random moment of its
    appends, ends its lease and takes it within a few lock timeouts.
    """
    ttl = 1.0  # idle_in_transaction_session_timeout 0.5 s, lock_timeout 1 s
    owner, taker = leases.incarnation("paused"), Storage(cluster_db)
    session_settings(taker.engine, ttl, "taker")
    taker.engine.dispose()
    writer = subprocess.Popen(
        [sys.executable, "-c", PAUSED_WRITER, cluster_db, owner, str(ttl)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    kept = []
    try:
        for _round in range(15):
            assert writer.stdout is not None and writer.stdout.readline(), "the writer appends to a new table"
            time.sleep(random.uniform(0, 0.05))
            writer.send_signal(signal.SIGSTOP)
            game_ids = [g for (g,) in taker.call(lambda conn: conn.execute(END_LEASES, {"o": owner}).all())]
            deadline = time.monotonic() + 5 * ttl  # the idle session's end, the taker's lock wait, and room to spare
            for game_id in game_ids:
                epoch = None
                while epoch is None and time.monotonic() < deadline:
                    with contextlib.suppress(OperationalError):  # lock_timeout: the paused writer holds the row
                        epoch = taker.call(lambda conn, g=game_id: leases.take(conn, g, "taker/1", "taker", 3600))
                if epoch is None:  # who holds it: the writer's session, and in what state
                    kept.append((game_id, taker.call(lambda conn: conn.execute(ACTIVE).all())))
            writer.send_signal(signal.SIGCONT)  # its next append fails its fence: it goes on to a new table
    finally:
        writer.kill()
        writer.wait(10)
        taker.close()
    assert kept == []


@pytest.mark.parametrize("write", ["a new game", "a group of appends"])
def test_postgresql_ends_the_session_of_a_node_paused_before_it_commits_whatever_it_wrote(
    cluster_db: str, write: str
) -> None:
    """Half a lease time after a paused node's last statement, PostgreSQL ends its session and its locks go.

    Whatever the node wrote last in its transaction: psycopg's ``executemany``
    (a pipeline) left ``idle_in_transaction_session_timeout`` off until the
    next statement, so a node paused right after it kept its transaction,
    and the lease rows its appends hold ``FOR KEY SHARE``, for as long as it
    stayed paused. A group commit may end with either write.
    """
    storage = Storage(cluster_db)
    session_settings(storage.engine, 1.0, "paused")  # idle_in_transaction_session_timeout 0.5 s
    storage.engine.dispose()
    game_id = "paused-" + write.split()[-1]
    if write == "a group of appends":
        new_game(storage, game_id)
        epoch = storage.call(lambda conn: leases.take(conn, game_id, "a/1", "a", 60))
    rows = [
        {"game_id": game_id, "seq": seq, "seat": 0, "action": {"pass": True}, "source": "bot", "at": time.time()}
        for seq in (1, 2)
    ]
    try:
        with pytest.raises(InternalError, match="idle-in-transaction timeout"), storage.engine.begin() as conn:
            if write == "a new game":
                Storage.op_create_game(a_game(game_id))(conn)
            else:
                check_fences(conn, [(game_id, ("a/1", epoch))])
                storage._insert_events(conn, rows)  # the writer's group of appends (Storage._run_batch)
            time.sleep(1.5)  # paused before its commit: the session is ended meanwhile
        assert logged(storage, game_id) == 0
        if write == "a group of appends":  # its lease row is no longer locked: a taker is answered at once

            def take(conn: Connection) -> int | None:
                conn.execute(text("SET LOCAL lock_timeout = 100"))
                return leases.take(conn, game_id, "b/1", "b", 60)

            assert storage.call(take) is None  # no lock timeout: the lease is merely still live
    finally:
        storage.close()
