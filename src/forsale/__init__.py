"""forsale: the card game *For Sale* (Stefan Dorra) as a fast, exact rules engine and its clients.

The engine (this package's top-level modules: rules, actions, state, view,
record) is pure Python with no dependencies; every other subpackage is a
client that sees only what :func:`forsale.view.view` gives a seat.
"""

from .actions import PASS, Action, Bid, Pass, Sell, bid
from .errors import ForSaleError, IllegalActionError, RecordError, RulesError
from .record import from_record, referee, to_record
from .rules import PRESETS, Ruleset
from .state import AUCTION, OVER, SALE, Deal, State, new_game
from .view import View, sample_state, spectator_view, view

__version__ = "0.1.0"

__all__ = [
    "AUCTION", "OVER", "PASS", "PRESETS", "SALE", "Action", "Bid", "Deal",
    "ForSaleError", "IllegalActionError", "Pass", "RecordError", "Ruleset",
    "RulesError", "Sell", "State", "View", "bid", "from_record", "new_game",
    "referee", "sample_state", "spectator_view", "to_record", "view",
]  # fmt: skip
