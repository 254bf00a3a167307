"""Observation layouts and their declared visibility, for any game: named pieces laid end to end
in one flat vector (`Piece`, `Layout`), who may see each piece (`Sight`, and for seat rows
`OpponentSight`), and the static index that maps a canvas of the whole game onto one seat's
observation from those declarations alone (`declared_index`), deny by default: a piece nobody
declared raises `UndeclaredVisibilityError` and is never shown.

Both games build their observations with it: Miaui's tables are in `miaui_env.games.miaui.observation`
(R11), the octopus game's in `miaui_env.games.octopus.observation` (O4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple, TypeVar

import numpy as np

from miaui_env.core.errors import InvalidConfigError

VECTOR_BOUND = 64.0  # every entry of an observation or state vector lies in [-VECTOR_BOUND, VECTOR_BOUND]


class UnknownPieceError(KeyError, ValueError):
    """A piece name a layout does not have (a KeyError as a lookup, a ValueError as bad input)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class VectorShapeError(ValueError):
    """A vector whose last axis is not a layout's size."""


@dataclass(frozen=True)
class Piece:
    """One named block of a vector; `doc` is its line in the documentation's index table."""

    name: str
    shape: tuple[int, ...]
    doc: str

    @property
    def size(self) -> int:
        """Number of floats in the piece."""
        return int(np.prod(self.shape))


class Layout:
    """Pieces laid end to end in one flat vector, addressable by name.

    `rows` names pieces made of rows with a layout of their own (the seat rows, a seat's last
    reveal); their pieces, nested ones too, can be viewed and located by name, so every name is
    unique across the nesting.
    """

    def __init__(self, pieces: list[Piece], rows: dict[str, Layout] | None = None):
        self.pieces = pieces
        self.rows = rows or {}
        self.offsets: dict[str, int] = {}
        self._spans: dict[str, tuple[slice, tuple[int, ...]]] = {}
        offset = 0
        for piece in pieces:
            self.offsets[piece.name] = offset
            self._spans[piece.name] = (slice(offset, offset + piece.size), piece.shape)
            offset += piece.size
        self.size = offset
        self._holder: dict[str, str] = {}  # nested piece -> the piece whose rows hold it
        for holder, row_layout in self.rows.items():
            if holder not in self._spans or self._spans[holder][1][-1] != row_layout.size:
                raise ValueError(f"rows {holder!r} must name a piece whose last axis is {row_layout.size} long (its row layout)")
            self._holder.update(dict.fromkeys(row_layout.names(), holder))
        names = self.names()
        if len(set(names)) != len(names):
            raise ValueError(f"piece names must be unique across the nesting; repeated: {sorted({n for n in names if names.count(n) > 1})}")

    def names(self) -> list[str]:
        """Every piece name, nested ones after their holder's, in vector order."""
        names: list[str] = []
        for piece in self.pieces:
            names.append(piece.name)
            if piece.name in self.rows:
                names.extend(self.rows[piece.name].names())
        return names

    def leaves(self) -> list[str]:
        """The names of the pieces holding no rows of their own (nested ones included), in vector order."""
        leaves: list[str] = []
        for piece in self.pieces:
            leaves.extend(self.rows[piece.name].leaves() if piece.name in self.rows else [piece.name])
        return leaves

    def span(self, name: str) -> slice:
        """The flat slice holding piece `name`; a nested piece's, in the first row of its holder."""
        if name in self._holder:
            holder = self.offsets[self._holder[name]]
            inner = self.rows[self._holder[name]].span(name)
            return slice(holder + inner.start, holder + inner.stop)
        return self._spans[self._checked(name)][0]

    def offset(self, name: str) -> int:
        """Where piece `name` begins in the flat vector; a nested piece, in the first row of its holder."""
        return int(self.span(name).start)

    def view(self, vector: np.ndarray, name: str) -> np.ndarray:
        """Piece `name` of `vector` (last axis), reshaped to the piece's shape; a view, not a copy.
        A nested piece comes with its holders' row axes first (seat rows: (..., 6, shape))."""
        if getattr(vector, "shape", ())[-1:] != (self.size,):
            raise VectorShapeError(f"a vector of this layout is (..., {self.size}); got {getattr(vector, 'shape', type(vector).__name__)}")
        if name in self._holder:
            holder = self._holder[name]
            return self.rows[holder].view(self.view(vector, holder), name)
        span, shape = self._spans[self._checked(name)]
        return vector[..., span].reshape(*vector.shape[:-1], *shape)

    def _checked(self, name: str) -> str:
        if not isinstance(name, str) or name not in self._spans:
            raise UnknownPieceError(f"no piece {name!r}; pieces are {self.names()}")
        return name

    def index_table(self) -> str:
        """Markdown table of the layout: piece, indices, shape, meaning."""
        rows = ["| piece | indices | shape | meaning |", "|---|---|---|---|"]
        for piece in self.pieces:
            start = self.offsets[piece.name]
            shape = "x".join(map(str, piece.shape))
            rows.append(f"| `{piece.name}` | {start}-{start + piece.size - 1} | {shape} | {piece.doc} |")
        return "\n".join(rows)


