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
import sys
from typing import Any, TypeGuard

from .actions import PASS, bid, move_to_json
from .errors import ForSaleError, RecordError, shown
from .rules import KNOBS, MAX_PLAYERS, MIN_PLAYERS, Ruleset
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
        raise RecordError(f"format must be {FORMAT!r}, not {shown(record.get('format'))}")
    players = record.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of seat names (strings)")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError(
            f"For Sale is played by {MIN_PLAYERS} to {MAX_PLAYERS} players; this record has {len(players)}"
        )
    n = len(players)
    if "rules" in record and record["rules"] is None:
        raise RecordError('rules must be a preset name or an object of knobs, not null (leave it out for "official")')
    spec = record.get("rules", "official")  # the format's default, at every player count
    if isinstance(spec, dict):
        # Keys a reader does not know are ignored (the format grows only by optional keys), so a
        # rules object is refereed by its three knobs; only the command line and the server refuse others.
        spec = {k: v for k, v in spec.items() if k in KNOBS}
    try:
        rules = Ruleset.parse(spec, n)
    except ForSaleError as error:
        raise RecordError(f"rules: {error}") from None
    return rules, Deal.from_json(record.get("deal"), rules)


def _apply_move(state: State, move: Any) -> None:
    """Apply one record move to ``state``; raise ``ForSaleError`` if it is malformed or illegal."""
    if not isinstance(move, dict):
        raise RecordError("a move must be a JSON object")
    if "sell" in move:
        if "seat" in move or "bid" in move or "pass" in move:
            raise RecordError("a move is a seat's bid or pass, or a whole sale round, not both")
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
        raise RecordError(f"a move needs a seat from 0 to {state.n - 1}, not {shown(seat)}")
    if state.phase == OVER:
        raise RecordError("the game is over; no move may follow")
    has_bid, has_pass = "bid" in move, "pass" in move
    if has_bid and has_pass:
        raise RecordError("a move cannot both bid and pass")
    if has_bid:
        amount = move["bid"]
        if not _is_int(amount):
            raise RecordError(f"seat {seat} bid {shown(amount)}, which is not a whole number of coins")
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


MAX_DIGITS = 20_000
"""The longest number a record may hold. Python's default (4,300 digits) would call a longer but
well-formed number bad JSON, not the illegal move it is; past this, parsing one grows costly."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice: which of two ``moves`` would be the game?"""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"the key {shown(key)} appears twice in one object")
        obj[key] = value
    return obj


def parse_record_json(text: str | bytes) -> Any:
    """The JSON value of a record's text, strictly: UTF-8 (a byte-order mark allowed), no ``NaN`` or
    ``Infinity``, no key twice in an object; :class:`RecordError` (no move) when it is not."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise RecordError(f"the record is not UTF-8 text (byte {error.start} cannot be read)") from None
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_repeats)
    except RecursionError:
        raise RecordError("the record is nested too deeply to be read") from None
    except ValueError as error:
        if "digits" in str(error):
            raise RecordError(f"the record holds a number of more than {MAX_DIGITS:,} digits") from None
        raise RecordError(f"the record is not valid JSON: {error}") from None


def referee(text: str | bytes) -> tuple[int, dict[str, Any]]:
    """Referee a record given as JSON text: ``(exit status, JSON object to print)``."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(MAX_DIGITS)  # for the parse and for quoting such a number in a message
    try:
        state = from_record(parse_record_json(text))
    except RecordError as error:
        return 1, {"error": {"move": error.move, "message": str(error)}}
    finally:
        sys.set_int_max_str_digits(limit)
    return 0, result(state)
