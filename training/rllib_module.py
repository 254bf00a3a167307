"""Action masking for RLlib's PPO on the new API stack, built on RLlib's public PPO module class.

The env's observations are PettingZoo's `{"observation": vector, "action_mask": legal cards}`. The
module builds RLlib's default PPO networks for the `observation` vector alone, and adds log(mask)
to the action logits (minus infinity, clamped, where a card is not in hand) in every forward pass,
so no illegal card is ever sampled, in exploration, inference or training.
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from miaui_env.game.rules import InvalidConfigError


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module, fed the observation vector, with illegal cards masked out."""

    def __init__(self, *args: Any, observation_space: gymnasium.spaces.Dict | None = None, **kwargs: Any):
        if not isinstance(observation_space, gymnasium.spaces.Dict) or set(observation_space) != {"observation", "action_mask"}:
            raise InvalidConfigError(f"MaskedPPOTorchRLModule needs Dict(observation, action_mask) observations, got {observation_space}")
        self.full_observation_space = observation_space
        super().__init__(*args, observation_space=observation_space["observation"], **kwargs)

    def get_ctor_args_and_kwargs(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Rebuild from checkpoints with the Dict space the env provides, not the inner vector's."""
        args, kwargs = super().get_ctor_args_and_kwargs()
        return args, {**kwargs, "observation_space": self.full_observation_space}

    def _split(self, batch: dict[str, Any]) -> torch.Tensor:
        """Replace the Dict observation by its vector; return the mask (kept on the batch too)."""
        if isinstance(batch[Columns.OBS], dict):
            observation = batch[Columns.OBS]
            batch["action_mask"] = observation["action_mask"]
            batch[Columns.OBS] = observation["observation"]
        mask: torch.Tensor = batch["action_mask"]
        return mask

    @staticmethod
    def _mask(output: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
        output[Columns.ACTION_DIST_INPUTS] = output[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask.float()), min=FLOAT_MIN)
        return output

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask = self._split(batch)
        return self._mask(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask = self._split(batch)
        return self._mask(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The value of each observation vector (the mask plays no part)."""
        self._split(batch)
        return cast(torch.Tensor, super().compute_values(batch, embeddings))
