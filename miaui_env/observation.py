"""What one seat may see (R11), encoded as one float32 vector from named pieces.

How it works, and why it cannot leak: after every reveal `Encoder.refresh` writes the whole game
into one flat *canvas* (absolute seat order, everything including hidden information). A seat's
observation is `canvas.take(index[seat])`, where `index` is a static integer map built once per
(player count, seat, view) that points every observation entry either at a canvas entry that seat
may see or at a constant zero. What a view reveals is therefore decided in exactly one place,
`_visible_source`, and no pending choice can show because the canvas changes only at a reveal.
The single dynamic exception is a face-down lagoon card (R5), copied in for its peeker alone.

Every piece is seat-relative: entry 0 of a per-seat piece is the observer, entry k the k-th seat to
her left (clockwise, R1); seats beyond the table size are zero. The layout is the same for every
player count, variant and view, so one network can play them all (`OBSERVATION_LAYOUT` lists it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from miaui_env.cards import FISH_KINDS, FishCard, FishKind
from miaui_env.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    NUM_SPACES,
    Depth,
    GameConfig,
    GameState,
    SeagullTheft,
    deep_priority,
    kiti_seat,
    shallow_priority,
)

OBSERVATION_VERSION = 1  # bump whenever the layout below changes; checkpoints record it
VIEWS = ("table", "recall")

SLOTS = 12  # cards shown per lagoon space and per fish pile (top first); a space can stack 12 (R8)
VALUE_SCALE = 15.0  # the largest printed value, so card values land in [-1, 1]

# Card features: one-hot kind, value / VALUE_SCALE, face-down-and-unknown flag. Empty = all zeros.
CARD_DIM = len(FISH_KINDS) + 2
_VALUE, _HIDDEN = len(FISH_KINDS), len(FISH_KINDS) + 1

# Per-seat summary of the last reveal: diver card played, depth caught at, what was caught (feature
# sum), what Seagulls took from this seat (feature sum), thefts and Jellyfish triples suffered.
LAST_ROUND_DIM = NUM_DIVER_CARDS + NUM_SPACES + CARD_DIM + CARD_DIM + 2
_CAUGHT_AT = NUM_DIVER_CARDS  # offsets inside a last_round row
_CAUGHT = slice(_CAUGHT_AT + NUM_SPACES, _CAUGHT_AT + NUM_SPACES + CARD_DIM)
_STOLEN = slice(_CAUGHT.stop, _CAUGHT.stop + CARD_DIM)
_THEFTS, _TRIPLES = _STOLEN.stop, _STOLEN.stop + 1
PILE_SUMMARY_DIM = 3  # height / 12, value sum / 60, Jellyfish held / 2


@dataclass(frozen=True)
class Piece:
    """One named block of a vector; `doc` is its line in the env's index table."""

    name: str
    shape: tuple[int, ...]
    doc: str

    @property
    def size(self) -> int:
        """Number of floats in the piece."""
        return int(np.prod(self.shape))


class Layout:
    """Pieces laid end to end in one flat vector, addressable by name."""

    def __init__(self, pieces: list[Piece]):
        self.pieces = pieces
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


S, K = MAX_PLAYERS, SLOTS
_SHARED_HEAD = [
    Piece("num_players", (MAX_PLAYERS - MIN_PLAYERS + 1,), "one-hot table size 3, 4, 5, 6"),
    Piece("variant", (2,), "Open Baskets, No Fighting flags"),
    Piece("round", (NUM_ROUNDS,), "one-hot round about to be played (1-12)"),
    Piece("kiti", (S,), "one-hot k: Kiti sits between seat k and seat k+1 (zeros in No Fighting)"),
    Piece("deep_priority", (S,), "per seat 1 - rank/n in the deepest/deep tie order (0: no Kiti or no seat)"),
    Piece("shallow_priority", (S,), "per seat 1 - rank/n in the shallow tie order"),
    Piece("seat_present", (S,), "1 for each seat at the table"),
]
_SHARED_TAIL = [
    Piece(
        "pile_summary",
        (S, PILE_SUMMARY_DIM),
        "per seat: pile height/12, value sum/60, Jellyfish/2 (opponents: height only in the table view)",
    ),
    Piece("pile", (S, K, CARD_DIM), "per seat, fish pile top first (opponents: top card only in the table view)"),
    Piece("played", (S, NUM_DIVER_CARDS), "per seat, diver cards played so far (opponents: Open Baskets or recall only)"),
    Piece(
        "last_round",
        (S, LAST_ROUND_DIM),
        "per seat, the last reveal: card played, depth caught, fish caught, Seagull losses, thefts, triples",
    ),
    Piece("box", (CARD_DIM,), "feature sum of the cards Seagulls and Jellyfish sent to the box (recall view only)"),
]

