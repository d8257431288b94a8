"""PettingZoo environments: one agent per seat, AEC (``env``) and parallel (``parallel_env``).

Observations are ``{"observation": float32 vector, "action_mask": int8 vector}``
from :class:`~forsale.envs.encoding.Encoding`, built from the agent's own
view. Rewards come only at the end (see :func:`~forsale.envs.encoding.outcome`).

The sale phase is simultaneous in the rules. In the AEC environment the
seats choose one after another, but an agent's observation comes from its
view, which shows only *that* earlier seats have chosen, never what, until
everyone has chosen and the round is revealed. In the parallel environment
every seat chooses in the same ``step``. In an auction only the bidder acts;
the other agents' actions in a parallel ``step`` are ignored (their masks are
all zero).

An illegal action raises :class:`~forsale.errors.IllegalActionError` with the
engine's explanation (use the action mask), or with ``illegal="substitute"``
is replaced by the seat's first legal action (pass in an auction, its lowest
house in a sale) and flagged in ``infos[agent]["illegal_action"]``.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from ..errors import IllegalActionError
from ..rules import Ruleset
from ..state import State, new_game
from ..view import spectator_view, view
from .encoding import REWARDS, Encoding, outcome, ruleset

NAME = "forsale_v0"


class _Common:
    """What the AEC and parallel environments share: spaces, the deal, observations, actions."""

    def _setup(
        self, players: int, rules: str | dict | Ruleset | None, reward: str, render_mode: str | None, illegal: str
    ) -> None:
        if illegal not in ("raise", "substitute"):
            raise ValueError(f"illegal must be 'raise' or 'substitute', not {illegal!r}")
        self.illegal = illegal
        self.rules = ruleset(players, rules)
        self.encoding = Encoding(self.rules)
        self.reward_mode = reward
        if reward not in REWARDS:
            raise ValueError(f"reward must be 'win' or 'score', not {reward!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{i}" for i in range(self.rules.players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        enc = self.encoding
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, shape=(enc.obs_size,), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(enc.num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(enc.num_actions) for a in self.possible_agents}
        self._rng = random.Random()
        self.game: State | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _deal(self, seed: int | None) -> State:
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = new_game(self.rules, rng=self._rng)
        return self.game

    def _observe_seat(self, seat: int) -> dict[str, np.ndarray]:
        assert self.game is not None
        v = view(self.game, seat)
        return {"observation": self.encoding.observe(v), "action_mask": self.encoding.mask(v)}

    def _legal_move(self, seat: int, action: Any) -> tuple[Any, bool]:
        """The engine action for ``action``, or the substitute if it is illegal: ``(move, was_illegal)``."""
        assert self.game is not None
        try:
            move = self.encoding.action(action)
            reason = self.game.why_illegal(seat, move)
        except (TypeError, ValueError) as error:
            reason = str(error)
        if reason is None:
            return move, False
        if self.illegal == "raise":
            raise IllegalActionError(f"{reason} (action id {action!r}; use the action mask)")
        return self.game.legal_actions(seat)[0], True

    def _final_rewards(self) -> list[float]:
        assert self.game is not None
        return outcome(spectator_view(self.game), self.reward_mode)

    def render(self) -> str | None:
        """``render_mode="ansi"``: the public table as one line of text."""
        if self.render_mode != "ansi" or self.game is None:
            return None
        return self.encoding.observation_string(spectator_view(self.game))

    def close(self) -> None:
        """Nothing to release; present because PettingZoo asks for it alongside ``render``."""


class ForSaleAEC(_Common, AECEnv):
    """The agent-environment-cycle version: one seat acts per ``step``."""

    metadata = {"name": NAME, "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(
        self,
        players: int = 4,
        rules: str | dict | Ruleset | None = None,
        reward: str = "win",
        render_mode: str | None = None,
        illegal: str = "raise",
    ) -> None:
        AECEnv.__init__(self)
        self._setup(players, rules, reward, render_mode, illegal)
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._deal(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.agent_selection = self._next_agent()

    def _next_agent(self) -> str:
        assert self.game is not None
        to_act = self.game.seats_to_act()
        return self.possible_agents[to_act[0]] if to_act else self.possible_agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._observe_seat(self._seat[agent])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        seat = self._seat[agent]
        move, was_illegal = self._legal_move(seat, action)
        assert self.game is not None
        self.game.push(seat, move)
        self.infos = {a: {} for a in self.agents}
        if was_illegal:
            self.infos[agent]["illegal_action"] = True
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.game.is_over:
            for a, r in zip(self.possible_agents, self._final_rewards()):
                self.rewards[a] = r
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self._next_agent()
        self._accumulate_rewards()


class ForSaleParallel(_Common, ParallelEnv):
    """The parallel version: every seat to act chooses in the same ``step`` (all of them in a sale round)."""

    metadata = {"name": NAME, "render_modes": ["ansi"]}

    def __init__(
        self,
        players: int = 4,
        rules: str | dict | Ruleset | None = None,
        reward: str = "win",
        render_mode: str | None = None,
        illegal: str = "raise",
    ) -> None:
        self._setup(players, rules, reward, render_mode, illegal)
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self._deal(seed)
        self.agents = self.possible_agents[:]
        return self._observations(), {a: {} for a in self.agents}

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: self._observe_seat(self._seat[a]) for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        game = self.game
        assert game is not None
        acting = game.seats_to_act()
        missing = [self.possible_agents[s] for s in acting if self.possible_agents[s] not in actions]
        if missing:
            raise IllegalActionError(f"{', '.join(missing)} must act in this step")
        # Check every choice before applying any, so an illegal one leaves the round untouched.
        checked = {s: self._legal_move(s, actions[self.possible_agents[s]]) for s in acting}
        for s, (move, _) in checked.items():
            game.push(s, move)
        agents = self.agents
        rewards = dict.fromkeys(agents, 0.0)
        over = game.is_over
        if over:
            rewards = dict(zip(self.possible_agents, self._final_rewards()))
        observations = self._observations()
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, False)
        infos: dict[str, dict] = {a: {} for a in agents}
        for s, (_, was_illegal) in checked.items():
            if was_illegal:
                infos[self.possible_agents[s]]["illegal_action"] = True
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos


def env(**kwargs: Any) -> ForSaleAEC:
    """The AEC environment (PettingZoo's usual entry point)."""
    return ForSaleAEC(**kwargs)


def raw_env(**kwargs: Any) -> ForSaleAEC:
    """The same as :func:`env` (there are no wrappers to leave out)."""
    return ForSaleAEC(**kwargs)


def parallel_env(**kwargs: Any) -> ForSaleParallel:
    """The parallel environment."""
    return ForSaleParallel(**kwargs)
