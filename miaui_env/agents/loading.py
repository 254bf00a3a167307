"""Turn an agent spec into an agent: a built-in name, a checkpoint, or a user's `module:callable`.

    load_agent("counter", seed=0)                      # random, greedy, counter
    load_agent("checkpoints/miaui-ppo-v0", seed=0)     # a trained policy (directory or model.zip)
    load_agent("miaui-ppo-v0")                         # a policy shipped in checkpoints/
    load_agent("checkpoints/miaui-rllib", seed=0)      # an RLlib run (its exported policy/)
    load_agent("my_package.bots:make_bot", seed=0)     # called with seed= if it accepts it
    load_agents(["counter", "random"], seed=0)         # a lineup, seeded from one seed tree

A callable that returns an object with `act` is an agent factory; any other callable is used as a
batched policy `(observations, masks) -> actions` itself.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from miaui_env.agents import Agent, builtin_agents
from miaui_env.agents.policy import load_rllib_policy, load_sb3_policy
from miaui_env.seeding import seed_children, seed_int

SHIPPED_POLICIES = Path(__file__).resolve().parents[2] / "checkpoints"


class AgentSpecError(ValueError):
    """An agent spec that names nothing we can load."""


class _CallableAgent:
    """A plain batched function wrapped as an agent."""

    def __init__(self, policy: Any, name: str):
        self.policy, self.name = policy, name

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.asarray(self.policy(observations, masks))

    def reset(self) -> None:
        """A plain function remembers nothing."""


def load_agent(spec: str, seed: int | None = None) -> Agent:
    """The agent `spec` names; see the module docstring."""
    builtins = builtin_agents()
    if spec in builtins:
        return builtins[spec](seed)
    path = Path(spec)
    if (path / "policy" / "class_and_ctor_args.pkl").exists():  # an RLlib run (needs the [rllib] extra)
        return load_rllib_policy(path / "policy")
    if path.suffix == ".zip" or (path.is_dir() and (path / "model.zip").exists()):
        if not path.exists():
            raise AgentSpecError(f"checkpoint {spec!r} does not exist")
        return load_sb3_policy(path)
    shipped = SHIPPED_POLICIES / spec
    if (shipped / "model.zip").exists():
        return load_sb3_policy(shipped)
    module_name, sep, attribute = spec.partition(":")
    if not sep:
        raise AgentSpecError(
            f"agent {spec!r} is not a built-in ({', '.join(builtins)}), a checkpoint (a directory with "
            f"model.zip, or a .zip file), a shipped policy in checkpoints/, or a module:callable"
        )
    try:
        target = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise AgentSpecError(f"cannot load agent {spec!r}: {error}") from None
    if inspect.isclass(target) or _returns_agent(target):
        made = target(seed=seed) if "seed" in inspect.signature(target).parameters else target()
        if not callable(getattr(made, "act", None)):
            raise AgentSpecError(f"{spec} returned {made!r}, which has no act(observations, masks) method")
        if not hasattr(made, "name"):
            made.name = attribute
        return cast(Agent, made)  # it has act(); the protocol's other parts are duck-typed
    return _CallableAgent(target, attribute)


def load_agents(specs: Sequence[str], seed: int) -> list[Agent]:
    """The agents `specs` name, each seeded from its own child of `seed`'s tree (SeedSequence.spawn),
    so that equal specs at one table still play independently."""
    return [load_agent(spec, seed=seed_int(child)) for spec, child in zip(specs, seed_children(seed, len(specs)), strict=True)]


def _returns_agent(function: Any) -> bool:
    """Whether a callable is an agent factory (takes no observations) rather than a policy."""
    try:
        parameters = [p for p in inspect.signature(function).parameters.values() if p.default is inspect.Parameter.empty]
    except (TypeError, ValueError):
        return False
    return len(parameters) == 0
