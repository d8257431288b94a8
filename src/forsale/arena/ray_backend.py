"""Run a tournament's games as Ray tasks (an existing cluster, or a local instance).

Ray is optional (the ``ray`` extra); importing this module without it fails
with a message that says what to install.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from .tournament import GameResult, _play_packed


def run_on_ray(tasks: list[tuple[Any, ...]], jobs: int) -> Iterator[GameResult]:
    """Yield each game's result as its Ray task finishes.

    Joins the cluster named by ``RAY_ADDRESS`` if set, else starts a local
    instance with ``jobs`` CPUs; an instance already initialised by the
    caller is used as it is. Workers get this checkout's package on their
    path, so the tournament runs without installing forsale.
    """
    try:
        import ray
    except ImportError:  # pragma: no cover - depends on the environment
        raise RuntimeError("the ray backend needs Ray: pip install 'forsale[ray]'") from None
    if not ray.is_initialized():
        options: dict[str, Any] = {"log_to_driver": False}
        if not os.environ.get("RAY_ADDRESS"):
            options.update(num_cpus=jobs, include_dashboard=False)
        ray.init(**options)
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    play = ray.remote(_play_packed).options(runtime_env={"env_vars": env})
    pending = [play.remote(task) for task in tasks]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            yield ray.get(ref)
