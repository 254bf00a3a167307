"""Fish cards and the default 37-card deck (R2), kept as data."""

from __future__ import annotations

import enum
import itertools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from miaui_env.core.errors import DeckError


class FishKind(enum.StrEnum):
    """The six kinds of fish card, by their canonical names (R2)."""

    KITTENFISH = "kittenfish"
    TIGERFISH = "tigerfish"
    EMPEROR_TUNA = "emperor_tuna"
    LANTERN = "lantern"
    JELLYFISH = "jellyfish"
    SEAGULL = "seagull"


FISH_KINDS: tuple[FishKind, ...] = tuple(FishKind)


@dataclass(frozen=True, slots=True)
class FishCard:
    """One fish card: its kind and its printed value (points it scores in a pile)."""

    kind: FishKind
    value: int

    def __post_init__(self) -> None:
        if not isinstance(self.kind, FishKind):
            allowed = ", ".join(k.value for k in FishKind)
            raise DeckError(f"a fish card's kind is a FishKind ({allowed}), got {self.kind!r:.40}")
        if isinstance(self.value, bool) or type(self.value) is not int or not -MAX_FISH_VALUE <= self.value <= MAX_FISH_VALUE:
            raise DeckError(f"a fish card's value is an int from -{MAX_FISH_VALUE} to {MAX_FISH_VALUE}, got {self.value!r:.40}")

    def __str__(self) -> str:
        return f"{self.kind.value}:{self.value}"

    @classmethod
    def parse(cls, text: str) -> FishCard:
        """Read a card written `kind:value`, e.g. `emperor_tuna:15` (R2)."""
        kind_name, sep, value_text = str(text).partition(":")
        if not sep:
            raise DeckError(f"card {text!r} is not written kind:value (e.g. 'tigerfish:7')")
        try:
            kind = FishKind(kind_name.strip())
        except ValueError:
            allowed = ", ".join(k.value for k in FishKind)
            raise DeckError(f"card {text!r} has unknown kind {kind_name!r}; kinds are {allowed}") from None
        if not _WHOLE_NUMBER.fullmatch(value_text.strip()):  # ASCII digits: int() would take any script's
            raise DeckError(f"card {text!r} has a value that is not an integer")
        if len(value_text.strip()) > 8:  # (int() refuses 4,300 digits with a message of its own)
            raise DeckError(
                f"card {text!r:.60} is worth {value_text.strip()[:12]}...; a fish is worth -{MAX_FISH_VALUE} to {MAX_FISH_VALUE}"
            )
        value = int(value_text)
        if not -MAX_FISH_VALUE <= value <= MAX_FISH_VALUE:
            raise DeckError(f"card {text!r} is worth {value}; a fish is worth -{MAX_FISH_VALUE} to {MAX_FISH_VALUE}")
        return cls(kind, value)


MAX_FISH_VALUE = 1000  # far beyond R2's -15 to 15, and far below where a score's sum could overflow
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")


def _cards(kind: FishKind, values: Iterable[int]) -> tuple[FishCard, ...]:
    return tuple(FishCard(kind, v) for v in values)


# R2: the project's default deck. The printed values are not public, so they are data, not code.
DEFAULT_DECK: tuple[FishCard, ...] = (
    _cards(FishKind.KITTENFISH, (1, 2, 2, 3, 4, 4, 5))
    + _cards(FishKind.TIGERFISH, (6, 6, 7, 7, 8, 8, 9, 9))
    + _cards(FishKind.EMPEROR_TUNA, (10, 11, 12, 12, 13, 13, 14, 15))
    + _cards(FishKind.LANTERN, (1, 3, 5, 7))
    + _cards(FishKind.JELLYFISH, (-10, -10, -15, -15))
    + _cards(FishKind.SEAGULL, (0, 0, 0, 0, 0, 0))
)


def parse_deck_order(cards: Iterable[str | FishCard], deck: tuple[FishCard, ...] = DEFAULT_DECK) -> list[int]:
    """Turn an ordering of `deck` (cards or `kind:value` strings, top first) into deck indices.

    Equal cards are interchangeable, so the k-th copy named takes the k-th copy's index.
    Raises DeckError unless the ordering is a permutation of `deck`.
    """
    if isinstance(cards, str | bytes) or not isinstance(cards, Iterable):
        raise DeckError(f"a deck order is a sequence of {len(deck)} cards (e.g. ['tigerfish:7', ...]), got {cards!r:.60}")
    named = [c if isinstance(c, FishCard) else FishCard.parse(c) for c in cards]
    wanted, given = Counter(deck), Counter(named)
    if wanted != given:
        missing = sorted(str(c) for c in (wanted - given).elements())
        extra = sorted(str(c) for c in (given - wanted).elements())
        raise DeckError(
            f"deck order must name each of the {len(deck)} cards exactly once; "
            f"got {len(named)} cards, missing {missing or 'none'}, unexpected {extra or 'none'}"
        )
    free: dict[FishCard, list[int]] = {}
    for index in reversed(range(len(deck))):
        free.setdefault(deck[index], []).append(index)
    return [free[card].pop() for card in named]


MAX_DECK_LIST = 1000  # cards in a written deck list: far above any deck the rules take (37)


def parse_deck(text: str) -> tuple[FishCard, ...]:
    """Read a deck list: cards written `kind:value`, separated by spaces or commas, each optionally
    repeated with `*count` (e.g. `"emperor_tuna:10*6 jellyfish:-10*4"`: a short game's ten cards)."""
    if not isinstance(text, str):
        raise DeckError(f"a deck list is a string of cards written kind:value[*count], got {text!r:.60}")
    cards: list[FishCard] = []
    for item in text.replace(",", " ").split():
        written, star, count_text = item.partition("*")
        count = 1
        if star:
            if not count_text.isascii() or not count_text.isdigit() or not 1 <= int(count_text) <= MAX_DECK_LIST:
                raise DeckError(f"{item!r} repeats a card {count_text!r} times; a count is a whole number from 1 to {MAX_DECK_LIST}")
            count = int(count_text)
        cards.extend([FishCard.parse(written)] * count)
        if len(cards) > MAX_DECK_LIST:
            raise DeckError(f"a deck list of more than {MAX_DECK_LIST} cards is no deck ({text!r:.60})")
    if not cards:
        raise DeckError(f"a deck list names at least one card written kind:value[*count], got {text!r:.60}")
    return tuple(cards)


def deck_list(cards: Iterable[FishCard]) -> str:
    """A deck written as `parse_deck` reads it, each run of equal cards as `kind:value*count`."""
    given: list[object] = [cards] if isinstance(cards, str | bytes | dict) else list(cards)
    if not given or not all(isinstance(card, FishCard) for card in given):
        raise DeckError(f"deck_list writes a non-empty sequence of FishCards, got {given!r:.60}")
    runs = [(card, sum(1 for _ in run)) for card, run in itertools.groupby(given)]
    return " ".join(f"{card}*{count}" if count > 1 else str(card) for card, count in runs)
