"""A script of this checkout loaded as a module, so that tests can call its functions.

The benchmarks (``bench/*.py``) and the data generators (``tests/data/*.py``) are scripts, run as
``python bench/x.py``, not modules of a package: a test that checks one of their functions loads the file itself.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_script(path: Path) -> ModuleType:
    """The script at ``path``, executed as a fresh module named after its file (``script_<stem>``)."""
    spec = importlib.util.spec_from_file_location(f"script_{path.stem}", path)
    assert spec is not None and spec.loader is not None, f"not a Python script: {path}"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
