"""``forsale.bots.analysis`` on known records: every decision of a seat, valued by ``hard``'s estimator from its
view only; hints that are ``hard``'s own move."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from forsale.actions import PASS, SELLS, action_to_json
from forsale.bots import analysis
from forsale.bots.analysis import CLOSE_SPREAD, analyse, hint
from forsale.bots.estimates import action_values, win_chances
from forsale.bots.registry import make_agent
from forsale.errors import RecordError
from forsale.record import from_record
from forsale.state import AUCTION, SALE, State, play_moves
from forsale.view import View, spectator_view, view

GOLDEN = Path(__file__).parent.parent / "data" / "golden"
BUDGET = 2


def golden(name: str = "4p-official") -> dict:
    return json.loads((GOLDEN / f"{name}.json").read_text())


def expected_decisions(record: dict, seat: int) -> list[tuple[int, object]]:
    """The (move index, action) of every real choice of ``seat``, found by replaying the record here."""
    final = from_record(record)
    state = State(final.rules, final.deal)
    found = []
    for index, (who, action) in enumerate(final.moves):
        if who is None:
            if len(state.hands[seat]) > 1:
                found.append((index, SELLS[action[seat]]))
        elif who == seat and state.coins[seat] > state.high:
            found.append((index, action))
        play_moves(state, [(who, action)])
    return found


@pytest.fixture(scope="module")
def seat1() -> analysis.Analysis:
    return analyse(golden(), seat=1, budget=BUDGET, seed=7)


def test_every_decision_of_the_seat_is_listed_in_order(seat1):
    record = golden()
    assert [(d.move, d.chosen) for d in seat1.decisions] == expected_decisions(record, 1)
    assert {d.seat for d in seat1.decisions} == {1}
    assert seat1.seats == (1,) and seat1.complete and seat1.players == tuple(record["players"])


def test_each_decision_values_every_legal_action_and_the_chosen_one(seat1):
    final = from_record(golden())
    state = State(final.rules, final.deal)
    by_move = {d.move: d for d in seat1.decisions}
    for index, move in enumerate(final.moves):
        if index in by_move:
            d = by_move[index]
            assert [a for a, _ in d.chances] == list(view(state, 1).legal_actions())
            assert d.phase == state.phase and d.round == state.round
        play_moves(state, [move])
    for d in seat1.decisions:
        assert all(0.0 <= c <= 1.0 for _, c in d.chances)
        assert d.chosen_chance == dict(d.chances)[d.chosen]
        assert d.best_chance == max(c for _, c in d.chances) == dict(d.chances)[d.best]
        assert d.loss == pytest.approx(d.best_chance - d.chosen_chance) and d.loss >= 0
        assert (d.loss == 0) == (d.chosen_chance == d.best_chance)


def test_costliest_are_the_losing_decisions_sorted_by_loss(seat1):
    worst = seat1.costliest(1, count=100)
    assert worst == sorted((d for d in seat1.decisions if d.loss > 0), key=lambda d: -d.loss)
    assert seat1.costliest(1, count=2) == worst[:2]
    assert seat1.costliest(0) == []  # seat 0 was not analysed


def test_the_chart_has_a_point_per_move_each_a_distribution_ending_on_the_result(seat1):
    record = golden()
    final = from_record(record)
    assert len(seat1.chances) == len(record["moves"]) + 1
    for point in seat1.chances:
        assert len(point) == final.n and all(0.0 <= c <= 1.0 for c in point)
        assert sum(point) == pytest.approx(1.0)
    winners = final.winners()
    assert seat1.chances[-1] == tuple(1 / len(winners) if s in winners else 0.0 for s in range(final.n))


def test_same_seed_same_analysis_and_seats_do_not_change_each_other(seat1):
    again = analyse(golden(), seat=1, budget=BUDGET, seed=7)
    assert again == seat1
    both = analyse(golden(), seat=[0, 1], budget=BUDGET, seed=7)
    assert [d for d in both.decisions if d.seat == 1] == list(seat1.decisions)
    assert both.chances == seat1.chances
    other = analyse(golden(), seat=1, budget=BUDGET, seed=8)
    assert other != seat1


def test_json_form_is_plain_and_names_the_costliest_moves(seat1):
    out = json.loads(json.dumps(seat1.to_json()))
    assert out["seats"] == [1] and out["budget"] == BUDGET and out["seed"] == 7
    assert out["costliest"]["1"] == [d.move for d in seat1.costliest(1)]
    first = out["decisions"][0]
    assert set(first) >= {"move", "seat", "chances", "chosen", "chosen_chance", "best", "best_chance", "loss"}


def test_a_state_with_its_history_and_an_unfinished_record_are_analysed():
    record = golden("3p-official")
    short = copy.deepcopy(record)
    short["moves"] = short["moves"][:12]
    part = analyse(short, seat=0, budget=2, seed=1)
    assert not part.complete and len(part.chances) == 13
    state = from_record(short)
    assert analyse(state, seat=0, budget=2, seed=1).decisions == part.decisions


def test_bad_input_is_refused_with_the_referees_words():
    record = golden()
    record["moves"][0] = {"seat": 3, "bid": 1}
    with pytest.raises(RecordError) as error:
        analyse(record, budget=1)
    assert error.value.move == 0
    with pytest.raises(RecordError):
        analyse(["not", "a", "record"], budget=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seat"):
        analyse(golden(), seat=4, budget=1)
    with pytest.raises(ValueError, match="budget"):
        analyse(golden(), budget=0)


def test_a_decision_is_valued_from_the_seats_view_only():
    """Two games that differ only in what seat 0 cannot know (the undealt order) value its moves alike."""
    record = golden()
    final = from_record(record)
    state = State(final.rules, final.deal)
    play_moves(state, final.moves[:2])
    v = view(state, state.turn)
    swapped = copy.deepcopy(record)
    houses = swapped["deal"]["houses"]
    n = final.n
    houses[n:] = list(reversed(houses[n:]))  # later rounds' houses: unseen by anyone now
    cheques = swapped["deal"]["cheques"]
    cheques[:] = list(reversed(cheques))
    other = from_record({**swapped, "moves": record["moves"][:2]})
    w = view(other, other.turn)
    assert isinstance(v, View) and v == w
    assert action_values(v, random.Random(3), samples=2) == action_values(w, random.Random(3), samples=2)


def test_a_forced_ending_is_valued_exactly():
    end = from_record(golden())
    state = State(end.rules, end.deal)
    play_moves(state, end.moves[:-1])  # the last sale round: one house in every hand, its cheques on the table
    winners = end.winners()
    assert win_chances(view(state, 0), random.Random(1), samples=1) == pytest.approx(
        [1 / len(winners) if s in winners else 0.0 for s in range(end.n)]
    )


def test_the_analysis_is_hards_estimator_from_each_view():
    """Each decision's numbers are estimates.action_values from that seat's view, each chart point win_chances."""
    record = golden("3p-official")
    short = copy.deepcopy(record)
    short["moves"] = short["moves"][:6]
    result = analyse(short, seat=[0, 1, 2], budget=1, seed=4)
    final = from_record(short)
    state = State(final.rules, final.deal)
    decisions = iter(result.decisions)
    for index, move in enumerate(final.moves):
        who = move[0]
        if state.can_raise(who):
            d = next(decisions)
            rng = analysis._rng(4, "move", index, who)
            assert list(d.chances) == action_values(view(state, who), rng, samples=1)
        play_moves(state, [move])
        rng = analysis._rng(4, "chart", index + 1)
        assert list(result.chances[index + 1]) == win_chances(spectator_view(state), rng, samples=1)


def positions() -> list[State]:
    """An auction turn (the first) and a sale round (the first), of the golden 4-player game."""
    final = from_record(golden())
    auction = State(final.rules, final.deal)
    sale = State(final.rules, final.deal)
    for who, action in final.moves:
        if who is None:
            break
        play_moves(sale, [(who, action)])
    assert auction.phase == AUCTION and sale.phase == SALE
    return [auction, sale]


@pytest.mark.parametrize("phase", [0, 1])
def test_a_hint_is_the_move_hard_plays_and_why_in_one_line(phase):
    state = positions()[phase]
    seat = state.turn if state.phase == AUCTION else 0
    v = view(state, seat)
    out = hint(v, random.Random(5), budget=2)
    seed = random.Random(5).getrandbits(64)
    played = make_agent("hard:samples=2").act(v, random.Random(seed), None)
    assert out["action"] == action_to_json(played)  # hard's own move, not a second opinion
    values = dict(action_values(v, random.Random(seed), samples=2))
    assert out["chance"] == values[played]
    others = {a: c for a, c in values.items() if a != played}
    best_other = max(others.values())
    assert (
        out["alternative_chance"] == best_other
        and action_to_json(max(others, key=others.__getitem__)) == out["alternative"]
    )
    assert out["reason"] in {"pass_close", "better", "mixed", "close"}
    if out["reason"] == "better":
        assert out["chance"] >= best_other
    elif out["reason"] in ("mixed", "close"):
        assert out["chance"] < best_other and (out["reason"] == "mixed") == (state.phase == SALE)
    assert "\n" not in out["line"] and "to win" in out["line"]
    assert hint(v, random.Random(5), budget=2) == out  # same seed, same hint
    with pytest.raises(ValueError, match="no decision"):
        hint(
            view(state, (seat + 1) % state.n) if state.phase == AUCTION else spectator_view(state), random.Random(5), 2
        )


def test_a_pass_at_a_table_of_close_houses_says_so_and_a_single_choice_is_the_only_move():
    record = golden()
    houses = sorted(record["deal"]["houses"])
    n = len(record["players"])
    record = {
        **record,
        "deal": {**record["deal"], "houses": houses[1 : n + 1] + houses[:1] + houses[n + 1 :]},
        "moves": [],
    }
    state = from_record(record)  # the first table: the 2nd to 5th lowest houses, close in value
    assert state.table[-1] - state.table[0] <= CLOSE_SPREAD
    out = hint(view(state, state.turn), random.Random(1), budget=2)
    assert out["action"] == action_to_json(PASS)  # hard passes for a house it can have for nothing
    assert out["reason"] == "pass_close" and (out["low"], out["high"]) == (state.table[0], state.table[-1])
    assert "close in value" in out["line"]
    end = from_record(golden())
    last = State(end.rules, end.deal)
    play_moves(last, end.moves[:-1])  # one house in every hand
    only = hint(view(last, 0), random.Random(1), budget=1)
    assert only["reason"] == "only" and "alternative" not in only
