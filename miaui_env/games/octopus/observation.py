"""What one seat of the octopus game may see (O4), encoded as one float32 vector from named pieces.

The layout is built with the library's `Layout` and `Piece` (`miaui_env.core.layout`) and follows
Miaui's layout (`miaui_env.games.miaui.observation`): a few table-wide pieces, then `seats`, one row per seat,
seat-relative (row 0 is the observer, row k the k-th seat clockwise of her, O1; rows past the table
are zero). One width for 2, 3 and 4 players and both views, so one network can play every table.

How it cannot leak: `canvas(state)` writes the game into one flat vector with absolute seats, every
fact that was ever shown to the table included (discard pile and collections card by card) and
nothing that never was: the deck enters only as its size, never its order (O4). A seat's
observation is `canvas.take(index)`, where `index` is a static map built once per (player count,
seat, view) from the declared tables below: each entry points at a canvas entry the seat may see or
at a constant zero. `VISIBILITY` (the vector's pieces) and `OPPONENT_ROW_VISIBILITY` (what an
opponent's seat row shows) decide O4 there and nowhere else; a piece declared in neither raises
`UndeclaredVisibilityError` (deny by default), never shown. The env paints with `Painter`, which
keeps one game's canvas up to date from its events; tests hold it to `canvas` at every step. The tables are the library's kinds
(`Sight`, `OpponentSight`, `Shown`) and are checked by `miaui_env.core.layout.check_declared`.

Cards are counted per species and value: a (10, 4) block holds, for each species (anchovy ... jack,
O1) and each value 1, 2, 3, 4, how many such cards a pile holds (0-2 for values 1 and 2, 0-1 for 3
and 4), so a pile is shown card by card without an order. `state_vector(state)` is everything,
the deck's order included: it is for `state()` (centralized critics, spectators), not a seat's view.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

import numpy as np

from miaui_env.core.errors import is_integer
from miaui_env.core.layout import (
    VECTOR_BOUND,
    Layout,
    OpponentSight,
    Piece,
    Shown,
    Sight,
    UndeclaredVisibilityError,
    declared_index,
)
from miaui_env.core.layout import layout_tables as observe_layout_tables
from miaui_env.games.octopus.rules import (
    CARD_SPECIES,
    CARD_VALUES,
    CARDS_PER_SPECIES,
    DIE_FACES,
    FISH_VALUES,
    MAX_PLAYERS,
    MAX_STEAL,
    MIN_PLAYERS,
    NUM_CARDS,
    NUM_FISH,
    NUM_OCTOPUSES,
    NUM_SPECIES,
    TARGET,
    Busted,
    CardsMoved,
    Flipped,
    InvalidConfigError,
    Kept,
    NoTheft,
    Octopus,
    OctopusState,
    Phase,
    Rolled,
    SessionStart,
    TheftSkipped,
    checked_cards,
    scored_cards,
)

OBSERVATION_VERSION = 1  # bump whenever a layout below changes; checkpoints record it
VIEWS = ("table", "recall")  # O4

VALUES = tuple(sorted(set(FISH_VALUES)))  # 1, 2, 3, 4: the columns of a per-species count block
FACES = tuple(sorted(set(DIE_FACES)))  # -1, 1, 2, 3: the one-hot columns of a die roll
DECISIONS = ("flip_or_stop", "theft", "none")  # what the observer is asked now (O10)
MAX_VALUE = float(max(FISH_VALUES))
SIZE_SCALE = float(NUM_CARDS)  # deck, discard and collection sizes / 66, in [0, 1]
SESSION_SCALE = 10.0  # a game lasts a few sessions (O12); session / 10
SCORE_SCALE = 40.0  # O7: a session score is at most 40
_VALUE_GROUPS = [FISH_VALUES.index(v) for v in VALUES]  # reduceat starts: the slots 0,1 | 2,3 | 4 | 5

SEAT_LAYOUT = Layout(
    [
        Piece("present", (1,), "1 if the seat is at the table"),
        Piece("to_act", (1,), "1 if it is this seat's turn (it decides next, O10)"),
        Piece("total", (1,), f"running total / {TARGET} (O7; the game ends at 1, O9)"),
        Piece("collection_size", (1,), f"cards in its collection / {SIZE_SCALE:g}"),
        Piece("thief", (1,), "1 if this seat rolled for the last theft of the session (O5)"),
        Piece("theft_target", (1,), "1 if this seat was the target of that theft"),
        Piece("session_score", (1,), f"its collection's score so far / {SCORE_SCALE:g} (O7; opponents: recall view only)"),
        Piece("collection", (NUM_SPECIES, len(VALUES)), "count per species and value 1-4 (opponents: recall view only)"),
    ]
)
SEAT_DIM = SEAT_LAYOUT.size

_HEAD = [
    Piece("num_players", (MAX_PLAYERS - MIN_PLAYERS + 1,), "one-hot table size 2, 3, 4"),
    Piece("session", (1,), f"session number / {SESSION_SCALE:g} (1-based, O8)"),
    Piece("row", (NUM_SPECIES,), f"per species: the value / {MAX_VALUE:g} of its card in the row, 0 if none (O3)"),
    Piece("row_order", (NUM_SPECIES,), f"per species: its card's place in the row (1 = first) / {NUM_SPECIES}, 0 if none"),
    Piece("row_length", (1,), f"cards in the row / {NUM_SPECIES}"),
    Piece("deck_size", (1,), f"cards left in the deck / {SIZE_SCALE:g} (its order is never shown, O4)"),
    Piece("discard_size", (1,), f"cards in the discard pile / {SIZE_SCALE:g}"),
    Piece("last_roll", (len(FACES),), "one-hot face -1, 1, 2, 3 of the session's last theft roll (O5); 0 if none yet"),
    Piece("theft_k", (MAX_STEAL,), "one-hot k announced for that theft"),
    Piece("theft_moved", (NUM_SPECIES, len(VALUES)), "the cards that theft moved, shown to everyone (O5): count per species and value"),
]
_SEATS_DOC = "one row per seat (below): you, then each seat clockwise; rows past the table are 0"

OBSERVATION_LAYOUT = Layout(
    [
        *_HEAD,
        Piece("decision", (len(DECISIONS),), "one-hot what you are asked: flip or stop, a theft, nothing (not your turn, game over)"),
        Piece("discard", (NUM_SPECIES, len(VALUES)), "discard pile: count per species and value (recall view only, O4)"),
        Piece("discard_octopuses", (1,), f"octopuses in the discard pile / {NUM_OCTOPUSES} (recall view only)"),
        Piece("seats", (MAX_PLAYERS, SEAT_DIM), _SEATS_DOC),
    ],
    rows={"seats": SEAT_LAYOUT},
)

STATE_LAYOUT = Layout(
    [
        *_HEAD,
        Piece("phase", (len(DECISIONS),), "one-hot what the table waits for: flip or stop, a theft, nothing (game over)"),
        Piece("discard", (NUM_SPECIES, len(VALUES)), "discard pile: count per species and value"),
        Piece("discard_octopuses", (1,), f"octopuses in the discard pile / {NUM_OCTOPUSES}"),
        Piece("deck", (NUM_CARDS,), f"per card id: its place in the deck from the top (1 = next) / {SIZE_SCALE:g}, 0 if not in it"),
        Piece("seats", (MAX_PLAYERS, SEAT_DIM), "one row per seat, player_0 first, everything shown"),
    ],
    rows={"seats": SEAT_LAYOUT},
)

# The canvas: the game as the table has seen it, absolute seats, no deck order. Observation indices
# point into it; a piece of the observation reads the canvas piece of the same name.
_CANVAS = Layout(
    [
        Piece("zero", (1,), "constant 0 for entries a view hides"),
        *_HEAD,
        Piece("decision", (MAX_PLAYERS, len(DECISIONS)), "per seat: what it is asked"),
        Piece("discard", (NUM_SPECIES, len(VALUES)), ""),
        Piece("discard_octopuses", (1,), ""),
        Piece("seats", (MAX_PLAYERS, SEAT_DIM), ""),
    ],
    rows={"seats": SEAT_LAYOUT},
)
_CANVAS_IDS = np.arange(_CANVAS.size)


def layout_tables() -> str:
    """The observation layout as documentation: the vector's pieces, then a seat row's pieces."""
    return observe_layout_tables(OBSERVATION_LAYOUT, SEAT_LAYOUT)


def state_layout_table() -> str:
    """The state vector's layout as documentation (seat rows as in the observation)."""
    return STATE_LAYOUT.index_table()


