"""Turn an agent spec into an agent: a built-in name, a checkpoint, or a user's `module:callable`.

    load_agent("counter", seed=0)                      # random, greedy, counter
    load_agent("checkpoints/miaui-ppo-v0", seed=0)     # a trained policy (directory or model.zip)
    load_agent("checkpoints/miaui-rllib", seed=0)      # an RLlib run (its exported policy/)
    load_agent("my_package.bots:make_bot", seed=0)     # called with seed= if it accepts it

A callable that returns an object with `act` is an agent factory; any other callable is used as a
batched policy `(observations, masks) -> actions` itself.
"""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.agents import Agent, builtin_agents
from miaui_env.observation import OBSERVATION_VERSION


class AgentSpecError(ValueError):
    """An agent spec that names nothing we can load."""


class CheckpointVersionError(ValueError):
    """A checkpoint trained on another observation layout than this library's."""


class PolicyAgent:
    """A trained MaskablePPO policy playing its most likely legal card."""

    def __init__(self, path: Path, name: str | None = None, deterministic: bool = True):
        from sb3_contrib import MaskablePPO

        model_file = path / "model.zip" if path.is_dir() else path
        metadata_file = model_file.parent / "metadata.json"
        metadata = json.loads(metadata_file.read_text()) if metadata_file.exists() else {}
        self.view = metadata.get("view", "table")  # what the policy was trained to see
        if metadata:
            version = metadata.get("observation_version")
            if version != OBSERVATION_VERSION:
                raise CheckpointVersionError(
                    f"{model_file} was trained on observation layout version {version}, "
                    f"but this library builds version {OBSERVATION_VERSION}; retrain it or use a matching miaui-rl"
                )
        self.model = MaskablePPO.load(model_file, device="cpu")
        self.name = name or (path.name if path.is_dir() else path.stem)
        self.deterministic = deterministic

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's card for every row, never an illegal one."""
        actions, _ = self.model.predict(observations, action_masks=masks.astype(bool), deterministic=self.deterministic)
        return np.asarray(actions)

    def reset(self) -> None:
        """The policy remembers nothing."""


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
        from training.rllib_selfplay import RLlibPolicyAgent

        return RLlibPolicyAgent(path / "policy")
    if path.suffix == ".zip" or (path.is_dir() and (path / "model.zip").exists()):
        if not (path.exists()):
            raise AgentSpecError(f"checkpoint {spec!r} does not exist")
        return PolicyAgent(path)
    shipped = Path(__file__).resolve().parent.parent / "checkpoints" / spec
    if (shipped / "model.zip").exists():
        return PolicyAgent(shipped)
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
        return made  # type: ignore[no-any-return]
    return _CallableAgent(target, attribute)


def _returns_agent(function: Any) -> bool:
    """Whether a callable is an agent factory (takes no observations) rather than a policy."""
    try:
        parameters = [p for p in inspect.signature(function).parameters.values() if p.default is inspect.Parameter.empty]
    except (TypeError, ValueError):
        return False
    return len(parameters) == 0
