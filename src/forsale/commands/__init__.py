"""One module per ``forsale`` subcommand; each provides ``register(subparsers)``."""