# -- O4, declared piece by piece ---------------------------------------------------------------
VISIBILITY: dict[str, Sight] = {
    "num_players": Sight.PUBLIC,
    "session": Sight.PUBLIC,
    "row": Sight.PUBLIC,  # face-up (O3)
    "row_order": Sight.PUBLIC,
    "row_length": Sight.PUBLIC,
    "deck_size": Sight.PUBLIC,  # its size only: the order is hidden from everyone (O4)
    "discard_size": Sight.PUBLIC,
    "last_roll": Sight.PUBLIC,  # the die is rolled in the open (O5)
    "theft_k": Sight.PUBLIC,  # announced aloud (O5)
    "theft_moved": Sight.PUBLIC,  # stolen cards are shown to everyone (O5)
    "decision": Sight.OWN,  # what the observer herself is asked
    "discard": Sight.RECALL,  # every card went there face-up, but only perfect memory still knows them all (O4)
    "discard_octopuses": Sight.RECALL,
    "seats": Sight.SEAT_ROWS,
}

_OPEN = OpponentSight(Shown.ALL, Shown.ALL)
_RECALLED = OpponentSight(Shown.NOTHING, Shown.ALL)  # face-down now, shown once: perfect memory only (O4)
OPPONENT_ROW_VISIBILITY: dict[str, OpponentSight] = {
    "present": _OPEN,
    "to_act": _OPEN,
    "total": _OPEN,  # every total is on the score sheet (O4)
    "collection_size": _OPEN,  # a face-down stack's height is in sight
    "thief": _OPEN,
    "theft_target": _OPEN,
    "session_score": _RECALLED,  # computable from the collection, so no more visible than it
    "collection": _RECALLED,
}


