"""The agent protocol every game's agents follow, and the checks every table makes of them.

An agent acts on a batch: `act(observations (k, D), masks (k, A)) -> actions (k,)`, action indices
that the masks allow. It owns its random generator (seeded at construction), and `reset()` clears
whatever it remembers between games; call it when its games start anew. Any plain callable
`(observations, masks) -> actions` can stand in for an agent too (`as_agent`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np

from miaui_env.core.errors import is_integer
from miaui_env.core.seeding import Seed, seed_generator

DEFAULT_ACTIONS = 12
"""The random agent's action count when none is given: both built-in games have 12 (Miaui's diver
cards, the octopus game's decisions)."""


Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]


@runtime_checkable
class Agent(Protocol):
    """What the env adapters, the arena and human play need of an agent."""

    name: str

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Action indices (k,) for a batch of observations (k, D) and action masks (k, A)."""
        ...

    def reset(self) -> None:
        """Forget everything remembered from earlier rounds (new games begin)."""
        ...


class RandomAgent:
    """Plays a uniformly random legal action (of DEFAULT_ACTIONS unless told otherwise)."""

    name = "random"

    def __init__(self, seed: Seed | None = None, num_actions: int = DEFAULT_ACTIONS):
        if not is_integer(num_actions) or num_actions < 1:
            raise AgentError(f"num_actions={num_actions!r:.40} is not allowed; it is an integer >= 1, the game's action count")
        self.rng, self.num_actions = seed_generator(seed), int(num_actions)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A random legal action for every row; AgentError for masks of another shape than
        (rows, num_actions), or a row that allows nothing."""
        masks = np.asarray(masks)
        rows = np.shape(observations)[0] if np.ndim(observations) > 0 else None
        if masks.ndim != 2 or masks.shape[1] != self.num_actions or len(masks) != rows:
            raise AgentError(
                f"the random agent takes masks of shape (rows, {self.num_actions}), one per observation row; "
                f"got {masks.shape} for {rows if rows is not None else 'no'} rows"
            )
        if masks.dtype.kind not in "biuf" or ((masks != 0) & (masks != 1)).any():
            shown = np.unique(masks).tolist()[:8] if masks.dtype.kind in "biuf" else masks.dtype
            raise AgentError(f"the random agent takes masks of 0s and 1s; got {shown}")
        if not masks.any(axis=1).all():
            raise AgentError(f"the random agent was asked to act where nothing is legal (mask row {int(np.argmin(masks.any(axis=1)))})")
        return np.asarray(np.argmax(self.rng.random(masks.shape) * masks, axis=-1))

    def reset(self) -> None:
        """Nothing is remembered."""


class AgentError(ValueError):
    """Something given as an agent that is neither an agent nor a batched policy function, or an
    agent's malformed answer."""


class AgentBatchError(AgentError):
    """A batch an agent cannot act on: observations or masks of another shape, dtype or values, or
    (for an agent that needs one) a row with no legal action."""


def check_agent(agent: object, what: str = "agent") -> Agent | Policy:
    """`agent` itself if it is an agent (with `act`) or a batched policy function; AgentError otherwise."""
    if isinstance(agent, str | bytes):
        raise AgentError(
            f"{what}={agent!r} is a name, not an agent; build one first with its game's loader: "
            f"miaui_env.games.get_game(GAME).load_agent({agent!r})"
        )
    if isinstance(agent, type):
        raise AgentError(f"{what}={agent.__name__} is a class, not an agent; pass an instance, e.g. {agent.__name__}()")
    if not callable(getattr(agent, "act", None)) and not callable(agent):
        raise AgentError(f"{what}={agent!r:.60} is neither an agent (with act(observations, masks)) nor a batched policy function")
    if not callable(getattr(agent, "act", None)) and callable(agent):
        try:
            signature = inspect.signature(agent)
        except ValueError:  # a builtin without a signature: nothing to check
            return agent
        try:
            signature.bind(None, None)
        except TypeError:
            name = getattr(agent, "__name__", type(agent).__name__)
            raise AgentError(f"{what}={name} takes {signature}; a batched policy function takes (observations, masks)") from None
    return agent  # type: ignore[return-value]


def agent_name(agent: Agent | Policy) -> str:
    """An agent's name (a plain policy function's own name, else its type's)."""
    return str(getattr(agent, "name", getattr(agent, "__name__", type(agent).__name__)))


def checked_actions(agent: Agent | Policy, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The agent's actions for a batch, as int64 indices, each one its mask allows; an agent's
    malformed answer (floats, a wrong length, an illegal action) is an AgentError naming the agent."""
    name = getattr(agent, "name", getattr(agent, "__name__", repr(agent)))
    answer = np.asarray(as_policy(agent)(observations, masks))
    rows = masks.shape[0]
    if answer.shape not in ((rows,), (rows, 1)) or answer.dtype.kind not in "iu":
        raise AgentError(
            f"agent {name!r} answered {answer!r:.80} (dtype {answer.dtype}, shape {answer.shape}); "
            f"an agent returns {rows} integer action indices 0-{masks.shape[1] - 1}"
        )
    actions = answer.reshape(rows).astype(np.int64)
    legal = (actions >= 0) & (actions < masks.shape[1])
    legal[legal] = masks[np.flatnonzero(legal), actions[legal]] > 0
    if not legal.all():
        row = int(np.flatnonzero(~legal)[0])
        legal_here = np.flatnonzero(masks[row]).tolist()
        raise AgentError(f"agent {name!r} played action index {actions[row]} in row {row}, where the legal ones are {legal_here}")
    return actions


class _CallableAgent:
    """A plain batched function playing as an agent."""

    def __init__(self, policy: Policy, name: str):
        self.policy, self.name = policy, name

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The function's actions."""
        return np.asarray(self.policy(observations, masks))

    def reset(self) -> None:
        """A plain function remembers nothing."""


def as_agent(agent: Agent | Policy | object, name: str | None = None) -> Agent:
    """An agent as it is, or a plain batched function `(observations, masks) -> actions` wrapped as
    one (AgentError for anything else)."""
    check_agent(agent)
    if callable(getattr(agent, "act", None)):
        return agent  # type: ignore[return-value]
    return _CallableAgent(agent, name or getattr(agent, "__name__", "policy"))  # type: ignore[arg-type]


def as_policy(agent: Agent | Policy) -> Policy:
    """The batched `(observations, masks) -> actions` function of an agent or callable."""
    act = getattr(agent, "act", None)
    return act if callable(act) else agent  # type: ignore[return-value]


def reset_agent(agent: Agent | Policy) -> None:
    """Call the agent's reset if it has one."""
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset()
