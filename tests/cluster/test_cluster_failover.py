"""Three ``forsale serve --cluster`` nodes behind HAProxy on loopback: routing, the lobby, kill -9, pause, stop.

Every game is played by :class:`~players.Player` clients through the load
balancer (bots at some seats), and checked at the end against its event
log (:func:`~players.check_game`): the log's seqs are 1..n, every action a
player was acknowledged and every event it was shown are the log's, no clock
or absence ever played for a player (they carried on after each failure),
and nothing a player sent was applied twice.
"""

from __future__ import annotations

import json
import re
import signal
from collections import Counter
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from harness.cluster import NODE_READY_S, wait_for

from .conftest import LEASE_TTL, wait_or_explain
from .players import Games, check_game, new_game

pytestmark = pytest.mark.timeout(240)

BOTS = [None, "random", "random"]


def start_games(cluster: Any, humans: int, bots: int) -> tuple[Games, dict[str, set[int]]]:
    """Tables of three through the load balancer (all people, or one person and two bots), being played."""
    base = cluster.balancer.base
    games = [new_game(base, 3) for _ in range(humans)] + [new_game(base, 3, BOTS) for _ in range(bots)]
    bot_seats = {table: set(range(3)) - set(seats) for table, seats, _ in games}
    runner = Games(cluster.balancer.ws, games)
    runner.start()
    return runner, bot_seats


def check_all(cluster: Any, runner: Games, bot_seats: dict[str, set[int]]) -> None:
    players = runner.finish()
    for table, seated in players.items():
        check_game(cluster.events(table), seated, bot_seats[table])
        record = httpx.get(f"{cluster.balancer.base}/api/tables/{table}/record", timeout=30)
        assert record.status_code == 200 and record.json()["table"] == table


def busiest(cluster: Any, tables: list[str]) -> tuple[str, list[str]]:
    """The node that owns most of these (unfinished) tables, and those tables."""
    owners = cluster.owners()
    counts = Counter(owners[t][0] for t in tables if t in owners)
    node = counts.most_common(1)[0][0]
    return node, [t for t in tables if owners.get(t, ("",))[0] == node]


def under_way(cluster: Any, runner: Games, tables: list[str], events: int = 4) -> bool:
    return not runner.failed() and all(len(cluster.events(t)) >= events for t in tables)


def test_tables_made_through_the_balancer_live_on_different_nodes_and_every_lobby_lists_them(cluster: Any) -> None:
    base = cluster.balancer.base
    made = [new_game(base, 3, name=f"open {i}", join=False)[0] for i in range(6)]
    for table in made:  # each table's requests reach the node it hashes to, which takes it
        assert httpx.get(f"{base}/api/tables/{table}", timeout=30).status_code == 200
    owners = cluster.owners()
    assert all(t in owners for t in made)
    assert len({owners[t][0] for t in made}) >= 2, owners

    def everyone_lists_them() -> bool:
        for node in cluster.nodes:
            listed = {t["id"] for t in httpx.get(f"{node.base}/api/tables?status=open", timeout=10).json()["tables"]}
            if not set(made) <= listed:
                return False
        return True

    wait_for(everyone_lists_them, 30, "every node's lobby lists every open table (LISTEN/NOTIFY)")
    nodes = httpx.get(f"{base}/api/cluster", timeout=10).json()
    assert sorted(n["name"] for n in nodes["nodes"]) == ["n1", "n2", "n3"]


def test_kill_9_of_a_node_mid_game_every_game_finishes_with_nothing_lost_or_doubled(cluster: Any) -> None:
    runner, bot_seats = start_games(cluster, humans=5, bots=3)
    tables = list(bot_seats)
    wait_for(lambda: under_way(cluster, runner, tables), 60, "every game under way")
    victim, on_victim = busiest(cluster, tables)
    cluster.by_name[victim].kill9()
    unfinished = {row[0] for row in cluster.sql("SELECT id FROM forsale_games WHERE status != 'over'")}
    before = {t: len(cluster.events(t)) for t in on_victim if t in unfinished}
    assert before, "the killed node had games under way"
    check_all(cluster, runner, bot_seats)
    assert all(len(cluster.events(t)) > n for t, n in before.items())  # they went on at other nodes
    cluster.restart(victim, wait=False)  # it rejoins while the next test runs: its tables move back


