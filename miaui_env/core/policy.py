"""Trained policies as agents: one masked-policy agent class, and loaders for SB3 and RLlib runs.

`PolicyAgent` plays any policy with sb3-contrib's masked `predict` (a MaskablePPO model, its
policy network, a frozen snapshot of it, or an exported RLlib module behind `RLlibModulePolicy`),
and never an illegal action: the mask goes into the action distribution before an action is chosen.

Two ways to play (agent specs spell them `miaui-ppo-v0@best` and `miaui-ppo-v0@sample`, see
miaui_env/core/loading.py): `deterministic=True` plays the most likely action; `False` plays the
mixed strategy the policy learned, an action drawn from its masked distribution. Given a `seed`, the
agent draws from its own generator, so the same seed plays the same games; without one (or for a
policy that has nothing but `predict`) it samples as the policy's own `predict` does (torch's
global generator, which SB3 seeds from its run seed: the self-play trainer's snapshots play so).
The loaders need the `[train]` extra (SB3) or the `[rllib]` extra (Ray).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from miaui_env.core.checkpoint import CheckpointError, read_metadata
from miaui_env.core.policy_spec import policy_objects
from miaui_env.core.registry import LEGACY_GAME, get_game
from miaui_env.core.seeding import seed_generator


class MaskedPolicy(Protocol):
    """A policy with sb3-contrib's masked `predict`: (actions, recurrent state) for a batch."""

    def predict(
        self, observation: np.ndarray, state: Any = None, episode_start: Any = None, deterministic: bool = False, action_masks: Any = None
    ) -> tuple[np.ndarray, Any]:
        """Actions (k,) for observations (k, D), choosing only where `action_masks` (k, A) allow."""
        ...


class PolicyAgent:
    """A trained policy playing the table: its most likely legal action, or one sampled from it."""

    def __init__(self, policy: MaskedPolicy, name: str, view: str = "table", deterministic: bool = True, seed: int | None = None):
        self.policy, self.name, self.view, self.deterministic = policy, name, view, deterministic
        # Its own draws need the policy's chances: an SB3 network (or a model holding one) or RLlibModulePolicy gives them.
        chances = hasattr(policy, "action_probabilities") or hasattr(getattr(policy, "policy", policy), "get_distribution")
        self.rng = seed_generator(seed) if seed is not None and chances else None

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's action for every row, never an illegal one."""
        legal = np.asarray(masks).astype(bool)
        if self.deterministic or self.rng is None:
            actions, _ = self.policy.predict(observations, action_masks=legal, deterministic=self.deterministic)
            return np.asarray(actions)
        probabilities = action_probabilities(self.policy, observations, legal) * legal  # a masked action's tiny rest is not drawn
        cumulative = np.cumsum(probabilities, axis=-1)
        cumulative /= cumulative[:, -1:]
        # Inverse transform: the first action whose cumulative chance passes the draw (one of chance 0 never is).
        return np.asarray((self.rng.random((len(legal), 1)) >= cumulative).sum(axis=-1), dtype=np.int64)

    def reset(self) -> None:
        """The policy remembers nothing."""