OBSERVATION_LAYOUT = Layout(
    [
        *_SHARED_HEAD,
        Piece("hand", (NUM_DIVER_CARDS,), "1 for each diver card still in hand (equals the action mask)"),
        Piece(
            "lagoon",
            (NUM_SPACES, K, CARD_DIM),
            "bottom, middle, top space, oldest card first; a face-down card is 'hidden' unless you peeked it",
        ),
        *_SHARED_TAIL,
    ]
)

STATE_LAYOUT = Layout(
    [
        *_SHARED_HEAD,
        Piece("hand", (S, NUM_DIVER_CARDS), "every seat's hand"),
        Piece("lagoon", (NUM_SPACES, K, CARD_DIM), "the lagoon with face-down cards shown"),
        *_SHARED_TAIL,
        Piece("deck", (CARD_DIM,), "feature sum of the undealt deck"),
        Piece("put_back", (CARD_DIM,), "the card put back unseen at setup"),
    ]
)

# The canvas: the omniscient game in absolute seat order. Observation and state indices point here.
_CANVAS = Layout(
    [Piece("zero", (1,), "constant 0 for entries a view hides")]
    + [p for p in STATE_LAYOUT.pieces if p.name != "lagoon"]
    + [
        Piece("lagoon_public", (NUM_SPACES, K, CARD_DIM), "face-down cards as hidden"),
        Piece("lagoon_true", (NUM_SPACES, K, CARD_DIM), "face-down cards shown"),
    ]
)
_ROUND_BLOCK = ("round", "kiti", "deep_priority", "shallow_priority")  # contiguous in the canvas


def card_features(card: FishCard) -> np.ndarray:
    """The CARD_DIM features of a face-up card."""
    features = np.zeros(CARD_DIM, dtype=np.float32)
    features[FISH_KINDS.index(card.kind)] = 1.0
    features[_VALUE] = card.value / VALUE_SCALE
    return features


def _visible_source(piece: str, seat: int, rel: int, n: int, full_piles: bool) -> tuple[str, int] | None:
    """R11 in one place: where observation entry (`piece`, relative seat `rel`) comes from.

    Returns (canvas piece, absolute seat), or None where the view hides the entry.
    """
    if rel >= n:
        return None
    owner = (seat + rel) % n
    if piece in ("kiti", "deep_priority", "shallow_priority", "seat_present", "last_round"):
        return piece, owner
    if piece in ("pile", "pile_summary", "played"):
        return (piece, owner) if rel == 0 or full_piles else None
    raise KeyError(piece)