def test_a_paused_node_that_comes_back_cannot_corrupt_the_tables_taken_from_it(cluster: Any) -> None:
    base = cluster.balancer.base
    table, seats, tokens = new_game(base, 3, BOTS)
    assert httpx.get(f"{base}/api/tables/{table}", timeout=30).status_code == 200
    owner, epoch = wait_or_explain(cluster, lambda: cluster.owners().get(table), 30, "the table has an owner", table)
    stale = cluster.by_name[owner]
    # A second connection for the person's seat, straight to the owner, past the balancer.
    with connect(f"ws://127.0.0.1:{stale.port}/ws/tables/{table}", open_timeout=30) as intruder:
        intruder.send(json.dumps({"type": "hello", "token": tokens[0]}))
        assert json.loads(intruder.recv(30))["type"] == "welcome"
        runner = Games(cluster.balancer.ws, [(table, seats, tokens)])
        runner.start()
        wait_or_explain(cluster, lambda: under_way(cluster, runner, [table], 3), 60, "the game under way", table)
        stale.signal(signal.SIGSTOP)
        try:
            taken = wait_or_explain(
                cluster,
                lambda: cluster.owners().get(table, (owner, epoch))[0] != owner,
                10 * LEASE_TTL + 30,
                "taken over",
                table,
            )
            assert taken
            moved_at = len(cluster.events(table))
            wait_or_explain(
                cluster,
                lambda: len(cluster.events(table)) >= moved_at + 3,
                60,
                "the game goes on at the new owner",
                table,
            )
        finally:
            stale.signal(signal.SIGCONT)
        # Back from its pause, the old owner still holds its copy of the table until it learns otherwise;
        # an action sent to it now must not be applied.
        acked = []
        try:
            intruder.send(json.dumps({"type": "act", "action": {"pass": True}, "id": "stale"}))
            while True:
                message = json.loads(intruder.recv(30))
                if message["type"] == "ack":
                    acked.append(message)
                if message["type"] == "error" and message.get("id") == "stale":
                    break
        except (ConnectionClosed, TimeoutError):
            pass
        assert acked == []
    check_all(cluster, runner, {table: {1, 2}})
    stale.wait_ready(NODE_READY_S)  # it carries on as a node, without the table
    assert table not in {g for g, (n, _) in cluster.owners().items() if n == owner}


def test_a_clean_stop_hands_every_table_over_before_the_node_exits(cluster: Any) -> None:
    runner, bot_seats = start_games(cluster, humans=3, bots=2)
    tables = list(bot_seats)
    wait_for(lambda: under_way(cluster, runner, tables), 60, "every game under way")
    victim, on_victim = busiest(cluster, tables)
    cluster.by_name[victim].stop()
    # At once, as a reconnecting player would: HAProxy still counts the stopped node up for a second or
    # two, so its connection is refused; "option redispatch 1" sends it to another node at the first retry
    # (the last retry only, with a plain "option redispatch": that meant ~2 s and a 502).
    answers = [httpx.get(f"{cluster.balancer.base}/api/tables/{t}", timeout=30) for t in on_victim]
    assert [a.status_code for a in answers] == [200] * len(on_victim), [a.text[:200] for a in answers]
    held = cluster.sql(
        "SELECT game_id FROM forsale_leases WHERE node = :n AND expires_at > extract(epoch from clock_timestamp())",
        n=victim,
    )
    assert held == []  # released, not left to expire
    check_all(cluster, runner, bot_seats)
    assert on_victim
    cluster.restart(victim, wait=False)  # it rejoins while the next test runs: its tables move back


def test_the_nodes_log_their_start_takeovers_and_stop_at_info(cluster: Any) -> None:
    """The lines docs/deploy.md shows an operator (forsale serve's own loggers reach its output)."""
    logs = {node.name: node.log.read_text() for node in cluster.nodes}
    for name, log in logs.items():
        assert f"cluster node {name} ({name}/" in log and " started: " in log, log[-2000:]
    assert any(re.search(r"took table \S+ \(epoch \d+\)", log) for log in logs.values())  # after the kill -9
    assert any(re.search(r"stopped: \d+ tables released", log) for log in logs.values())  # the clean stop
    assert not any("connection open" in log or "[accepted]" in log for log in logs.values())  # no line per socket


def test_each_node_reports_its_leases_on_metrics_and_the_balancer_keeps_them_in(cluster: Any) -> None:
    assert httpx.get(f"{cluster.balancer.base}/metrics", timeout=10).status_code == 403  # not for players
    table = new_game(cluster.balancer.base, 3, name="metrics", join=False)[0]
    owner = wait_for(lambda: cluster.owners().get(table), 30, "the new table has an owner")[0]
    taken = 0.0
    for node in cluster.nodes:
        node.wait_ready(NODE_READY_S)  # the node stopped by an earlier test is back
        text = httpx.get(f"{node.base}/metrics", timeout=10).text
        samples = {
            s.name: s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
            if s.labels.get("node") in (None, node.name)
        }
        assert samples["forsale_node_healthy"] == 1 and samples["forsale_db_unavailable"] == 0
        if node.name == owner:
            assert samples["forsale_leases_held"] >= 1
        taken += samples["forsale_leases_taken_total"]
    assert taken >= 1  # the tables of the killed and the stopped node were taken by the others
