"""Terminal play (``forsale play``) and record rendering (``forsale show``), drawn with rich.

Needs the ``tui`` extra (rich). Everything shown comes from a seat's
:class:`~forsale.view.View` (a spectator's for ``show``).
"""

from .game import Options, Session, check_options, default_bot, show_record
from .text import BadAnswer, money, parse_bid, parse_sale, public_log, short, verdict

__all__ = [
    "BadAnswer", "Options", "Session", "check_options", "default_bot", "money", "parse_bid",
    "parse_sale", "public_log", "short", "show_record", "verdict",
]  # fmt: skip
