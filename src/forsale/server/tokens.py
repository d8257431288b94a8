"""Secret tokens (seats, creators, sessions, invitations, email links) and the hashes the server keeps of them."""

from __future__ import annotations

import hashlib
import secrets

TOKEN_BYTES = 24


def hash_token(token: str) -> str:
    """Tokens are stored hashed: a copy of the database does not let anyone act for a seat."""
    return hashlib.sha256(token.encode()).hexdigest()


# The names the server gives what nobody named. They are English, stored and sent as they are (records keep
# them); the web page recognises these forms and says them in its own language (shownName and shownTableName
# in web/static/js/format.js, which tests/server/test_server_names.py holds to these).
def new_token() -> tuple[str, str]:
    """A fresh secret token and the hash the server keeps of it."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, hash_token(token)
