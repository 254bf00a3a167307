"""Trained policies as agents: one masked-policy agent class, and loaders for SB3 and RLlib runs.

`PolicyAgent` plays any policy with sb3-contrib's masked `predict` (a MaskablePPO model, its
policy network, a frozen snapshot of it, or an exported RLlib module behind `RLlibModulePolicy`),
and never an illegal card: the mask goes into the action distribution before a card is chosen.
`deterministic=True` plays the most likely card, `False` samples the policy's mixed strategy.
The loaders need the `[train]` extra (SB3) or the `[rllib]` extra (Ray).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from miaui_env.files import CheckpointError, read_metadata


class MaskedPolicy(Protocol):
    """A policy with sb3-contrib's masked `predict`: (actions, recurrent state) for a batch."""

    def predict(
        self, observation: np.ndarray, state: Any = None, episode_start: Any = None, deterministic: bool = False, action_masks: Any = None
    ) -> tuple[np.ndarray, Any]:
        """Actions (k,) for observations (k, D), choosing only where `action_masks` (k, 12) allow."""
        ...


class PolicyAgent:
    """A trained policy playing the table: its most likely legal card, or one sampled from it."""

    def __init__(self, policy: MaskedPolicy, name: str, view: str = "table", deterministic: bool = True):
        self.policy, self.name, self.view, self.deterministic = policy, name, view, deterministic

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's card for every row, never an illegal one."""
        actions, _ = self.policy.predict(observations, action_masks=np.asarray(masks).astype(bool), deterministic=self.deterministic)
        return np.asarray(actions)

    def reset(self) -> None:
        """The policy remembers nothing."""


def load_sb3_policy(path: Path, name: str | None = None, deterministic: bool = True) -> PolicyAgent:
    """A MaskablePPO run (its directory, or a model .zip), seeing the view it was trained on."""
    from sb3_contrib import MaskablePPO

    model_file = path / "model.zip" if path.is_dir() else path
    metadata = read_metadata(model_file.parent / "metadata.json")
    try:
        model = MaskablePPO.load(model_file, device="cpu")
    except (ValueError, KeyError, OSError, RuntimeError, zipfile.BadZipFile) as error:
        raise CheckpointError(f"{model_file} is not a loadable MaskablePPO model ({error})") from None
    name = name or (path.name if path.is_dir() else path.stem)
    return PolicyAgent(model, name, metadata.get("view", "table"), deterministic)


class RLlibModulePolicy:
    """An exported RLlib RLModule with the masked `predict` of `MaskedPolicy` (its logits are masked
    by the module itself, training/rllib_module.py)."""

    def __init__(self, path: Path):
        from ray.rllib.core.rl_module.rl_module import RLModule

        self.module = RLModule.from_checkpoint(str(path))
        self.rng = np.random.default_rng(0)

    def predict(
        self, observation: np.ndarray, state: Any = None, episode_start: Any = None, deterministic: bool = False, action_masks: Any = None
    ) -> tuple[np.ndarray, None]:
        """The module's best (or a sampled) legal card for every row."""
        import torch
        from ray.rllib.core.columns import Columns

        masks = torch.as_tensor(np.asarray(action_masks), dtype=torch.float32)
        batch = {Columns.OBS: {"observation": torch.as_tensor(observation), "action_mask": masks}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        if deterministic:
            return np.asarray(logits.argmax(dim=-1)), None
        probabilities = torch.softmax(logits, dim=-1).numpy().astype(np.float64)
        probabilities /= probabilities.sum(axis=-1, keepdims=True)
        return np.array([self.rng.choice(len(p), p=p) for p in probabilities]), None


def load_rllib_policy(path: Path, name: str | None = None, view: str | None = None) -> PolicyAgent:
    """An exported RLlib policy (a run's policy/ folder), seeing the view its run trained on."""
    metadata = read_metadata(path.parent / "metadata.json")
    return PolicyAgent(RLlibModulePolicy(path), name or path.parent.name, view or metadata.get("view", "table"))