def check_view(view: object) -> str:
    """`view` if it is a known view; InvalidConfigError naming the views otherwise."""
    if not isinstance(view, str) or view not in VIEWS:
        raise InvalidConfigError(f"view={view!r} is not allowed; views are {', '.join(map(repr, VIEWS))}")
    return view


def observation_index(
    num_players: int,
    seat: int,
    view: str,
    layout: Layout = OBSERVATION_LAYOUT,
    visibility: Mapping[str, Sight] = VISIBILITY,
    opponent_rows: Mapping[str, OpponentSight] = OPPONENT_ROW_VISIBILITY,
) -> np.ndarray:
    """`seat`'s observation as canvas entries (`declared_index` over this game's declared tables, O4): seat rows
    run clockwise (O1), and the recall view shows opponents' collections and the discard pile card by card."""
    recall = check_view(view) == "recall"
    return declared_index(num_players, seat, recall, recall, layout, visibility, opponent_rows, _CANVAS, _CANVAS_IDS)


@functools.cache
def _index(num_players: int, seat: int, view: str) -> np.ndarray:
    index = observation_index(num_players, seat, view)
    index.flags.writeable = False
    return index


def shown_entries(num_players: int, view: str) -> np.ndarray:
    """Which entries of an observation the declared tables show (bool, layout size); the same for every seat."""
    shown: np.ndarray = _index(num_players, 0, view) != 0
    return shown


def counts(cards: Sequence[int]) -> np.ndarray:
    """(NUM_SPECIES, 4) float32: how many of `cards` there are of each species and value 1-4 (octopuses left out)."""
    per_id = np.bincount(np.asarray(checked_cards(cards, "counts"), dtype=np.intp), minlength=NUM_CARDS)[:NUM_FISH].reshape(
        NUM_SPECIES, len(FISH_VALUES)
    )
    grouped: np.ndarray = np.add.reduceat(per_id, _VALUE_GROUPS, axis=1).astype(np.float32)
    return grouped


