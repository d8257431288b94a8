"""Every message the server accepts, as strict pydantic models (docs/protocol.md).

Incoming JSON is validated here before anything else looks at it: unknown
message types, unknown keys, wrong types (``"3"`` or ``3.0`` or ``true`` for a
bid) are refused with a message that says what was expected. Outgoing
messages are plain dicts built in :mod:`forsale.server.table.snapshots` (and
:mod:`forsale.server.table.live`) from the engine's per-seat views.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    TypeAdapter,
    ValidationError,
)

from ...actions import PASS, Action, bid
from ...actions import Sell as _Sell
from ..names import BIDI_CONTROLS, EMOJI_SELECTORS, HIDDEN_RANGES, hidden, regex_ranges, shows
from ..table.config import BOT_DELAY_MAX

MAX_MESSAGE_BYTES = 64 * 1024
"""Larger WebSocket messages and request bodies are refused."""

MAX_SAFE_INTEGER = 2**53 - 1
"""Integer ids lie within +-(2**53 - 1): beyond, a JavaScript client reads the number as a different one."""
MAX_ID_LENGTH = 64


def _unicode(text: str) -> str:
    """``text`` if it is Unicode text; a lone UTF-16 surrogate (``"\\ud800"`` in JSON) is not, and cannot be sent back."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (it holds a lone surrogate)") from None
    return text


Text = Annotated[StrictStr, AfterValidator(_unicode)]
"""A string of valid Unicode: every string a client sends may be echoed or stored."""


def _plain(text: str) -> str:
    """``text`` if it is a name people can read: not blank, no control, direction or invisible characters.

    Invisible ones (zero-width spaces, joiners, Hangul fillers, the braille blank...: :mod:`forsale.server.names`)
    would make two names that read the same, or a name that reads as nothing."""
    if any(unicodedata.category(ch) == "Cc" for ch in text):
        raise ValueError("must hold no control characters (line breaks, tabs, bells...)")
    if any(ch in BIDI_CONTROLS for ch in text):
        raise ValueError("must hold no direction-override characters")
    if any(hidden(ch) for ch in text):
        raise ValueError("must hold no invisible characters (zero-width or format characters, blank letters...)")
    if not any(shows(ch) for ch in text):
        raise ValueError("must hold something besides spaces")
    return text


_NOT_IN_NAMES = "\\x00-\\x1f\\x7f-\\x9f" + regex_ranges(HIDDEN_RANGES)  # the direction controls are hidden too
_NOT_SHOWN = "\\s" + _NOT_IN_NAMES + "".join(f"\\u{ord(ch):04x}" for ch in sorted(EMOJI_SELECTORS))
NAME_PATTERN = f"^[^{_NOT_IN_NAMES}]*[^{_NOT_SHOWN}][^{_NOT_IN_NAMES}]*$"
"""What :func:`_plain` accepts, as a regular expression for the OpenAPI schema, so clients (and fuzzers)
read from the schema which names are refused; the checks stay in :func:`_plain`, for messages in words.
(Characters beyond the first plane are written ``\\U0001xxxx``, as Python's and the fuzzers' expressions read.)"""

Name = Annotated[
    Text, Field(min_length=1, max_length=40, json_schema_extra={"pattern": NAME_PATTERN}), AfterValidator(_plain)
]
"""A seat's or a table's name: shown to everyone at the table, in the lobby and in records."""
Token = Annotated[Text, Field(max_length=200)]
MessageId = (
    Annotated[
        Annotated[Text, Field(max_length=MAX_ID_LENGTH)]
        | Annotated[StrictInt, Field(ge=-MAX_SAFE_INTEGER, le=MAX_SAFE_INTEGER)],
        Field(union_mode="left_to_right"),
    ]
    | None
)
"""A client's message id, echoed in the answer: an integer in the JSON-safe range or a short string, or null."""
message_id: TypeAdapter[str | int | None] = TypeAdapter(MessageId)


def echo_id(data: Any) -> str | int | None:
    """The ``id`` of a decoded message if it is one the protocol allows (so it can be echoed), else None."""
    if not isinstance(data, dict):
        return None
    try:
        return message_id.validate_python(data.get("id"))
    except ValidationError:
        return None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# -- actions -------------------------------------------------------------------
MAX_BID = 10**6
"""Bids above this are malformed (``bad_message``); up to it, a bid above one's coins is ``illegal``."""
MAX_COINS = 100
"""The most starting coins a table may give (every printed rule set gives 28 or fewer): the bots and the
hints weigh every bid a seat could make, so a table of a thousand coins would be a thousand times the work."""


