"""The lobby: every table of this server (or of a cluster's nodes), created, found and collected."""
