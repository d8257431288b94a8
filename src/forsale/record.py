"""Game records (``forsale-record/1``) and the referee behind ``forsale replay``.

The format is specified in ``docs/record-format.md`` (a copy of the shared
specification); other programs depend on it exactly. :func:`to_record` turns
a game into a record, :func:`from_record` rebuilds the game move by move and
raises :class:`RecordError` (with the index of the first illegal move) on
anything malformed or illegal, and :func:`referee` produces the JSON object
that ``forsale replay`` prints.
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from .actions import PASS, bid, move_to_json
from .errors import ForSaleError, RecordError
from .rules import MAX_PLAYERS, MIN_PLAYERS, Ruleset
from .state import AUCTION, OVER, Deal, State

FORMAT = "forsale-record/1"


def to_record(state: State, players: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    """The record of ``state`` (finished or not). ``extra`` keys are added as they are.

    The removed cards are kept under the optional key ``removed`` for
    post-game review; never send the record of an unfinished game to a
    player (it contains the whole deal).
    """
    moves = [move_to_json(seat, action) for seat, action in state.moves]
    return build_record(state.rules, state.deal, moves, players, **extra)


def build_record(
    rules: Ruleset, deal: Deal, moves: list[dict[str, Any]], players: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    """A record from its parts, ``moves`` already in record form: what :func:`to_record` and the simulator share."""
    names = list(players) if players is not None else [f"Seat {i}" for i in range(rules.players)]
    if len(names) != rules.players:
        raise ValueError(f"{len(names)} player names for a table of {rules.players}")
    record: dict[str, Any] = {
        "format": FORMAT,
        "rules": rules.to_json(),
        "players": names,
        "deal": deal.to_json(),
        "moves": moves,
    }
    removed = deal.removed_to_json()
    if removed is not None:
        record["removed"] = removed
    record.update(extra)
    return record


def _is_int(value: Any) -> TypeGuard[int]:
    return type(value) is int


def _parse_header(record: Any) -> tuple[Ruleset, Deal]:
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"format must be {FORMAT!r}, not {record.get('format')!r}")
    players = record.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of seat names (strings)")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError(
            f"For Sale is played by {MIN_PLAYERS} to {MAX_PLAYERS} players; this record has {len(players)}"
        )
    n = len(players)
    try:
        rules = Ruleset.parse(record.get("rules"), n)
    except ForSaleError as error:
        raise RecordError(f"rules: {error}") from None
    return rules, Deal.from_json(record.get("deal"), rules)


def _apply_move(state: State, move: Any) -> None:
    """Apply one record move to ``state``; raise ``ForSaleError`` if it is malformed or illegal."""
    if not isinstance(move, dict):
        raise RecordError("a move must be a JSON object")
    if "sell" in move:
        houses = move["sell"]
        if not isinstance(houses, list) or not all(_is_int(h) for h in houses):
            raise RecordError("a sale move needs a list of houses, one per seat")
        if state.phase == AUCTION:
            raise RecordError(
                f"a sale move came during the auction phase (auction round {state.round + 1} is under way)"
            )
        if state.phase == OVER:
            raise RecordError("the game is over; no move may follow")
        state.push_sale(houses)
        return
    seat = move.get("seat")
    if not _is_int(seat) or not 0 <= seat < state.n:
        raise RecordError(f"a move needs a seat from 0 to {state.n - 1}, not {seat!r}")
    if state.phase == OVER:
        raise RecordError("the game is over; no move may follow")
    has_bid, has_pass = "bid" in move, "pass" in move
    if has_bid and has_pass:
        raise RecordError("a move cannot both bid and pass")
    if has_bid:
        amount = move["bid"]
        if not _is_int(amount):
            raise RecordError(f"seat {seat} bid {amount!r}, which is not a whole number of coins")
        if amount < 1:
            raise RecordError(f"seat {seat} bid {amount} but a bid must be at least 1 coin")
        state.push(seat, bid(amount))
    elif has_pass:
        if move["pass"] is not True:
            raise RecordError('a pass is written {"seat": s, "pass": true}')
        state.push(seat, PASS)
    else:
        raise RecordError('a move must be {"seat": s, "bid": b}, {"seat": s, "pass": true} or {"sell": [...]}')


def from_record(record: Any) -> State:
    """Rebuild the game of ``record``, checking every move against the rules."""
    rules, deal = _parse_header(record)
    moves = record.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError("moves must be a list")
    state = State(rules, deal)
    for index, move in enumerate(moves):
        try:
            _apply_move(state, move)
        except RecordError as error:
            raise RecordError(str(error), index) from None
        except ForSaleError as error:
            raise RecordError(str(error), index) from None
    return state


def result(state: State) -> dict[str, Any]:
    """What ``forsale replay`` prints for a legal record."""
    if state.phase == OVER:
        return {
            "complete": True,
            "scores": state.scores(),
            "coins": list(state.coins),
            "cheques": [sorted(c) for c in state.cheques_won],
            "winners": state.winners(),
        }
    return {
        "complete": False,
        "phase": state.phase,
        "round": state.round,
        "to_move": list(state.seats_to_act()),
        "coins": list(state.coins),
        "cheques": [sorted(c) for c in state.cheques_won],
        "moves": len(state.moves),
    }


def referee(text: str | bytes) -> tuple[int, dict[str, Any]]:
    """Referee a record given as JSON text: ``(exit status, JSON object to print)``."""
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as error:
        return 1, {"error": {"move": None, "message": f"the record is not valid JSON: {error}"}}
    try:
        state = from_record(record)
    except RecordError as error:
        return 1, {"error": {"move": error.move, "message": str(error)}}
    return 0, result(state)
