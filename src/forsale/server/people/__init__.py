"""People: accounts, sessions, profiles, ratings, turn mail and the mailer."""
