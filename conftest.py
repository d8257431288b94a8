"""Make ``src/`` importable when the suite runs from a checkout without an install."""

import sys
from pathlib import Path

SRC = str(Path(__file__).parent / "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)
