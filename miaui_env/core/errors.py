"""What every game shares at its edges: its error family, the integer check, and its end-of-game rewards.

A game refuses a bad action with `IllegalActionError`, bad settings with `InvalidConfigError` and a
bad stacked deck with `DeckError` (each a `ValueError`, so one `except ValueError` catches them
all), and pays its seats with `final_rewards` from their final scores, by one of `REWARDS`.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard

import numpy as np
import numpy.typing as npt


class IllegalActionError(ValueError):
    """An action the seat may not take now (in Miaui, a diver card not in its hand, or no card at all)."""


class InvalidConfigError(ValueError):
    """Game settings outside what the rules allow."""


class DeckError(ValueError):
    """A card or deck description that does not fit the game."""


REWARDS = ("win", "score", "margin")  # what a seat is paid at the end of a game; see `final_rewards`


def is_integer(value: object) -> TypeGuard[int | np.integer]:
    """A Python or numpy integer, not a bool, nor numpy's timedelta64 (an integer to isinstance, yet a time span)."""
    # A plain int first: isinstance against numpy's abstract integer is slow, and engines check every step.
    return type(value) is int or (isinstance(value, int | np.integer) and not isinstance(value, bool | np.timedelta64))


def check_reward(reward: str) -> None:
    """Refuse anything but a known reward mode, naming the modes."""
    if not isinstance(reward, str) or reward not in REWARDS:
        raise InvalidConfigError(f"reward={reward!r} is not allowed; rewards are {', '.join(map(repr, REWARDS))}")


def final_rewards(totals: npt.ArrayLike, reward: str) -> npt.NDArray[np.float64]:
    """End-of-game rewards from final scores (..., n), for one game or a batch (float64, same shape).

    `win`: the winners (R10: every seat with the highest score) share 1; `score`: the final score;
    `margin`: own score minus the best opponent's.
    """
    check_reward(reward)
    try:
        scores = np.asarray(totals, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidConfigError(f"final_rewards takes final scores (..., players) as numbers; got {totals!r:.60}") from None
    if scores.ndim == 0 or scores.shape[-1] < 1 or not np.isfinite(scores).all() or (scores != np.round(scores)).any():
        raise InvalidConfigError(f"final_rewards takes whole final scores (..., players), one per seat; got {totals!r:.60}")
    scores = scores.astype(np.int64)
    if reward == "win":
        winning = scores == scores.max(axis=-1, keepdims=True)
        shares: npt.NDArray[np.float64] = winning / winning.sum(axis=-1, keepdims=True)
        return shares
    if reward == "score":
        return scores.astype(np.float64)
    n = scores.shape[-1]
    others = np.where(np.eye(n, dtype=bool), np.iinfo(np.int64).min, scores[..., None, :])
    best_other: npt.NDArray[np.int64] = others.max(axis=-1)
    return (scores - best_other).astype(np.float64)


def finite_real(value: Any) -> float | None:
    """`value` as a float if it is a finite real number (Python or numpy, bools excluded); else None."""
    if isinstance(value, bool | np.bool_ | np.timedelta64) or not isinstance(value, int | float | np.integer | np.floating):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int beyond float's range, e.g. 10**400
        return None
    return number if math.isfinite(number) else None
