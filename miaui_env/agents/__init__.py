"""Agents that play Miaui from observations, behind one small protocol.

An agent acts on a batch: `act(observations (k, 620), masks (k, 12)) -> actions (k,)`, card
indices 0-11 that the masks allow. It owns its random generator (seeded at construction), and
`reset()` clears whatever it remembers between rounds; call it when its games start anew.
Any plain callable `(observations, masks) -> actions` can stand in for an agent too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np

Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]


@runtime_checkable
class Agent(Protocol):
    """What the env adapters, the arena and human play need of an agent."""

    name: str

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Card indices (k,) for a batch of observations (k, D) and action masks (k, 12)."""
        ...

    def reset(self) -> None:
        """Forget everything remembered from earlier rounds (new games begin)."""
        ...


class RandomAgent:
    """Plays a uniformly random legal card."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A random legal card for every row."""
        return np.argmax(self.rng.random(masks.shape) * masks, axis=-1)

    def reset(self) -> None:
        """Nothing is remembered."""


def as_policy(agent: Agent | Policy) -> Policy:
    """The batched `(observations, masks) -> actions` function of an agent or callable."""
    act = getattr(agent, "act", None)
    return act if callable(act) else agent  # type: ignore[return-value]


def reset_agent(agent: Agent | Policy) -> None:
    """Call the agent's reset if it has one."""
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset()


def builtin_agents() -> dict[str, type]:
    """The agents shipped with the env, by name: random, greedy, counter."""
    from miaui_env.agents.heuristics import CountingAgent, GreedyAgent

    return {cls.name: cls for cls in (RandomAgent, GreedyAgent, CountingAgent)}