def _true(value: bool) -> bool:
    if value is not True:
        raise ValueError('a pass is {"pass": true}')
    return value


class BidAction(_Strict):
    bid: Annotated[StrictInt, Field(ge=1, le=MAX_BID)]


class PassAction(_Strict):
    # StrictBool, not Literal[True]: a Literal compares by equality, and 1 == 1.0 == True.
    pass_: Annotated[StrictBool, AfterValidator(_true)] = Field(alias="pass")


class SellAction(_Strict):
    sell: Annotated[StrictInt, Field(ge=1, le=30)]


ActionModel = BidAction | PassAction | SellAction


def to_action(model: ActionModel) -> Action:
    if isinstance(model, BidAction):
        return bid(model.bid)
    if isinstance(model, PassAction):
        return PASS
    return _Sell(model.sell)


# -- WebSocket: client -> server ---------------------------------------------------
class Hello(_Strict):
    """Open the session: a seat token to play that seat, no token (or null) to watch."""

    type: Literal["hello"]
    token: Token | None = None
    invite: Token | None = None  # an invitation-only table's code, to watch it (forsale.server.table.invites)
    id: MessageId = None


class Act(_Strict):
    type: Literal["act"]
    action: ActionModel
    id: MessageId = None


class Ping(_Strict):
    type: Literal["ping"]
    id: MessageId = None


class Leave(_Strict):
    type: Literal["leave"]
    id: MessageId = None


CHAT_MAX = 300
"""Characters (code points) a chat message may hold (forsale.server.table.chat)."""


class Chat(_Strict):
    """Say something at the table: plain text, 1-300 characters (forsale.server.table.chat judges the rest)."""

    type: Literal["chat"]
    text: Annotated[Text, Field(min_length=1, max_length=CHAT_MAX)]
    id: MessageId = None


class RematchMessage(_Strict):
    """After the game: offer or accept a rematch (``accept: true``, the default), or decline it (``false``)."""

    type: Literal["rematch"]
    accept: StrictBool = True
    id: MessageId = None


AnyClientMessage = Hello | Act | Ping | Leave | Chat | RematchMessage
ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
client_message: TypeAdapter[AnyClientMessage] = TypeAdapter(ClientMessage)
"""Validates a decoded message (``validate_python``) or a message's JSON text in one step (``validate_json``)."""
CLIENT_TYPES = ("hello", "act", "ping", "leave", "chat", "rematch")


def parse_client_message(data: Any) -> AnyClientMessage:
    """Validate one decoded JSON value; raise ``ValueError`` with a readable message."""
    if not isinstance(data, dict):
        raise ValueError('a message must be a JSON object such as {"type": "ping"}')
    if "id" in data and echo_id(data) is None and data["id"] is not None:  # an id first: any answer carries it
        raise ValueError(
            f"id: must be null, an integer from -{MAX_SAFE_INTEGER} to {MAX_SAFE_INTEGER}, "
            f"or a string of at most {MAX_ID_LENGTH} characters of valid Unicode"
        )
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        shown = repr(kind) if isinstance(kind, str) and len(kind) <= 20 else "in this message"  # echo no junk
        raise ValueError(f"unknown message type {shown}; expected one of {', '.join(CLIENT_TYPES)}")
    try:
        return client_message.validate_python(data)
    except ValidationError as error:
        raise ValueError(describe_validation(error)) from None


_FORMS = ("knobs", "preset")


def describe_validation(error: ValidationError) -> str:
    """``action.bid: Input should be a valid integer`` - one line per problem, no input echoed back."""
    parts = []
    for problem in error.errors(include_url=False, include_input=False)[:5]:
        # Leave out the names of union members (BidAction, the rules' "knobs"/"preset" forms): they are not fields.
        where = ".".join(str(p) for p in problem["loc"] if not str(p).endswith("Action") and p not in _FORMS)
        where = where or "message"
        parts.append(f"{where}: {problem['msg']}")
    return "; ".join(parts)


