"""Agents that play Miaui from observations, behind one small protocol.

An agent acts on a batch: `act(observations (k, 620), masks (k, 12)) -> actions (k,)`, card
indices 0-11 that the masks allow. It owns its random generator (seeded at construction), and
`reset()` clears whatever it remembers between rounds; call it when its games start anew.
Any plain callable `(observations, masks) -> actions` can stand in for an agent too.

An agent may say which view it plays from (`view = "recall"` for a policy trained on it); a table
of mixed agents is then dealt the recall view and narrowed to the table view for the others
(`views_at_table`, `as_seen`). Agents that say nothing take the table's view.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from miaui_env.game.rules import NUM_DIVER_CARDS, is_integer
from miaui_env.game.seeding import Seed, seed_generator
from miaui_env.observe.observation import OBSERVATION_LAYOUT, table_view

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
    """Plays a uniformly random legal action (of 12 by default, both built-in games' count)."""

    name = "random"

    def __init__(self, seed: Seed | None = None, num_actions: int = NUM_DIVER_CARDS):
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
    (for an agent that needs one) a row with no legal card."""


def check_agent(agent: object, what: str = "agent") -> Agent | Policy:
    """`agent` itself if it is an agent (with `act`) or a batched policy function; AgentError otherwise."""
    if isinstance(agent, str | bytes):
        raise AgentError(f"{what}={agent!r} is a name, not an agent; build one first: miaui_env.agents.loading.load_agent({agent!r})")
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
            "(uint8 codes: miaui_env.observe.compact.expand_observations first)"
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


def checked_actions(agent: Agent | Policy, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The agent's cards for a batch, as int64 card indices, each one its mask allows; an agent's
    malformed answer (floats, a wrong length, an illegal card) is an AgentError naming the agent."""
    name = getattr(agent, "name", getattr(agent, "__name__", repr(agent)))
    answer = np.asarray(as_policy(agent)(observations, masks))
    rows = masks.shape[0]
    if answer.shape not in ((rows,), (rows, 1)) or answer.dtype.kind not in "iu":
        raise AgentError(
            f"agent {name!r} answered {answer!r:.80} (dtype {answer.dtype}, shape {answer.shape}); "
            f"an agent returns {rows} integer card indices 0-11"
        )
    actions = answer.reshape(rows).astype(np.int64)
    legal = (actions >= 0) & (actions < masks.shape[1])
    legal[legal] = masks[np.flatnonzero(legal), actions[legal]] > 0
    if not legal.all():
        row = int(np.flatnonzero(~legal)[0])
        legal_here = np.flatnonzero(masks[row]).tolist()
        raise AgentError(f"agent {name!r} played card index {actions[row]} in row {row}, where the legal ones are {legal_here}")
    return actions


class _CallableAgent:
    """A plain batched function playing as an agent."""

    def __init__(self, policy: Policy, name: str):
        self.policy, self.name = policy, name

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The function's cards."""
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


def views_at_table(agents: Sequence[Agent | Policy], default: str) -> tuple[list[str], str]:
    """Each agent's view (`default` for those that do not say), and the view to deal: recall if
    anyone, `default` included, plays from it (R11: it only adds what was once public)."""
    views = [getattr(agent, "view", default) for agent in agents]
    return views, "recall" if "recall" in [*views, default] else "table"


def as_seen(observations: np.ndarray, view: str, dealt: str) -> np.ndarray:
    """Observations dealt in view `dealt` as an agent playing from `view` sees them."""
    return table_view(observations) if view == "table" and dealt == "recall" else observations


def reset_agent(agent: Agent | Policy) -> None:
    """Call the agent's reset if it has one."""
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset()


def builtin_agents() -> dict[str, Callable[[int | None], Agent]]:
    """The agents shipped with the env, by name: random, greedy, counter, search (at its default budget),
    and the playing styles (high, low, extremes, middle, noisy-counter)."""
    from miaui_env.agents.heuristics import CountingAgent, GreedyAgent
    from miaui_env.agents.search import RegretMatchingSearchAgent
    from miaui_env.agents.styles import STYLE_AGENTS

    agents: dict[str, Callable[[int | None], Agent]] = {
        cls.name: cls for cls in (RandomAgent, GreedyAgent, CountingAgent, RegretMatchingSearchAgent)
    }
    return agents | {style.name: style for style in STYLE_AGENTS}
