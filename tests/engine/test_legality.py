"""Legal actions are exactly the actions the engine accepts, over the whole action space, for every seat.

Over random reachable states (presets and custom rulesets, 2 to 6 players,
random legal play of random length, half-committed sale rounds included), for
every seat (to act or not, and seats that do not exist), every pass, every bid
0..60 and every sale 0..31 is applied to a copy. The actions it accepts must be
``legal_actions(seat)`` exactly, the view must agree (``View.legal_actions``,
``View.why_illegal``), ``State.why_illegal`` must say why for each refusal, and
a refused action must leave the state as it was.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from forsale import IllegalActionError, Ruleset, new_game, view
from forsale.actions import PASS, Bid, Sell
from forsale.rules import PRESETS
from forsale.state import State

SPACE = (PASS, *(Bid(b) for b in range(61)), *(Sell(h) for h in range(32)))


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    players = draw(st.integers(2, 6))
    if draw(st.booleans()):
        return Ruleset.preset(
            draw(st.sampled_from([n for n in PRESETS if (n == "two-player") == (players == 2)])), players
        )
    removed = draw(st.sampled_from([r for r in range(30 - players + 1) if (30 - r) % players == 0]))
    return Ruleset.custom(
        players, starting_coins=draw(st.integers(0, 40)), removed=removed, refund=draw(st.sampled_from(["down", "up"]))
    )


def snapshot(state: State) -> tuple[object, ...]:
    return tuple(repr(getattr(state, name)) for name in State.__slots__)


def accepted(state: State, seat: int) -> set[object]:
    """The actions of ``SPACE`` that ``push`` takes for ``seat``; a refusal must change nothing."""
    taken = set()
    for action in SPACE:
        trial = state.clone()
        before = snapshot(trial)
        try:
            trial.push(seat, action)
        except IllegalActionError:
            assert snapshot(trial) == before, (seat, action)
            assert state.why_illegal(seat, action), (seat, action)
        else:
            taken.add(action)
    return taken


@settings(max_examples=120, deadline=None)
@given(rules=rulesets(), seed=st.integers(0, 2**32), steps=st.integers(0, 250))
def test_legal_actions_are_exactly_what_the_engine_accepts(rules: Ruleset, seed: int, steps: int) -> None:
    rng = random.Random(seed)
    state = new_game(rules, rng=rng)
    for _ in range(steps):
        if state.is_over:
            break
        seat = rng.choice(state.seats_to_act())
        state.push(seat, rng.choice(state.legal_actions(seat)))
    for seat in range(state.n):
        legal = state.legal_actions(seat)
        assert len(set(legal)) == len(legal)
        assert accepted(state, seat) == set(legal)
        assert bool(legal) == (seat in state.seats_to_act())
        v = view(state, seat)
        assert v.legal_actions() == legal
        for action in SPACE:
            allowed = action in legal
            assert (state.why_illegal(seat, action) is None) == allowed, (seat, action)
            reason = v.why_illegal(action)
            assert (reason is None) == allowed, (seat, action)
            assert reason is None or reason.code in ("illegal", "not_your_turn", "game_over")
    for stranger in (-1, state.n):  # seat -1 once matched the "nobody's turn" marker of the sale phase
        assert accepted(state, stranger) == set()
        assert state.why_illegal(stranger, PASS) == f"there is no seat {stranger} at a table of {state.n}"
    spectator = view(state, None)
    assert spectator.legal_actions() == ()
    for action in SPACE:
        refusal = spectator.why_illegal(action)
        assert refusal is not None
        assert (refusal.code, refusal.message) == ("not_seated", "a spectator cannot act; take a seat to play")
