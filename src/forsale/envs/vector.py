"""Batched environments on the lockstep core: thousands of games stepped at once (``docs/vector-env.md``).

- :class:`ForSaleVectorEnv`, a :class:`gymnasium.vector.VectorEnv`: one
  learning seat per game against vectorised opponent policies from
  :mod:`forsale.sim.policies` (``random``, ``value``, or any
  :class:`~forsale.sim.policies.BatchPolicy`). It is the batched
  counterpart of :class:`forsale.envs.gym_env.ForSaleEnv`: same spaces,
  observations (``{"observation", "action_mask"}``, the shared
  :class:`~forsale.envs.encoding.Encoding`), rewards, ``illegal`` handling and
  ``action_masks()``.
- :class:`ForSaleSelfPlay`: every seat a learner, the batched counterpart of
  the PettingZoo parallel environment (observations ``(B, n, ...)``, actions
  ``(B, n)``; in an auction only the bidder acts, in a sale round every seat
  chooses in the same step).

Both autoreset in Gymnasium's ``SAME_STEP`` mode by default (a finished
game's last observation goes to ``infos["final_obs"]`` and the returned one
is the new game's first), or ``NEXT_STEP``. Both are reproducible: the same
seed and the same actions give the same games. With ``record=True`` every
finished game comes back as a ``forsale-record/1`` record in
``infos["final_info"]["record"]`` (``record(i)`` exports game ``i`` so far).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..errors import IllegalActionError
from ..rules import Ruleset
from ..sim.policies import BatchPolicy, make_policy
from ..sim.step import AUCTION, OVER, SALE, Deals, Games, policy_auction, policy_sale
from .encoding import REWARDS, Encoding, ruleset
from .vector_encoding import VectorEncoding

OpponentSpec = str | BatchPolicy


class _Batch:
    """What both batched environments share: the games, the deals, seeding, masks, illegal actions, records."""

    def _setup(
        self,
        num_envs: int,
        players: int,
        rules: str | dict | Ruleset | None,
        reward: str,
        illegal: str,
        autoreset_mode: str | AutoresetMode,
        record: bool,
    ) -> None:
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a positive whole number, not {num_envs!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if illegal not in ("substitute", "raise"):
            raise ValueError(f"illegal must be 'substitute' or 'raise', not {illegal!r}")
        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP):
            raise ValueError(f"autoreset_mode must be SAME_STEP or NEXT_STEP, not {mode}")
        self.autoreset_mode = mode
        self.metadata = {"autoreset_mode": mode}
        self.num_envs = num_envs
        self.rules = ruleset(players, rules)
        self.n = self.rules.players
        self.encoding = Encoding(self.rules)
        self.vector_encoding = VectorEncoding(self.encoding)
        self.reward_mode = reward
        self.illegal = illegal
        self.games = Games(self.rules, num_envs, record=record)
        self._all = np.arange(num_envs)
        self._needs_reset = np.zeros(num_envs, dtype=bool)
        self._deals: Deals | None = None
        self._rng: np.random.Generator | None = None

    def _seed(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._deals = Deals(self.n, rng)

    def _checked(self, actions: np.ndarray, mask: np.ndarray, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(actions, illegal)``: the actions of the acting rows, illegal ones substituted (or raised)."""
        ids = np.asarray(actions)
        if ids.shape != acting.shape or not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(f"actions must be whole action ids of shape {acting.shape}, not {ids.dtype} {ids.shape}")
        ids = ids.astype(np.int64)
        inside = (ids >= 0) & (ids < self.encoding.num_actions)
        legal = np.take_along_axis(mask, np.where(inside, ids, 0)[..., None], axis=-1)[..., 0].astype(bool) & inside
        illegal = acting & ~legal
        if illegal.any():
            where = tuple(int(i) for i in np.argwhere(illegal)[0])
            if self.illegal == "raise":
                raise IllegalActionError(
                    f"action id {int(ids[where])} is not legal for {self._who(where)} "
                    "(use action_masks(): in an auction pass or bid above the high bid up to your coins, "
                    "in a sale sell a house you hold)"
                )
            ids = np.where(illegal, mask.argmax(axis=-1), ids)  # the first legal action: pass, or the lowest house
        return ids, illegal

    def _who(self, where: tuple[int, ...]) -> str:
        raise NotImplementedError

    def _finished(self, done: np.ndarray) -> dict[str, Any]:
        """The per-game info of the games that just ended (``done`` are their rows)."""
        games = self.games
        info: dict[str, Any] = {"scores": games.scores(done)}
        if games.recording:
            info["record"] = [games.record(int(i)) for i in done]
        return info

    def _final_obs(self, done: np.ndarray, ended: dict[str, Any]) -> dict[str, Any]:
        """``SAME_STEP``'s infos for the games that just ended: their last observations and infos, as Gymnasium lays them out."""
        final = self._observation(done)
        final_obs = np.full(self.num_envs, None, dtype=object)
        for j, i in enumerate(done.tolist()):
            final_obs[i] = {"observation": final["observation"][j], "action_mask": final["action_mask"][j]}
        present = ended["_scores"]
        return {"final_obs": final_obs, "_final_obs": present, "final_info": ended, "_final_info": present.copy()}

    def _observation(self, idx: np.ndarray | None = None) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def record(self, game: int, players: list[str] | None = None) -> dict[str, Any]:
        """Game ``game`` so far as a ``forsale-record/1`` record (the environment needs ``record=True``)."""
        return self.games.record(game, players)


