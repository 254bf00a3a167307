"""Stacked decks and scripted games for rules scenarios."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from miaui_env.cards import DEFAULT_DECK, FishCard, FishKind, parse_deck_order
from miaui_env.rules import GameConfig, GameState, RoundRecord, new_game, play_round

# Cards that pad a stacked deck after the rounds a scenario names: no Seagulls first, so that a
# scenario never meets a round-1 replacement it did not ask for.
_PAD_ORDER = sorted(DEFAULT_DECK, key=lambda c: (c.kind is FishKind.SEAGULL, c.kind.value, c.value))


def stacked_deck(rounds: Sequence[Sequence[str]], put_back: str | None = None) -> list[str]:
    """A full 37-card order: `put_back`, then each round's (bottom, middle, top), then the rest."""
    named = ([put_back] if put_back else []) + [card for spaces in rounds for card in spaces]
    left = Counter(DEFAULT_DECK) - Counter(FishCard.parse(c) for c in named)
    pad = []
    for c in _PAD_ORDER:
        if left[c] > 0:
            pad.append(str(c))
            left[c] -= 1
    if put_back is None:
        return [pad[0], *named, *pad[1:]]
    return named + pad


def stacked_game(rounds: Sequence[Sequence[str]], put_back: str | None = None, seed: int = 0, **config: object) -> GameState:
    """A new game whose deck deals `rounds` in order (R4)."""
    order = parse_deck_order(stacked_deck(rounds, put_back))
    return new_game(GameConfig(**config), np.random.default_rng(seed), order)  # type: ignore[arg-type]


def play(state: GameState, *rounds: Sequence[int]) -> list[RoundRecord]:
    """Play several rounds of diver cards; returns every record produced (forced round included)."""
    records: list[RoundRecord] = []
    for plays in rounds:
        records.extend(play_round(state, list(plays)))
    return records


def card(text: str) -> FishCard:
    """A FishCard from `kind:value`."""
    return FishCard.parse(text)
