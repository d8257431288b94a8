"""The ``ppo`` bot: a policy trained by reinforcement learning, played with numpy alone.

``examples/ppo_forsale.py`` trains it (PPO with action masking, PyTorch) in
the batched environment against three ``value`` bots at 4 players, official
rules, and exports the actor network as an ``.npz``: layers ``w0, b0, w1,
b1, ...`` applied as ``x @ w + b`` with tanh between them. This module reads
that file and nothing else, so playing needs numpy (the ``rl`` extra) but
not torch. The bot sees only its seat's :class:`~forsale.view.View`, turned
into the environments' observation by :class:`forsale.envs.encoding.Encoding`,
and plays the legal action with the highest logit (illegal ones are masked
out), so it is deterministic. ``docs/ppo.md`` has its figures.

The network's input and output sizes fix the table it was trained for (374
inputs and 49 actions at 4 players with 18 coins): a game whose encoding has
other sizes is refused with a ``ValueError`` that says so, rather than played
by a network that cannot read it. ``ppo:weights=PATH`` loads another export.
"""

from __future__ import annotations

import random
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..actions import Action
from ..rules import Ruleset
from ..view import View
from .registry import BotUnavailable, register

SHIPPED = "ppo-4p.npz"


class Network:
    """An exported actor: its layers, and the encoding sizes it was trained on."""

    def __init__(self, arrays: dict[str, Any], source: str) -> None:
        import numpy as np

        layers: list[tuple[Any, Any]] = []
        while f"w{len(layers)}" in arrays:
            i = len(layers)
            layers.append((np.asarray(arrays[f"w{i}"], np.float32), np.asarray(arrays[f"b{i}"], np.float32)))
        if not layers or str(arrays.get("activation", "")) != "tanh":
            raise ValueError(f"{source} is not a ppo policy export (layers w0, b0, ... with tanh)")
        self.layers = layers
        self.players = int(arrays["players"])
        self.obs_size = layers[0][0].shape[0]
        self.num_actions = layers[-1][0].shape[1]
        self.source = source

    def fits(self, rules: Ruleset) -> bool:
        """Whether a game under ``rules`` has the observation and action sizes this network reads."""
        from ..envs.encoding import Encoding

        enc = Encoding(rules)
        return (enc.obs_size, enc.num_actions) == (self.obs_size, self.num_actions)

    def logits(self, x: Any) -> Any:
        import numpy as np

        for w, b in self.layers[:-1]:
            x = np.tanh(x @ w + b)
        w, b = self.layers[-1]
        return x @ w + b


@lru_cache(maxsize=8)
def load(path: str | None = None) -> Network:
    """The network in ``path`` (default: the shipped 4-player policy), read once per process."""
    try:
        import numpy as np
    except ImportError:
        raise BotUnavailable("the ppo bot needs numpy: pip install 'forsale[rl]'") from None
    if path is None:
        with resources.files("forsale.bots").joinpath("data", SHIPPED).open("rb") as f, np.load(f) as data:
            return Network(dict(data), f"the shipped {SHIPPED}")
    with np.load(Path(path)) as data:
        return Network(dict(data), path)


class PPOAgent:
    """Encode the view, run the network, play the best legal action."""

    name = "ppo"

    def __init__(self, network: Network) -> None:
        self.network = network
        self._encodings: dict[Any, Any] = {}

    def _encoding(self, view: View) -> Any:
        from ..envs.encoding import Encoding

        enc = self._encodings.get(view.rules)
        if enc is None:
            net = self.network
            if not net.fits(view.rules):
                raise ValueError(
                    f"the ppo bot ({net.source}) was trained for {net.players} players with "
                    f"{net.num_actions - 1 - 30} starting coins; it cannot play this {view.players}-player game "
                    f"with {view.rules.starting_coins} coins"
                )
            enc = self._encodings[view.rules] = Encoding(view.rules)
        return enc

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        import numpy as np

        enc = self._encoding(view)
        legal = enc.legal_ids(view)
        if len(legal) == 1:
            return enc.action(legal[0])
        logits = self.network.logits(enc.observe(view))
        return enc.action(legal[int(np.argmax(logits[legal]))])


def _plays(rules: Ruleset) -> bool:
    try:
        return load().fits(rules)
    except (ValueError, ImportError):  # no numpy: it plays nowhere
        return False


@register("ppo", "reinforcement-learned policy (PPO against three value bots), 4 players, 18 coins", plays=_plays)
def _ppo(weights: str | None = None) -> PPOAgent:
    return PPOAgent(load(None if weights is None else str(weights)))
