"""Operations: the bot runner, garbage-collector tuning, bad-input logging, slow clients, rate limits; what
keeps a server up under load, whatever the game."""
