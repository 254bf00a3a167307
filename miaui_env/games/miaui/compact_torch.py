"""Compact observations expanded on the policy's side, in torch: `miaui_env.games.miaui.compact`'s codes to floats.

`ExpandCompactObservations` is a features extractor that reads the codes; `CompactInputPolicy` is
MaskablePPO's masked actor-critic that takes codes or floats (the trainers build it for Miaui's
compact tables), optionally reading the card-counting odds (`miaui_env.games.miaui.card_odds`).
"""

from __future__ import annotations

import functools
from typing import Any, cast

import gymnasium
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from miaui_env.core.errors import InvalidConfigError
from miaui_env.games.miaui.compact import COMPACT_SCALE, COMPACT_ZERO, CompactError
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT


@functools.cache
def _tables(device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Each entry's zero and scale as float32 tensors on `device`."""
    as_tensor = functools.partial(torch.tensor, dtype=torch.float32, device=device)
    return as_tensor(COMPACT_ZERO.tolist()), as_tensor(COMPACT_SCALE.tolist())


def expand_observations_torch(codes: Any) -> torch.Tensor:
    """`compact.expand_observations` for a uint8 tensor of codes, on its own device: the same float32 bits."""
    if not isinstance(codes, torch.Tensor) or codes.dtype != torch.uint8 or codes.ndim == 0 or codes.shape[-1] != OBSERVATION_LAYOUT.size:
        given = f"{type(codes).__name__} of {getattr(codes, 'dtype', None)} {tuple(getattr(codes, 'shape', ()))}"
        raise CompactError(f"codes must be a uint8 torch tensor (..., {OBSERVATION_LAYOUT.size}); got {given}")
    zero, scale = _tables(codes.device)
    # float32 division of small whole numbers is correctly rounded, as float64's rounded to float32
    # is: tests/test_compact.py checks every code of every entry.
    return (codes.to(torch.float32) - zero) / scale


class ExpandsCodes:
    """A mixin (first among the bases) for an SB3 masked policy whose rows may arrive as uint8 codes:
    a trainer's compact rollouts, copied to the device as codes (a quarter of the bytes) and
    expanded there, bit for bit, in each of the policy's entry points.

    Float32 rows (what agents, the arena and human play hand it) go through unchanged, so a policy
    trained on codes plays from the float layout as any other does. Call `register_code_tables` in
    `__init__` with each column's scale and zero: they are buffers left out of the state dict, so
    checkpoints stay as they were and the tables move with the policy to its device.
    """

    code_scale: torch.Tensor
    code_zero: torch.Tensor

    def register_code_tables(self, scale: Any, zero: Any) -> None:
        """Each column's scale and zero (value = (code - zero) / scale), as float32 buffers."""
        module: Any = self
        module.register_buffer("code_scale", torch.tensor(list(scale), dtype=torch.float32), persistent=False)
        module.register_buffer("code_zero", torch.tensor(list(zero), dtype=torch.float32), persistent=False)

    def floats(self, obs: Any) -> Any:
        """The rows as floats: uint8 codes expanded (as `expand_observations_torch` does), anything else as it is."""
        if not (isinstance(obs, torch.Tensor) and obs.dtype == torch.uint8):
            return obs
        tables: Any = self
        if "code_scale" not in tables._buffers:
            raise CompactError(f"{type(self).__name__} was built without code tables (register_code_tables): it takes float32 rows only")
        return (obs.to(torch.float32) - self.code_zero) / self.code_scale

    # The entry points of sb3-contrib's MaskableActorCriticPolicy that take rows.
    def forward(self, obs: Any, *args: Any, **kwargs: Any) -> Any:
        """As the policy's, on the rows' floats."""
        return cast(Any, super()).forward(self.floats(obs), *args, **kwargs)

    def evaluate_actions(self, obs: Any, *args: Any, **kwargs: Any) -> Any:
        """As the policy's, on the rows' floats."""
        return cast(Any, super()).evaluate_actions(self.floats(obs), *args, **kwargs)

    def get_distribution(self, obs: Any, *args: Any, **kwargs: Any) -> Any:
        """As the policy's, on the rows' floats."""
        return cast(Any, super()).get_distribution(self.floats(obs), *args, **kwargs)

    def predict_values(self, obs: Any) -> Any:
        """As the policy's, on the rows' floats."""
        return cast(Any, super()).predict_values(self.floats(obs))


class ExpandCompactObservations(BaseFeaturesExtractor):
    """Features extractor for `observation_dtype="uint8"`: the codes back to the float32 layout, exactly.

    SB3 hands a Box of uint8 to the policy as floats of the codes; this undoes the codes instead
    (`policy_kwargs={"features_extractor_class": ExpandCompactObservations}`), so a policy trained
    on compact observations is the same function of the same floats as one trained on float32.
    """

    def __init__(self, observation_space: gymnasium.spaces.Box):
        if observation_space.dtype != np.uint8:  # floats cast to uint8 would be read as codes: wrong numbers, silently
            raise InvalidConfigError(
                f"ExpandCompactObservations reads uint8 codes, but the observation space is {observation_space}; "
                "make the env with observation_dtype='uint8', or drop features_extractor_class for float32 observations"
            )
        super().__init__(observation_space, OBSERVATION_LAYOUT.size)

    def forward(self, observations: Any) -> Any:
        """Expand a batch of codes (SB3 has cast them to float32: whole numbers, exact)."""
        return expand_observations_torch(observations.to(torch.uint8))


class CompactInputPolicy(ExpandsCodes, MaskableActorCriticPolicy):
    """sb3-contrib's masked actor-critic (MaskablePPO's "MlpPolicy") that also takes observations as
    uint8 codes (`observation_dtype="uint8"`), expanded on its device; float32 rows go through as
    they are, so agents and the arena play it from the float layout. The trainers build it for
    compact tables; its weights are MlpPolicy's, key for key. `card_odds` reads Miaui's rows through
    `miaui_env.games.miaui.card_odds.CardOddsFeatures` (card counting beside the observation)."""

    def __init__(self, observation_space: gymnasium.spaces.Space[Any], *args: Any, card_odds: bool = False, **kwargs: Any):
        if not isinstance(card_odds, bool):
            raise InvalidConfigError(f"card_odds={card_odds!r} must be true or false (true: the policy reads the card-counting odds too)")
        if card_odds:
            from miaui_env.games.miaui.card_odds import CardOddsFeatures

            if kwargs.get("features_extractor_class") not in (None, CardOddsFeatures):
                raise InvalidConfigError("card_odds is a features extractor of its own: leave features_extractor_class out")
            kwargs["features_extractor_class"] = CardOddsFeatures
        self.card_odds = card_odds
        super().__init__(observation_space, *args, **kwargs)
        if observation_space.shape == (OBSERVATION_LAYOUT.size,):
            self.register_code_tables(COMPACT_SCALE, COMPACT_ZERO)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "card_odds": self.card_odds}