def _vector_info(num_envs: int, rows: np.ndarray, info: dict[str, Any]) -> dict[str, Any]:
    """A per-game ``info`` (arrays or lists over ``rows``) in Gymnasium's vector form: full arrays plus ``_key`` masks."""
    present = np.zeros(num_envs, dtype=bool)
    present[rows] = True
    out: dict[str, Any] = {}
    for key, value in info.items():
        if isinstance(value, np.ndarray):
            full = np.zeros((num_envs, *value.shape[1:]), dtype=value.dtype)
            full[rows] = value
        else:
            full = np.full(num_envs, None, dtype=object)
            for row, item in zip(rows.tolist(), value):
                full[row] = item
        out[key], out[f"_{key}"] = full, present
    return out


class ForSaleVectorEnv(_Batch, VectorEnv):
    """``num_envs`` games, one learning seat in each, against vectorised opponent policies.

    ``opponents``: a policy name (``"random"``, ``"value"``), a
    :class:`~forsale.sim.policies.BatchPolicy`, or a sequence of ``n - 1`` of
    them for the other seats in seat order (as in ``ForSaleEnv``).
    ``seat``: the learner's seat, or ``"random"`` (drawn for every game).
    The other arguments are ``ForSaleEnv``'s, plus ``autoreset_mode``
    (``SAME_STEP`` by default, or ``NEXT_STEP``) and ``record``.
    """

    def __init__(
        self,
        num_envs: int = 256,
        players: int = 4,
        rules: str | dict | Ruleset | None = None,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
        seat: int | str = 0,
        reward: str = "win",
        illegal: str = "substitute",
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        record: bool = False,
    ) -> None:
        self._setup(num_envs, players, rules, reward, illegal, autoreset_mode, record)
        n = self.n
        specs = [opponents] * (n - 1) if isinstance(opponents, str | BatchPolicy) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"a {n}-player table needs {n - 1} opponents, not {len(specs)}")
        built: dict[Any, BatchPolicy] = {}
        for spec in specs:
            if isinstance(spec, str):
                built.setdefault(spec, make_policy(spec))  # one instance per name: each decides once for all its seats
            elif isinstance(spec, BatchPolicy):
                built.setdefault(id(spec), spec)
            else:
                raise ValueError(f"an opponent is a policy name or a BatchPolicy, not {spec!r}")
        self.opponents = [built[s if isinstance(s, str) else id(s)] for s in specs]
        self._policies = list(dict.fromkeys(self.opponents))
        self._which = np.array([self._policies.index(p) for p in self.opponents])  # per opponent, in seat order
        if seat != "random" and not (type(seat) is int and 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or 'random', not {seat!r}")
        self.seat_option = seat
        self.seat = np.full(num_envs, 0 if seat == "random" else seat, dtype=np.int64)
        self._assign = np.zeros((num_envs, n), dtype=np.int64)  # the policy of every seat (the learner's unused)
        enc = self.encoding
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, shape=(enc.obs_size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(enc.num_actions,), dtype=np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(enc.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._mask = np.zeros((num_envs, enc.num_actions), dtype=np.int8)

    # -- the loop ------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        if seed is not None or self._rng is None:
            self._seed(self.np_random)
        self._needs_reset[:] = False
        self._new_games(self._all)
        return self._observation(), {"seat": self.seat.copy(), "_seat": np.ones(self.num_envs, dtype=bool)}

    def step(self, actions: Any) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        if self._rng is None:
            raise RuntimeError("call reset() before step()")
        games, B = self.games, self.num_envs
        fresh = self._needs_reset.copy()  # NEXT_STEP: games that ended last step start again now, ignoring the action
        acting = ~fresh
        ids, illegal = self._checked(actions, self._mask, acting)
        phase = games.phase.copy()
        bidding = np.flatnonzero(acting & (phase == AUCTION))
        selling = np.flatnonzero(acting & (phase == SALE))
        if bidding.size:
            games.auction(bidding, ids[bidding])
        if selling.size:
            houses = self._opponent_sales(selling)
            houses[np.arange(selling.size), self.seat[selling]] = ids[selling] - self.encoding.max_bid
            games.sale(selling, houses)
        if bidding.size:
            self._play_opponents(bidding)
        done = np.flatnonzero(acting & (games.phase == OVER))
        rewards = np.zeros(B, dtype=np.float64)
        terminated = np.zeros(B, dtype=bool)
        infos: dict[str, Any] = {"seat": self.seat.copy(), "_seat": np.ones(B, dtype=bool)}
        if illegal.any():
            infos["illegal_action"], infos["_illegal_action"] = illegal, illegal.copy()
        if done.size:
            rewards[done] = games.rewards(done, self.reward_mode)[np.arange(done.size), self.seat[done]]
            terminated[done] = True
            finished = self._finished(done)
        if fresh.any():
            self._new_games(np.flatnonzero(fresh))
            self._needs_reset[:] = False
        if done.size and self.autoreset_mode is AutoresetMode.SAME_STEP:
            ended = _vector_info(B, done, {"seat": self.seat[done], **finished})
            infos.update(self._final_obs(done, ended))
            self._new_games(done)
            infos["seat"] = self.seat.copy()
        elif done.size:
            infos.update(_vector_info(B, done, finished))  # the seat is in the step's own info already
            self._needs_reset[done] = True
        return self._observation(), rewards, terminated, np.zeros(B, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, num_actions)`` bool: each learner's legal actions now (the name MaskablePPO looks for)."""
        return self._mask.astype(bool)

    def _who(self, where: tuple[int, ...]) -> str:
        return f"seat {int(self.seat[where[0]])} in game {where[0]}"

    # -- dealing and the opponents ---------------------------------------------
    def _new_games(self, idx: np.ndarray) -> None:
        assert self._deals is not None and self._rng is not None
        houses, cheques, first = self._deals.take(idx.size)
        self.games.deal(idx, houses, cheques, first)
        n = self.n
        if self.seat_option == "random":
            self.seat[idx] = self._rng.integers(0, n, idx.size)
        # Opponent k sits at the k-th seat other than the learner's, counting from seat 0, as in ForSaleEnv.
        seats = np.arange(n)[None, :]
        opponent = seats - (seats > self.seat[idx, None])  # the learner's own entry is never read
        self._assign[idx] = self._which[np.minimum(opponent, n - 2)]
        games = self.games
        for policy in self._policies:
            policy.prepare(games.tables, games.cheque_tables, self.rules)
        self._play_opponents(idx)

    def _play_opponents(self, idx: np.ndarray) -> None:
        """Let the opponents bid and pass in games ``idx`` until their learner must act (or the auction ends)."""
        games, seat = self.games, self.seat
        idx = idx[(games.phase[idx] == AUCTION) & (games.turn[idx] != seat[idx])]
        rng = self._rng
        assert rng is not None
        while idx.size:
            if len(self._policies) == 1:
                amount = policy_auction(self._policies[0], games, idx, rng)
            else:
                amount = np.zeros(idx.size, dtype=np.int64)
                who = self._assign[idx, games.turn[idx]]
                for k, policy in enumerate(self._policies):
                    mine = np.flatnonzero(who == k)
                    if mine.size:
                        amount[mine] = policy_auction(policy, games, idx[mine], rng)
            games.auction(idx, amount)
            idx = idx[(games.phase[idx] == AUCTION) & (games.turn[idx] != seat[idx])]

    def _opponent_sales(self, idx: np.ndarray) -> np.ndarray:
        rng = self._rng
        assert rng is not None
        if len(self._policies) == 1:
            return policy_sale(self._policies[0], self.games, idx, rng)
        houses = np.zeros((idx.size, self.n), dtype=np.int64)
        assign = self._assign[idx]
        for k, policy in enumerate(self._policies):
            houses = np.where(assign == k, policy_sale(policy, self.games, idx, rng), houses)
        return houses

    # -- what the learners see ---------------------------------------------------
    def _observation(self, idx: np.ndarray | None = None) -> dict[str, np.ndarray]:
        seat = self.seat if idx is None else self.seat[idx]
        obs = self.vector_encoding.observe(self.games, idx, seat)
        mask = self.vector_encoding.masks(self.games, idx, seat)
        if idx is None:
            self._mask = mask
            mask = mask.copy()
        return {"observation": obs, "action_mask": mask}


class ForSaleSelfPlay(_Batch):
    """``num_envs`` games in which every seat is a learner (see ``docs/vector-env.md`` for the shapes).

    ``reset`` and ``step`` return observations ``{"observation": (B, n, D)
    float32, "action_mask": (B, n, A) int8}`` for every seat of every game,
    seats in absolute order (each seat's vector is relative to itself, as
    everywhere). ``infos["to_act"]`` ``(B, n)`` says which seats act: the
    bidder in an auction, every seat in a sale round (their mask rows are
    the only non-zero ones). ``step(actions)`` takes ``(B, n)`` action ids
    and ignores those of seats not to act; rewards are ``(B, n)``,
    terminations and truncations ``(B,)``.
    """

    def __init__(
        self,
        num_envs: int = 256,
        players: int = 4,
        rules: str | dict | Ruleset | None = None,
        reward: str = "win",
        illegal: str = "substitute",
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        record: bool = False,
    ) -> None:
        self._setup(num_envs, players, rules, reward, illegal, autoreset_mode, record)
        self._mask = np.zeros((num_envs, self.n, self.encoding.num_actions), dtype=np.int8)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        if seed is not None or self._rng is None:
            self._seed(np.random.default_rng(seed))
        self._needs_reset[:] = False
        self._new_games(self._all)
        obs = self._observation()
        return obs, {"to_act": self._mask.any(axis=2)}

    def step(self, actions: Any) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        if self._rng is None:
            raise RuntimeError("call reset() before step()")
        games, B, n = self.games, self.num_envs, self.n
        fresh = self._needs_reset.copy()
        to_act = self._mask.any(axis=2) & ~fresh[:, None]
        ids, illegal = self._checked(actions, self._mask, to_act)
        phase = games.phase.copy()
        bidding = np.flatnonzero(~fresh & (phase == AUCTION))
        selling = np.flatnonzero(~fresh & (phase == SALE))
        if bidding.size:
            games.auction(bidding, ids[bidding, games.turn[bidding]])
        if selling.size:
            games.sale(selling, ids[selling] - self.encoding.max_bid)
        done = np.flatnonzero(~fresh & (games.phase == OVER))
        rewards = np.zeros((B, n), dtype=np.float64)
        terminated = np.zeros(B, dtype=bool)
        infos: dict[str, Any] = {}
        if illegal.any():
            infos["illegal_action"] = illegal
        if done.size:
            rewards[done] = games.rewards(done, self.reward_mode)
            terminated[done] = True
            ended = _vector_info(B, done, self._finished(done))
        if fresh.any():
            self._new_games(np.flatnonzero(fresh))
            self._needs_reset[:] = False
        if done.size and self.autoreset_mode is AutoresetMode.SAME_STEP:
            infos.update(self._final_obs(done, ended))
            self._new_games(done)
        elif done.size:
            infos.update(ended)
            self._needs_reset[done] = True
        obs = self._observation()
        infos["to_act"] = self._mask.any(axis=2)
        return obs, rewards, terminated, np.zeros(B, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n, num_actions)`` bool: every seat's legal actions now."""
        return self._mask.astype(bool)

    def _who(self, where: tuple[int, ...]) -> str:
        return f"seat {where[1]} in game {where[0]}"

    def _new_games(self, idx: np.ndarray) -> None:
        assert self._deals is not None
        self.games.deal(idx, *self._deals.take(idx.size))

    def _observation(self, idx: np.ndarray | None = None) -> dict[str, np.ndarray]:
        games_rows = self._all if idx is None else idx
        rows = np.repeat(games_rows, self.n)
        seats = np.tile(np.arange(self.n), games_rows.size)
        m, n = games_rows.size, self.n
        obs = self.vector_encoding.observe(self.games, rows, seats).reshape(m, n, -1)
        mask = self.vector_encoding.masks(self.games, rows, seats).reshape(m, n, -1)
        if idx is None:
            self._mask = mask
            mask = mask.copy()
        return {"observation": obs, "action_mask": mask}
