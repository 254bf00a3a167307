"""Action masking (and a privileged critic) for RLlib's PPO on the new API stack, built on RLlib's
public PPO module class.

The env's rows are `{"observation": vector, "action_mask": legal cards}` (PettingZoo's, and the
batched env's, training/rllib_env.py). The module builds RLlib's default PPO networks for the
`observation` vector alone, and adds log(mask) to the action logits (minus infinity, clamped,
where a card is not in hand) in every forward pass, so no illegal card is ever sampled, in
exploration, inference or training.

Rows that also hold `"privileged"` (the global state, miaui_env.games.miaui.privileged) make it a
privileged critic, as the SB3 trainer's `privileged_critic`: the value network reads the
observation followed by the state, the policy only the observation. The space decides it, so a
checkpoint rebuilds the same networks, and the exported policy plays from observations alone.
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium
import numpy as np
import torch
from ray.rllib.algorithms.ppo.ppo_catalog import PPOCatalog
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.models.base import ENCODER_OUT
from ray.rllib.utils.torch_utils import FLOAT_MIN

from miaui_env.core.errors import InvalidConfigError

PRIVILEGED = "privileged"


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module, fed the observation vector, with illegal cards masked out (and a
    privileged critic when the rows hold the global state)."""

    def __init__(self, *args: Any, observation_space: gymnasium.spaces.Dict | None = None, **kwargs: Any):
        allowed = ({"observation", "action_mask"}, {"observation", "action_mask", PRIVILEGED})
        if not isinstance(observation_space, gymnasium.spaces.Dict) or set(observation_space) not in allowed:
            raise InvalidConfigError(
                f"MaskedPPOTorchRLModule needs Dict(observation, action_mask[, privileged]) observations, got {observation_space}"
            )
        self.full_observation_space = observation_space
        self.privileged = PRIVILEGED in observation_space.spaces
        super().__init__(*args, observation_space=observation_space["observation"], **kwargs)

    def setup(self) -> None:
        """RLlib's networks; with a privileged critic, its critic encoder widened to the observation and the state."""
        super().setup()
        if self.privileged and not self.inference_only:
            if not hasattr(self.encoder, "critic_encoder"):
                raise InvalidConfigError("a privileged critic needs its own value network: set model.vf_share_layers to false")
            spaces = self.full_observation_space.spaces
            width = sum(int(np.prod(spaces[key].shape or ())) for key in ("observation", PRIVILEGED))
            wide = gymnasium.spaces.Box(-np.inf, np.inf, (width,), np.float32)
            catalog = PPOCatalog(wide, self.action_space, cast(dict[str, Any], self.model_config))  # type: ignore[arg-type]
            self.encoder.critic_encoder = catalog.build_actor_critic_encoder(framework="torch").critic_encoder

    def get_ctor_args_and_kwargs(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Rebuild from checkpoints with the Dict space the env provides, not the inner vector's."""
        args, kwargs = super().get_ctor_args_and_kwargs()
        return args, {**kwargs, "observation_space": self.full_observation_space}

    def _split(self, batch: dict[str, Any]) -> torch.Tensor:
        """Replace the Dict observation by its vector; return the mask (kept on the batch too, as is the state)."""
        if isinstance(batch[Columns.OBS], dict):
            observation = batch[Columns.OBS]
            batch["action_mask"] = observation["action_mask"]
            if PRIVILEGED in observation:
                batch[PRIVILEGED] = observation[PRIVILEGED]
            batch[Columns.OBS] = observation["observation"]
        mask: torch.Tensor = batch["action_mask"]
        return mask

    @staticmethod
    def _mask(output: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
        output[Columns.ACTION_DIST_INPUTS] = output[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask.float()), min=FLOAT_MIN)
        return output

    def _policy(self, batch: dict[str, Any]) -> dict[str, Any]:
        """The policy's logits from the observation alone (a privileged critic's encoder cannot read it)."""
        return {Columns.ACTION_DIST_INPUTS: self.pi(self.encoder.actor_encoder(batch)[ENCODER_OUT])}

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask = self._split(batch)
        return self._mask(self._policy(batch) if self.privileged else super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask = self._split(batch)
        # A privileged critic's embeddings come from the state too: compute_values builds them.
        return self._mask(self._policy(batch) if self.privileged else super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The value of each row (the mask plays no part; a privileged critic reads the state too)."""
        self._split(batch)
        if not self.privileged:
            return cast(torch.Tensor, super().compute_values(batch, embeddings))
        wide = torch.cat([batch[Columns.OBS], batch[PRIVILEGED]], dim=-1)
        values: torch.Tensor = self.vf(self.encoder.critic_encoder({Columns.OBS: wide})[ENCODER_OUT]).squeeze(-1)
        return values
