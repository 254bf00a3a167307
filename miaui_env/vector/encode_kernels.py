"""Numba kernels that turn the batched engine's state into observations: each game's seat rows and
lagoon, and the peeks at face-down cards (R5, R11).

These are the only kernels that know the observation layout; every offset they use is looked up
by name in `observation`'s layouts, once, at import (module globals are compile-time constants to
numba). Every float they write is computed with the same IEEE operations as
`observation.features` and `observation.pile_summary` (integer stats divided in float64, then
rounded to float32), so they agree with `observation.Encoder` to the bit; `tests/test_vector.py`
checks it game by game.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from miaui_env.cards import FISH_KINDS
from miaui_env.observation import (
    CARD_DIM,
    COUNT_SCALE,
    HEIGHT_SCALE,
    LAGOON_SLOTS,
    OBSERVATION_LAYOUT,
    PILE_SLOTS,
    ROUND_COLUMNS,
    SEAT_LAYOUT,
    STATS_DIVISOR,
    VALUE_SCALE,
)
from miaui_env.rules import NUM_DIVER_CARDS, NUM_ROUNDS, NUM_SPACES
from miaui_env.vector.state import EncodeTables, GameArrays, ObservationPieces, Reveal

_VALUE = len(FISH_KINDS)  # the value column of card stats, after the one-hot kind
_PRESENT, _SUMMARY, _PILE, _PLAYED = (SEAT_LAYOUT.offset(name) for name in ("present", "pile_summary", "pile", "played"))
_ROUND_COLUMNS = tuple(SEAT_LAYOUT.offset(name) for name in ROUND_COLUMNS)
_LAST_START, _LAST_STOP = SEAT_LAYOUT.span("last_round").start, SEAT_LAYOUT.span("last_round").stop
_CARD_PLAYED, _CAUGHT_AT, _CAUGHT, _STOLEN, _THEFTS, _TRIPLES = (
    SEAT_LAYOUT.offset(name) for name in ("card_played", "caught_at", "caught", "stolen", "thefts", "triples")
)
_LAGOON, _LAGOON_REST = OBSERVATION_LAYOUT.offset("lagoon"), OBSERVATION_LAYOUT.offset("lagoon_rest")
_ROUND, _HAND, _BOX, _SEATS = (OBSERVATION_LAYOUT.offset(name) for name in ("round", "hand", "box", "seats"))


@njit(cache=True, inline="always")
def _features_of_stats(out: np.ndarray, g: int, s: int, at: int, stats: np.ndarray) -> None:
    """observation.features of stats[g, s] (integer stats), written at out[g, s, at:at+8]."""
    for k in range(CARD_DIM):
        out[g, s, at + k] = np.float32(stats[g, s, k] / STATS_DIVISOR[k])


@njit(cache=True, parallel=True)
def encode_pieces(tables: EncodeTables, round_number: int, game: GameArrays, reveal: Reveal, out: ObservationPieces, chunks: int) -> None:
    """`encode_game_pieces` for every game, in `chunks` of games side by side on numba's threads."""
    games = out.rows.shape[0]
    for chunk in prange(chunks):
        encode_game_pieces(tables, round_number, game, reveal, out, chunk * games // chunks, (chunk + 1) * games // chunks)


# Each parallel kernel hands its chunks to a function of their own: inside a prange loop, numba
# (0.6x) loses writes made through a structure's fields (out.lagoon[...] = ...); a called function's are kept.
@njit(cache=True)
def encode_game_pieces(
    tables: EncodeTables, round_number: int, game: GameArrays, reveal: Reveal, out: ObservationPieces, start: int, stop: int
) -> None:
    """The per-game pieces of the observations, as observation.Encoder computes them:
    seat rows (absolute seats) as their owner sees them and as the others do (R11's mask), and the
    lagoon as everyone sees it (face-down cards hidden, R5). numpy then copies them into place.
    Direct indexing throughout: numba's slices and array views cost ~100 ns each here."""
    rows, features, empty, hidden = out.rows, tables.features, tables.empty, tables.hidden
    lagoon, lagoon_len, peeker, piles, pile_len = game.lagoon, game.lagoon_len, game.peeker, game.piles, game.pile_len
    n, seat_dim = rows.shape[1:]
    for g in range(start, stop):
        for s in range(n):
            rows[g, s, _PRESENT] = 1.0
            for k in range(len(_ROUND_COLUMNS)):  # R1: Kiti's place and the tie priorities
                rows[g, s, _ROUND_COLUMNS[k]] = tables.round_columns[round_number, s, k]
            rows[g, s, _SUMMARY] = np.float32(pile_len[g, s] / HEIGHT_SCALE)
            for k in range(CARD_DIM - 1):  # as observation.pile_summary: kind counts, then the value sum
                value = game.pile_stats[g, s, k] / COUNT_SCALE
                if k == _VALUE:
                    value /= VALUE_SCALE
                rows[g, s, _SUMMARY + 1 + k] = np.float32(value)
            for j in range(PILE_SLOTS):  # the top cards, top first
                below = pile_len[g, s] - 1 - j
                card = piles[g, s, below] if below >= 0 else empty
                for k in range(CARD_DIM):
                    rows[g, s, _PILE + CARD_DIM * j + k] = features[card, k]
            for c in range(NUM_DIVER_CARDS):
                rows[g, s, _PLAYED + c] = 1.0 - game.hands[g, s, c]
            for k in range(_LAST_START, _LAST_STOP):
                rows[g, s, k] = 0.0
            if reveal.plays[g, s] > 0:
                rows[g, s, _CARD_PLAYED + reveal.plays[g, s] - 1] = 1.0
                for d in range(NUM_SPACES):
                    rows[g, s, _CAUGHT_AT + d] = reveal.caught_depth[g, s, d]
                _features_of_stats(rows, g, s, _CAUGHT, reveal.caught_stats)
                _features_of_stats(rows, g, s, _STOLEN, reveal.stolen_stats)
                rows[g, s, _THEFTS] = reveal.thefts[g, s]
                rows[g, s, _TRIPLES] = reveal.triples[g, s]
            for k in range(seat_dim):  # masked out is written as 0.0: a product would leave -0.0 for a negative value
                out.public_rows[g, s, k] = rows[g, s, k] if tables.opponent_mask[k] != 0 else np.float32(0.0)
        for depth in range(NUM_SPACES):
            for slot in range(LAGOON_SLOTS):
                card = lagoon[g, depth, slot] if slot < lagoon_len[g, depth] else empty
                if card != empty and peeker[g, depth, slot] >= 0:
                    card = hidden
                for k in range(CARD_DIM):
                    out.lagoon[g, (depth * LAGOON_SLOTS + slot) * CARD_DIM + k] = features[card, k]
            if tables.no_fighting:  # the cards past LAGOON_SLOTS, summed (outside No Fighting there are none)
                for k in range(CARD_DIM):
                    total = 0
                    for slot in range(LAGOON_SLOTS, lagoon_len[g, depth]):
                        total += tables.stats[hidden if peeker[g, depth, slot] >= 0 else lagoon[g, depth, slot], k]
                    out.lagoon_rest[g, depth * CARD_DIM + k] = np.float32(total / STATS_DIVISOR[k])


@njit(cache=True, parallel=True)
def quantize(values: np.ndarray, scale: np.ndarray, zero: np.ndarray, codes: np.ndarray) -> None:
    """`codes[i, k]`: the uint8 code of `values[i, k]`, entry k's scale and zero (`miaui_env.compact`)."""
    for i in prange(values.shape[0]):  # plain arrays: prange keeps their writes
        for k in range(values.shape[1]):
            codes[i, k] = np.uint8(np.rint(values[i, k] * scale[k]) + zero[k])


@njit(cache=True, parallel=True)
def assemble_observations(
    obs: np.ndarray, round_number: int, recall: bool, hands: np.ndarray, box: np.ndarray, out: ObservationPieces, chunks: int
) -> None:
    """`assemble_game_observations` for every game, in `chunks` of games side by side on numba's threads."""
    games = obs.shape[0]
    for chunk in prange(chunks):
        assemble_game_observations(obs, round_number, recall, hands, box, out, chunk * games // chunks, (chunk + 1) * games // chunks)


@njit(cache=True)
def assemble_game_observations(
    obs: np.ndarray, round_number: int, recall: bool, hands: np.ndarray, box: np.ndarray, out: ObservationPieces, start: int, stop: int
) -> None:
    """Write every seat's observation from the pieces, in one pass over the buffer: the round,
    the hand, the lagoon, the box (recall view), then the seat rows rotated so that each observer
    comes first and the others' rows are as R11 shows them. Pieces no step changes (table size,
    variant, absent seats' rows) are left as they are. Compiled for either dtype: flags and
    one-hots are the same numbers as floats and as codes (scale 1, zero 0), the pieces come in the
    buffer's dtype. Direct indexing: a slice or view costs ~100 ns here, more than its copy."""
    rows, public_rows, lagoon, lagoon_rest = out.rows, out.public_rows, out.lagoon, out.lagoon_rest
    n, seat_dim = rows.shape[1:]
    for g in range(start, stop):
        for o in range(n):
            for r in range(NUM_ROUNDS):
                obs[g, o, _ROUND + r] = 1 if r + 1 == round_number else 0
            for c in range(NUM_DIVER_CARDS):
                obs[g, o, _HAND + c] = hands[g, o, c]
            for k in range(lagoon.shape[1]):
                obs[g, o, _LAGOON + k] = lagoon[g, k]
            for k in range(lagoon_rest.shape[1]):
                obs[g, o, _LAGOON_REST + k] = lagoon_rest[g, k]
            if recall:
                for k in range(CARD_DIM):
                    obs[g, o, _BOX + k] = box[g, k]
            for s in range(n):
                at = _SEATS + seat_dim * ((s - o) % n)
                if s == o:
                    for k in range(seat_dim):
                        obs[g, o, at + k] = rows[g, s, k]
                else:
                    for k in range(seat_dim):
                        obs[g, o, at + k] = public_rows[g, s, k]


@njit(cache=True, parallel=True)
def add_peeks(obs: np.ndarray, peek_delta: np.ndarray, game: GameArrays, chunks: int) -> None:
    """`add_game_peeks` for every game, in `chunks` of games side by side on numba's threads."""
    games = obs.shape[0]
    for chunk in prange(chunks):
        add_game_peeks(obs, peek_delta, game, chunk * games // chunks, (chunk + 1) * games // chunks)


@njit(cache=True)
def add_game_peeks(obs: np.ndarray, peek_delta: np.ndarray, game: GameArrays, start: int, stop: int) -> None:
    """R5: add each face-down card's true features to its peeker's observation, in lagoon order:
    `peek_delta[card]` is the card's features less HIDDEN's (in uint8, its stats less HIDDEN's:
    the codes of card features move by their stats)."""
    lagoon, lagoon_len, peeker = game.lagoon, game.lagoon_len, game.peeker
    for g in range(start, stop):
        for depth in range(NUM_SPACES):
            for slot in range(lagoon_len[g, depth]):
                s = peeker[g, depth, slot]
                if s >= 0:
                    at = _LAGOON + (depth * LAGOON_SLOTS + slot) * CARD_DIM if slot < LAGOON_SLOTS else _LAGOON_REST + depth * CARD_DIM
                    for k in range(CARD_DIM):
                        obs[g, s, at + k] += peek_delta[lagoon[g, depth, slot], k]
