"""Miaui's table spec: what every Miaui env, engine, trainer, arena, replay and app is built from.

A table is the game (players, variants, `GameConfig`), what a seat sees (the view), what the game
pays (the reward) and the observation's dtype. Every constructor (`env`, `parallel_env`,
`VectorMiaui`, the SB3 and Gymnasium adapters) takes them as the same keyword arguments,
`TableKwargs`, and holds them as one frozen `TableSpec` (`.table_spec`), checked once, here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TypedDict

from miaui_env.core.errors import REWARDS, InvalidConfigError, check_reward
from miaui_env.games.miaui.cards import DEFAULT_DECK, deck_list, parse_deck
from miaui_env.games.miaui.compact import check_observation_dtype
from miaui_env.games.miaui.observation import VIEWS, check_view
from miaui_env.games.miaui.rules import NUM_ROUNDS, GameConfig

RULEBOOK_DECK = deck_list(DEFAULT_DECK)  # R2's 37 cards as a deck list


class TableKwargs(TypedDict, total=False):
    """The settings as keyword arguments (each optional; `TableSpec` holds the defaults)."""

    num_players: int
    open_baskets: bool
    no_fighting: bool
    view: str
    reward: str
    observation_dtype: str
    rounds: int
    deck: str | None


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
    """"float32" (the observation layout's floats) or "uint8" (their exact codes: `miaui_env.games.miaui.compact`)."""
    rounds: int = NUM_ROUNDS
    """Rounds, and diver cards 1..rounds in each hand: 2-12, fewer than 12 a short game (MV1), which
    needs a `deck` of 3 x rounds + 1 fish (MV2)."""
    deck: str | None = None
    """The fish deck as a deck list (`cards.parse_deck`, e.g. "emperor_tuna:10*6 jellyfish:-10*4"),
    or None for the rulebook's 37 cards (R2)."""

    def __post_init__(self) -> None:
        if self.deck is not None:
            if not isinstance(self.deck, str):
                raise InvalidConfigError(f"deck must be a deck list such as 'emperor_tuna:10*6 jellyfish:-10*4', got {self.deck!r:.60}")
            written = deck_list(parse_deck(self.deck))  # one spelling of each deck, and None for R2's
            object.__setattr__(self, "deck", None if written == RULEBOOK_DECK else written)
        if self.rounds != NUM_ROUNDS and self.deck is None:
            raise InvalidConfigError(
                f"a short game of {self.rounds!r:.20} rounds needs a deck of its own (MV2), "
                "e.g. deck='emperor_tuna:10*6 jellyfish:-10*4' for 3 rounds"
            )
        game = self.game  # checks the game settings
        object.__setattr__(self, "num_players", int(game.num_players))  # a numpy integer is kept as the int it is
        object.__setattr__(self, "rounds", game.rounds)
        check_view(self.view)
        check_reward(self.reward)
        object.__setattr__(self, "observation_dtype", check_observation_dtype(self.observation_dtype))

    @functools.cached_property
    def game(self) -> GameConfig:
        """The rules' settings (table size, variants, rounds and deck)."""
        deck = DEFAULT_DECK if self.deck is None else parse_deck(self.deck)
        return GameConfig(self.num_players, self.open_baskets, self.no_fighting, deck, self.rounds)

    @property
    def short(self) -> bool:
        """A short game (MV1-MV3): fewer rounds than 12, or a deck of its own."""
        return self.rounds != NUM_ROUNDS or self.deck is not None

    @classmethod
    def of(cls, **kwargs: object) -> TableSpec:
        """TableSpec from keyword arguments, refusing unknown names with the known ones."""
        unknown = sorted(set(kwargs) - set(TableKwargs.__annotations__))
        if unknown:
            known = ", ".join(TableKwargs.__annotations__)
            raise InvalidConfigError(f"unknown table setting(s) {', '.join(unknown)}; table settings are {known}")
        return cls(**kwargs)  # type: ignore[arg-type]

    def as_kwargs(self) -> TableKwargs:
        """The settings as keyword arguments, to build another env or engine on the same table
        (`rounds` and `deck` only where they differ from the rulebook's)."""
        kwargs = TableKwargs(
            num_players=self.num_players,
            open_baskets=self.open_baskets,
            no_fighting=self.no_fighting,
            view=self.view,
            reward=self.reward,
            observation_dtype=self.observation_dtype,
        )
        if self.rounds != NUM_ROUNDS:
            kwargs["rounds"] = self.rounds
        if self.deck is not None:
            kwargs["deck"] = self.deck
        return kwargs

    def replace(self, **changes: object) -> TableSpec:
        """A copy with some settings changed."""
        return TableSpec.of(**{**self.as_kwargs(), **changes})


__all__ = ["REWARDS", "VIEWS", "TableKwargs", "TableSpec"]
