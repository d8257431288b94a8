"""``forsale connect``'s own logic, without a server: loading ``--agent MODULE:NAME`` (a plain callable or an agent
with the bots' ``act(view, rng, budget)``), the player counts it parses, and its refusals in one line. Playing on a
real server is ``tests/server/test_server_botapi.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from forsale.commands.connect import as_policy, load_agent, player_counts
from forsale.state import new_game
from forsale.view import view


def test_an_agent_module_beside_the_user_is_loaded_and_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_policy.py").write_text(
        "def act(view):\n    return view.legal_actions()[-1]\n\n"
        "class Agent:\n    def act(self, view, rng, budget=None):\n        return rng.choice(view.legal_actions())\n\n"
        "agent = Agent()\nnot_callable = 3\n"
    )
    monkeypatch.chdir(tmp_path)
    seen = view(new_game(3, seed=4), new_game(3, seed=4).seats_to_act()[0])
    assert load_agent("my_policy:act")(seen) == seen.legal_actions()[-1]
    assert load_agent("my_policy:agent")(seen) in seen.legal_actions()
    with pytest.raises(SystemExit, match="not callable"):
        load_agent("my_policy:not_callable")
    with pytest.raises(SystemExit, match="cannot load --agent my_policy:nothing"):
        load_agent("my_policy:nothing")
    with pytest.raises(SystemExit, match="MODULE:NAME"):
        load_agent("my_policy")
    assert as_policy(len) is len


def test_player_counts_are_two_to_six() -> None:
    assert player_counts("2,3,6") == frozenset({2, 3, 6})
    for bad in ("1", "7", "", "2,x"):
        with pytest.raises(ValueError):
            player_counts(bad)