def action_probabilities(policy: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(k, A) float64 chances of each action under the masked policy: an SB3 policy network or a model
    holding one (`get_distribution`), or anything with `action_probabilities` (RLlibModulePolicy)."""
    own = getattr(policy, "action_probabilities", None)
    if callable(own):
        return np.asarray(own(observations, masks), dtype=np.float64)
    import torch

    network = getattr(policy, "policy", policy)  # a MaskablePPO model holds its policy network
    network.set_training_mode(False)  # as predict does (dropout, batch norm)
    tensor, _ = network.obs_to_tensor(observations)
    with torch.no_grad():
        distribution = network.get_distribution(tensor, action_masks=masks)
    return np.asarray(distribution.distribution.probs.cpu().numpy(), dtype=np.float64)


def load_named_model(model_class: Any, model_file: Path, metadata: Any, **kwargs: Any) -> Any:
    """`model_class.load(model_file, ...)` building the network its metadata names (`policy`), not the
    classes the save pickled; CheckpointError for a save whose pickles name a module path this
    library no longer has (a run saved by 0.1 without the names)."""
    named = policy_objects(metadata["policy"]) if isinstance(metadata, dict) and "policy" in metadata else None
    try:
        return model_class.load(model_file, custom_objects=named, **kwargs)
    except ImportError as error:
        raise CheckpointError(
            f"{model_file} pickles a module path this library no longer has ({error}): a run saved by miaui-rl 0.1; "
            f'name its network in {model_file.parent / "metadata.json"} ("policy", see docs/errors.md, Upgrading to 0.3) '
            "or load it with miaui-rl 0.2"
        ) from None


def load_sb3_policy(
    path: Path, name: str | None = None, deterministic: bool | None = None, seed: int | None = None, metadata: dict[str, Any] | None = None
) -> PolicyAgent:
    """A MaskablePPO run (its directory, or a model .zip), seeing the view it was trained on and
    playing as its metadata's `play` says (`best` unless it says `sample`; `deterministic` decides
    instead when given); `seed` seeds its draws when it samples. `metadata`: the run's metadata,
    already read and checked by the caller (another game's loader), else read here for Miaui."""
    from sb3_contrib import MaskablePPO

    model_file = path / "model.zip" if path.is_dir() else path
    if metadata is None:
        metadata = read_metadata(model_file.parent / "metadata.json")  # Miaui's, checked before its layout version
    try:
        with zipfile.ZipFile(model_file) as archive:  # SB3 only asserts its `data` member (and -O drops that)
            if "data" not in archive.namelist():
                raise ValueError("it has no 'data' member, so it is no Stable-Baselines3 save")
        model = load_named_model(MaskablePPO, model_file, metadata, device="cpu")
    except (ValueError, KeyError, OSError, RuntimeError, zipfile.BadZipFile) as error:
        raise CheckpointError(f"{model_file} is not a loadable MaskablePPO model ({error})") from None
    name = name or (path.name if path.is_dir() else path.stem)
    play = metadata.get("play", "best")
    if play not in ("best", "sample"):
        raise CheckpointError(f"{model_file.parent / 'metadata.json'} says play={play!r:.40}; a policy plays 'best' or 'sample'")
    if deterministic is None:
        deterministic = play != "sample"
    return PolicyAgent(model, name, metadata.get("view", "table"), deterministic, seed)


RLLIB_EXTRA = 'install the [rllib] extra: pip install "miaui-rl[rllib]" (pip install -e ".[rllib]" in a checkout)'


class RLlibModulePolicy:
    """An exported RLlib RLModule with the masked `predict` of `MaskedPolicy` (its logits are masked
    by the module itself, training/rllib_module.py)."""

    def __init__(self, path: Path):
        try:
            from ray.rllib.core.rl_module.rl_module import RLModule
        except ModuleNotFoundError as missing:
            if (missing.name or "ray").partition(".")[0] != "ray":
                raise
            raise CheckpointError(f"{path} is an RLlib policy, and reading it needs Ray, which is not installed: {RLLIB_EXTRA}") from None

        self.module = RLModule.from_checkpoint(str(path))
        self.rng = seed_generator(0)  # one fixed stream: a PolicyAgent with a seed draws from its own

    def predict(
        self, observation: np.ndarray, state: Any = None, episode_start: Any = None, deterministic: bool = False, action_masks: Any = None
    ) -> tuple[np.ndarray, None]:
        """The module's best (or a sampled) legal action for every row."""
        if deterministic:
            return np.asarray(self._logits(observation, action_masks).argmax(dim=-1)), None
        probabilities = self.action_probabilities(observation, action_masks)
        return np.array([self.rng.choice(len(p), p=p) for p in probabilities]), None

    def action_probabilities(self, observation: np.ndarray, action_masks: Any) -> np.ndarray:
        """(k, A) float64 chances of each action (the module masks its logits itself)."""
        import torch

        probabilities = torch.softmax(self._logits(observation, action_masks), dim=-1).numpy().astype(np.float64)
        return np.asarray(probabilities / probabilities.sum(axis=-1, keepdims=True))

    def _logits(self, observation: np.ndarray, action_masks: Any) -> Any:
        import torch
        from ray.rllib.core.columns import Columns

        masks = torch.as_tensor(np.asarray(action_masks), dtype=torch.float32)
        batch = {Columns.OBS: {"observation": torch.as_tensor(observation), "action_mask": masks}}
        with torch.no_grad():
            return self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]


RLLIB_POLICY_FILE = "class_and_ctor_args.pkl"
"""The file an exported RLlib module's folder holds first: what tells an RLlib run's policy/ apart."""


def load_rllib_policy(
    path: Path,
    name: str | None = None,
    view: str | None = None,
    deterministic: bool = True,
    seed: int | None = None,
    *,
    game: str = LEGACY_GAME,
    observation_version: int | None = None,
) -> PolicyAgent:
    """An exported RLlib policy (a run's policy/ folder), checked to be `game`'s and of its observation
    layout (the run's metadata.json), seeing the view its run trained on; `seed` seeds its draws when it samples."""
    metadata = read_metadata(path.parent / "metadata.json", game, observation_version)
    views = get_game(game).views
    return PolicyAgent(RLlibModulePolicy(path), name or path.parent.name, view or metadata.get("view", views[0]), deterministic, seed)