def _octopuses(cards: Sequence[int]) -> int:
    return sum(1 for c in cards if c >= NUM_FISH)


def _last_theft(state: OctopusState) -> tuple[Rolled | None, CardsMoved | None]:
    """The session's last theft roll and the cards it moved, if any: public facts (O5)."""
    events = state.events
    for i in range(len(events) - 1, -1, -1):
        event = events[i]
        if isinstance(event, Rolled):
            after = events[i + 1] if i + 1 < len(events) else None
            return event, after if isinstance(after, CardsMoved) else None
        if isinstance(event, SessionStart):
            break
    return None, None


class _Places:
    """Flat positions of a layout's pieces, looked up once: the encoder writes by index, not by name."""

    def __init__(self, layout: Layout):
        self.size = layout.size
        self.head = {
            name: layout.offset(name)
            for name in ("num_players", "session", "row", "row_order", "row_length", "deck_size", "discard_size", "last_roll", "theft_k")
        }
        seats = layout.offset("seats")
        self.seat = {name: [seats + s * SEAT_DIM + SEAT_LAYOUT.offset(name) for s in range(MAX_PLAYERS)] for name in SEAT_LAYOUT.names()}
        # Where each card of each counted pile is added: pile 0 the discard pile, 1-4 the seats'
        # collections, 5 the cards the last theft moved; `self.size` is a bin past the end, dropped.
        target = np.full((_PILES, NUM_CARDS), self.size, dtype=np.intp)
        weight = np.ones((_PILES, NUM_CARDS))
        fish_slot = np.array(
            [(c // len(FISH_VALUES)) * len(VALUES) + VALUES.index(FISH_VALUES[c % len(FISH_VALUES)]) for c in range(NUM_FISH)]
        )
        target[0, :NUM_FISH] = layout.offset("discard") + fish_slot
        target[0, NUM_FISH:] = layout.offset("discard_octopuses")
        weight[0, NUM_FISH:] = 1.0 / NUM_OCTOPUSES
        for s in range(MAX_PLAYERS):
            target[1 + s, :NUM_FISH] = self.seat["collection"][s] + fish_slot
        target[_MOVED, :NUM_FISH] = layout.offset("theft_moved") + fish_slot
        self.target, self.weight = target, weight


_PILES = MAX_PLAYERS + 2
_MOVED = _PILES - 1


def _write_piles(places: _Places, state: OctopusState) -> np.ndarray:
    """The pieces that change only when cards move between piles or a session is scored: discard
    pile and collections card by card, sizes, totals, session scores, the last theft. A float64
    vector (absolute seats), zero elsewhere."""
    n, head, seat = state.num_players, places.head, places.seat
    where: list[int] = []
    what: list[float] = []
    piles: list[list[int] | tuple[int, ...]] = [state.discard, *state.collections]
    pile_ids = [0, *range(1, n + 1)]
    rolled, moved = _last_theft(state)
    if rolled is not None:
        where += [head["last_roll"] + FACES.index(rolled.face), head["theft_k"] + rolled.k - 1]
        where += [seat["thief"][rolled.seat], seat["theft_target"][rolled.target]]
        what += [1.0] * 4
        if moved is not None:
            piles.append(moved.cards)
            pile_ids.append(_MOVED)
    for s, cards in enumerate(state.collections):
        where += [seat["present"][s], seat["total"][s], seat["collection_size"][s], seat["session_score"][s]]
        what += [1.0, state.totals[s] / TARGET, len(cards) / SIZE_SCALE, scored_cards(cards) / SCORE_SCALE]  # O7
    sizes = [len(p) for p in piles]
    cards_flat = np.fromiter((c for p in piles for c in p), dtype=np.intp, count=sum(sizes))
    pile_flat = np.repeat(np.array(pile_ids, dtype=np.intp), sizes)
    counted = np.bincount(places.target[pile_flat, cards_flat], places.weight[pile_flat, cards_flat], minlength=places.size + 1)
    counted = counted[: places.size].astype(np.float64)  # bincount of no cards at all counts in int64
    counted[where] = what
    return counted


def _write_table(places: _Places, state: OctopusState, vector: np.ndarray) -> None:
    """Write into `vector` (zero there) the entries that may change with every flip: table size,
    session, row, deck and discard sizes, whose turn. Scalar writes: a handful per step."""
    head = places.head
    vector[head["num_players"] + state.num_players - MIN_PLAYERS] = 1.0
    vector[head["session"]] = min(state.session / SESSION_SCALE, VECTOR_BOUND)
    vector[head["row_length"]] = len(state.row) / NUM_SPECIES
    vector[head["deck_size"]] = len(state.deck) / SIZE_SCALE  # the deck's size, never its order (O4)
    vector[head["discard_size"]] = len(state.discard) / SIZE_SCALE
    row, order = head["row"], head["row_order"]
    for place, card in enumerate(state.row):
        species = card // CARDS_PER_SPECIES  # the row holds fish only (an octopus empties it, O3)
        vector[row + species] = FISH_VALUES[card % CARDS_PER_SPECIES] / MAX_VALUE
        vector[order + species] = (place + 1) / NUM_SPECIES
    if not state.is_over:
        vector[places.seat["to_act"][state.active]] = 1.0


_CANVAS_PLACES = _Places(_CANVAS)
_STATE_PLACES = _Places(STATE_LAYOUT)
_DECISION_AT = _CANVAS.offset("decision")


def _decision_row(state: OctopusState, seat: int) -> int:
    """The DECISIONS index of what `seat` is asked now (O10)."""
    if state.is_over or seat != state.active:
        return DECISIONS.index("none")
    return DECISIONS.index("theft") if state.phase is Phase.THEFT else DECISIONS.index("flip_or_stop")


def _paint(state: OctopusState, piles: np.ndarray) -> np.ndarray:
    """The canvas from `_write_piles`'s vector for `state` and the entries that change every flip."""
    vector = piles.astype(np.float32)
    _write_table(_CANVAS_PLACES, state, vector)
    width, none = len(DECISIONS), DECISIONS.index("none")
    for seat in range(state.num_players):
        vector[_DECISION_AT + seat * width + none] = 1.0
    if not state.is_over:  # O10: only the seat to act is asked anything
        at = _DECISION_AT + state.active * width
        vector[at + none] = 0.0
        vector[at + _decision_row(state, state.active)] = 1.0
    return vector


_FLIPS = {Flipped}
_NOT_ASKED = DECISIONS.index("none")
_NO_TURN = (-1, _NOT_ASKED)
_THEFT_ASKED, _FLIP_OR_STOP_ASKED = DECISIONS.index("theft"), DECISIONS.index("flip_or_stop")
_OVER, _THEFT = Phase.OVER, Phase.THEFT  # module names: an enum member's lookup (or hash) is slow for every step


def _turn_of(state: OctopusState) -> tuple[int, int]:
    """(seat to act, what it is asked: a DECISIONS index) as `_paint` shows it; `_NO_TURN` once the game is over."""
    phase = state.phase
    if phase is _OVER:
        return _NO_TURN
    return (state.active, _THEFT_ASKED if phase is _THEFT else _FLIP_OR_STOP_ASKED)


@functools.cache
def _turn_change(before: tuple[int, int], after: tuple[int, int]) -> tuple[tuple[int, float], ...]:
    """(entry, value) pairs that repaint the to_act and decision entries of the canvas from `before`'s turn to `after`'s."""
    where: dict[int, float] = {}
    for (seat, asked), shown in ((before, False), (after, True)):
        if seat >= 0:
            at = _DECISION_AT + seat * len(DECISIONS)
            for d in range(len(DECISIONS)):
                where[at + d] = float(d == (asked if shown else _NOT_ASKED))
            where[_CANVAS_PLACES.seat["to_act"][seat]] = float(shown)
    return tuple(where.items())


def _entries(*names: str) -> np.ndarray:
    return np.concatenate([np.arange(_CANVAS.span(name).start, _CANVAS.span(name).stop) for name in names])


_ROW_SPAN = slice(_CANVAS.span("row").start, _CANVAS.span("row_order").stop)  # row_order follows row (_HEAD)
_NO_ROW = np.zeros(_ROW_SPAN.stop - _ROW_SPAN.start, dtype=np.float32).data
_THEFT_ENTRIES = np.concatenate(
    [_entries("last_roll", "theft_k", "theft_moved"), _CANVAS_PLACES.seat["thief"], _CANVAS_PLACES.seat["theft_target"]]
)
_COLLECTION_ENTRIES = [slice(at, at + NUM_SPECIES * len(VALUES)) for at in _CANVAS_PLACES.seat["collection"]]
_DISCARD_OCTOPUSES_AT = _CANVAS.offset("discard_octopuses")
# The discard pile's octopus entry for k octopuses, summed as `_write_piles`'s bincount sums its
# weights (k times 1/6 in float64), so that painting in place gives the very same float32.
_OCTOPUS_SHARE = [
    float(np.bincount(np.zeros(k, dtype=np.intp), np.full(k, 1.0 / NUM_OCTOPUSES), minlength=1)[0]) for k in range(NUM_OCTOPUSES + 1)
]
_ROW_AT, _ROW_ORDER_AT, _ROW_LENGTH_AT, _DECK_SIZE_AT, _DISCARD_SIZE_AT = (
    _CANVAS.offset(name) for name in ("row", "row_order", "row_length", "deck_size", "discard_size")
)


def canvas(state: OctopusState) -> np.ndarray:
    """The game as the table has seen it (absolute seats; never the deck's order): what observations are cut from."""
    return _paint(state, _write_piles(_CANVAS_PLACES, state))


def _best_values(cards: Sequence[int]) -> list[int]:
    """Per species, the highest value among `cards` (0 if none): what O7 scores."""
    best = [0] * NUM_SPECIES
    for c in cards:
        species, value = CARD_SPECIES[c], CARD_VALUES[c]
        if species >= 0 and value > best[species]:
            best[species] = value
    return best


class Painter:
    """Paints the canvases of one game as it goes, as `canvas` does, but in place: after flips alone
    (the row grew, the deck shrank, nothing else) it writes only those entries; after any other
    move it counts in the cards that the events since its last canvas moved, recounts the
    collections a theft took from, and repaints the row, the sizes and whose turn it is. Only a new
    game or a new session is painted from scratch. The env's fast path; tests check it against
    `canvas` at every step of random games and after every kind of event."""

    def __init__(self) -> None:
        self._state: OctopusState | None = None
        self._seen = 0  # events of `_state` already accounted for
        self._vector = np.zeros(_CANVAS.size, dtype=np.float32)
        # Single entries are written through a memoryview of the same memory: a third of numpy's
        # cost per item, with the same float32 rounding (a C cast of the double).
        self._cells = self._vector.data.cast("B").cast("f")
        self._turn = _NO_TURN  # (seat, DECISIONS index): the seat painted as asked, and what
        self._best = [[0] * NUM_SPECIES for _ in range(MAX_PLAYERS)]  # per seat and species: its highest value (O7)
        self._octopuses = 0  # in the discard pile
        self._target = _CANVAS_PLACES.target.tolist()

    def __getstate__(self) -> dict[str, object]:
        """Everything but the memoryview, which pickle cannot hold (deepcopy and pickle go through here)."""
        return {name: value for name, value in self.__dict__.items() if name != "_cells"}

    def __setstate__(self, state: dict[str, object]) -> None:
        """The copied painter, its memoryview cast again over its own buffer."""
        self.__dict__.update(state)
        self._cells = self._vector.data.cast("B").cast("f")

    def canvas(self, state: OctopusState) -> np.ndarray:
        """The same vector as `canvas(state)`; the painter's own buffer, valid until its next call
        (observations are cut from it with `observe_canvas`, which copies)."""
        events = state.events
        new = events[self._seen :]
        fresh = state is not self._state or len(events) < self._seen
        self._state, self._seen = state, len(events)
        kinds = set(map(type, new))
        if fresh or SessionStart in kinds:  # O8: a new session empties every pile
            self._vector[:] = canvas(state)
            self._turn = _turn_of(state)
            self._best = [_best_values(cards) for cards in state.collections]
            self._octopuses = _octopuses(state.discard)
            return self._vector
        cells, row = self._cells, state.row
        first = len(row) - len(new)  # O3: flips that kept the turn going only add to the row
        if not kinds <= _FLIPS:
            self._update(state, new)
            cells[_ROW_SPAN] = _NO_ROW  # the row was kept, busted or discarded: repaint all of it
            cells[_DISCARD_SIZE_AT] = len(state.discard) / SIZE_SCALE
            first = 0
        for place in range(first, len(row)):
            card = row[place]
            species = card // CARDS_PER_SPECIES
            cells[_ROW_AT + species] = FISH_VALUES[card % CARDS_PER_SPECIES] / MAX_VALUE
            cells[_ROW_ORDER_AT + species] = (place + 1) / NUM_SPECIES
        cells[_ROW_LENGTH_AT] = len(row) / NUM_SPECIES
        cells[_DECK_SIZE_AT] = len(state.deck) / SIZE_SCALE
        turn = _turn_of(state)
        if turn != self._turn:
            for at, value in _turn_change(self._turn, turn):
                cells[at] = value
            self._turn = turn
        return self._vector

    def _tally(self, seat: int, cards: Sequence[int]) -> None:
        """Count `cards` (fish: a collection holds no octopus) into `seat`'s collection and its best values."""
        cells, target, best = self._cells, self._target[1 + seat], self._best[seat]
        for c in cards:
            cells[target[c]] += 1.0  # counts are small integers: exact in float32, as the reference's cast
            species, value = CARD_SPECIES[c], CARD_VALUES[c]
            if value > best[species]:
                best[species] = value

    def _update(self, state: OctopusState, new: Sequence[object]) -> None:
        """Paint what `new` events changed: cards added to the discard pile and collections are
        counted in; the collections a theft took from are recounted; the theft; the totals."""
        vector, cells, seat_at = self._vector, self._cells, _CANVAS_PLACES.seat
        grown: set[int] = set()
        recount: set[int] = set()
        theft = totals = False
        for event in new:
            kind = type(event)
            if kind is Flipped or kind is NoTheft or kind is TheftSkipped:
                continue
            if kind is Kept:
                self._tally(event.seat, event.cards)  # type: ignore[attr-defined]
                grown.add(event.seat)  # type: ignore[attr-defined]
            elif kind is Busted:
                self._discard(event.discarded)  # type: ignore[attr-defined]
                self._tally(event.seat, event.kept)  # type: ignore[attr-defined]
                grown.add(event.seat)  # type: ignore[attr-defined]
            elif kind is Octopus:
                self._discard(event.discarded)  # type: ignore[attr-defined]
            elif kind is Rolled:
                theft = True
            elif kind is CardsMoved:
                recount.update((event.source, event.dest))  # type: ignore[attr-defined]
                theft = True
            else:  # SessionScored, GameEnded
                totals = True
        for seat in recount:  # a theft also takes cards away: count the collection afresh
            vector[_COLLECTION_ENTRIES[seat]] = 0.0
            self._best[seat] = [0] * NUM_SPECIES
            self._tally(seat, state.collections[seat])
        for seat in grown | recount:
            collection = state.collections[seat]
            cells[seat_at["collection_size"][seat]] = len(collection) / SIZE_SCALE
            cells[seat_at["session_score"][seat]] = sum(self._best[seat]) / SCORE_SCALE  # O7: session_score(collection)
        if theft:
            vector[_THEFT_ENTRIES] = 0.0
            rolled, moved = _last_theft(state)
            if rolled is not None:
                head = _CANVAS_PLACES.head
                vector[[head["last_roll"] + FACES.index(rolled.face), head["theft_k"] + rolled.k - 1]] = 1.0
                vector[[seat_at["thief"][rolled.seat], seat_at["theft_target"][rolled.target]]] = 1.0
                if moved is not None:
                    target = self._target[_MOVED]
                    for c in moved.cards:
                        cells[target[c]] += 1.0
        if totals:
            for seat, total in enumerate(state.totals):
                cells[seat_at["total"][seat]] = total / TARGET

    def _discard(self, cards: Sequence[int]) -> None:
        """Count `cards` into the discard pile: fish card by card, octopuses as their share of six."""
        cells, target = self._cells, self._target[0]
        for c in cards:
            if c >= NUM_FISH:
                self._octopuses += 1
            else:
                cells[target[c]] += 1.0
        cells[_DISCARD_OCTOPUSES_AT] = _OCTOPUS_SHARE[self._octopuses]


def observe_canvas(painted: np.ndarray, num_players: int, seat: int, view: str) -> np.ndarray:
    """`seat`'s observation (a new array) cut from a `canvas`: what the declared tables let it see."""
    if (
        type(num_players) is not int
        or not MIN_PLAYERS <= num_players <= MAX_PLAYERS
        or type(seat) is not int
        or not 0 <= seat < num_players
    ):
        _refuse_table(num_players, seat)
    cut: np.ndarray = painted[_index(num_players, seat, view)]  # (indexing is faster than `take` here)
    return cut


def _refuse_table(num_players: object, seat: object) -> None:
    """InvalidConfigError for a table size or seat `observe_canvas` cannot cut (a numpy integer is read as an int)."""
    if not is_integer(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise InvalidConfigError(f"num_players={num_players!r:.40} is not allowed; the octopus game is played by 2, 3 or 4 players (O1)")
    if not is_integer(seat) or not 0 <= seat < num_players:
        raise InvalidConfigError(f"seat={seat!r:.40} is not at a {num_players}-player table; seats are 0-{num_players - 1}")


def _check_state(state: object) -> None:
    if not isinstance(state, OctopusState):
        raise InvalidConfigError(f"an octopus game's state is a rules.OctopusState (rules.new_game(...)), got {state!r:.60}")


def observe(state: OctopusState, seat: int, view: str = "table") -> np.ndarray:
    """What `seat` sees now in `view` (O4): a float32 vector laid out as OBSERVATION_LAYOUT."""
    _check_state(state)
    if not is_integer(seat) or not 0 <= seat < state.num_players:
        raise InvalidConfigError(f"seat={seat!r} is not at this table; seats are 0-{state.num_players - 1}")
    return observe_canvas(canvas(state), state.num_players, int(seat), check_view(view))


def state_vector(state: OctopusState) -> np.ndarray:
    """Everything, the deck's order included (STATE_LAYOUT, absolute seats): for `state()` and
    centralized critics, never a seat's view."""
    _check_state(state)
    counted = _write_piles(_STATE_PLACES, state)
    _write_table(_STATE_PLACES, state, counted)
    where: list[int] = []
    what: list[float] = []
    phase = DECISIONS.index("none") if state.is_over else _decision_row(state, state.active)
    where.append(STATE_LAYOUT.offset("phase") + phase)
    what.append(1.0)
    deck_at = STATE_LAYOUT.offset("deck")
    for place, card in enumerate(reversed(state.deck)):  # deck[-1] is the next card
        where.append(deck_at + card)
        what.append((place + 1) / SIZE_SCALE)
    counted[where] = what
    vector: np.ndarray = counted.astype(np.float32)
    return vector


__all__ = [
    "DECISIONS",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_VERSION",
    "OPPONENT_ROW_VISIBILITY",
    "SEAT_LAYOUT",
    "STATE_LAYOUT",
    "VIEWS",
    "VISIBILITY",
    "Painter",
    "UndeclaredVisibilityError",
    "canvas",
    "counts",
    "layout_tables",
    "observation_index",
    "observe",
    "observe_canvas",
    "shown_entries",
    "state_vector",
]
