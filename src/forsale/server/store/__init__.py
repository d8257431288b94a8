"""The storage floor: the only code that imports SQLAlchemy or runs SQL."""
