"""`forsale replay`: the referee contract of docs/record-format.md, through the real command."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent.parent / "data" / "golden"
GOLDEN_NAMES = sorted(
    p.name.removesuffix(".json") for p in GOLDEN.glob("*.json") if not p.name.endswith(".expected.json")
)


def golden(name: str = "4p-official") -> dict:
    return json.loads((GOLDEN / f"{name}.json").read_text())


@pytest.fixture
def replay(forsale_cmd, forsale_env, tmp_path):
    def run(record, *, raw: str | None = None, stdin: bool = False):
        text = raw if raw is not None else json.dumps(record)
        if stdin:
            proc = subprocess.run(
                [*forsale_cmd, "replay", "-"], input=text, capture_output=True, text=True, env=forsale_env
            )
        else:
            path = tmp_path / "record.json"
            path.write_text(text)
            proc = subprocess.run([*forsale_cmd, "replay", str(path)], capture_output=True, text=True, env=forsale_env)
        assert "Traceback" not in proc.stderr
        return proc.returncode, json.loads(proc.stdout)

    return run


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_golden_playthroughs(replay, name):
    status, out = replay(golden(name))
    assert status == 0
    assert out == json.loads((GOLDEN / f"{name}.expected.json").read_text())
    assert set(out) == {"complete", "scores", "coins", "cheques", "winners"}


def test_standard_input(replay):
    status, out = replay(golden(), stdin=True)
    assert status == 0 and out["complete"] is True


def test_unfinished_game(replay):
    record = golden()
    record["moves"] = record["moves"][:5]
    status, out = replay(record)
    assert status == 0
    assert out["complete"] is False
    assert out["phase"] == "auction" and len(out["to_move"]) == 1 and out["moves"] == 5
    record["moves"] = []
    assert replay(record)[1]["to_move"] == [record["deal"]["first"]]


def test_unfinished_in_the_sale_phase(replay):
    record = golden()
    sales = [i for i, m in enumerate(record["moves"]) if "sell" in m]
    record["moves"] = record["moves"][: sales[2]]
    status, out = replay(record)
    assert status == 0 and out["phase"] == "sale" and out["round"] == 2 and out["to_move"] == [0, 1, 2, 3]


def test_worked_example_record(replay):
    houses = [15, 22, 24, 25] + [h for h in range(1, 29) if h not in (15, 22, 24, 25)] + [29, 30]
    record = {
        "format": "forsale-record/1",
        "players": ["A", "B", "C", "D"],
        "deal": {"houses": houses[:28], "cheques": [v for v in range(2, 16) for _ in (0, 1)], "first": 0},
        "moves": [
            {"seat": 0, "bid": 1},
            {"seat": 1, "pass": True},
            {"seat": 2, "bid": 3},
            {"seat": 3, "bid": 4},
            {"seat": 0, "pass": True},
            {"seat": 2, "pass": True},
            {"seat": 3, "pass": True},
        ],
    }
    status, out = replay(record)
    assert status == 0 and out["coins"] == [17, 18, 16, 14] and out["round"] == 1
    # D took 25 and so opened round 2, where its pass (the last move) leaves seat 0 to act.
    assert out["to_move"] == [0]


def error_of(replay, record=None, raw=None):
    status, out = replay(record, raw=raw)
    assert status == 1
    assert set(out) == {"error"} and set(out["error"]) == {"move", "message"}
    return out["error"]["move"], out["error"]["message"]


def test_bad_json(replay):
    move, message = error_of(replay, raw="{not json")
    assert move is None and "not valid JSON" in message


def test_empty_file(replay):
    assert error_of(replay, raw="")[0] is None


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda r: r.update(format="forsale-record/2"), "format must be 'forsale-record/1'"),
        (lambda r: r.pop("format"), "format must be"),
        (lambda r: r.update(rules="monopoly"), "unknown ruleset 'monopoly'"),
        (
            lambda r: r.update(rules={"starting_coins": 18, "removed": 1, "refund": "down"}),
            "cannot be dealt in rounds of 4",
        ),
        (lambda r: r.update(players=[f"P{i}" for i in range(7)]), "2 to 6 players; this record has 7"),
        (lambda r: r.update(players=["solo"]), "this record has 1"),
        (lambda r: r.update(players="ABCD"), "players must be a list"),
        (lambda r: r["deal"]["houses"].__setitem__(1, r["deal"]["houses"][0]), "appears more than once"),
        (lambda r: r["deal"]["houses"].__setitem__(0, 31), "house 31 does not exist"),
        (lambda r: r["deal"]["houses"].__setitem__(0, 0), "house 0 does not exist"),
        (lambda r: r["deal"]["houses"].pop(), "must hold 28 houses"),
        (lambda r: r["deal"]["cheques"].__setitem__(0, 1), "no cheque of 1"),
        (lambda r: r["deal"]["cheques"].__setitem__(0, 16), "no cheque of 16"),
        (lambda r: r["deal"].update(cheques=[15] * 3 + r["deal"]["cheques"][3:]), "more than twice"),
        (lambda r: r["deal"]["cheques"].pop(), "must hold 28 cheques"),
        (lambda r: r["deal"].update(first=4), "deal.first must be a seat number from 0 to 3"),
        (lambda r: r["deal"].update(first=True), "deal.first"),
        (lambda r: r.pop("deal"), "deal must be an object"),
        (lambda r: r.update(moves={"seat": 0}), "moves must be a list"),
    ],
)
def test_malformed_records_name_no_move(replay, change, needle):
    record = golden()
    change(record)
    move, message = error_of(replay, record)
    assert move is None
    assert needle in message


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        # JSON has no NaN or Infinity (Python's reader takes them unless told not to).
        ('{"format": "forsale-record/1", "x": NaN}', "NaN is not a JSON number"),
        ('{"format": "forsale-record/1", "x": -Infinity}', "-Infinity is not a JSON number"),
        # Which of two "moves" would be the game?
        ('{"format": "forsale-record/1", "moves": [], "moves": []}', 'the key "moves" appears twice'),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("1" * 30_000, "more than 20,000 digits"),
    ],
)
def test_json_that_is_not_quite_json(replay, raw, needle):
    move, message = error_of(replay, raw=raw)
    assert move is None and needle in message


def test_text_that_is_not_utf8(forsale_cmd, forsale_env, tmp_path):
    path = tmp_path / "record.json"
    text = json.dumps(golden())
    for data, accepted in [
        (text.encode("utf-16"), False),  # RFC 8259: JSON between systems is UTF-8
        (b"\xff\xfe" + text.encode("latin-1"), False),
        (b"\xef\xbb\xbf" + text.encode(), True),  # a byte-order mark, which a reader may ignore
    ]:
        path.write_bytes(data)
        proc = subprocess.run([*forsale_cmd, "replay", str(path)], capture_output=True, text=True, env=forsale_env)
        out = json.loads(proc.stdout)
        if accepted:
            assert proc.returncode == 0 and out["complete"] is True
        else:
            assert proc.returncode == 1 and out["error"]["move"] is None
            assert "Traceback" not in proc.stderr and "codec" not in out["error"]["message"]


def test_a_long_number_is_the_illegal_move_it_is(replay):
    record = golden()
    first = record["deal"]["first"]
    record["moves"][0] = {"seat": first, "bid": -1}
    record["note"] = -2  # and in a key readers ignore, such a number is ignored
    # Written as text: Python itself would not print a number of 5,000 digits.
    raw = json.dumps(record).replace('"bid": -1', '"bid": ' + "9" * 5000).replace('"note": -2', '"note": ' + "7" * 5000)
    move, message = error_of(replay, raw=raw)
    assert move == 0 and message.startswith(f"seat {first} bid 9999") and "holds 18 coins" in message


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        # The format's default is "official", at 2 players too, where it has no set-up.
        (lambda r: r.pop("rules"), "the official ruleset is for 3 to 6 players, not 2"),
        (lambda r: r.update(rules=None), "not null"),
        (lambda r: r.update(rules={"starting_coins": 18, "removed": 10}), "lacks refund"),
    ],
)
def test_the_rules_key_of_a_two_player_record(replay, change, needle):
    record = golden("2p-two-player")
    assert replay(record)[0] == 0
    change(record)
    move, message = error_of(replay, record)
    assert move is None and needle in message


def test_a_rules_object_is_refereed_by_its_three_knobs_and_other_keys_are_ignored(replay):
    """RECORD-FORMAT.md: the format grows only by optional keys, which readers that do not know them ignore."""
    record = golden("2p-two-player")
    expected = replay(record)
    record["rules"] = {"starting_coins": 18, "removed": 10, "refund": "down", "tiebreak": "none"}
    assert replay(record) == expected
    record["rules"]["refund"] = "sideways"  # the knobs themselves are still checked
    move, message = error_of(replay, record)
    assert move is None and "refund" in message


def test_messages_quote_values_as_json_and_briefly(replay):
    record = golden()
    record["format"] = None
    assert error_of(replay, record) == (None, "format must be 'forsale-record/1', not null")
    record = golden()
    record["moves"][0] = {"seat": True, "pass": True}
    assert error_of(replay, record) == (0, "a move needs a seat from 0 to 3, not true")
    record["moves"][0] = {"seat": "x" * 10_000, "pass": True}
    assert len(error_of(replay, record)[1]) < 100


def test_record_that_is_not_an_object(replay):
    assert error_of(replay, [1, 2, 3]) == (None, "a record must be a JSON object")


def first_bid_index(record):
    return next(i for i, m in enumerate(record["moves"]) if "bid" in m)


def test_illegal_moves_name_the_first_bad_move(replay):
    record = golden()
    first = record["deal"]["first"]
    # Out of turn.
    bad = copy.deepcopy(record)
    bad["moves"][0] = {"seat": (first + 1) % 4, "pass": True}
    assert error_of(replay, bad) == (0, f"it is seat {first}'s turn to bid or pass, not seat {(first + 1) % 4}'s")
    # More coins than held.
    bad = copy.deepcopy(record)
    bad["moves"][0] = {"seat": first, "bid": 19}
    assert error_of(replay, bad) == (0, f"seat {first} bid 19 but holds 18 coins")
    # Zero, negative, fractional and boolean bids.
    for amount, text in [
        (0, "at least 1 coin"),
        (-3, "at least 1 coin"),
        (2.5, "not a whole number"),
        (True, "not a whole number"),
    ]:
        bad = copy.deepcopy(record)
        bad["moves"][0] = {"seat": first, "bid": amount}
        move, message = error_of(replay, bad)
        assert move == 0 and text in message


def test_not_raising_the_high_bid(replay):
    record = golden()
    i = first_bid_index(record)
    bad = copy.deepcopy(record)
    seat = bad["moves"][i]["seat"]
    amount = bad["moves"][i]["bid"]
    nxt = next(j for j in range(i + 1, len(bad["moves"])) if "seat" in bad["moves"][j])
    bad["moves"][nxt] = {"seat": bad["moves"][nxt]["seat"], "bid": amount}
    move, message = error_of(replay, bad)
    assert move == nxt and f"but the high bid is already {amount}" in message
    assert seat is not None


def test_house_not_in_hand(replay):
    record = golden()
    i = next(i for i, m in enumerate(record["moves"]) if "sell" in m)
    bad = copy.deepcopy(record)
    sale = bad["moves"][i]["sell"]
    sale[0], sale[1] = sale[1], sale[0]
    move, message = error_of(replay, bad)
    assert move == i and f"seat 0 sold house {sale[0]} but holds" in message


def test_sale_during_auction_and_bid_during_sale(replay):
    record = golden()
    bad = copy.deepcopy(record)
    bad["moves"][2] = {"sell": [1, 2, 3, 4]}
    assert error_of(replay, bad)[0] == 2
    i = next(i for i, m in enumerate(record["moves"]) if "sell" in m)
    bad = copy.deepcopy(record)
    bad["moves"].insert(i + 1, {"seat": 0, "bid": 1})
    move, message = error_of(replay, bad)
    assert move == i + 1 and "during the sale phase" in message


def test_moves_after_the_end(replay):
    record = golden()
    n = len(record["moves"])
    for extra in ({"seat": 0, "pass": True}, {"sell": [1, 2, 3, 4]}):
        bad = copy.deepcopy(record)
        bad["moves"].append(extra)
        assert error_of(replay, bad) == (n, "the game is over; no move may follow")


@pytest.mark.parametrize(
    ("move", "needle"),
    [
        ("pass", "a move must be a JSON object"),
        ({"seat": 9, "pass": True}, "a move needs a seat from 0 to 3"),
        ({"seat": "0", "pass": True}, "a move needs a seat"),
        ({"pass": True}, "a move needs a seat"),
        ({"seat": 0}, "a move must be"),
        ({"seat": 0, "pass": False}, "a pass is written"),
        ({"seat": 0, "bid": 2, "pass": True}, "cannot both bid and pass"),
        ({"sell": "1,2,3,4"}, "a sale move needs a list"),
        ({"sell": [1, 2, 3, 4], "seat": 0}, "a seat's bid or pass, or a whole sale round, not both"),
    ],
)
def test_malformed_moves(replay, move, needle):
    record = golden()
    record["moves"][0] = move
    index, message = error_of(replay, record)
    assert index == 0 and needle in message


def test_unknown_keys_are_ignored(replay):
    record = golden()
    record["clock"] = {"seconds": 3}
    record["moves"][0]["t"] = 1.5
    status, out = replay(record)
    assert status == 0 and out == json.loads((GOLDEN / "4p-official.expected.json").read_text())


def test_unreadable_file(forsale_cmd, forsale_env, tmp_path):
    proc = subprocess.run(
        [*forsale_cmd, "replay", str(tmp_path / "missing.json")], capture_output=True, text=True, env=forsale_env
    )
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["error"]["move"] is None and "cannot read" in out["error"]["message"]
