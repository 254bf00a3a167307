"""The batched engine's state and tables as named structures of arrays, handed whole to the kernels.

Every array's first axis is the game (B games) unless said otherwise; n is the number of seats.
Cards are deck indices, with two extra rows in the card tables: EMPTY (no card) and HIDDEN (a
face-down card as others see it). numba compiles a kernel once per NamedTuple type and reads its
fields at no cost, so a kernel's signature says which structures it reads and writes (pgx passes
one `State` to its step the same way).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from miaui_env.games.miaui.rules import NUM_ROUNDS, NUM_SPACES

MAX_STACK = NUM_ROUNDS  # cards a lagoon space can hold: a No Fighting space gains one a round (R8)
MAX_PILE = NUM_ROUNDS * NUM_SPACES  # cards a pile can hold: every card dealt


class RuleTables(NamedTuple):
    """What the rule kernels read and never write: the card tables and R1's tie orders."""

    stats: np.ndarray  # (cards + 2, stat) int32: one-hot kind, value, hidden flag (encoder.stats_table); sums are exact
    kind: np.ndarray  # (cards + 2,) kind index of each card, -1 for EMPTY and HIDDEN
    ranks: np.ndarray  # (2: deep, shallow; round 0-12; n) a seat's place in the round's tie order (R1)
    seagull: int  # kind indices of the cards with an effect (R5, R9)
    jellyfish: int
    lantern: int
    empty: int  # the EMPTY card index
    no_fighting: bool  # R8 instead of R7
    rounds: int  # the game's last round: 12, or a short game's (MV1)


class GameArrays(NamedTuple):
    """The state of every game, written in place by the rule kernels."""

    hands: np.ndarray  # (B, n, 12) int8: 1 for each diver card in hand (a short game's: 1..rounds, MV1)
    lagoon: np.ndarray  # (B, 3, MAX_STACK) int16: each space's cards, oldest first (EMPTY beyond lagoon_len)
    lagoon_len: np.ndarray  # (B, 3) int64: cards in each space
    peeker: np.ndarray  # (B, 3, MAX_STACK) int8: who saw a lagoon card face-down (R5), -1 for a face-up card
    piles: np.ndarray  # (B, n, MAX_PILE) int16: each fish pile, bottom first
    pile_len: np.ndarray  # (B, n) int64
    pile_stats: np.ndarray  # (B, n, stat) int32: the summed stats of each pile (its value sum is the score, R10)
    box_stats: np.ndarray  # (B, stat) int32: the summed stats of the box (R9's victims)
    placement: np.ndarray  # (B, 3 x rounds) int16: the deal, three cards a round (R4)


class Reveal(NamedTuple):
    """The last reveal of every game, per seat: the round's public facts (R11), written whole by
    the rule kernels at each reveal and read by the encode kernels."""

    plays: np.ndarray  # (B, n) int64: the diver card played, 0 before the first reveal
    caught_depth: np.ndarray  # (B, n, 3) int8: 1 at the depth the seat caught at
    caught_stats: np.ndarray  # (B, n, stat) int32: the summed stats of the fish caught
    stolen_stats: np.ndarray  # (B, n, stat) int32: the summed stats of the fish Seagulls took from the pile
    thefts: np.ndarray  # (B, n) int32: Seagull thefts suffered
    triples: np.ndarray  # (B, n) int32: Jellyfish triples sent to the box


class RoundArrays(NamedTuple):
    """One resolved round of every game: the batched form of `rules.RoundRecord`. The rule kernel
    reads `round` and `plays` and writes the rest."""

    round: int
    plays: np.ndarray  # (B, n) diver card each seat played
    catchers: np.ndarray  # (B, 3) seat that caught at each depth, -1 for nobody
    best_cards: np.ndarray  # (B, 3) the best card at each depth, 0 where nobody was left
    decisions: np.ndarray  # (B, 3) index into DECISIONS


class EncodeTables(NamedTuple):
    """What the encode kernels read and never write. `features`, `round_columns` and `row_zero` are
    in the observation's dtype: float32, or the uint8 codes of `miaui_env.games.miaui.compact`."""

    features: np.ndarray  # (cards + 2, CARD_DIM): encoder.features of each card's stats
    stats: np.ndarray  # (cards + 2, stat) int32: as RuleTables.stats
    peek_delta: np.ndarray  # (cards + 2, CARD_DIM) what a peeker adds to a face-down card (R5): its features less
    # HIDDEN's (float32), or for uint8 observations its stats less HIDDEN's (int16: codes move by the stats)
    round_columns: np.ndarray  # (round 0-13, n, 3): encoder.round_columns
    # Visibility, compiled from observation's declared tables (R5, R11), never decided in a kernel:
    shown: np.ndarray  # (len(ASSEMBLED_PIECES),) bool: whether each of those pieces is shown (observation.shown_entries)
    face_down_public: np.ndarray  # (2,) bool, per observation.FACE_DOWN_PIECES: a face-down card there is shown to all
    peeks: np.ndarray  # (2,) bool, the same pieces: its peeker sees its face there (observation.face_down_peeks)
    opponent_mask: np.ndarray  # (SEAT_DIM,) float32: 1 where an opponent's row shows the entry (R11)
    row_zero: np.ndarray  # (SEAT_DIM,): an empty entry of a seat row (0.0, or its code)
    keep: np.ndarray  # (SEAT_DIM,) uint8: 1 where an opponent's row shows the entry (R11), as codes multiply
    hidden_zero: np.ndarray  # (SEAT_DIM,) uint8: where it does not, the entry's zero code (0 elsewhere)
    card_zero: np.ndarray  # (CARD_DIM,) int64: the zeros of a card's features' codes (their scales are STATS_DIVISOR)
    summary_zero: np.ndarray  # (CARD_DIM,) int64: the zeros of pile_summary's codes (scales HEIGHT_SCALE, COUNT_SCALE, ...)
    empty: int
    hidden: int
    rounds: int  # the game's last round: 12, or a short game's (MV1)


# The observation pieces the encode kernels assemble for each seat, in the order of EncodeTables.shown.
ASSEMBLED_PIECES = ("round", "hand", "lagoon", "lagoon_rest", "box")


class ObservationPieces(NamedTuple):
    """One game's pieces of the observations per thread (the first axis is the thread's slot, not
    the game), in the observation's dtype, written by the encode kernels and assembled into every
    seat's observation. Each slot is padded (one more row, or 64 more bytes) so that threads share
    no cache line: the shapes below are the parts in use."""

    rows: np.ndarray  # (slots, n, SEAT_DIM): each seat's row (absolute seats) as its owner sees it
    public_rows: np.ndarray  # (slots, n, SEAT_DIM): the same rows as the other seats see them (R11)
    lagoon: np.ndarray  # (slots, lagoon piece size): the lagoon with face-down cards hidden
    lagoon_rest: np.ndarray  # (slots, lagoon_rest piece size): the same for the cards past LAGOON_SLOTS
