"""What one seat may see (R11), encoded as one float32 vector from named pieces.

The vector is a few table-wide pieces followed by `seats`: one row per seat, seat-relative (row 0
is the observer, row k the k-th seat to her left, clockwise, R1; rows beyond the table are zero).
The layout is the same for every player count, variant and view, so one network can play them all.

How it works, and why it cannot leak: after every reveal `Encoder.refresh` writes the whole game
into one flat *canvas* (absolute seats, hidden information included). A seat's observation is
`canvas.take(index[seat])`, where `index` is a static integer map built once per (player count,
seat, view) that points every entry either at a canvas entry the seat may see or at a constant
zero. What an opponent's row shows is `opponent_row_mask(full)`, a mask over a seat row: R11 is
decided there and nowhere else (the batched engine applies the same mask). No pending choice can
show, because the canvas changes only at a reveal. The one dynamic exception is a face-down lagoon
card (R5): its peeker alone gets the card's true features added in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from miaui_env.cards import FISH_KINDS, FishCard
from miaui_env.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    NUM_SPACES,
    GameConfig,
    GameState,
    InvalidConfigError,
    SeagullTheft,
    deep_priority,
    kiti_seat,
    shallow_priority,
)

OBSERVATION_VERSION = 1  # bump whenever a layout below changes; checkpoints record it
VIEWS = ("table", "recall")
VECTOR_BOUND = 64.0  # every entry of an observation or state vector lies in [-VECTOR_BOUND, VECTOR_BOUND]

VALUE_SCALE = 15.0  # the largest printed value, so a card's value lands in [-1, 1]
LAGOON_SLOTS = 3  # cards shown one by one per lagoon space (a space holds one outside No Fighting)
PILE_SLOTS = 3  # top cards shown one by one per fish pile (what Seagulls can reach first)

# A card is 8 features: one-hot kind, value / VALUE_SCALE, and a flag for a face-down card the
# observer may not see. An empty slot is all zeros, so features add up to kind counts and values.
CARD_DIM = len(FISH_KINDS) + 2
HIDDEN_FEATURE = CARD_DIM - 1
# last_round row: diver card played (12), depth caught at (3), fish caught (feature sum), fish that
# Seagulls took from this pile (feature sum), Seagull thefts suffered, Jellyfish triples.
LAST_ROUND_DIM = NUM_DIVER_CARDS + NUM_SPACES + 2 * CARD_DIM + 2
_CAUGHT_AT = NUM_DIVER_CARDS
_CAUGHT = slice(_CAUGHT_AT + NUM_SPACES, _CAUGHT_AT + NUM_SPACES + CARD_DIM)
_STOLEN = slice(_CAUGHT.stop, _CAUGHT.stop + CARD_DIM)
_THEFTS, _TRIPLES = _STOLEN.stop, _STOLEN.stop + 1


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

    `rows` names a piece made of rows with a layout of their own (the seat rows); their pieces can
    be viewed by name too, across all rows at once.
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

    def span(self, name: str) -> slice:
        """The flat slice holding piece `name`."""
        return self._spans[name][0]

    def view(self, vector: np.ndarray, name: str) -> np.ndarray:
        """Piece `name` of `vector` (last axis), reshaped to the piece's shape; a view, not a copy."""
        if name not in self._spans:
            for rows_name, row_layout in self.rows.items():
                if name in row_layout._spans:
                    return row_layout.view(self.view(vector, rows_name), name)
            raise KeyError(f"no piece {name!r}; pieces are {[p.name for p in self.pieces]}")
        span, shape = self._spans[name]
        return vector[..., span].reshape(*vector.shape[:-1], *shape)

    def index_table(self) -> str:
        """Markdown table of the layout: piece, indices, shape, meaning."""
        rows = ["| piece | indices | shape | meaning |", "|---|---|---|---|"]
        for piece in self.pieces:
            start = self.offsets[piece.name]
            shape = "x".join(map(str, piece.shape))
            rows.append(f"| `{piece.name}` | {start}-{start + piece.size - 1} | {shape} | {piece.doc} |")
        return "\n".join(rows)


