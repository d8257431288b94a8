"""One live table: its game, seats, snapshots, clocks and bots' turns, chat, rematch and invitations."""