def layout_tables(layout: Layout, seat_layout: Layout) -> str:
    """An observation layout as documentation: the vector's pieces, then a seat row's pieces."""
    return layout.index_table() + "\n\nEach row of `seats`:\n\n" + seat_layout.index_table()


class Sight(Enum):
    """Who may see a piece of an observation."""

    PUBLIC = "every seat, in every view"
    OWN = "the observer's own entry only (the piece holds one per seat)"
    RECALL = "every seat, in the recall view only"
    SEAT_ROWS = "one row per seat: the observer's own in full, the others' as OPPONENT_ROW_VISIBILITY declares"


class Shown(Enum):
    """How much of a seat-row piece an opponent's row shows."""

    ALL = "all of it"
    FIRST = "its first entry only"
    NOTHING = "nothing"


class OpponentSight(NamedTuple):
    """What an opponent's row shows of one seat-row piece, in the table view and with full knowledge."""

    table: Shown
    full: Shown  # Open Baskets or the recall view: whole piles and every diver card played


_T = TypeVar("_T")


class UndeclaredVisibilityError(LookupError):
    """A layout piece nobody declared a visibility for: deny by default, so it is refused, not shown."""


def declared(table: Mapping[str, _T], name: str, table_name: str) -> _T:
    """`table[name]`; UndeclaredVisibilityError naming `table_name` where the piece has no entry (deny by default)."""
    if name not in table:
        raise UndeclaredVisibilityError(f"piece {name!r} has no declared visibility: add it to {table_name} to show it to anyone")
    return table[name]


def check_declared(layout: Layout, visibility: Mapping[str, Sight], opponent_rows: Mapping[str, OpponentSight]) -> None:
    """Raise UndeclaredVisibilityError naming the first piece of `layout` (seat-row pieces too) without a declared visibility."""
    for piece in layout.pieces:
        if declared(visibility, piece.name, "VISIBILITY") is Sight.SEAT_ROWS:
            for name in layout.rows[piece.name].leaves():
                declared(opponent_rows, name, "OPPONENT_ROW_VISIBILITY")


def opponent_row_mask(full: bool, row_layout: Layout, opponent_rows: Mapping[str, OpponentSight]) -> np.ndarray:
    """Which entries of an opponent's seat row a player sees (bool, row size), from the declared table:
    each piece's `full` sight (more knowledge: Miaui's Open Baskets or recall) or its `table` sight."""
    mask = np.zeros(row_layout.size, dtype=bool)
    for name in row_layout.leaves():
        sight = declared(opponent_rows, name, "OPPONENT_ROW_VISIBILITY")
        shown = sight.full if full else sight.table
        entries = row_layout.view(mask, name)
        if shown is Shown.ALL:
            entries[...] = True
        elif shown is Shown.FIRST:
            entries[:1] = True
    return mask


def declared_index(
    num_players: int,
    seat: int,
    recall: bool,
    full: bool,
    layout: Layout,
    visibility: Mapping[str, Sight],
    opponent_rows: Mapping[str, OpponentSight],
    canvas: Layout,
    canvas_ids: np.ndarray,
) -> np.ndarray:
    """Static map: each entry of `seat`'s observation (`layout`) -> the entry of a canvas (`canvas`,
    its entries numbered by `canvas_ids`, 0 the constant zero) it shows, or 0 where hidden.

    Built from the declared tables only; a piece they do not declare raises before anything is
    mapped. `recall`: the recall view (RECALL pieces shown); `full`: opponents' rows as their
    `full` sight says. Both games' encoders map their canvases with it."""
    check_declared(layout, visibility, opponent_rows)
    index = np.zeros(layout.size, dtype=np.intp)
    for piece in layout.pieces:
        sight, dst = visibility[piece.name], layout.view(index, piece.name)
        src = canvas.view(canvas_ids, piece.name)
        if sight is Sight.PUBLIC or (sight is Sight.RECALL and recall):
            dst[...] = src
        elif sight is Sight.OWN:
            dst[...] = src[seat]
        elif sight is Sight.SEAT_ROWS:  # seat-relative: row k is the k-th seat after the observer (R1, O1)
            hidden = ~opponent_row_mask(full, layout.rows[piece.name], opponent_rows)
            for rel in range(num_players):
                dst[rel] = src[(seat + rel) % num_players]
                if rel:
                    dst[rel, hidden] = 0
    return index


def check_vector_space(
    observation_space: object, layout: Layout, reader: str, observations: str, game: str, error: type[ValueError] = InvalidConfigError
) -> None:
    """`error` (a game's InvalidConfigError) unless `observation_space` holds flat vectors of `layout`, shape
    (layout.size,): `reader` (a features extractor) reads `observations` ("Miaui observations") of `game` only."""
    if getattr(observation_space, "shape", None) != (layout.size,):
        raise error(
            f"{reader} reads {observations} of shape ({layout.size},), "
            f"but the observation space is {observation_space}; use it for {game} only"
        )


__all__ = [
    "VECTOR_BOUND",
    "Layout",
    "OpponentSight",
    "Piece",
    "Shown",
    "Sight",
    "UndeclaredVisibilityError",
    "check_declared",
    "check_vector_space",
    "declared",
    "declared_index",
    "layout_tables",
    "opponent_row_mask",
]
