"""One seat's observation read back into a table: the one decoder every display of a seat's view
draws from (the text of human play, the seat's picture, the browser app's JSON).

`decode_observation` reads the vector through `OBSERVATION_LAYOUT` and nothing else, so what it
returns is exactly what the seat may know (R11): a face-down card it did not peek stays face-down,
an opponent's hand is what the view shows of it, a pile the view shows by its height alone has no
tally. Rows are seat-relative as in the observation: row 0 is the viewer, row k the k-th seat to
its left (R1); a display that names seats absolutely adds the viewer's seat.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from miaui_env.core.errors import InvalidConfigError
from miaui_env.core.layout import VECTOR_BOUND
from miaui_env.games.miaui.cards import FISH_KINDS, FishCard, FishKind
from miaui_env.games.miaui.observation import COUNT_SCALE, HEIGHT_SCALE, HIDDEN_FEATURE, OBSERVATION_LAYOUT, VALUE_SCALE
from miaui_env.games.miaui.rules import MAX_PLAYERS, MIN_PLAYERS

_VALUE_FEATURE = len(FISH_KINDS)  # a card's features: one-hot kind, value / VALUE_SCALE, then the face-down flag
_LANTERN = FISH_KINDS.index(FishKind.LANTERN)


class ObservationShapeError(InvalidConfigError):
    """Not one seat's observation at a table of 3-6: the decoder cannot read it."""


@dataclass(frozen=True)
class FishTally:
    """Fish counted together (a whole pile, a catch, a theft, a No Fighting stack's further
    cards): how many of each kind, the sum of their printed values, and how many of them lie
    face-down where the viewer cannot see their faces."""

    counts: tuple[int, ...]
    """How many of each kind, in `FISH_KINDS` order."""
    value: int
    """The sum of the printed values of the fish whose faces show."""
    face_down: int = 0
    """Face-down cards among them that the viewer may not see."""

    @property
    def cards(self) -> int:
        """How many cards the tally counts, face-down ones included."""
        return sum(self.counts) + self.face_down

    @property
    def kinds(self) -> tuple[tuple[FishKind, int], ...]:
        """The kinds present and how many of each, in `FISH_KINDS` order."""
        return tuple((kind, count) for kind, count in zip(FISH_KINDS, self.counts, strict=True) if count)


@dataclass(frozen=True)
class LastReveal:
    """What the last reveal did for one seat, as it happened face-up on the table (R9, R11)."""

    card: int
    """The diver card (1-12) the seat played."""
    caught_at: int | None
    """The depth it caught at (0 bottom, 1 middle, 2 top), or None if it caught nothing."""
    caught: FishTally
    """The fish it caught."""
    thefts: int
    """Seagull thefts its pile suffered."""
    stolen: FishTally
    """What those Seagulls took."""
    triples: int
    """Jellyfish triples it sent to the box."""


@dataclass(frozen=True)
class SeatRow:
    """One seat as the viewer's observation shows it."""

    height: int
    """How many fish its pile holds."""
    pile: tuple[FishCard | None, ...]
    """The pile's top cards the observation shows, top first."""
    tally: FishTally | None
    """The whole pile counted, or None where the view shows its height only."""
    played: tuple[int, ...]
    """The diver cards the observation shows as played (the viewer's own; an opponent's with Open
    Baskets or the recall view); empty when none are shown."""
    last: LastReveal | None
    """What the last reveal did for the seat; None before the first reveal."""

    @property
    def score(self) -> int | None:
        """The pile's value if the viewer may know it (an empty pile's is 0), else None."""
        if self.tally is not None:
            return self.tally.value
        return 0 if self.height == 0 else None


@dataclass(frozen=True)
class LagoonSpace:
    """One lagoon space (bottom, middle or top) as the viewer sees it."""

    cards: tuple[FishCard | None, ...]
    """Its first cards, oldest first; None is a face-down card the viewer did not peek (R5)."""
    more: FishTally
    """Any further cards (a No Fighting stack), counted together."""


@dataclass(frozen=True)
class Kiti:
    """Kiti's place this round and the tie orders it sets (R1), as seat rows."""

    row: int
    """Kiti sits between this row's seat and the next one to its left."""
    deep_order: tuple[int, ...]
    """Who wins ties at the bottom and middle, first to last."""
    shallow_order: tuple[int, ...]
    """Who wins ties at the top, first to last."""


@dataclass(frozen=True)
class ObservedTable:
    """The table as one seat's observation holds it; see the module docstring."""

    num_players: int
    open_baskets: bool
    no_fighting: bool
    round: int | None
    """The round about to be played (1-12); None once the game is over."""
    kiti: Kiti | None
    """Kiti's place and the tie orders; None in No Fighting."""
    lagoon: tuple[LagoonSpace, ...]
    """Bottom, middle, top."""
    hand: tuple[int, ...]
    """The viewer's diver cards still held."""
    seats: tuple[SeatRow, ...]
    """The viewer first, then each seat to its left."""

    def lantern_peekers(self) -> dict[int, int]:
        """Per depth, the row of the seat that peeked the card lying face-down there (R5).

        A Lantern's catcher peeks at the card that restocks its space, so the last reveal, which
        every seat saw, tells who peeked which space's first card. After round 12 nothing restocks."""
        if self.round is None:
            return {}
        return {
            seat.last.caught_at: row
            for row, seat in enumerate(self.seats)
            if seat.last is not None and seat.last.caught_at is not None and seat.last.caught.counts[_LANTERN] > 0
        }


