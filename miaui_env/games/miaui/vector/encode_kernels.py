"""Numba kernels that write the batched engine's observations: for each game, its pieces (every
seat's row as its owner and as the others see it, the lagoon, R5 and R11), then every seat's
observation assembled from them, then the peeks at face-down cards (R5).

These are the only kernels that know the observation layout; they decide nothing about who sees
what: every piece, opponent-row entry and face-down card is shown or hidden as the engine's
`EncodeTables` say, compiled from `observation`'s declared tables. Every offset they use is looked up
by name in `observation`'s layouts, once, at import (module globals are compile-time constants to
numba). Every float they write is computed with the same IEEE operations as
`encoder.features` and `encoder.pile_summary` (integer stats divided in float64, then
rounded to float32), so they agree with `encoder.Encoder` to the bit; `tests/test_vector.py`
checks it game by game against the pure rules and encoder. For uint8 observations every piece is written as its code
(`miaui_env.games.miaui.compact`) with no float in between: a card feature's or a pile summary's scale is its
divisor, so its code is the integer stat plus its zero, and the tables (card features, round
columns) hold the codes `compact_observations` gives; `tests/test_compact.py` checks that they are
exactly the codes of the float32 engine's observations.

A game's pieces live in a scratch of one game per thread, so they are written and read back while
still in the core's cache: the observation buffer is all the kernels write to memory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from miaui_env.games.miaui.cards import FISH_KINDS
from miaui_env.games.miaui.encoder import ROUND_COLUMNS, STATS_DIVISOR
from miaui_env.games.miaui.observation import (
    CARD_DIM,
    COUNT_SCALE,
    HEIGHT_SCALE,
    LAGOON_SLOTS,
    OBSERVATION_LAYOUT,
    PILE_SLOTS,
    SEAT_LAYOUT,
    VALUE_SCALE,
)
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS, NUM_ROUNDS, NUM_SPACES
from miaui_env.games.miaui.vector.state import ASSEMBLED_PIECES, EncodeTables, GameArrays, ObservationPieces, Reveal

_VALUE = len(FISH_KINDS)  # the value column of card stats, after the one-hot kind
_PRESENT, _SUMMARY, _PILE, _PLAYED = (SEAT_LAYOUT.offset(name) for name in ("present", "pile_summary", "pile", "played"))
_ROUND_COLUMNS = tuple(SEAT_LAYOUT.offset(name) for name in ROUND_COLUMNS)
_LAST_START, _LAST_STOP = SEAT_LAYOUT.span("last_round").start, SEAT_LAYOUT.span("last_round").stop
_CARD_PLAYED, _CAUGHT_AT, _CAUGHT, _STOLEN, _THEFTS, _TRIPLES = (
    SEAT_LAYOUT.offset(name) for name in ("card_played", "caught_at", "caught", "stolen", "thefts", "triples")
)
_LAGOON, _LAGOON_REST = OBSERVATION_LAYOUT.offset("lagoon"), OBSERVATION_LAYOUT.offset("lagoon_rest")
_ROUND, _HAND, _BOX, _SEATS = (OBSERVATION_LAYOUT.offset(name) for name in ("round", "hand", "box", "seats"))
_SHOWS_ROUND, _SHOWS_HAND, _SHOWS_LAGOON, _SHOWS_LAGOON_REST, _SHOWS_BOX = (
    ASSEMBLED_PIECES.index(name) for name in ("round", "hand", "lagoon", "lagoon_rest", "box")
)


@njit(cache=True, parallel=True)
def encode(
    tables: EncodeTables,
    round_number: int,
    game: GameArrays,
    reveal: Reveal,
    obs: np.ndarray,
    scratch: ObservationPieces,
    chunks: int,
) -> None:
    """`encode_games` for every game, in `chunks` of games side by side on numba's threads (chunk c uses scratch slot c)."""
    games = obs.shape[0]
    for chunk in prange(chunks):
        encode_games(tables, round_number, game, reveal, obs, scratch, chunk * games // chunks, (chunk + 1) * games // chunks, chunk)


# Each parallel kernel hands its chunk to a function of its own: inside a prange loop, numba
# (0.6x) loses writes made through a structure's fields (out.lagoon[...] = ...); a called function's are kept.
@njit(cache=True)
def encode_games(
    tables: EncodeTables,
    round_number: int,
    game: GameArrays,
    reveal: Reveal,
    obs: np.ndarray,
    scratch: ObservationPieces,
    start: int,
    stop: int,
    slot: int = 0,
) -> None:
    """Write every seat's observation of games start to stop - 1 into `obs`, as encoder.Encoder
    does: each game's pieces into scratch slot `slot` (in the observation's dtype), then every
    seat's row assembled from them, then the peeks. Pieces no step changes (table size, variant, absent seats' rows) are left as
    they are."""
    # The sizes that bound the copy loops are run-time values (the scratch's slots are padded, so
    # its shapes do not give them): with the layout's compile-time sizes LLVM compiled the short
    # lagoon copies to slower code, and the encode ran 1.5x longer (measured on 4096 games).
    n, seat_dim, card_dim = game.hands.shape[1], tables.opponent_mask.size, tables.features.shape[1]
    lagoon_size, rest_size = card_dim * LAGOON_SLOTS * NUM_SPACES, card_dim * NUM_SPACES
    for g in range(start, stop):
        _game_pieces(tables, round_number, game, reveal, g, scratch, slot, n, seat_dim)
        _assemble(tables, round_number, game, obs, scratch, g, slot, n, seat_dim, lagoon_size, rest_size)
        _add_peeks(obs, tables, game, g)


# Where float32 and uint8 observations differ, a helper is compiled for the dtype of the array it
# writes (numba picks the implementation while typing): a run-time branch on the dtype inside the
# pieces kernel made the float32 encode 1.9x slower (measured on 256 games). numba requires an
# overload's implementations to repeat its typing function's parameters, annotations included.
@njit(cache=True, inline="always")
def _card_entries(out: np.ndarray, slot: int, s: int, at: int, stats: np.ndarray, g: int, zero: np.ndarray) -> None:
    """out[slot, s, at:at+8]: the card features of the integer stats[g, s], in out's dtype (`_card_sum`)."""
    for k in range(CARD_DIM):
        out[slot, s, at + k] = _card_sum(out, stats[g, s, k], k, zero)


def _summary_entries(out: np.ndarray, slot: int, s: int, height: int, stats: np.ndarray, g: int, zero: np.ndarray) -> None:
    """out[slot, s, pile_summary]: encoder.pile_summary of a pile, or its uint8 codes (compiled only)."""
    raise NotImplementedError("compiled by numba only")


@overload(_summary_entries, inline="always")
def _summary_entries_for(out: Any, slot: Any, s: Any, height: Any, stats: Any, g: Any, zero: Any) -> Callable[..., None]:
    if out.dtype == types.uint8:

        def codes(out: Any, slot: Any, s: Any, height: Any, stats: Any, g: Any, zero: Any) -> None:
            out[slot, s, _SUMMARY] = height + zero[0]  # each entry's scale is its divisor
            for k in range(CARD_DIM - 1):
                out[slot, s, _SUMMARY + 1 + k] = stats[g, s, k] + zero[1 + k]

        return codes

    def floats(out: Any, slot: Any, s: Any, height: Any, stats: Any, g: Any, zero: Any) -> None:
        out[slot, s, _SUMMARY] = np.float32(height / HEIGHT_SCALE)
        for k in range(CARD_DIM - 1):  # as encoder.pile_summary: kind counts, then the value sum
            value = stats[g, s, k] / COUNT_SCALE
            if k == _VALUE:
                value /= VALUE_SCALE
            out[slot, s, _SUMMARY + 1 + k] = np.float32(value)

    return floats


def _others_view(out: np.ndarray, rows: np.ndarray, slot: int, s: int, seat_dim: int, tables: EncodeTables) -> None:
    """out[slot, s]: seat s's row as the others see it (R11), hidden entries empty (compiled only)."""
    raise NotImplementedError("compiled by numba only")


@overload(_others_view, inline="always")
def _others_view_for(out: Any, rows: Any, slot: Any, s: Any, seat_dim: Any, tables: Any) -> Callable[..., None]:
    if out.dtype == types.uint8:

        def codes(out: Any, rows: Any, slot: Any, s: Any, seat_dim: Any, tables: Any) -> None:
            for k in range(seat_dim):  # shown: kept (keep 1, hidden_zero 0); hidden: its zero (keep 0)
                out[slot, s, k] = rows[slot, s, k] * tables.keep[k] + tables.hidden_zero[k]

        return codes

    def floats(out: Any, rows: Any, slot: Any, s: Any, seat_dim: Any, tables: Any) -> None:
        for k in range(seat_dim):  # hidden is written as 0.0: a product would leave -0.0 for a negative value
            out[slot, s, k] = rows[slot, s, k] if tables.opponent_mask[k] != 0 else np.float32(0.0)

    return floats


def _card_sum(like: np.ndarray, total: int, k: int, zero: np.ndarray) -> float:
    """Card feature k of a sum of card stats, in the dtype of `like`: a float, or its uint8 code (compiled only)."""
    raise NotImplementedError("compiled by numba only")


@overload(_card_sum, inline="always")
def _card_sum_for(like: Any, total: Any, k: Any, zero: Any) -> Callable[..., Any]:
    if like.dtype == types.uint8:

        def code(like: Any, total: Any, k: Any, zero: Any) -> Any:
            return np.uint8(total + zero[k])

        return code

    def feature(like: Any, total: Any, k: Any, zero: Any) -> Any:
        return np.float32(total / STATS_DIVISOR[k])

    return feature


@njit(cache=True, inline="always")
def _game_pieces(
    tables: EncodeTables,
    round_number: int,
    game: GameArrays,
    reveal: Reveal,
    g: int,
    out: ObservationPieces,
    slot: int,
    n: int,
    seat_dim: int,
) -> None:
    """Game g's pieces, as encoder.Encoder computes them, into scratch slot `slot`: seat rows
    (absolute seats) as their owner sees them and as the others do (R11's mask), and the lagoon
    as everyone sees it (face-down cards as FACE_DOWN_VISIBILITY declares, R5). Direct indexing throughout: numba's slices
    and array views cost ~100 ns each here."""
    rows, features, empty, hidden = out.rows, tables.features, tables.empty, tables.hidden
    lagoon, lagoon_len, peeker, piles, pile_len = game.lagoon, game.lagoon_len, game.peeker, game.piles, game.pile_len
    for s in range(n):
        rows[slot, s, _PRESENT] = 1.0
        for k in range(len(_ROUND_COLUMNS)):  # R1: Kiti's place and the tie priorities
            rows[slot, s, _ROUND_COLUMNS[k]] = tables.round_columns[round_number, s, k]
        _summary_entries(rows, slot, s, pile_len[g, s], game.pile_stats, g, tables.summary_zero)
        for j in range(PILE_SLOTS):  # the top cards, top first
            below = pile_len[g, s] - 1 - j
            card = piles[g, s, below] if below >= 0 else empty
            for k in range(CARD_DIM):
                rows[slot, s, _PILE + CARD_DIM * j + k] = features[card, k]
        for c in range(NUM_DIVER_CARDS):  # a short game's cards past its rounds were never dealt, so never played (MV1)
            rows[slot, s, _PLAYED + c] = 1 - game.hands[g, s, c] if c < tables.rounds else 0
        for k in range(_LAST_START, _LAST_STOP):
            rows[slot, s, k] = tables.row_zero[k]
        if reveal.plays[g, s] > 0:
            rows[slot, s, _CARD_PLAYED + reveal.plays[g, s] - 1] = 1.0
            for d in range(NUM_SPACES):
                rows[slot, s, _CAUGHT_AT + d] = reveal.caught_depth[g, s, d]
            _card_entries(rows, slot, s, _CAUGHT, reveal.caught_stats, g, tables.card_zero)
            _card_entries(rows, slot, s, _STOLEN, reveal.stolen_stats, g, tables.card_zero)
            rows[slot, s, _THEFTS] = reveal.thefts[g, s]
            rows[slot, s, _TRIPLES] = reveal.triples[g, s]
        _others_view(out.public_rows, rows, slot, s, seat_dim, tables)
    hide_in_lagoon, hide_in_rest = not tables.face_down_public[0], not tables.face_down_public[1]  # R5, as the table declares
    for depth in range(NUM_SPACES):
        for j in range(LAGOON_SLOTS):
            card = lagoon[g, depth, j] if j < lagoon_len[g, depth] else empty
            if card != empty and peeker[g, depth, j] >= 0 and hide_in_lagoon:
                card = hidden
            for k in range(CARD_DIM):
                out.lagoon[slot, (depth * LAGOON_SLOTS + j) * CARD_DIM + k] = features[card, k]
        for k in range(CARD_DIM):  # the cards past LAGOON_SLOTS, summed (outside No Fighting there are none: empty sums)
            total = 0
            for j in range(LAGOON_SLOTS, lagoon_len[g, depth]):
                total += tables.stats[hidden if peeker[g, depth, j] >= 0 and hide_in_rest else lagoon[g, depth, j], k]
            out.lagoon_rest[slot, depth * CARD_DIM + k] = _card_sum(out.lagoon_rest, total, k, tables.card_zero)


@njit(cache=True, inline="always")
def _assemble(
    tables: EncodeTables,
    round_number: int,
    game: GameArrays,
    obs: np.ndarray,
    pieces: ObservationPieces,
    g: int,
    slot: int,
    n: int,
    seat_dim: int,
    lagoon_size: int,
    rest_size: int,
) -> None:
    """Every seat's observation of game g from its pieces, in one pass over the buffer: the round,
    the hand, the lagoon, the box, each where the tables show it, then the seat rows rotated so that each observer
    comes first and the others' rows are as R11 shows them. Flags and one-hots are the same numbers
    as floats and as codes (scale 1, zero 0)."""
    # Every write goes through a view of its row that starts at 0: numba adds the length to a
    # negative index, and with an offset only known at run time (a seat row's place) that check
    # keeps LLVM from vectorizing the copy (5x slower, measured).
    rows, public_rows, lagoon, lagoon_rest = pieces.rows[slot], pieces.public_rows[slot], pieces.lagoon[slot], pieces.lagoon_rest[slot]
    # Which pieces the declared tables show (ASSEMBLED_PIECES), read once: a piece not shown keeps its empty entries.
    shows_round, shows_hand, shows_lagoon = tables.shown[_SHOWS_ROUND], tables.shown[_SHOWS_HAND], tables.shown[_SHOWS_LAGOON]
    shows_rest, shows_box = tables.shown[_SHOWS_LAGOON_REST], tables.shown[_SHOWS_BOX]
    for o in range(n):
        target = obs[g, o]
        if shows_round:
            for r in range(NUM_ROUNDS):  # none once the game is over (a short game's round rounds + 1 has a column)
                target[_ROUND + r] = 1 if r + 1 == round_number and round_number <= tables.rounds else 0
        if shows_hand:  # Sight.OWN: the observer's own hand
            for c in range(NUM_DIVER_CARDS):
                target[_HAND + c] = game.hands[g, o, c]
        if shows_lagoon:
            for k in range(lagoon_size):
                target[_LAGOON + k] = lagoon[k]
        if shows_rest:
            for k in range(rest_size):
                target[_LAGOON_REST + k] = lagoon_rest[k]
        if shows_box:
            for k in range(CARD_DIM):
                target[_BOX + k] = _card_sum(target, game.box_stats[g, k], k, tables.card_zero)
        for s in range(n):
            at = _SEATS + seat_dim * (s - o if s >= o else s - o + n)
            seat, source = target[at : at + seat_dim], rows[s] if s == o else public_rows[s]
            for k in range(seat_dim):
                seat[k] = source[k]


@njit(cache=True, inline="always")
def _add_peeks(obs: np.ndarray, tables: EncodeTables, game: GameArrays, g: int) -> None:
    """R5: add each face-down card's true features to its peeker's observation, in lagoon order,
    where the tables hide it from the others in a piece that is shown (`tables.peeks`): `peek_delta[card]` is the card's features less
    HIDDEN's (in uint8, its stats less HIDDEN's: the codes of card features move by their stats)."""
    lagoon, lagoon_len, peeker, peek_delta = game.lagoon, game.lagoon_len, game.peeker, tables.peek_delta
    for depth in range(NUM_SPACES):
        for j in range(lagoon_len[g, depth]):
            s = peeker[g, depth, j]
            if s >= 0 and tables.peeks[1 if j >= LAGOON_SLOTS else 0]:
                at = _LAGOON + (depth * LAGOON_SLOTS + j) * CARD_DIM if j < LAGOON_SLOTS else _LAGOON_REST + depth * CARD_DIM
                for k in range(CARD_DIM):
                    obs[g, s, at + k] += peek_delta[lagoon[g, depth, j], k]
