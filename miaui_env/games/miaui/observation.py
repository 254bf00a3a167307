"""What one seat may see (R11), encoded as one float32 vector from named pieces.

The vector is a few table-wide pieces followed by `seats`: one row per seat, seat-relative (row 0
is the observer, row k the k-th seat to her left, clockwise, R1; rows beyond the table are zero).
The layout is the same for every player count, variant and view, so one network can play them all.

How it works, and why it cannot leak: after every reveal `encoder.Encoder.refresh` writes the whole game
into one flat *canvas* (absolute seats, hidden information included). A seat's observation is
`canvas.take(index[seat])`, where `index` is a static integer map built once per (player count,
seat, view) that points every entry either at a canvas entry the seat may see or at a constant
zero. Which is which is declared piece by piece in `VISIBILITY` (the vector's pieces) and
`OPPONENT_ROW_VISIBILITY` (what an opponent's seat row shows): R11 is decided there and nowhere
else, and a piece declared in neither is an error, never shown. No pending choice can show,
because the canvas changes only at a reveal. The one dynamic exception is a face-down lagoon card
(R5), declared in `FACE_DOWN_VISIBILITY`: its peeker alone gets the card's true features added in.
The batched engine's compiled encoder takes every one of these decisions from the same tables
(`shown_entries`, `face_down_public`), so a change of a table changes what both encoders show.
This module declares what a seat may see; `miaui_env.games.miaui.encoder` writes the game onto the canvas.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from miaui_env.core import layout as layout_module
from miaui_env.core.errors import InvalidConfigError
from miaui_env.core.layout import (
    Layout,
    OpponentSight,
    Piece,
    Shown,
    Sight,
    declared,
    declared_index,
)
from miaui_env.games.miaui.cards import FISH_KINDS
from miaui_env.games.miaui.rules import MAX_PLAYERS, MIN_PLAYERS, NUM_DIVER_CARDS, NUM_ROUNDS, NUM_SPACES

OBSERVATION_VERSION = 1  # bump whenever a layout below changes; checkpoints record it
VIEWS = ("table", "recall")

VALUE_SCALE = 15.0  # the largest printed value, so a card's value lands in [-1, 1]
# A pile summary divides a pile's height by HEIGHT_SCALE (one catch a round makes 12), its count of
# each kind by COUNT_SCALE, and its value sum by COUNT_SCALE * VALUE_SCALE (four top fish sum to 1).
HEIGHT_SCALE = float(NUM_ROUNDS)
COUNT_SCALE = 4.0
LAGOON_SLOTS = 3  # cards shown one by one per lagoon space (a space holds one outside No Fighting)
PILE_SLOTS = 3  # top cards shown one by one per fish pile (what Seagulls can reach first)

# A card is 8 features: one-hot kind, value / VALUE_SCALE, and a flag for a face-down card the
# observer may not see. An empty slot is all zeros, so features add up to kind counts and values.
CARD_DIM = len(FISH_KINDS) + 2
HIDDEN_FEATURE = CARD_DIM - 1


# What a seat row records of the last reveal. The public facts of one round: the cards lie face-up
# before being discarded, catches and fish effects happen in the open (R9, R11).
LAST_ROUND_LAYOUT = Layout(
    [
        Piece("card_played", (NUM_DIVER_CARDS,), "card played"),  # one-hot diver card
        Piece("caught_at", (NUM_SPACES,), "depth caught"),  # one-hot space: bottom, middle, top
        Piece("caught", (CARD_DIM,), "fish caught"),  # feature sum of the fish caught
        Piece("stolen", (CARD_DIM,), "fish lost to Seagulls"),  # feature sum of what Seagulls took from the pile
        Piece("thefts", (1,), "thefts"),  # Seagull thefts suffered
        Piece("triples", (1,), "triples"),  # Jellyfish triples sent to the box
    ]
)
_LAST_ROUND_DOC = "last reveal: " + ", ".join(
    piece.doc + (f" ({piece.size})" if piece.size > 1 else "") for piece in LAST_ROUND_LAYOUT.pieces
)

SEAT_LAYOUT = Layout(
    [
        Piece("present", (1,), "1 if the seat is at the table"),
        Piece("kiti", (1,), "1 if Kiti sits between this seat and the next one to its left (0 in No Fighting)"),
        Piece("deep_priority", (1,), "1 - rank/n in this round's deepest/deep tie order (0 in No Fighting)"),
        Piece("shallow_priority", (1,), "1 - rank/n in the shallow tie order (0 in No Fighting)"),
        Piece(
            "pile_summary",
            (CARD_DIM,),
            f"pile height/{HEIGHT_SCALE:g}, count of each kind/{COUNT_SCALE:g}, value sum/{COUNT_SCALE * VALUE_SCALE:g}"
            " (opponents, table view: height only)",
        ),
        Piece("pile", (PILE_SLOTS, CARD_DIM), "the top 3 fish of the pile, top first (opponents, table view: top only)"),
        Piece("played", (NUM_DIVER_CARDS,), "1 for each diver card played so far (opponents: Open Baskets or recall view only)"),
        Piece("last_round", (LAST_ROUND_LAYOUT.size,), _LAST_ROUND_DOC),
    ],
    rows={"last_round": LAST_ROUND_LAYOUT},
)
SEAT_DIM = SEAT_LAYOUT.size

_HEAD = [
    Piece("num_players", (MAX_PLAYERS - MIN_PLAYERS + 1,), "one-hot table size 3, 4, 5, 6"),
    Piece("variant", (2,), "Open Baskets, No Fighting flags"),
    Piece("round", (NUM_ROUNDS,), "one-hot round about to be played (1-12)"),
]
_SEATS_DOC = "one row per seat (below): you, then each seat to your left; rows past the table are 0"

OBSERVATION_LAYOUT = Layout(
    [
        *_HEAD,
        Piece("hand", (NUM_DIVER_CARDS,), "1 for each diver card in your hand (equals the action mask)"),
        Piece(
            "lagoon",
            (NUM_SPACES, LAGOON_SLOTS, CARD_DIM),
            "bottom, middle, top space: oldest 3 cards; a face-down card is 'hidden' unless you peeked it",
        ),
        Piece("lagoon_rest", (NUM_SPACES, CARD_DIM), "feature sum of any further cards in each space (No Fighting stacks)"),
        Piece("box", (CARD_DIM,), "feature sum of the cards Seagulls and Jellyfish sent to the box (recall view only)"),
        Piece("seats", (MAX_PLAYERS, SEAT_DIM), _SEATS_DOC),
    ],
    rows={"seats": SEAT_LAYOUT},
)

STATE_LAYOUT = Layout(
    [
        *_HEAD,
        Piece("hand", (MAX_PLAYERS, NUM_DIVER_CARDS), "every seat's hand"),
        Piece("lagoon", (NUM_SPACES, LAGOON_SLOTS, CARD_DIM), "the lagoon, face-down cards shown"),
        Piece("lagoon_rest", (NUM_SPACES, CARD_DIM), "feature sum of further cards in each space, face-down ones shown"),
        Piece("box", (CARD_DIM,), "feature sum of the cards in the box"),
        Piece("deck", (CARD_DIM,), "feature sum of the undealt deck"),
        Piece("put_back", (CARD_DIM,), "the card put back unseen at setup"),
        Piece("seats", (MAX_PLAYERS, SEAT_DIM), "one row per seat, player_0 first, everything shown"),
    ],
    rows={"seats": SEAT_LAYOUT},
)

# The canvas: the omniscient game, absolute seats. Observation and state indices point into it; an
# observation's piece reads the canvas piece of the same name, the state's the `_STATE_SOURCES` one.
CANVAS = Layout(
    [
        Piece("zero", (1,), "constant 0 for entries a view hides"),
        *_HEAD,
        Piece("hand", (MAX_PLAYERS, NUM_DIVER_CARDS), ""),
        Piece("lagoon", (NUM_SPACES, LAGOON_SLOTS, CARD_DIM), "face-down cards as hidden"),
        Piece("lagoon_rest", (NUM_SPACES, CARD_DIM), "face-down cards as hidden"),
        Piece("lagoon_true", (NUM_SPACES, LAGOON_SLOTS, CARD_DIM), "face-down cards shown"),
        Piece("lagoon_rest_true", (NUM_SPACES, CARD_DIM), "face-down cards shown"),
        Piece("box", (CARD_DIM,), ""),
        Piece("deck", (CARD_DIM,), ""),
        Piece("put_back", (CARD_DIM,), ""),
        Piece("seats", (MAX_PLAYERS, SEAT_DIM), ""),
    ],
    rows={"seats": SEAT_LAYOUT},
)
CANVAS_IDS = np.arange(CANVAS.size)
_STATE_SOURCES = {"lagoon": "lagoon_true", "lagoon_rest": "lagoon_rest_true"}


# -- R11, declared piece by piece --------------------------------------------------------------
VISIBILITY: dict[str, Sight] = {
    "num_players": Sight.PUBLIC,
    "variant": Sight.PUBLIC,
    "round": Sight.PUBLIC,
    "hand": Sight.OWN,  # other hands are never visible
    "lagoon": Sight.PUBLIC,  # face-down cards as hidden; their peeker gets them added in `Encoder.observe` (R5)
    "lagoon_rest": Sight.PUBLIC,  # the same, summed
    "box": Sight.RECALL,  # each card went there in the open, but only perfect memory still knows them all
    "seats": Sight.SEAT_ROWS,
}

_OPEN = OpponentSight(Shown.ALL, Shown.ALL)
OPPONENT_ROW_VISIBILITY: dict[str, OpponentSight] = {
    "present": _OPEN,
    "kiti": _OPEN,  # Kiti's place and the tie priorities
    "deep_priority": _OPEN,
    "shallow_priority": _OPEN,
    "pile_summary": OpponentSight(Shown.FIRST, Shown.ALL),  # the pile's height; its contents with the whole pile
    "pile": OpponentSight(Shown.FIRST, Shown.ALL),  # the top card; the ones below with the whole pile
    "played": OpponentSight(Shown.NOTHING, Shown.ALL),  # diver discards beyond the last reveal
    # The last reveal lies face-up on the table.
    "card_played": _OPEN,
    "caught_at": _OPEN,
    "caught": _OPEN,
    "stolen": _OPEN,
    "thefts": _OPEN,
    "triples": _OPEN,
}


# R5: who sees the face of a face-down lagoon card, per piece it can lie in. OWN: its peeker alone
# (every other seat sees the hidden flag); PUBLIC would turn it face-up for every seat. (The rules
# put a face-down card in a space its Lantern's catch emptied, so it is always the oldest card of
# its space: the lagoon_rest entry is declared, and followed by both encoders, for completeness.)
FACE_DOWN_VISIBILITY: dict[str, Sight] = {
    "lagoon": Sight.OWN,
    "lagoon_rest": Sight.OWN,
}
FACE_DOWN_PIECES = ("lagoon", "lagoon_rest")  # the pieces a face-down card can lie in, in the encoders' order


def check_declared(
    layout: Layout = OBSERVATION_LAYOUT,
    visibility: Mapping[str, Sight] = VISIBILITY,
    opponent_rows: Mapping[str, OpponentSight] = OPPONENT_ROW_VISIBILITY,
) -> None:
    """Raise UndeclaredVisibilityError naming the first piece of `layout` (Miaui's by default) without a declared visibility."""
    layout_module.check_declared(layout, visibility, opponent_rows)


def opponent_row_mask(
    full: bool, row_layout: Layout = SEAT_LAYOUT, opponent_rows: Mapping[str, OpponentSight] = OPPONENT_ROW_VISIBILITY
) -> np.ndarray:
    """R11: which entries of an opponent's seat row a player sees (bool, row size), from the declared table.

    `full` is the Open Baskets or recall knowledge (whole piles, every diver card played);
    otherwise the table view: pile height and top card, the tie priorities and the last reveal.
    """
    return layout_module.opponent_row_mask(full, row_layout, opponent_rows)


def layout_tables(layout: Layout = OBSERVATION_LAYOUT, seat_layout: Layout = SEAT_LAYOUT) -> str:
    """The observation layout as documentation: the vector's pieces, then a seat row's pieces."""
    return layout_module.layout_tables(layout, seat_layout)


def observation_index(
    num_players: int,
    seat: int,
    view: str,
    open_baskets: bool,
    layout: Layout = OBSERVATION_LAYOUT,
    visibility: Mapping[str, Sight] = VISIBILITY,
    opponent_rows: Mapping[str, OpponentSight] = OPPONENT_ROW_VISIBILITY,
) -> np.ndarray:
    """`seat`'s observation as canvas entries (`declared_index` over the R11 tables): Open Baskets and
    the recall view show opponents' rows in full, RECALL pieces only the recall view."""
    recall = view == "recall"
    return declared_index(num_players, seat, recall, recall or open_baskets, layout, visibility, opponent_rows, CANVAS, CANVAS_IDS)


def state_index(num_players: int) -> np.ndarray:
    """Static map: each entry of the omniscient state -> its canvas entry (rows past the table: 0)."""
    index = np.zeros(STATE_LAYOUT.size, dtype=np.intp)
    for piece in STATE_LAYOUT.pieces:
        src = CANVAS.view(CANVAS_IDS, _STATE_SOURCES.get(piece.name, piece.name))
        dst = STATE_LAYOUT.view(index, piece.name)
        if piece.name in ("hand", "seats"):  # one entry per seat
            dst[:num_players] = src[:num_players]
        else:
            dst[...] = src
    return index


def shown_entries(num_players: int, view: str, open_baskets: bool) -> np.ndarray:
    """Which entries of an observation the declared tables show (bool, layout size); the same for every seat.

    The compiled encoder takes its visibility from here, so both encoders show what the tables say."""
    shown: np.ndarray = observation_index(num_players, 0, view, open_baskets) != 0
    return shown


def face_down_public(piece: str, face_down: Mapping[str, Sight] = FACE_DOWN_VISIBILITY) -> bool:
    """Whether a face-down card lying in lagoon piece `piece` shows its face to every seat (R5,
    `FACE_DOWN_VISIBILITY`); False: to its peeker alone."""
    sight = declared(face_down, piece, "FACE_DOWN_VISIBILITY")
    if sight not in (Sight.OWN, Sight.PUBLIC):
        raise ValueError(f"FACE_DOWN_VISIBILITY[{piece!r}] is {sight}; a face-down card is seen by its peeker (OWN) or by all (PUBLIC)")
    return sight is Sight.PUBLIC


def face_down_peeks(shown: np.ndarray) -> tuple[bool, ...]:
    """Per FACE_DOWN_PIECES, whether a face-down card's peeker sees its face there (R5): the table
    hides it from the others, in a piece the seat is shown (`shown`: `shown_entries`)."""
    return tuple(not face_down_public(name) and bool(OBSERVATION_LAYOUT.view(shown, name).any()) for name in FACE_DOWN_PIECES)


def check_view(view: str) -> None:
    """Refuse anything but a known view, naming the views."""
    if not isinstance(view, str) or view not in VIEWS:
        raise InvalidConfigError(f"view={view!r} is not allowed; views are {', '.join(map(repr, VIEWS))}")


def _table_view_keep(open_baskets: bool) -> np.ndarray:
    """Which entries of a recall-view observation the table view keeps (bool, observation size)."""
    keep = np.ones(OBSERVATION_LAYOUT.size, dtype=bool)
    for piece in OBSERVATION_LAYOUT.pieces:
        sight = VISIBILITY[piece.name]
        if sight is Sight.RECALL:
            OBSERVATION_LAYOUT.view(keep, piece.name)[:] = False
        elif sight is Sight.SEAT_ROWS:
            OBSERVATION_LAYOUT.view(keep, piece.name)[1:] = opponent_row_mask(open_baskets, OBSERVATION_LAYOUT.rows[piece.name])
    return keep


_TABLE_VIEW_KEEP = {False: _table_view_keep(False), True: _table_view_keep(True)}


def table_view(observations: np.ndarray) -> np.ndarray:
    """The table view of recall-view observations (..., size): the same seats without the memory.

    The recall view only adds what was once public (R11), so the table view is the recall view
    with the box and opponents' buried fish and played cards zeroed (Open Baskets keeps the latter).
    This lets agents trained on either view share one table.
    """
    observations = np.asarray(observations)
    open_baskets = OBSERVATION_LAYOUT.view(observations, "variant")[..., 0] > 0
    keep = np.where(open_baskets[..., None], _TABLE_VIEW_KEEP[True], _TABLE_VIEW_KEEP[False])
    return np.where(keep, observations, 0).astype(observations.dtype, copy=False)
