"""Compact observations: every entry of the float32 observation as one exact uint8 code.

An observation entry is a small integer over a fixed scale: a card's value is `value / 15`, a pile's
height `height / 12`, a tie priority `1 - rank / n`, a flag 0 or 1. Its code is that integer
shifted to be non-negative, so that

    value = (code - COMPACT_ZERO) / COMPACT_SCALE        (computed in float64, rounded to float32)

gives back the float32 observation bit for bit (`compact_observations` refuses anything it could
not give back). A quarter of the bytes: what the batched engine writes and a learner copies.

| pieces | scale | zero |
|---|---|---|
| card features (`lagoon`, `lagoon_rest`, `box`, `pile`, `caught`, `stolen`): kinds and hidden flag, value | 1, 15 | 0, 50 |
| `pile_summary`: height, kind counts, value sum | 12, 4, 60 | 0, 0, 50 |
| `deep_priority`, `shallow_priority` (1 - rank/n for n = 3-6) | 60 | 0 |
| every other piece: flags, one-hots, counts | 1 | 0 |

A value sum can reach -50 (every negative card of the deck) and 197 (every positive one), so a
zero of 50 holds every sum the deck can make in 0-247. An empty entry (0.0) is the code `zero`,
not 0: build buffers with `empty_compact`, and expand codes with `expand_observations` (numpy) or
`miaui_env.games.miaui.compact_torch.expand_observations_torch` (on the policy's device).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from miaui_env.core.errors import InvalidConfigError
from miaui_env.games.miaui.cards import DEFAULT_DECK, FISH_KINDS
from miaui_env.games.miaui.encoder import STATS_DIVISOR
from miaui_env.games.miaui.observation import CARD_DIM, COUNT_SCALE, HEIGHT_SCALE, OBSERVATION_LAYOUT, VALUE_SCALE
from miaui_env.games.miaui.rules import MAX_PLAYERS, MIN_PLAYERS

COMPACT_DTYPE = np.dtype(np.uint8)
OBSERVATION_DTYPES = ("float32", "uint8")

_VALUE = len(FISH_KINDS)  # a card's value feature follows its one-hot kind
VALUE_ZERO = -sum(min(card.value, 0) for card in DEFAULT_DECK)  # the lowest value sum the deck can make, negated
PRIORITY_SCALE = math.lcm(*range(MIN_PLAYERS, MAX_PLAYERS + 1))  # 1 - rank/n is a whole number of 60ths
if sum(max(card.value, 0) for card in DEFAULT_DECK) + VALUE_ZERO > np.iinfo(COMPACT_DTYPE).max:
    raise AssertionError("the deck's value sums no longer fit a uint8 code")

CARD_CODE_SCALE = np.array(STATS_DIVISOR, dtype=np.float64)
CARD_CODE_ZERO = np.zeros(CARD_DIM, dtype=np.int64)
CARD_CODE_ZERO[_VALUE] = VALUE_ZERO
CARD_CODE_SCALE.flags.writeable = CARD_CODE_ZERO.flags.writeable = False
"""A card's features' (or a sum of cards') scale and zero: its codes' tables."""
_SUMMARY_SCALE = np.array([HEIGHT_SCALE, *[COUNT_SCALE] * len(FISH_KINDS), COUNT_SCALE * VALUE_SCALE])
_SUMMARY_ZERO = np.zeros(CARD_DIM, dtype=np.int64)
_SUMMARY_ZERO[-1] = VALUE_ZERO

# Pieces not named here are flags, one-hots or counts: scale 1, zero 0.
_CARD_PIECES = ("lagoon", "lagoon_rest", "box", "pile", "caught", "stolen")


def _tables() -> tuple[np.ndarray, np.ndarray]:
    scale, zero = np.ones(OBSERVATION_LAYOUT.size), np.zeros(OBSERVATION_LAYOUT.size, dtype=np.int64)
    for name in _CARD_PIECES:
        OBSERVATION_LAYOUT.view(scale, name)[:] = CARD_CODE_SCALE
        OBSERVATION_LAYOUT.view(zero, name)[:] = CARD_CODE_ZERO
    OBSERVATION_LAYOUT.view(scale, "pile_summary")[:] = _SUMMARY_SCALE
    OBSERVATION_LAYOUT.view(zero, "pile_summary")[:] = _SUMMARY_ZERO
    for name in ("deep_priority", "shallow_priority"):
        OBSERVATION_LAYOUT.view(scale, name)[:] = PRIORITY_SCALE
    scale.flags.writeable = zero.flags.writeable = False
    return scale, zero


COMPACT_SCALE, COMPACT_ZERO = _tables()  # (observation size,): value = (code - zero) / scale


class CompactError(ValueError):
    """An observation with an entry no uint8 code gives back exactly, or codes of the wrong shape or type."""


def check_observation_dtype(dtype: object) -> str:
    """The observation dtype's name, or InvalidConfigError naming the allowed ones."""
    name = getattr(dtype, "name", getattr(dtype, "__name__", dtype))
    if not isinstance(name, str) or name not in OBSERVATION_DTYPES:
        raise InvalidConfigError(
            f"observation_dtype={dtype!r} is not allowed; observation dtypes are {', '.join(map(repr, OBSERVATION_DTYPES))}"
        )
    return name


def empty_compact(shape: tuple[int, ...]) -> np.ndarray:
    """Codes of all-zero observations of `shape` (..., observation size)."""
    return np.broadcast_to(COMPACT_ZERO.astype(COMPACT_DTYPE), shape).copy()


def expand_observations(codes: Any) -> np.ndarray:
    """The float32 observations (..., size) that uint8 `codes` (..., size) stand for, bit for bit."""
    return expand_codes(_checked_codes(codes), COMPACT_SCALE, COMPACT_ZERO)


def expand_codes(codes: np.ndarray, scale: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """The float32 values of uint8 `codes` (..., k) at each entry's `scale` and `zero` (k,): (code - zero) / scale."""
    floats: np.ndarray = ((codes - zero) / scale).astype(np.float32)
    return floats


def codes_of(values: np.ndarray, scale: np.ndarray, zero: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The uint8 codes of float32 `values` (..., k) at each entry's `scale` and `zero` (k,), and where
    each gives its value back exactly (`expand_codes`); an entry that does not is coded 0."""
    whole = np.rint(values.astype(np.float64) * scale) + zero
    fits = np.isfinite(whole) & (whole >= 0) & (whole <= np.iinfo(COMPACT_DTYPE).max)
    codes = np.where(fits, whole, 0).astype(COMPACT_DTYPE)
    return codes, fits & (expand_codes(codes, scale, zero) == values)


def compact_observations(observations: Any) -> np.ndarray:
    """The uint8 codes of float observations (..., size); CompactError if a code cannot give one back exactly."""
    observations = np.asarray(observations)
    if observations.ndim == 0 or observations.shape[-1] != OBSERVATION_LAYOUT.size or observations.dtype != np.float32:
        raise CompactError(f"observations must be float32 (..., {OBSERVATION_LAYOUT.size}); got {observations.dtype} {observations.shape}")
    codes, exact = codes_of(observations, COMPACT_SCALE, COMPACT_ZERO)
    if not exact.all():
        index = np.argwhere(~exact)[0]
        entry = int(index[-1])
        piece = next(name for name in OBSERVATION_LAYOUT.leaves() if _contains(name, entry))
        raise CompactError(
            f"entry {entry} ({piece}) of observation {tuple(int(i) for i in index[:-1])} is {float(observations[tuple(index)])!r}, "
            f"which no uint8 code gives back at scale {COMPACT_SCALE[entry]:g}, zero {COMPACT_ZERO[entry]}"
        )
    return codes


def _checked_codes(given: Any) -> np.ndarray:
    codes: np.ndarray = np.asarray(given)
    if codes.dtype != COMPACT_DTYPE or codes.ndim == 0 or codes.shape[-1] != OBSERVATION_LAYOUT.size:
        raise CompactError(f"codes must be uint8 (..., {OBSERVATION_LAYOUT.size}); got {codes.dtype} {codes.shape}")
    return codes


def _contains(name: str, entry: int) -> bool:
    """Whether observation entry `entry` lies in piece `name` (in any seat row)."""
    marker = np.zeros(OBSERVATION_LAYOUT.size, dtype=bool)
    OBSERVATION_LAYOUT.view(marker, name)[...] = True
    return bool(marker[entry])
