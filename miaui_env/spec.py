"""The table spec: what every env, engine, trainer, arena, replay and app is built from.

A table is the game (players, variants, `GameConfig`), what a seat sees (the view), what the game
pays (the reward) and the observation's dtype. Every constructor (`env`, `parallel_env`,
`VectorMiaui`, the SB3 and Gymnasium adapters) takes them as the same keyword arguments,
`TableKwargs`, and holds them as one frozen `TableSpec` (`.table_spec`), checked once, here.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np

from miaui_env.game.rules import REWARDS, GameConfig, InvalidConfigError, check_reward
from miaui_env.observe.compact import check_observation_dtype
from miaui_env.observe.observation import VIEWS, check_view


class TableKwargs(TypedDict, total=False):
    """The settings as keyword arguments (each optional; `TableSpec` holds the defaults)."""

    num_players: int
    open_baskets: bool
    no_fighting: bool
    view: str
    reward: str
    observation_dtype: str


@dataclass(frozen=True)
class TableSpec:
    """One table: players, variants, view, reward, dtype; a bad value raises InvalidConfigError (a ValueError) naming what is allowed."""

    num_players: int = 4
    """Seats at the table, 3-6 (R1)."""
    open_baskets: bool = False
    """The Open Baskets variant: every pile and every diver card played is public (R11)."""
    no_fighting: bool = False
    """The No Fighting variant: tied cards catch nothing (R8)."""
    view: str = "table"
    """What a seat observes: "table" (what R11 shows) or "recall" (every reveal remembered)."""
    reward: str = "win"
    """The end-of-game reward: "win" (winners share 1), "score" or "margin"."""
    observation_dtype: str = "float32"
    """"float32" (the observation layout's floats) or "uint8" (their exact codes: `miaui_env.observe.compact`)."""

    def __post_init__(self) -> None:
        GameConfig(self.num_players, self.open_baskets, self.no_fighting)  # checks the game settings
        object.__setattr__(self, "num_players", int(self.num_players))
        check_view(self.view)
        check_reward(self.reward)
        object.__setattr__(self, "observation_dtype", check_observation_dtype(self.observation_dtype))

    @functools.cached_property
    def game(self) -> GameConfig:
        """The rules' settings (table size and variants)."""
        return GameConfig(self.num_players, self.open_baskets, self.no_fighting)

    @classmethod
    def of(cls, **kwargs: object) -> TableSpec:
        """TableSpec from keyword arguments, refusing unknown names with the known ones."""
        unknown = sorted(set(kwargs) - set(TableKwargs.__annotations__))
        if unknown:
            known = ", ".join(TableKwargs.__annotations__)
            raise InvalidConfigError(f"unknown table setting(s) {', '.join(unknown)}; table settings are {known}")
        return cls(**kwargs)  # type: ignore[arg-type]

    def as_kwargs(self) -> TableKwargs:
        """The settings as keyword arguments, to build another env or engine on the same table."""
        return TableKwargs(
            num_players=self.num_players,
            open_baskets=self.open_baskets,
            no_fighting=self.no_fighting,
            view=self.view,
            reward=self.reward,
            observation_dtype=self.observation_dtype,
        )

    def replace(self, **changes: object) -> TableSpec:
        """A copy with some settings changed."""
        return TableSpec.of(**{**self.as_kwargs(), **changes})


def _settings(holder: Any) -> TableSpec:
    """0.1's name of `table_spec`, kept until 0.3 with a DeprecationWarning."""
    warnings.warn("`.settings` is now `.table_spec` (a TableSpec); the old name goes in 0.3", DeprecationWarning, stacklevel=2)
    table_spec: TableSpec = holder.table_spec
    return table_spec


DEPRECATED_SETTINGS = property(_settings)
"""`settings = DEPRECATED_SETTINGS` in a class holding a `table_spec`: 0.1's attribute name, with a warning."""

_DEPRECATED = {"Settings": TableSpec, "SettingsKwargs": TableKwargs}


def __getattr__(name: str) -> object:
    """The names of 0.1 (`Settings`, `SettingsKwargs`), kept for one version with a DeprecationWarning."""
    if name in _DEPRECATED:
        new = _DEPRECATED[name]
        warnings.warn(f"{name} is now {new.__name__} (miaui_env.spec); the old name goes in 0.3", DeprecationWarning, stacklevel=2)
        return new
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["REWARDS", "VIEWS", "TableKwargs", "TableSpec"]


def finite_real(value: Any) -> float | None:
    """`value` as a float if it is a finite real number (Python or numpy, bools excluded); else None."""
    if isinstance(value, bool | np.bool_ | np.timedelta64) or not isinstance(value, int | float | np.integer | np.floating):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int beyond float's range, e.g. 10**400
        return None
    return number if math.isfinite(number) else None
