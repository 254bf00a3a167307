"""Stable-Baselines3 for Miaui envs wrapped by other libraries: `ActionMasksFromObservation` gives an
SB3 VecEnv of `MaskInObservation`'s rows (the mask carried at the end of each observation,
vectorised by SuperSuit, say) the `action_masks()` that sb3-contrib's MaskablePPO reads.

    venv = ActionMasksFromObservation(supersuit_vec_env)
    MaskablePPO("MlpPolicy", venv).learn(100_000)

Miaui's own self-play VecEnv, on its batched engine, is `miaui_env.games.miaui.selfplay.MiauiSelfPlayVecEnv`.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.error import ResetNeeded
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from miaui_env.games.miaui.rules import NUM_DIVER_CARDS
from miaui_env.integrations.adapters import MASKED_SIZE, MaskedObservationError, split_mask


class ActionMasksFromObservation(VecEnvWrapper):
    """`action_masks()` for an SB3 VecEnv whose observations end with the action mask
    (`miaui_env.integrations.adapters.MaskInObservation`, vectorised by SuperSuit, say): what MaskablePPO reads."""

    def __init__(self, venv: VecEnv):
        if not isinstance(venv, VecEnv):
            raise MaskedObservationError(f"ActionMasksFromObservation wraps an SB3 VecEnv of MaskInObservation's rows, got {venv!r:.60}")
        shape = getattr(venv.observation_space, "shape", None)
        if shape != (MASKED_SIZE,):
            raise MaskedObservationError(
                f"ActionMasksFromObservation reads the action mask from the last {NUM_DIVER_CARDS} entries of each observation "
                f"(MaskInObservation's rows, {MASKED_SIZE} wide); this VecEnv's observations are {venv.observation_space}"
            )
        super().__init__(venv)
        self._last: np.ndarray | None = None
        self._next_seed: int | None = None

    def seed(self, seed: int | None = None) -> Any:
        """Seed the next reset. SuperSuit's SB3 wrapper cannot pass a seed on (its `seed()` calls one
        its vector env lacks, and MaskablePPO(seed=...) calls it), so the seed goes to the Gymnasium
        vector env inside it at the next reset."""
        self._next_seed = seed
        return [seed] * self.num_envs

    def reset(self) -> Any:
        """Reset (seeded once by `seed`), keeping the observations for their masks."""
        seed, self._next_seed = self._next_seed, None
        inner = getattr(self.venv, "venv", None)
        if seed is not None and isinstance(inner, gymnasium.vector.VectorEnv):
            inner.reset(seed=seed)  # seeds every game's generator; the reset below deals from them
        self._last = np.asarray(self.venv.reset())
        return self._last

    def step_wait(self) -> VecEnvStepReturn:
        """Step, keeping the observations (after an autoreset, the new games') for their masks."""
        observations, rewards, dones, infos = self.venv.step_wait()
        self._last = np.asarray(observations)
        return observations, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, 12) bool: the mask at the end of each index's last observation."""
        if self._last is None:
            raise ResetNeeded("call reset() before action_masks()")
        return split_mask(self._last)[1]

    def has_attr(self, attr_name: str) -> bool:
        """`action_masks` is here (how sb3-contrib asks); other names, as the wrapped VecEnv says."""
        return attr_name == "action_masks" or bool(self.venv.has_attr(attr_name))

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any) -> list[Any]:
        """`action_masks` per index, from the observations; other methods go to the wrapped VecEnv."""
        if method_name == "action_masks":
            return list(self.action_masks()[list(self._get_indices(indices))])
        return list(self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs))
