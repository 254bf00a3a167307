"""Agents that play Miaui from observations, behind one small protocol.

An agent acts on a batch: `act(observations (k, 620), masks (k, 12)) -> actions (k,)`, card
indices 0-11 that the masks allow. It owns its random generator (seeded at construction), and
`reset()` clears whatever it remembers between rounds; call it when its games start anew.
Any plain callable `(observations, masks) -> actions` can stand in for an agent too. The protocol
and its checks are every game's (`miaui_env.core.agents`); this module names them for Miaui's users.

An agent may say which view it plays from (`view = "recall"` for a policy trained on it); a table
of mixed agents is then dealt the recall view and narrowed to the table view for the others
(`views_at_table`, `as_seen`). Agents that say nothing take the table's view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from miaui_env.core.agents import (
    Agent,
    AgentBatchError,
    AgentError,
    Policy,
    RandomAgent,
    agent_name,
    as_agent,
    as_policy,
    check_agent,
    checked_actions,
    reset_agent,
)
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT, table_view
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS


def checked_batch(observations: object, masks: object, who: str) -> tuple[np.ndarray, np.ndarray]:
    """A batch a built-in Miaui agent can read: (rows, 620) float observations and (rows, 12) masks of
    0s and 1s, one per row; AgentError naming what is wrong otherwise. A row may allow nothing (a
    batched caller's finished game): the agent answers some card there, which no env plays."""
    seen = np.asarray(observations)
    legal = np.asarray(masks)
    width = OBSERVATION_LAYOUT.size
    if seen.ndim != 2 or seen.shape[1] != width or not np.issubdtype(seen.dtype, np.floating):
        raise AgentBatchError(
            f"{who} reads float observations of shape (rows, {width}), got dtype {seen.dtype} shape {seen.shape} "
            "(uint8 codes: miaui_env.games.miaui.compact.expand_observations first)"
        )
    if legal.shape != (len(seen), NUM_DIVER_CARDS) or not (np.issubdtype(legal.dtype, np.number) or legal.dtype == bool):
        expected = f"({len(seen)}, {NUM_DIVER_CARDS})"
        raise AgentBatchError(f"{who} takes numeric masks of shape {expected}, one per row; got dtype {legal.dtype} shape {legal.shape}")
    if ((legal != 0) & (legal != 1)).any():
        raise AgentBatchError(f"{who} takes masks of 0s and 1s; got {np.unique(legal).tolist()[:8]}")
    finite = np.isfinite(seen).all(axis=1)
    if not finite.all():
        raise AgentBatchError(f"{who} reads finite observations; row {int(np.argmin(finite))} holds NaN or inf")
    return seen, legal


def views_at_table(agents: Sequence[Agent | Policy], default: str) -> tuple[list[str], str]:
    """Each agent's view (`default` for those that do not say), and the view to deal: recall if
    anyone, `default` included, plays from it (R11: it only adds what was once public)."""
    views = [getattr(agent, "view", default) for agent in agents]
    return views, "recall" if "recall" in [*views, default] else "table"


def as_seen(observations: np.ndarray, view: str, dealt: str) -> np.ndarray:
    """Observations dealt in view `dealt` as an agent playing from `view` sees them."""
    return table_view(observations) if view == "table" and dealt == "recall" else observations


def builtin_agents() -> dict[str, Callable[[int | None], Agent]]:
    """The agents shipped with the env, by name: random, greedy, counter, search (at its default budget),
    and the playing styles (high, low, extremes, middle, noisy-counter)."""
    from miaui_env.games.miaui.agents.heuristics import CountingAgent, GreedyAgent
    from miaui_env.games.miaui.agents.search import RegretMatchingSearchAgent
    from miaui_env.games.miaui.agents.styles import STYLE_AGENTS

    agents: dict[str, Callable[[int | None], Agent]] = {
        cls.name: cls for cls in (RandomAgent, GreedyAgent, CountingAgent, RegretMatchingSearchAgent)
    }
    return agents | {style.name: style for style in STYLE_AGENTS}


__all__ = [
    "Agent",
    "AgentBatchError",
    "AgentError",
    "Policy",
    "RandomAgent",
    "agent_name",
    "as_agent",
    "as_policy",
    "as_seen",
    "builtin_agents",
    "check_agent",
    "checked_actions",
    "checked_batch",
    "reset_agent",
    "views_at_table",
]
