"""For Sale as an OpenSpiel game: ``pyspiel.load_game("python_for_sale", {"players": 4, "rules": "official"})``.

Importing this module registers ``python_for_sale`` with ``pyspiel``.

The game tree:

- **chance nodes for the deal**: the houses in play are drawn one at a time
  (outcome ``h - 1`` for house ``h``), then the cheques (outcome ``i`` for the
  ``i``-th card of :data:`forsale.rules.CHEQUES`, so the two cheques of a value
  are two outcomes), then the opening seat. Cards never drawn are the ones
  removed at set-up. Nobody observes the deal: cards appear in observations
  only when the engine reveals them, a round at a time;
- **sequential nodes** for the auctions: the seat to bid acts;
- **one simultaneous node per sale round**: every seat chooses a house.

Actions are :class:`~forsale.envs.encoding.Encoding` ids (the same space as the
PettingZoo and Gymnasium environments). Observation and information-state
tensors and strings are the shared encoding, built from the seat's
:class:`~forsale.view.View` (a spectator's view for public-only observers).
Returns are ``"win"`` rewards: the winners share 1 (constant-sum).

Information-set MCTS needs a sequential game and a way to sample a world
consistent with what the searching player knows. ``pyspiel.convert_to_turn_based``
gives the sequential game (each sale round becomes one turn per seat), but
its C++ wrapper does not implement ``resample_from_infostate``, so
:func:`turn_based_resampler` does it for wrapped states (pass it to the Python
``ISMCTSBot.set_resampler``); :meth:`ForSaleState.resample_from_infostate` does
it for the simultaneous game itself. Both draw with
:func:`forsale.view.sample_state`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyspiel

from ..actions import SELLS
from ..rules import CHEQUES, HOUSES, MAX_PLAYERS, MIN_PLAYERS, Ruleset
from ..state import Deal, State
from ..view import View, sample_state, spectator_view, view
from .encoding import Encoding, outcome

SHORT_NAME = "python_for_sale"
_DEFAULT_PARAMS = {"players": 4, "rules": "default"}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python For Sale",
    dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS,
)


def _ruleset(params: dict[str, Any]) -> Ruleset:
    """``rules`` is ``default``, a preset name, or the knobs as JSON (``{"starting_coins": 21, "removed": 2, "refund": "up"}``)."""
    players = int(params.get("players", 4))
    rules = str(params.get("rules", "default")).strip()
    if rules in ("", "default"):
        return Ruleset.default(players)
    if rules.startswith("{"):
        return Ruleset.parse(json.loads(rules), players)
    return Ruleset.preset(rules, players)


class ForSaleGame(pyspiel.Game):
    """The game for one ruleset (parameters ``players`` and ``rules``, a preset name or ``default``)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULT_PARAMS, **(params or {})}
        self.rules = _ruleset(params)
        self.encoding = Encoding(self.rules)
        r = self.rules
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoding.num_actions,
            max_chance_outcomes=len(HOUSES),
            num_players=r.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            # Each auction round: at most one bid per coin (bids rise strictly) and n - 1 passes; one node per sale round.
            max_game_length=r.rounds * (r.starting_coins + r.players - 1) + r.rounds,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> ForSaleState:
        return ForSaleState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ForSaleObserver:
        if params:
            raise ValueError(f"python_for_sale observers take no parameters, not {params!r}")
        return ForSaleObserver(self.encoding, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class ForSaleState(pyspiel.State):
    """A node of the game: the deal so far, then an engine :class:`~forsale.state.State`."""

    def __init__(self, game: ForSaleGame) -> None:
        super().__init__(game)
        self._rules = game.rules
        self._enc = game.encoding
        self._houses: list[int] = []
        self._cheque_cards: list[int] = []
        self.engine: State | None = None

    # -- the tree --------------------------------------------------------------
    def current_player(self) -> int:
        engine = self.engine
        if engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        if engine.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        if engine.phase == "sale":
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return engine.turn

    def _legal_actions(self, player: int) -> list[int]:
        if self.engine is None or self.engine.is_over:
            return []
        return sorted(self._enc.action_index(a) for a in self.engine.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        k = self._rules.cards
        if len(self._houses) < k:
            left = [h - 1 for h in HOUSES if h not in self._houses]
        elif len(self._cheque_cards) < k:
            used = set(self._cheque_cards)
            left = [i for i in range(len(CHEQUES)) if i not in used]
        else:
            left = list(range(self._rules.players))
        p = 1.0 / len(left)
        return [(o, p) for o in left]

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            self._deal(int(action))
            return
        seat = self.engine.turn
        self.engine.push(seat, self._enc.action(action))

    def _deal(self, outcome_id: int) -> None:
        k = self._rules.cards
        if len(self._houses) < k:
            self._houses.append(outcome_id + 1)
        elif len(self._cheque_cards) < k:
            self._cheque_cards.append(outcome_id)
        else:
            removed_houses = [h for h in HOUSES if h not in self._houses]
            used = set(self._cheque_cards)
            removed_cheques = [CHEQUES[i] for i in range(len(CHEQUES)) if i not in used]
            cheques = [CHEQUES[i] for i in self._cheque_cards]
            deal = Deal(self._houses, cheques, outcome_id, removed_houses, removed_cheques)
            self.engine = State(self._rules, deal)

    def _apply_actions(self, actions: Sequence[int]) -> None:
        assert self.engine is not None
        self.engine.push_sale([self._enc.action(a).house for a in actions])  # type: ignore[union-attr]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            k = self._rules.cards
            if len(self._houses) < k:
                return f"deal house {action + 1}"
            if len(self._cheque_cards) < k:
                return f"deal cheque {CHEQUES[action]} (card {action})"
            return f"seat {action} opens"
        return str(self._enc.action(action))

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.is_over

    def returns(self) -> list[float]:
        if self.engine is None or not self.engine.is_over:
            return [0.0] * self._rules.players
        return outcome(spectator_view(self.engine))

    def __str__(self) -> str:
        if self.engine is None:
            return f"dealing: {len(self._houses)} houses, {len(self._cheque_cards)} cheques drawn"
        return self._enc.observation_string(spectator_view(self.engine))

    # -- search ------------------------------------------------------------------
    def view_of(self, player: int | None) -> View | None:
        """The view of ``player`` (``None``: a spectator), or ``None`` while the cards are being dealt."""
        return None if self.engine is None else view(self.engine, player)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> pyspiel.State:
        """A state drawn uniformly from those ``player_id`` cannot tell from this one.

        What is resampled: the order of the cards still to come and which cards
        were removed. (At a simultaneous node no seat has chosen yet, so there
        is no hidden choice to resample here; see :func:`turn_based_resampler`.)
        ``probability_sampler`` seeds the draw (OpenSpiel passes a sampler that returns floats in [0, 1)).
        """
        rng = random.Random(_seed_from(probability_sampler))
        if self.engine is None:
            return _replay(self.get_game(), _random_deal_actions(self._rules, rng), [])
        sampled = sample_state(view(self.engine, player_id), rng)
        return _replay(self.get_game(), _deal_actions(sampled), sampled.moves)


def _seed_from(sampler: Any) -> int:
    try:
        return int(float(sampler()) * 2**53)
    except TypeError:
        return random.getrandbits(53)


def _deal_actions(state: State) -> list[int]:
    """The chance outcomes that deal ``state.deal``."""
    houses = [h - 1 for h in state.deal.houses]
    free: dict[int, list[int]] = {}
    for i, value in enumerate(CHEQUES):
        free.setdefault(value, []).append(i)
    cheques = [free[value].pop(0) for value in state.deal.cheques]
    return houses + cheques + [state.deal.first]


def _random_deal_actions(rules: Ruleset, rng: random.Random) -> list[int]:
    from ..state import new_game

    return _deal_actions(new_game(rules, rng=rng))


def _replay(game: Any, chance: list[int], moves: Sequence[tuple[Any, Any]], pending: Sequence[int] = ()) -> Any:
    """A new state of ``game`` (simultaneous or turn-based) after the deal, the moves and pending sale choices."""
    enc: Encoding = _encoding_of(game)
    state = game.new_initial_state()
    for a in chance:
        state.apply_action(a)
    simultaneous = game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    for seat, action in moves:
        if seat is not None:
            state.apply_action(enc.action_index(action))
        elif simultaneous:
            state.apply_actions([enc.max_bid + h for h in action])
        else:
            for h in action:
                state.apply_action(enc.max_bid + h)
    for house in pending:
        state.apply_action(enc.max_bid + house)
    return state


_ENCODINGS: dict[tuple[int, str], Encoding] = {}  # one per ruleset: encodings are immutable once built


def _encoding_of(game: Any) -> Encoding:
    params = game.get_parameters()
    inner = params.get("game", params)
    rules = _ruleset(inner)
    key = (rules.players, rules.name or json.dumps(rules.to_json(), sort_keys=True))
    if key not in _ENCODINGS:
        _ENCODINGS[key] = Encoding(rules)
    return _ENCODINGS[key]


def replay_turn_based(state: Any) -> tuple[State | None, list[int]]:
    """The engine state behind a ``convert_to_turn_based`` state, and the sale choices already made this round.

    Rebuilt from ``state.history()`` (the wrapper does not expose the wrapped state).
    """
    game = state.get_game()
    params = game.get_parameters()["game"]
    inner = pyspiel.load_game(SHORT_NAME, {"players": params["players"], "rules": params["rules"]})
    sim = inner.new_initial_state()
    pending: list[int] = []
    for a in state.history():
        if sim.is_chance_node():
            sim.apply_action(a)
        elif sim.current_player() == pyspiel.PlayerId.SIMULTANEOUS:
            pending.append(a)
            if len(pending) == sim.num_players():
                sim.apply_actions(pending)
                pending = []
        else:
            sim.apply_action(a)
    enc = inner.encoding if hasattr(inner, "encoding") else _encoding_of(inner)
    return sim.engine, [enc.action(a).house for a in pending]  # type: ignore[union-attr]


def turn_based_resampler(seed: int | None = None) -> Callable[[Any, int], Any]:
    """A resampler for ``ISMCTSBot.set_resampler`` on ``pyspiel.convert_to_turn_based(python_for_sale)``.

    ``cb(state, player)`` returns a turn-based state that ``player`` cannot
    tell from ``state``: the cards still to come and the removed cards are
    reshuffled, and the houses that seats before ``player`` already chose in
    this sale round (which ``player`` has not seen) are drawn from their hands.
    """
    rng = random.Random(seed)

    def resample(state: Any, player: int) -> Any:
        engine, pending = replay_turn_based(state)
        game = state.get_game()
        if engine is None:
            rules = _encoding_of(game).rules
            return _replay(game, _random_deal_actions(rules, rng), [])
        known = engine.clone()
        for seat, house in enumerate(pending):
            known.push(seat, SELLS[house])
        sampled = sample_state(view(known, player), rng)
        chosen = [sampled.commits[s] for s in range(len(pending))]
        return _replay(game, _deal_actions(sampled), sampled.moves, chosen)

    return resample


class ForSaleObserver:
    """The PyObserver of ``python_for_sale``: the shared encoding of a seat's view."""

    def __init__(self, encoding: Encoding, iig_obs_type: Any) -> None:
        self.encoding = encoding
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.public_only = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        layout = encoding.layout(infostate=self.perfect_recall)
        self.tensor = np.zeros(layout[-1].stop, np.float32)
        self.dict = {sl.name: self.tensor[sl.start : sl.stop] for sl in layout}

    def _view(self, state: ForSaleState, player: int) -> View | None:
        return state.view_of(None if self.public_only else player)

    def set_from(self, state: ForSaleState, player: int) -> None:
        self.tensor.fill(0.0)
        v = self._view(state, player)
        if v is None:
            return
        if self.perfect_recall:
            self.tensor[:] = self.encoding.infostate(v)
        else:
            self.encoding.write_observation(v, self.tensor)

    def string_from(self, state: ForSaleState, player: int) -> str:
        v = self._view(state, player)
        if v is None:
            return f"dealing: {len(state._houses) + len(state._cheque_cards)} cards face down"
        return self.encoding.infostate_string(v) if self.perfect_recall else self.encoding.observation_string(v)


pyspiel.register_game(_GAME_TYPE, ForSaleGame)
