"""``python -m forsale`` is the ``forsale`` command."""

from .cli import main

raise SystemExit(main())
