"""Compact observations expanded on the policy's side, in torch: `miaui_env.observe.compact`'s codes to floats."""

from __future__ import annotations

import functools
from typing import Any

import torch

from miaui_env.observe.compact import COMPACT_SCALE, COMPACT_ZERO, CompactError
from miaui_env.observe.observation import OBSERVATION_LAYOUT


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
