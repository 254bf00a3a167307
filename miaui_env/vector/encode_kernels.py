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
from numba import njit

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


@njit(cache=True)
def encode_pieces(tables: EncodeTables, round_number: int, game: GameArrays, reveal: Reveal, out: ObservationPieces) -> None:
    """The per-game pieces of the observations, as observation.Encoder computes them:
    seat rows (absolute seats) as their owner sees them and as the others do (R11's mask), and the
    lagoon as everyone sees it (face-down cards hidden, R5). numpy then copies them into place.
    Direct indexing throughout: numba's slices and array views cost ~100 ns each here."""
    rows, features, empty, hidden = out.rows, tables.features, tables.empty, tables.hidden
    lagoon, lagoon_len, peeker, piles, pile_len = game.lagoon, game.lagoon_len, game.peeker, game.piles, game.pile_len
    games, n, seat_dim = rows.shape
    for g in range(games):
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
            for k in range(seat_dim):
                out.public_rows[g, s, k] = rows[g, s, k] * tables.opponent_mask[k]
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


@njit(cache=True)
def assemble_observations(obs: np.ndarray, round_number: int, recall: bool, game: GameArrays, out: ObservationPieces) -> None:
    """Write every seat's observation from the pieces, in one pass over the buffer: the round,
    the hand, the lagoon, the box (recall view), then the seat rows rotated so that each observer
    comes first and the others' rows are as R11 shows them. Pieces no step changes (table size,
    variant, absent seats' rows) are left as they are. One compiled pass writes each byte once;
    numpy's strided copies of the same pieces cost four times as long."""
    games, n, seat_dim = out.rows.shape
    lagoon_size, rest_size = out.lagoon.shape[1], out.lagoon_rest.shape[1]
    for g in range(games):
        for o in range(n):
            row = obs[g, o]  # one view a row: numba's index arithmetic on 3-d arrays costs more
            for r in range(NUM_ROUNDS):
                row[_ROUND + r] = 1.0 if r + 1 == round_number else 0.0
            for c in range(NUM_DIVER_CARDS):
                row[_HAND + c] = game.hands[g, o, c]
            row[_LAGOON : _LAGOON + lagoon_size] = out.lagoon[g]
            row[_LAGOON_REST : _LAGOON_REST + rest_size] = out.lagoon_rest[g]
            if recall:
                for k in range(CARD_DIM):
                    row[_BOX + k] = np.float32(game.box_stats[g, k] / STATS_DIVISOR[k])
            for s in range(n):
                at = _SEATS + seat_dim * ((s - o) % n)
                row[at : at + seat_dim] = out.rows[g, s] if s == o else out.public_rows[g, s]


@njit(cache=True)
def add_peeks(obs: np.ndarray, tables: EncodeTables, game: GameArrays) -> None:
    """R5: add each face-down card's true features to its peeker's observation, in lagoon order."""
    lagoon, lagoon_len, peeker = game.lagoon, game.lagoon_len, game.peeker
    games = obs.shape[0]
    for g in range(games):
        for depth in range(NUM_SPACES):
            for slot in range(lagoon_len[g, depth]):
                s = peeker[g, depth, slot]
                if s >= 0:
                    at = _LAGOON + (depth * LAGOON_SLOTS + slot) * CARD_DIM if slot < LAGOON_SLOTS else _LAGOON_REST + depth * CARD_DIM
                    for k in range(CARD_DIM):
                        obs[g, s, at + k] += tables.peek_delta[lagoon[g, depth, slot], k]