SEAT_LAYOUT = Layout(
    [
        Piece("present", (1,), "1 if the seat is at the table"),
        Piece("kiti", (1,), "1 if Kiti sits between this seat and the next one to its left (0 in No Fighting)"),
        Piece("deep_priority", (1,), "1 - rank/n in this round's deepest/deep tie order (0 in No Fighting)"),
        Piece("shallow_priority", (1,), "1 - rank/n in the shallow tie order (0 in No Fighting)"),
        Piece("pile_summary", (CARD_DIM,), "pile height/12, count of each kind/4, value sum/60 (opponents, table view: height only)"),
        Piece("pile", (PILE_SLOTS, CARD_DIM), "the top 3 fish of the pile, top first (opponents, table view: top only)"),
        Piece("played", (NUM_DIVER_CARDS,), "1 for each diver card played so far (opponents: Open Baskets or recall view only)"),
        Piece(
            "last_round",
            (LAST_ROUND_DIM,),
            "last reveal: card played (12), depth caught (3), fish caught (8), fish lost to Seagulls (8), thefts, triples",
        ),
    ]
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

# The canvas: the omniscient game, absolute seats. Observation and state indices point into it.
_CANVAS = Layout(
    [
        Piece("zero", (1,), "constant 0 for entries a view hides"),
        *_HEAD,
        Piece("hand", (MAX_PLAYERS, NUM_DIVER_CARDS), ""),
        Piece("lagoon_public", (NUM_SPACES, LAGOON_SLOTS, CARD_DIM), "face-down cards as hidden"),
        Piece("lagoon_rest_public", (NUM_SPACES, CARD_DIM), ""),
        Piece("lagoon_true", (NUM_SPACES, LAGOON_SLOTS, CARD_DIM), "face-down cards shown"),
        Piece("lagoon_rest_true", (NUM_SPACES, CARD_DIM), ""),
        Piece("box", (CARD_DIM,), ""),
        Piece("deck", (CARD_DIM,), ""),
        Piece("put_back", (CARD_DIM,), ""),
        Piece("seats", (MAX_PLAYERS, SEAT_DIM), ""),
    ],
    rows={"seats": SEAT_LAYOUT},
)
_CANVAS_IDS = np.arange(_CANVAS.size)


def layout_tables() -> str:
    """The observation layout as documentation: the vector's pieces, then a seat row's pieces."""
    return OBSERVATION_LAYOUT.index_table() + "\n\nEach row of `seats`:\n\n" + SEAT_LAYOUT.index_table()


def opponent_row_mask(full: bool) -> np.ndarray:
    """R11: which entries of an opponent's seat row a player sees (bool, SEAT_DIM).

    `full` is the Open Baskets or recall knowledge (whole piles, every diver card played);
    otherwise the table view: pile height and top card, the tie priorities and the last reveal.
    """
    mask = np.ones(SEAT_DIM, dtype=bool)
    if not full:
        SEAT_LAYOUT.view(mask, "pile_summary")[1:] = False
        SEAT_LAYOUT.view(mask, "pile")[1:] = False
        SEAT_LAYOUT.view(mask, "played")[:] = False
    return mask


def check_view(view: str) -> None:
    """Refuse anything but a known view, naming the views."""
    if view not in VIEWS:
        raise InvalidConfigError(f"view={view!r} is not allowed; views are {', '.join(map(repr, VIEWS))}")


def _table_view_keep(open_baskets: bool) -> np.ndarray:
    """Which entries of a recall-view observation the table view keeps (bool, observation size)."""
    keep = np.ones(OBSERVATION_LAYOUT.size, dtype=bool)
    OBSERVATION_LAYOUT.view(keep, "box")[:] = False
    OBSERVATION_LAYOUT.view(keep, "seats")[1:] = opponent_row_mask(open_baskets)
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


def card_stats(card: FishCard) -> np.ndarray:
    """A card as integer stats: one-hot kind, printed value, hidden flag (0). Sums of stats are exact."""
    stats = np.zeros(CARD_DIM, dtype=np.int64)
    stats[FISH_KINDS.index(card.kind)] = 1
    stats[len(FISH_KINDS)] = card.value
    return stats


def stats_table(config: GameConfig) -> np.ndarray:
    """Card stats by deck index, then two extra rows: EMPTY (zeros) and HIDDEN (the flag)."""
    table = np.zeros((len(config.deck) + 2, CARD_DIM), dtype=np.int64)
    for i, card in enumerate(config.deck):
        table[i] = card_stats(card)
    table[len(config.deck) + 1, HIDDEN_FEATURE] = 1
    return table


_STATS_DIVISOR = np.ones(CARD_DIM)
_STATS_DIVISOR[len(FISH_KINDS)] = VALUE_SCALE


def features(stats: np.ndarray) -> np.ndarray:
    """Card features from (sums of) card stats. Both engines go through here, so they agree exactly."""
    return (np.asarray(stats) / _STATS_DIVISOR).astype(np.float32)


def card_features(card: FishCard) -> np.ndarray:
    """The CARD_DIM features of a face-up card."""
    return features(card_stats(card))


def round_columns(config: GameConfig) -> np.ndarray:
    """Per round (index 1-13): the kiti, deep_priority and shallow_priority columns of each seat row."""
    n = config.num_players
    columns = np.zeros((NUM_ROUNDS + 2, MAX_PLAYERS, 3), dtype=np.float32)
    if config.no_fighting:
        return columns
    for r in range(1, NUM_ROUNDS + 2):
        columns[r, kiti_seat(r, n), 0] = 1.0
        for rank, seat in enumerate(deep_priority(r, n)):
            columns[r, seat, 1] = 1.0 - rank / n
        for rank, seat in enumerate(shallow_priority(r, n)):
            columns[r, seat, 2] = 1.0 - rank / n
    return columns


def pile_summary(stats: np.ndarray, height: np.ndarray | int) -> np.ndarray:
    """A pile_summary from the pile's summed card stats: height/12, kind counts/4, value sum/60."""
    summary = np.empty((*np.shape(stats)[:-1], CARD_DIM), dtype=np.float64)
    summary[..., 0] = np.asarray(height) / NUM_ROUNDS
    summary[..., 1:] = np.asarray(stats)[..., : CARD_DIM - 1] / 4.0
    summary[..., CARD_DIM - 1] /= VALUE_SCALE
    return summary.astype(np.float32)


class Encoder:
    """Builds the observations (and the global state) of one game after each reveal."""

    def __init__(self, config: GameConfig, view: str = "table"):
        check_view(view)
        self.config, self.view = config, view
        n = config.num_players
        self.stats = stats_table(config)
        self.features = features(self.stats)
        self.empty, self.hidden = len(config.deck), len(config.deck) + 1
        self._stats_of = {card: card_stats(card) for card in config.deck}
        self._feature_of = {card: card_features(card) for card in config.deck}
        self._peek_delta = self.features[: len(config.deck)] - self.features[self.hidden]

        self.canvas = np.zeros(_CANVAS.size, dtype=np.float32)
        view_of = lambda name: _CANVAS.view(self.canvas, name)  # noqa: E731
        # Views into the canvas, bound once: refresh() writes through them in place.
        self._round, self._hands, self._seats = view_of("round"), view_of("hand")[:n], view_of("seats")
        self._lagoon, self._lagoon_rest = view_of("lagoon_public"), view_of("lagoon_rest_public")
        self._round_columns_view = self._seats[:, 1:4]
        self._played, self._last_round = view_of("played")[:n], view_of("last_round")[:n]
        self._pile, self._pile_summary = view_of("pile"), view_of("pile_summary")
        view_of("num_players")[n - MIN_PLAYERS] = 1.0
        view_of("variant")[:] = (config.open_baskets, config.no_fighting)
        view_of("present")[:n] = 1.0
        self._round_columns = round_columns(config)

        full = view == "recall" or config.open_baskets
        self.obs_index = np.stack([self._index(OBSERVATION_LAYOUT, seat, full, view == "recall") for seat in range(n)])
        self.state_index = self._index(STATE_LAYOUT, 0, True, True, omniscient=True)
        self._peeked: dict[int, list[tuple[int, int]]] = {}
        self._records_seen = self._box_seen = -1

    def _index(self, layout: Layout, seat: int, full: bool, recall: bool, omniscient: bool = False) -> np.ndarray:
        """Static map: layout entry -> canvas entry (0, the constant zero, where hidden)."""
        n = self.config.num_players
        index = np.zeros(layout.size, dtype=np.intp)
        hidden_in_opponent_rows = ~opponent_row_mask(full)
        for piece in layout.pieces:
            dst = layout.view(index, piece.name)
            if piece.name == "seats":
                src = _CANVAS.view(_CANVAS_IDS, "seats")
                for rel in range(n):
                    dst[rel] = src[(seat + rel) % n]
                    if rel and not omniscient:
                        dst[rel, hidden_in_opponent_rows] = 0
            elif piece.name == "hand":
                src = _CANVAS.view(_CANVAS_IDS, "hand")
                dst[...] = src if omniscient else src[seat]
            elif piece.name in ("lagoon", "lagoon_rest"):
                dst[...] = _CANVAS.view(_CANVAS_IDS, f"{piece.name}_{'true' if omniscient else 'public'}")
            elif piece.name != "box" or recall:
                dst[...] = _CANVAS.view(_CANVAS_IDS, piece.name)
        return index

    # -- per reveal ---------------------------------------------------------------------------
    def refresh(self, state: GameState) -> None:
        """Write the game into the canvas; call after new_game and after every play_round."""
        if not state.history:
            self._records_seen = self._box_seen = -1  # a new game: every pile and the box are rewritten
        feats = self.features
        self._round.fill(0.0)
        if state.round <= NUM_ROUNDS:
            self._round[state.round - 1] = 1.0
        self._round_columns_view[:] = self._round_columns[state.round]
        self._hands[:] = state.hands
        np.subtract(1, state.hands, out=self._played, casting="unsafe")
        self._refresh_lagoon(state)

        # Piles and the box change only through catches, so only catchers' piles are rewritten.
        if self._records_seen < 0:
            changed = list(range(state.num_players))
        else:
            changed = list({d.winner for r in state.history[self._records_seen :] for d in r.depths if d.winner is not None})
        self._records_seen = len(state.history)
        if changed:
            # One gather for every changed pile: its top cards, and all its cards for the summary.
            tops = [[*state.piles[seat][: -PILE_SLOTS - 1 : -1], *[self.empty] * PILE_SLOTS][:PILE_SLOTS] for seat in changed]
            longest = max(len(state.piles[seat]) for seat in changed)
            every_card = [[*state.piles[seat], *[self.empty] * (longest - len(state.piles[seat]))] for seat in changed]
            self._pile[changed] = feats[tops]
            heights = [len(state.piles[seat]) for seat in changed]
            self._pile_summary[changed] = pile_summary(self.stats[every_card].sum(axis=1), np.array(heights))
            if len(state.box) != self._box_seen:
                _CANVAS.view(self.canvas, "box")[:] = features(self.stats[state.box].sum(axis=0))
                self._box_seen = len(state.box)
        self._write_last_round(state)

    def _refresh_lagoon(self, state: GameState) -> None:
        ids = np.full((NUM_SPACES, LAGOON_SLOTS), self.empty)
        rest = np.zeros((NUM_SPACES, CARD_DIM), dtype=np.int64)
        self._peeked = {}
        for depth, space in enumerate(state.lagoon):
            for slot, lc in enumerate(space):
                shown = lc.card if lc.peeker is None else self.hidden
                if lc.peeker is not None:
                    self._peeked.setdefault(lc.peeker, []).append((self._peek_offset(depth, slot), lc.card))
                if slot < LAGOON_SLOTS:
                    ids[depth, slot] = shown
                else:
                    rest[depth] += self.stats[shown]
        self._lagoon[:] = self.features[ids]
        if self.config.no_fighting:  # elsewhere a space holds one card and the rest stays zero
            self._lagoon_rest[:] = features(rest)

    def _write_last_round(self, state: GameState) -> None:
        block = self._last_round
        block.fill(0.0)
        if not state.history:
            return
        record, n = state.history[-1], state.num_players
        block[np.arange(n), np.asarray(record.plays) - 1] = 1.0
        for result in record.depths:
            if result.winner is not None:
                block[result.winner, _CAUGHT_AT + result.depth] = 1.0
                block[result.winner, _CAUGHT] = self._summed_features(result.fish)
        stolen: dict[int, list[FishCard]] = {}
        for event in record.events:
            if isinstance(event, SeagullTheft):
                block[event.seat, _THEFTS] += 1.0
                if event.stolen is not None:
                    stolen.setdefault(event.seat, []).append(event.stolen)
            else:
                block[event.seat, _TRIPLES] += 1.0
        for seat, cards in stolen.items():
            block[seat, _STOLEN] = self._summed_features(cards)

    def _summed_features(self, cards: Sequence[FishCard]) -> np.ndarray:
        """The feature sum of `cards`. A seat catches once a round and a theft takes one card, so
        this is mostly one card's features, looked up; a No Fighting stack or several Seagulls add
        their stats up first."""
        if len(cards) == 1:
            return self._feature_of[cards[0]]
        return features(np.sum([self._stats_of[card] for card in cards], axis=0))

    @staticmethod
    def _peek_offset(depth: int, slot: int) -> int:
        """Where a lagoon card's features start in an observation: its slot, or its space's rest sum."""
        if slot < LAGOON_SLOTS:
            return OBSERVATION_LAYOUT.offsets["lagoon"] + (depth * LAGOON_SLOTS + slot) * CARD_DIM
        return OBSERVATION_LAYOUT.offsets["lagoon_rest"] + depth * CARD_DIM

    def observe(self, seat: int) -> np.ndarray:
        """The observation vector of `seat` (a new array)."""
        obs = self.canvas.take(self.obs_index[seat])
        for start, card in self._peeked.get(seat, ()):
            obs[start : start + CARD_DIM] += self._peek_delta[card]  # the peeker sees the card itself
        return obs

    def state_vector(self, state: GameState) -> np.ndarray:
        """The omniscient global state (absolute seats, player_0 first), for centralized critics."""
        ids = np.full((NUM_SPACES, LAGOON_SLOTS), self.empty)
        rest = np.zeros((NUM_SPACES, CARD_DIM), dtype=np.int64)
        for depth, space in enumerate(state.lagoon):
            for slot, lc in enumerate(space):
                if slot < LAGOON_SLOTS:
                    ids[depth, slot] = lc.card
                else:
                    rest[depth] += self.stats[lc.card]
        _CANVAS.view(self.canvas, "lagoon_true")[:] = self.features[ids]
        _CANVAS.view(self.canvas, "lagoon_rest_true")[:] = features(rest)
        _CANVAS.view(self.canvas, "deck")[:] = features(self.stats[state.deck].sum(axis=0))
        _CANVAS.view(self.canvas, "put_back")[:] = self.features[state.put_back]
        return self.canvas.take(self.state_index)
