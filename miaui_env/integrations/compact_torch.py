"""Compact observations expanded on the policy's side, in torch: `miaui_env.games.miaui.compact`'s codes to floats."""

from __future__ import annotations

import functools
from typing import Any, cast

import torch

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
