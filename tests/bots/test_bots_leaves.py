"""The auction search's leaves: a value model sees the end of the auctions as a seat would see it."""

from __future__ import annotations

import random

import pytest

from forsale import new_game, view
from forsale.bots import make_agent
from forsale.bots.search import HardAgent

np = pytest.importorskip("numpy")
valuemodel = pytest.importorskip("forsale.bots.valuemodel")
from forsale.bots.leaves import ModelLeaf  # noqa: E402  (needs numpy)


def random_model(players: int, seed: int = 0):  # type: ignore[no-untyped-def]
    """A value model of the shipped shape with random weights: enough to check the plumbing."""
    rules = new_game(players).rules
    size = valuemodel.feature_size(players, rules.rounds)
    g = np.random.default_rng(seed)
    arrays = {"kind": "forsale-value/1", "players": players, "rounds": rules.rounds}
    arrays.update(
        w0=g.normal(size=(size, 8)), b0=g.normal(size=8), w1=g.normal(size=(8, players)), b1=np.zeros(players)
    )
    return valuemodel.ValueModel(arrays)


def test_the_model_leaf_sees_what_the_seat_sees_at_the_first_sale_round() -> None:
    state = new_game(4, seed=9)
    expert = make_agent("expert")
    while state.phase == "auction":
        state.push(state.current_seat, expert.act(view(state, state.current_seat), random.Random(0)))
    model = random_model(4)
    leaf = ModelLeaf(model)
    for seat in range(4):
        expected = model.predict(valuemodel.features(view(state, seat)))[0]
        other = ([c + 1 for c in state.coins], state.hands)
        got = leaf(state, [(state.coins, state.hands), other], seat)
        assert got[0] == pytest.approx(float(expected), abs=1e-6) and len(got) == 2


def test_hard_with_a_model_leaf_plays_legally_and_reproducibly() -> None:
    state = new_game(4, seed=4)
    agent = HardAgent(leaf=ModelLeaf(random_model(4, seed=1)), samples=3)
    rng = random.Random(2)
    while state.phase == "auction":
        v = view(state, state.current_seat)
        action = agent.act(v, random.Random(5))
        assert action in v.legal_actions()
        assert action == HardAgent(leaf=ModelLeaf(random_model(4, seed=1)), samples=3).act(v, random.Random(5))
        state.push(state.current_seat, action if rng.random() < 0.5 else v.legal_actions()[0])
    with pytest.raises(ValueError, match="leaf must be"):
        HardAgent(leaf="oracle")