# -- REST bodies ---------------------------------------------------------------
def _integral(value: Any) -> Any:
    """``4.0`` as ``4``: a float with no fractional part; anything else is left for the strict check to judge."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


# The integers of REST bodies, as the OpenAPI schema's ``integer`` means them: JSON Schema counts ``4.0`` as the
# integer 4 (and a JavaScript client cannot tell them apart), so a body must accept what the published schema
# accepts; ``4.5``, ``"4"`` and ``true`` are still refused. WebSocket messages have no schema and stay stricter.
# (The bounds stand before the validator so that the schema shows them as ``minimum``/``maximum``.)
Coins = Annotated[StrictInt, Field(ge=0, le=MAX_COINS), BeforeValidator(_integral)]
Removed = Annotated[StrictInt, Field(ge=0, le=29), BeforeValidator(_integral)]
Players = Annotated[StrictInt, Field(ge=2, le=6), BeforeValidator(_integral)]
SeatNumber = Annotated[StrictInt, Field(ge=0, le=5), BeforeValidator(_integral)]


class Knobs(_Strict):
    starting_coins: Coins
    removed: Removed
    refund: Literal["down", "up"] = "down"


def _rules_kind(value: Any) -> str:
    """Which form of ``rules`` a body uses, so that only that form's problems are reported (not both forms')."""
    return "knobs" if isinstance(value, dict | Knobs) else "preset"


RulesSpec = (
    Annotated[
        Annotated[Annotated[Text, Field(max_length=40)], Tag("preset")] | Annotated[Knobs, Tag("knobs")],
        Discriminator(_rules_kind),
    ]
    | None
)
"""A preset's name, or the knobs as an object."""
BotSpec = Annotated[Text, Field(min_length=1, max_length=100)]
TimeLimit = Annotated[StrictFloat, Field(ge=1, le=3600, allow_inf_nan=False)] | None
"""Seconds per move: a JSON number (an integer is fine), never a string, a boolean, NaN or Infinity."""
TurnLimit = Annotated[StrictFloat, Field(ge=3600, le=30 * 86400, allow_inf_nan=False)] | None
"""A long clock for a game played over days: seconds per move, from an hour to 30 days (see forsale.server.people.turnmail)."""
BotDelay = Annotated[StrictFloat, Field(ge=0, le=BOT_DELAY_MAX, allow_inf_nan=False)] | None
"""Seconds the table's bots wait before each move, 0 to 10 (:class:`forsale.server.table.config.TableConfig`);
left out or null: the server's ``--bot-delay``."""


class CreateTable(_Strict):
    """``seats[i]``: ``"human"`` (or null) for a seat people join, else a bot spec such as ``"medium"``."""

    name: Name | None = None
    players: Players = 4
    rules: RulesSpec = None
    seats: list[BotSpec | None] | None = None
    time_limit: TimeLimit = None
    turn_limit: TurnLimit = None
    memory_aid: StrictBool = True
    hints: StrictBool = False  # seats may ask what the bot would do (forsale.server.http.routes.analysis)
    private: StrictBool = False
    invite_only: StrictBool = False
    spectator_chat: StrictBool = False
    join: StrictBool = False
    player_name: Name | None = None
    rated: StrictBool = False  # the game updates its players' ratings (forsale.server.people.skill); signed in only
    bot_delay: BotDelay = None


class Solo(_Strict):
    name: Name | None = None
    players: Players = 4
    bot: BotSpec | None = None
    bots: list[BotSpec] | None = None
    rules: RulesSpec = None
    time_limit: TimeLimit = None
    memory_aid: StrictBool = True
    hints: StrictBool = False
    player_name: Name | None = None
    rated: StrictBool = False
    bot_delay: BotDelay = None


class Join(_Strict):
    seat: SeatNumber | None = None
    name: Name | None = None
    invite: Token | None = None


class TokenBody(_Strict):
    token: Token


class Settings(_Strict):
    creator_token: Token
    memory_aid: StrictBool | None = None
    spectator_chat: StrictBool | None = None
    hints: StrictBool | None = None
    bot_delay: BotDelay = None


class CreatorBody(_Strict):
    creator_token: Token


class RematchBody(_Strict):
    """Offer or accept (``accept: true``) or decline (``false``) a rematch, for the seat ``token`` holds."""

    token: Token
    accept: StrictBool = True


# -- accounts (forsale.server.people.accounts judges the name and password rules the schema cannot state) --------
AccountName = Annotated[Text, Field(min_length=1, max_length=100)]
"""A name as sent (at most 24 characters once normalised: see ``accounts.normal_name``)."""
Password = Annotated[Text, Field(min_length=1, max_length=1024)]
"""A password as sent (8 to 256 characters once normalised, no control characters)."""


