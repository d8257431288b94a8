"""The one exception the server raises for a request it turns down.

Both front doors use it: the REST routes answer it as an HTTP error
(:mod:`forsale.server.app`) and the WebSocket loop as an ``error`` message to
the sender only (:mod:`forsale.server.http.ws`). The tables, seats, clocks and
lobby raise it without knowing which door the request came through, so it
lives apart from all of them.
"""

from __future__ import annotations

from ..refusals import Params


class Refused(Exception):
    """A request the server turns down; ``code`` is machine-readable, the message is for people.

    ``params`` (optional) are the refusal's facts as data, for a client that speaks its
    player's language: ``why`` (which explanation of the code) and the numbers the
    message names (:data:`forsale.refusals.Params`). A WebSocket ``error`` carries them.
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 400,
        headers: dict[str, str] | None = None,
        params: Params | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.headers = headers  # e.g. Retry-After with a 429
        self.params = params
