"""Batch simulation: many games in lockstep with numpy, statistics, and the rules lab."""
