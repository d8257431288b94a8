"""What the server tests share about the WebSocket wire (a helper module, not a test file)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any


def recv(ws: Any, *types: str) -> dict[str, Any]:
    """The next message of one of ``types``, skipping ``table`` notices (seat and connection changes) and the
    ``chat_history`` that follows a welcome where someone has written."""
    while True:
        message = ws.receive_json()
        if message["type"] in types:
            return message
        assert message["type"] in ("table", "chat_history"), message


BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_module(name: str) -> ModuleType:
    """``bench/<name>.py`` as a module (loaded once): the fuzz tests share the fuzzer's probes and checks."""
    key = f"bench_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module