class Encoder:
    """Builds the observations (and the global state) of one game after each reveal."""

    def __init__(self, config: GameConfig, view: str = "table"):
        if view not in VIEWS:
            raise ValueError(f"view={view!r} is not allowed; views are {', '.join(map(repr, VIEWS))}")
        self.config, self.view = config, view
        n = config.num_players
        deck = config.deck
        # Feature rows: one per deck index, then EMPTY, then HIDDEN.
        self.features = np.zeros((len(deck) + 2, CARD_DIM), dtype=np.float32)
        for i, card in enumerate(deck):
            self.features[i] = card_features(card)
        self.empty, self.hidden = len(deck), len(deck) + 1
        self.features[self.hidden, _HIDDEN] = 1.0
        self._values = [c.value for c in deck]
        self._jelly = [c.kind is FishKind.JELLYFISH for c in deck]
        self._feature_of = {card: card_features(card) for card in deck}

        self.canvas = np.zeros(_CANVAS.size, dtype=np.float32)
        # Views into the canvas, bound once: refresh() writes through them in place.
        self._hands, self._played = _CANVAS.view(self.canvas, "hand")[:n], _CANVAS.view(self.canvas, "played")[:n]
        self._lagoon_public, self._lagoon_true = (_CANVAS.view(self.canvas, name) for name in ("lagoon_public", "lagoon_true"))
        self._pile, self._pile_summary = _CANVAS.view(self.canvas, "pile"), _CANVAS.view(self.canvas, "pile_summary")
        self._last_round, self._box = _CANVAS.view(self.canvas, "last_round"), _CANVAS.view(self.canvas, "box")
        self._pile_ids = np.full((MAX_PLAYERS, SLOTS), self.empty, dtype=np.intp)
        self._lagoon_ids = np.full((NUM_SPACES, SLOTS), self.empty, dtype=np.intp)
        self._summary_rows = [(0.0, 0.0, 0.0)] * MAX_PLAYERS
        self._records_seen = self._box_seen = -1
        # A last_round row before catches: the one-hot of the diver card played (index = card).
        self._play_rows = np.zeros((NUM_DIVER_CARDS + 1, LAST_ROUND_DIM), dtype=np.float32)
        self._play_rows[np.arange(1, NUM_DIVER_CARDS + 1), np.arange(NUM_DIVER_CARDS)] = 1.0
        self._write_static()
        self._round_rows = self._round_blocks()
        full_piles = view == "recall" or config.open_baskets
        self.obs_index = np.stack(
            [self._index(OBSERVATION_LAYOUT, seat, full_piles, view == "recall", omniscient=False) for seat in range(n)]
        )
        self.state_index = self._index(STATE_LAYOUT, 0, True, True, omniscient=True)
        self._lagoon_obs = OBSERVATION_LAYOUT.offsets["lagoon"]
        self._peeked: dict[int, list[tuple[int, int]]] = {}

    # -- static parts -------------------------------------------------------------------------
    def _write_static(self) -> None:
        c, n = self.config, self.config.num_players
        _CANVAS.view(self.canvas, "num_players")[n - MIN_PLAYERS] = 1.0
        _CANVAS.view(self.canvas, "variant")[:] = (c.open_baskets, c.no_fighting)
        _CANVAS.view(self.canvas, "seat_present")[:n] = 1.0

    def _round_blocks(self) -> np.ndarray:
        """Per round: the round one-hot, Kiti's gap and both tie priorities, as one canvas block."""
        n = self.config.num_players
        start = _CANVAS.offsets[_ROUND_BLOCK[0]]
        stop = _CANVAS.span(_ROUND_BLOCK[-1]).stop
        rows = np.zeros((NUM_ROUNDS + 2, stop - start), dtype=np.float32)
        for r in range(1, NUM_ROUNDS + 2):
            row = np.zeros(_CANVAS.size, dtype=np.float32)
            if r <= NUM_ROUNDS:
                _CANVAS.view(row, "round")[r - 1] = 1.0
            if not self.config.no_fighting:
                _CANVAS.view(row, "kiti")[kiti_seat(r, n)] = 1.0
                for name, order in (("deep_priority", deep_priority(r, n)), ("shallow_priority", shallow_priority(r, n))):
                    for rank, s in enumerate(order):
                        _CANVAS.view(row, name)[s] = 1.0 - rank / n
            rows[r] = row[start:stop]
        self._round_span = slice(start, stop)
        return rows

    def _index(self, layout: Layout, seat: int, full_piles: bool, recall: bool, omniscient: bool) -> np.ndarray:
        """Static map: layout entry -> canvas entry (0, the constant zero, where hidden)."""
        n = self.config.num_players
        index = np.zeros(layout.size, dtype=np.intp)
        for piece in layout.pieces:
            dst = layout.view(index, piece.name)
            if piece.name in ("num_players", "variant", "round", "deck", "put_back") or (piece.name == "box" and recall):
                dst[...] = _CANVAS.view(np.arange(_CANVAS.size), piece.name)
            elif piece.name == "box":
                continue
            elif piece.name == "lagoon":
                dst[...] = _CANVAS.view(np.arange(_CANVAS.size), "lagoon_true" if omniscient else "lagoon_public")
            elif piece.name == "hand":
                src = _CANVAS.view(np.arange(_CANVAS.size), "hand")
                dst[...] = src if omniscient else src[seat]
            else:
                src = _CANVAS.view(np.arange(_CANVAS.size), piece.name)
                for rel in range(MAX_PLAYERS):
                    found = _visible_source(piece.name, seat, rel, n, full_piles)
                    if found is not None:
                        dst[rel] = src[found[1]]
                    elif piece.name == "pile_summary" and rel < n:
                        dst[rel, 0] = src[(seat + rel) % n, 0]  # R11: an opponent's pile height is public
                    elif piece.name == "pile" and rel < n:
                        dst[rel, 0] = src[(seat + rel) % n, 0]  # R11: and so is its top card
        return index

    # -- per reveal ---------------------------------------------------------------------------
    def refresh(self, state: GameState) -> None:
        """Write the game into the canvas; call after new_game and after every play_round."""
        if not state.history:
            self._records_seen = -1  # a new game: every pile and the box are rewritten
        feats = self.features
        self.canvas[self._round_span] = self._round_rows[state.round]
        self._hands[:] = state.hands
        np.subtract(1, state.hands, out=self._played, casting="unsafe")

        public = self._lagoon_ids
        public.fill(self.empty)
        self._peeked = {}
        for depth, space in enumerate(state.lagoon):
            for slot, lc in enumerate(space):
                if lc.peeker is None:
                    public[depth, slot] = lc.card
                else:
                    public[depth, slot] = self.hidden
                    self._peeked.setdefault(lc.peeker, []).append((depth * SLOTS + slot, lc.card))
        np.take(feats, public, axis=0, out=self._lagoon_public)

        # Piles and the box change only through catches, so only catchers' piles are rewritten.
        if self._records_seen < 0:
            changed = list(range(state.num_players))
            self._box_seen = -1
        else:
            changed = list({d.winner for record in state.history[self._records_seen :] for d in record.depths if d.winner is not None})
        self._records_seen = len(state.history)
        if changed:
            values, jelly, pile_ids, summary = self._values, self._jelly, self._pile_ids, self._summary_rows
            for seat in changed:
                pile = state.piles[seat]
                shown = pile[: -SLOTS - 1 : -1]
                pile_ids[seat] = self.empty
                pile_ids[seat, : len(shown)] = shown
                summary[seat] = (
                    len(pile) / NUM_ROUNDS,
                    sum(map(values.__getitem__, pile)) / 60.0,
                    sum(map(jelly.__getitem__, pile)) / 2.0,
                )
            np.take(feats, pile_ids, axis=0, out=self._pile)
            self._pile_summary[:] = summary
        if len(state.box) != self._box_seen:
            self._box[:] = feats[state.box].sum(axis=0) if state.box else 0.0
            self._box_seen = len(state.box)
        self._write_last_round(state)

    def _write_last_round(self, state: GameState) -> None:
        block = self._last_round
        if not state.history:
            block.fill(0.0)
            return
        record = state.history[-1]
        np.take(self._play_rows, record.plays, axis=0, out=block[: state.num_players])
        feature_of = self._feature_of
        for result in record.depths:
            if result.winner is not None:
                row = block[result.winner]
                row[_CAUGHT_AT + result.depth] = 1.0
                for card in result.fish:
                    row[_CAUGHT] += feature_of[card]
        for event in record.events:
            row = block[event.seat]
            if isinstance(event, SeagullTheft):
                row[_THEFTS] += 1.0
                if event.stolen is not None:
                    row[_STOLEN] += feature_of[event.stolen]
            else:
                row[_TRIPLES] += 1.0

    def observe(self, seat: int) -> np.ndarray:
        """The observation vector of `seat` (a new array)."""
        obs = self.canvas.take(self.obs_index[seat])
        for slot, card in self._peeked.get(seat, ()):
            start = self._lagoon_obs + slot * CARD_DIM
            obs[start : start + CARD_DIM] = self.features[card]
        return obs

    def state_vector(self, state: GameState) -> np.ndarray:
        """The omniscient global state (absolute seats, seat 0 first), for centralized critics."""
        canvas = self.canvas
        true = np.full((NUM_SPACES, SLOTS), self.empty, dtype=np.intp)
        for depth, space in enumerate(state.lagoon):
            true[depth, : len(space)] = [lc.card for lc in space]
        self._lagoon_true[:] = self.features[true]
        undealt = state.deck
        _CANVAS.view(canvas, "deck")[:] = self.features[undealt].sum(axis=0) if undealt else 0.0
        _CANVAS.view(canvas, "put_back")[:] = self.features[state.put_back]
        return canvas.take(self.state_index)


def depth_name(depth: Depth) -> str:
    """Human name of a lagoon space."""
    return ("bottom (deepest)", "middle (deep)", "top (shallow)")[depth]
