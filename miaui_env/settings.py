"""The settings every env and engine is built from: the game (table size, variants), the view, the reward,
the observation dtype.

Every constructor (`env`, `parallel_env`, `VectorMiaui`, the SB3 and Gymnasium adapters) takes
them as the same keyword arguments, `SettingsKwargs`, and holds them as one frozen `Settings`,
checked once, here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TypedDict

from miaui_env.compact import check_observation_dtype
from miaui_env.observation import VIEWS, check_view
from miaui_env.rules import REWARDS, GameConfig, InvalidConfigError, check_reward


class SettingsKwargs(TypedDict, total=False):
    """The settings as keyword arguments (each optional; `Settings` holds the defaults)."""

    num_players: int
    open_baskets: bool
    no_fighting: bool
    view: str
    reward: str
    observation_dtype: str


@dataclass(frozen=True)
class Settings:
    """One table's settings; invalid values raise InvalidConfigError (a ValueError) naming what is allowed."""

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
    """"float32" (the observation layout's floats) or "uint8" (their exact codes: `miaui_env.compact`)."""

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
    def of(cls, **kwargs: object) -> Settings:
        """Settings from keyword arguments, refusing unknown names with the known ones."""
        unknown = sorted(set(kwargs) - set(SettingsKwargs.__annotations__))
        if unknown:
            known = ", ".join(SettingsKwargs.__annotations__)
            raise InvalidConfigError(f"unknown setting(s) {', '.join(unknown)}; settings are {known}")
        return cls(**kwargs)  # type: ignore[arg-type]

    def as_kwargs(self) -> SettingsKwargs:
        """The settings as keyword arguments, to build another env or engine on the same table."""
        return SettingsKwargs(
            num_players=self.num_players,
            open_baskets=self.open_baskets,
            no_fighting=self.no_fighting,
            view=self.view,
            reward=self.reward,
            observation_dtype=self.observation_dtype,
        )

    def replace(self, **changes: object) -> Settings:
        """A copy with some settings changed."""
        return Settings.of(**{**self.as_kwargs(), **changes})


__all__ = ["REWARDS", "VIEWS", "Settings", "SettingsKwargs"]
