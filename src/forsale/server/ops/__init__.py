"""Operations: the bot runner, garbage-collector tuning, bad-input logging, slow clients."""
