"""A Gymnasium single-agent environment: one learning seat against bots from the registry.

The learner observes ``{"observation", "action_mask"}`` exactly as in the
PettingZoo environments (:class:`~forsale.envs.encoding.Encoding`, built
from its own view). The bots, built with :func:`forsale.bots.make_agent`,
play their seats from their own views between the learner's turns. The
reward comes at the end (``reward="win"``: 1 for a win, shared on a full tie;
``"score"``: the final score in thousands).

Gymnasium has no action masks of its own: ``action_masks()`` returns the
mask (the name MaskablePPO looks for), and ``illegal`` says what happens to
an action outside it: ``"substitute"`` (default) plays the first legal action
instead (pass in an auction, the lowest house in a sale) and sets
``info["illegal_action"]``; ``"raise"`` raises
:class:`~forsale.errors.IllegalActionError`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..bots import make_agent
from ..bots.protocol import Agent
from ..errors import IllegalActionError
from ..rules import Ruleset
from ..state import State, new_game
from ..view import spectator_view, view
from .encoding import REWARDS, Encoding, outcome, ruleset


class ForSaleEnv(gym.Env):
    """One seat of a For Sale table; the others are bots."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        players: int = 4,
        rules: str | dict | Ruleset | None = None,
        opponents: str | Sequence[str] = "random",
        seat: int | str = 0,
        reward: str = "win",
        illegal: str = "substitute",
        render_mode: str | None = None,
    ) -> None:
        self.rules = ruleset(players, rules)
        n = self.rules.players
        self.encoding = Encoding(self.rules)
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"a {n}-player table needs {n - 1} opponents, not {len(specs)}")
        self.opponent_specs = specs
        for spec in specs:
            make_agent(spec)  # fail now, with the registry's message, on an unknown bot
        if seat != "random" and not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or 'random', not {seat!r}")
        self.seat_option = seat
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.reward_mode = reward
        if illegal not in ("substitute", "raise"):
            raise ValueError(f"illegal must be 'substitute' or 'raise', not {illegal!r}")
        self.illegal = illegal
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        enc = self.encoding
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, shape=(enc.obs_size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(enc.num_actions,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(enc.num_actions)
        self.game: State | None = None
        self.seat = 0
        self._bots: dict[int, Agent] = {}
        self._bot_rngs: dict[int, random.Random] = {}

    # -- the loop ------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        master = random.Random(int(self.np_random.integers(2**63)))
        n = self.rules.players
        self.seat = master.randrange(n) if self.seat_option == "random" else int(self.seat_option)
        self.game = new_game(self.rules, rng=master)
        others = [s for s in range(n) if s != self.seat]
        self._bots = {s: make_agent(spec) for s, spec in zip(others, self.opponent_specs)}
        self._bot_rngs = {s: random.Random(master.getrandbits(64)) for s in others}
        self._play_bots()
        return self._observation(), {"seat": self.seat}

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        game = self.game
        if game is None or game.is_over:
            raise RuntimeError("call reset() before step(), and again after the game is over")
        info: dict[str, Any] = {"seat": self.seat}
        try:
            move = self.encoding.action(action)
            reason = game.why_illegal(self.seat, move)
        except ValueError as error:
            reason = str(error)
        if reason is not None:
            if self.illegal == "raise":
                raise IllegalActionError(f"{reason} (action id {action!r}; use action_masks())")
            move = game.legal_actions(self.seat)[0]
            info["illegal_action"] = True
        game.push(self.seat, move)
        self._play_bots()
        reward = 0.0
        if game.is_over:
            reward = outcome(spectator_view(game), self.reward_mode)[self.seat]
            info["scores"] = game.scores()
        return self._observation(), reward, game.is_over, False, info

    def _play_bots(self) -> None:
        """Let the bots act until the learner must choose or the game ends."""
        game = self.game
        assert game is not None
        while not game.is_over:
            to_act = game.seats_to_act()
            if self.seat in to_act:
                return
            for s in to_act:
                game.push(s, self._bots[s].act(view(game, s), self._bot_rngs[s], None))

    # -- what the learner sees ---------------------------------------------------
    def _observation(self) -> dict[str, np.ndarray]:
        assert self.game is not None
        v = view(self.game, self.seat)
        return {"observation": self.encoding.observe(v), "action_mask": self.encoding.mask(v)}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, as a boolean vector (for maskable policies)."""
        assert self.game is not None
        return self.encoding.mask(view(self.game, self.seat)).astype(bool)

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game is None:
            return None
        return self.encoding.observation_string(spectator_view(self.game))
