"""For Sale as standard environments for game-AI research (the ``rl`` extra).

- :mod:`forsale.envs.encoding`: the one observation encoding and fixed action
  space, built only from a seat's :class:`~forsale.view.View`;
- :mod:`forsale.envs.pettingzoo_env`: PettingZoo AEC (``env``) and parallel
  (``parallel_env``) environments, one agent per seat;
- :mod:`forsale.envs.gym_env`: a Gymnasium single-agent environment against bots;
- :mod:`forsale.envs.vector`: batched environments on the lockstep simulator (a
  Gymnasium ``VectorEnv`` against vectorised policies, and self-play);
- :mod:`forsale.envs.openspiel_game`: the OpenSpiel game ``python_for_sale``
  (importing the module registers it with ``pyspiel``).

Submodules are imported on demand so that using one framework does not
require the others.
"""

from .encoding import Encoding

__all__ = ["Encoding", "register_gymnasium"]


def register_gymnasium() -> None:
    """Register ``forsale/ForSale-v0`` with Gymnasium (``gymnasium.make("forsale/ForSale-v0", players=4)``).

    ``gymnasium.make_vec("forsale/ForSale-v0", num_envs=B, vectorization_mode="vector_entry_point")``
    builds the batched :class:`~forsale.envs.vector.ForSaleVectorEnv` instead of ``B`` copies.
    """
    import gymnasium

    if "forsale/ForSale-v0" not in gymnasium.registry:
        gymnasium.register(
            id="forsale/ForSale-v0",
            entry_point="forsale.envs.gym_env:ForSaleEnv",
            vector_entry_point="forsale.envs.vector:ForSaleVectorEnv",
        )
