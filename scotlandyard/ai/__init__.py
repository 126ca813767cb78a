"""AI players for both sides, and the arena that measures them."""

from .base import Agent, Budget, RandomAgent, agent_names, make_agent, register, register_policy

__all__ = ["Agent", "Budget", "RandomAgent", "agent_names", "make_agent", "register",
           "register_policy"]
