"""Bots: agents that play from a seat's view, built by name from one registry.

>>> from forsale.bots import make_agent
>>> make_agent("random").name
'random'
"""

from .protocol import Agent
from .registry import DEFAULT_BOT, agent_names, describe_agents, make_agent, register

__all__ = ["DEFAULT_BOT", "Agent", "agent_names", "describe_agents", "make_agent", "register"]