class Credentials(_Strict):
    """Sign up or sign in."""

    name: AccountName
    password: Password


class ChangePassword(_Strict):
    old_password: Password
    new_password: Password


_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_LOCAL = rf"{_ATEXT}(?:[A-Za-z0-9!#$%&'*+/=?^_`{{|}}~.-]{{0,62}}{_ATEXT})?"  # 1-64, no dot at either end
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
EMAIL_PATTERN = rf"^{_LOCAL}@{_LABEL}(?:\.{_LABEL})+$"
"""One plain address, ``local@domain.tld``: RFC 5322's atoms in ASCII before the ``@`` (at most 64), DNS labels
after it.

Nothing else: no display name, no comment, no quoted local part, no second address (``a@x.org,b@y.org``),
no space, control, format or zero-width character (the server once handed ``RCPT TO:<...\\x00>`` to the mail
server). An internationalised domain is written in its ASCII form (``xn--...``)."""
Email = Annotated[Text, Field(max_length=254, pattern=EMAIL_PATTERN)]
"""An address to send turn notifications to (:data:`EMAIL_PATTERN`); stored unconfirmed until its link is opened."""


Language = Literal["en", "fr", "nl", "it", "de"]
"""A language the server writes emails in: the codes of :data:`forsale.catalogues.LANGUAGES`."""


class EmailBody(_Strict):
    """Set (or with ``null`` remove) the address the server writes to when it is this account's turn.

    ``language``: the language of those emails, one of ``en``, ``fr``, ``nl``, ``it``, ``de`` (the web page
    sends its own); ``null`` means English, and leaving it out keeps the language already stored.
    """

    email: Email | None
    language: Language | None = None


class DeleteAccount(_Strict):
    """Delete the signed-in account: its password again, so a borrowed session cannot."""

    password: Password


class NoFields(_Strict):
    """A body with nothing in it: ``{}``, or no body at all."""


class SignOut(_Strict):
    """``POST /api/signout``: ``{}`` (or no body) ends this session; ``{"everywhere": true}`` ends every session of
    the account and every seat token they could have fetched, as a password change does (a lost phone, a
    forgotten shared computer)."""

    everywhere: StrictBool = False


PairingSize = Annotated[StrictInt, Field(ge=3, le=6), BeforeValidator(_integral)]


class JoinPairing(_Strict):
    """``POST /api/pairing``: quick pairing's wish (:class:`forsale.server.lobby.pairing.Wish`). ``players``: a table
    size, a list of them, or ``"any"``; ``bots_after``: seconds (5 to 600) after which bots fill the free seats,
    or null (never: wait for people)."""

    players: PairingSize | Annotated[list[PairingSize], Field(min_length=1, max_length=4)] | Literal["any"] = "any"
    rated: StrictBool = False
    bots_after: Annotated[StrictFloat, Field(ge=5, le=600, allow_inf_nan=False)] | None = None


TableSize = Annotated[StrictInt, Field(ge=3, le=6), BeforeValidator(_integral)]


class CreateTournament(_Strict):
    """``POST /api/tournaments`` (:class:`forsale.server.lobby.tournaments.Settings`): a Swiss tournament of
    ``rounds`` rounds, or an arena open for ``minutes``; it starts at ``starts_at`` (milliseconds since the epoch,
    within 30 days), or as soon as ``start_players`` have joined, or when its creator starts it. ``fill``: a server
    bot (``"easy"``...) for the seats a round cannot fill with players; null: smaller tables instead."""

    name: Name
    kind: Literal["swiss", "arena"] = "swiss"
    players: TableSize = 4
    rules: RulesSpec = None
    time_limit: Annotated[StrictFloat, Field(ge=5, le=600, allow_inf_nan=False)] = 30.0
    rated: StrictBool = False
    bots: StrictBool = True
    fill: BotSpec | None = None
    rounds: Annotated[StrictInt, Field(ge=1, le=20), BeforeValidator(_integral)] = 3
    minutes: Annotated[StrictFloat, Field(ge=1, le=24 * 60, allow_inf_nan=False)] = 30.0
    starts_at: Annotated[StrictInt, Field(ge=0, le=2**53)] | None = None
    start_players: Annotated[StrictInt, Field(ge=2, le=256), BeforeValidator(_integral)] | None = None
    max_players: Annotated[StrictInt, Field(ge=2, le=256), BeforeValidator(_integral)] = 64
    bot_delay: BotDelay = None
    join: StrictBool = True
