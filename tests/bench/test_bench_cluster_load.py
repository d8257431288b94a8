"""The cluster benchmark's CPU target compares the run with the most nodes to the one-node run (no cluster is started)."""

from __future__ import annotations

from cluster_load import cpu_ratio


def run(nodes: int, ms: float) -> dict[str, float]:
    return {"nodes": nodes, "server_cpu_ms_per_action": ms}


def test_the_cpu_ratio_is_the_cluster_s_over_one_node_s_either_way() -> None:
    assert cpu_ratio([run(1, 2.0), run(3, 2.5)]) == 1.25
    assert cpu_ratio([run(1, 1.593), run(3, 1.378)]) == 0.87  # a cluster node cheaper per action reads below 1
    assert cpu_ratio([run(1, 2.0), run(2, 9.0), run(3, 2.2)]) == 1.1  # the most nodes, not the costliest run


def test_without_both_runs_there_is_no_ratio() -> None:
    assert cpu_ratio([run(3, 2.0)]) is None
    assert cpu_ratio([run(1, 2.0)]) is None
