"""Which subcommand needs which optional extra, and the one check they all use.

The engine needs nothing beyond the standard library, so ``pip install
forsale`` alone must give a working ``forsale --help`` and ``forsale
replay``. Every other subcommand calls :func:`require` first thing in its
``run``: it imports the third-party packages that subcommand (or one of its
options) needs, and when one is not installed it raises :class:`MissingExtra`,
which ``forsale`` prints as one line naming the extra and exits 2 with, never
a traceback. Checking up front also means a long run never fails at its end
for want of, say, matplotlib for ``--plot``.

Only a ``ModuleNotFoundError`` raised while importing one of the listed
third-party packages counts as a missing extra; a module missing anywhere
else (one of our own, say) is a bug and keeps its traceback.
"""

from __future__ import annotations

import importlib

NEEDS: dict[str, tuple[str, tuple[str, ...]]] = {
    # feature: (extra, the top-level packages it imports)
    "simulate": ("sim", ("numpy", "rich")),
    "simulate --plot": ("sim", ("matplotlib",)),
    "lab": ("sim", ("numpy", "rich")),
    "lab --plot": ("sim", ("matplotlib",)),
    "tournament": ("arena", ("openskill", "rich")),
    "tournament --plot": ("arena", ("matplotlib",)),
    "tournament --backend ray": ("ray", ("ray",)),
    "play": ("tui", ("rich",)),
    "show": ("tui", ("rich",)),
    "analyse": ("tui", ("rich",)),
    "serve": (
        "server",
        ("fastapi", "starlette", "pydantic", "sqlalchemy", "uvicorn", "websockets", "openskill", "prometheus_client"),
    ),
    "serve --db postgresql://": ("server", ("psycopg",)),
    "ratings": ("server", ("sqlalchemy", "openskill")),
    "ratings --db postgresql://": ("server", ("psycopg",)),
    "connect": ("client", ("httpx", "websockets")),
    "train": ("train", ("numpy", "torch", "rich")),
    "train --plot": ("train", ("matplotlib",)),
}
"""Every feature of the command line that needs more than the engine; ``replay`` needs nothing."""


class MissingExtra(Exception):
    """A feature's extra is not installed; ``str()`` is the one line ``forsale`` prints."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        super().__init__(
            f"forsale {feature} needs the {extra!r} extra: pip install 'forsale[{extra}]' ({module} is not installed)"
        )
        self.feature, self.extra, self.module = feature, extra, module


def require(*features: str) -> None:
    """Import what ``features`` (keys of :data:`NEEDS`) need; :class:`MissingExtra` if something is absent.

    Any ``ModuleNotFoundError`` while importing one of these packages means
    the extra is not (completely) installed, whichever module it names: a
    package whose own dependency is missing is just as unusable.
    """
    for feature in features:
        extra, modules = NEEDS[feature]
        for module in modules:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as error:
                raise MissingExtra(feature, extra, error.name or module) from None