def decode_observation(observation: np.ndarray, num_players: int, reader: str = "decode_observation") -> ObservedTable:
    """One seat's observation vector read back into an `ObservedTable`; `reader` names the caller in the error."""
    try:
        obs = np.asarray(observation, dtype=np.float32)
    except (TypeError, ValueError):
        raise ObservationShapeError(
            f"{reader} takes one observation of {OBSERVATION_LAYOUT.size} numbers; got {observation!r:.60}"
        ) from None
    if not isinstance(num_players, int | np.integer) or isinstance(num_players, bool):
        raise ObservationShapeError(f"{reader} takes num_players {MIN_PLAYERS}-{MAX_PLAYERS}; got {num_players!r:.40}")
    if obs.shape != (OBSERVATION_LAYOUT.size,) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ObservationShapeError(
            f"{reader} takes one observation ({OBSERVATION_LAYOUT.size},) and {MIN_PLAYERS}-{MAX_PLAYERS} players; "
            f"got {obs.shape}, {num_players}"
        )
    if not np.isfinite(obs).all() or (np.abs(obs) > VECTOR_BOUND).any():
        raise ObservationShapeError(f"{reader}: the observation holds values no env writes (NaN, infinite or beyond ±{VECTOR_BOUND})")
    piece, n = OBSERVATION_LAYOUT.view, num_players
    round_piece = piece(obs, "round")
    open_baskets, no_fighting = (bool(flag) for flag in piece(obs, "variant"))
    return ObservedTable(
        num_players=n,
        open_baskets=open_baskets,
        no_fighting=no_fighting,
        round=int(round_piece.argmax()) + 1 if round_piece.any() else None,
        kiti=_kiti(piece(obs, "kiti")[:n, 0], piece(obs, "deep_priority")[:n, 0], piece(obs, "shallow_priority")[:n, 0]),
        lagoon=tuple(
            LagoonSpace(_cards(cards), _tally(more)) for cards, more in zip(piece(obs, "lagoon"), piece(obs, "lagoon_rest"), strict=True)
        ),
        hand=_diver_cards(piece(obs, "hand")),
        seats=tuple(_seat_row(obs, row) for row in range(n)),
    )


def _kiti(kiti: np.ndarray, deep: np.ndarray, shallow: np.ndarray) -> Kiti | None:
    rows = np.flatnonzero(kiti)
    if not rows.size:
        return None
    everyone = range(len(kiti))
    return Kiti(
        int(rows[0]),
        tuple(sorted(everyone, key=lambda r: -float(deep[r]))),
        tuple(sorted(everyone, key=lambda r: -float(shallow[r]))),
    )


def _seat_row(obs: np.ndarray, row: int) -> SeatRow:
    piece = OBSERVATION_LAYOUT.view
    summary = piece(obs, "pile_summary")[row]
    tally = None
    if summary[1:].any():  # all zero where the view shows the pile's height alone (R11), or the pile is empty
        tally = FishTally(
            tuple(int(count) for count in np.rint(summary[1 : _VALUE_FEATURE + 1] * COUNT_SCALE)),
            round(float(summary[-1]) * COUNT_SCALE * VALUE_SCALE),
        )
    return SeatRow(
        height=round(float(summary[0]) * HEIGHT_SCALE),
        pile=_cards(piece(obs, "pile")[row]),
        tally=tally,
        played=_diver_cards(piece(obs, "played")[row]),
        last=_last_reveal(obs, row),
    )


def _last_reveal(obs: np.ndarray, row: int) -> LastReveal | None:
    piece = OBSERVATION_LAYOUT.view
    card_played, caught_at = piece(obs, "card_played")[row], piece(obs, "caught_at")[row]
    if not card_played.any():
        return None
    return LastReveal(
        card=int(card_played.argmax()) + 1,
        caught_at=int(caught_at.argmax()) if caught_at.any() else None,
        caught=_tally(piece(obs, "caught")[row]),
        thefts=round(float(piece(obs, "thefts")[row, 0])),
        stolen=_tally(piece(obs, "stolen")[row]),
        triples=round(float(piece(obs, "triples")[row, 0])),
    )


def _diver_cards(flags: np.ndarray) -> tuple[int, ...]:
    """The diver cards (1-12) whose flag is set."""
    return tuple(int(card) + 1 for card in np.flatnonzero(flags))


def _cards(slots: np.ndarray) -> tuple[FishCard | None, ...]:
    """The filled card slots: a card whose face shows, or None for a face-down card the viewer may not see."""
    return tuple(_card(features) for features in slots if features.any())


def _card(features: np.ndarray) -> FishCard | None:
    kinds = features[:_VALUE_FEATURE]
    if not kinds.any():
        return None
    return FishCard(FISH_KINDS[int(kinds.argmax())], round(float(features[_VALUE_FEATURE]) * VALUE_SCALE))


def _tally(features: np.ndarray) -> FishTally:
    """A feature sum read back: kinds are counted, values summed, face-down flags counted."""
    return FishTally(
        tuple(int(count) for count in np.rint(features[:_VALUE_FEATURE])),
        round(float(features[_VALUE_FEATURE]) * VALUE_SCALE),
        round(float(features[HIDDEN_FEATURE])),
    )
