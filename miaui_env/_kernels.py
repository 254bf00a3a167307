"""Numba kernels of the batched engine: a round's resolution, round 1's Seagull replacement, each
game's observation pieces, and the peeks at face-down cards.

Each kernel loops over the games of a batch and works on `vector.VectorMiaui`'s arrays in place.
They follow the rulings (R4-R9) and the observation layout directly; `tests/test_vector.py` proves
them equal to the reference engine and encoder game by game. Every float they write is computed
with the same IEEE operations as `observation.features` and `observation.pile_summary` (integer
stats divided in float64, then rounded to float32), so the two agree to the bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from miaui_env.observation import CARD_DIM, LAGOON_SLOTS, PILE_SLOTS, SEAT_LAYOUT
from miaui_env.rules import NUM_DIVER_CARDS as CARDS
from miaui_env.rules import NUM_ROUNDS, NUM_SPACES, Decision

# Module globals are compile-time constants to numba: the layout costs nothing to look up.
SOLE_BEST, KITI, NO_FIGHTING, NOBODY_LEFT = (list(Decision).index(d) for d in Decision)
_PRESENT, _KITI, _SUMMARY, _PILE, _PLAYED, _LAST = (
    SEAT_LAYOUT.offsets[name] for name in ("present", "kiti", "pile_summary", "pile", "played", "last_round")
)
_CAUGHT_AT = _LAST + CARDS  # inside last_round: card played, depth caught, fish caught, fish stolen, counts
_CAUGHT, _STOLEN = _CAUGHT_AT + NUM_SPACES, _CAUGHT_AT + NUM_SPACES + CARD_DIM
_THEFTS, _TRIPLES = _STOLEN + CARD_DIM, _STOLEN + CARD_DIM + 1


@njit(cache=True, inline="always")
def _land(
    g,
    w,
    c,
    depth,
    round_number,
    stats,
    kind,
    kinds,
    piles,
    pile_len,
    pile_stats,
    box_stats,
    lantern_peeker,
    caught_stats,
    stolen_stats,
    thefts,
    triples,
):
    """R9: card c lands on seat w's pile in game g, its effect applied at once (R5 for a Lantern)."""
    seagull, jellyfish, lantern = kinds
    for k in range(CARD_DIM):
        caught_stats[g, w, k] += stats[c, k]
    if kind[c] == seagull:  # the Seagull and the pile's top card go to the box
        thefts[g, w] += 1.0
        for k in range(CARD_DIM):
            box_stats[g, k] += stats[c, k]
        if pile_len[g, w] > 0:
            pile_len[g, w] -= 1
            top = piles[g, w, pile_len[g, w]]
            for k in range(CARD_DIM):
                pile_stats[g, w, k] -= stats[top, k]
                box_stats[g, k] += stats[top, k]
                stolen_stats[g, w, k] += stats[top, k]
        return
    piles[g, w, pile_len[g, w]] = c
    pile_len[g, w] += 1
    for k in range(CARD_DIM):
        pile_stats[g, w, k] += stats[c, k]
    if kind[c] == jellyfish and pile_stats[g, w, jellyfish] == 3:  # all three go; the rest close up
        kept = 0
        for i in range(pile_len[g, w]):
            p = piles[g, w, i]
            if kind[p] == jellyfish:
                for k in range(CARD_DIM):
                    pile_stats[g, w, k] -= stats[p, k]
                    box_stats[g, k] += stats[p, k]
            else:
                piles[g, w, kept] = p
                kept += 1
        pile_len[g, w] = kept
        triples[g, w] += 1.0
    if kind[c] == lantern and round_number < NUM_ROUNDS:
        lantern_peeker[depth] = w


@njit(cache=True)
def resolve_round(
    plays, round_number, no_fighting, ranks, stats, kind, kinds, empty,
    hands, lagoon, lagoon_len, peeker, piles, pile_len, pile_stats, box_stats, placement,
    caught_depth, caught_stats, stolen_stats, thefts, triples, catchers, best_cards, decisions,
):  # fmt: skip
    """R7/R8 for every game: the three depths, their catches, then round r+1's restock (R4/R5)."""
    games, n = plays.shape
    still_in = np.empty(n, dtype=np.bool_)
    lantern_peeker = np.empty(NUM_SPACES, dtype=np.int64)
    for g in range(games):  # the caller has cleared the last-round tallies
        for s in range(n):
            hands[g, s, plays[g, s] - 1] = 0
            still_in[s] = True
        lantern_peeker[:] = -1
        for depth in range(NUM_SPACES):
            shallow = depth == NUM_SPACES - 1
            best = CARDS + 1 if shallow else 0
            for s in range(n):
                if still_in[s] and ((shallow and plays[g, s] < best) or (not shallow and plays[g, s] > best)):
                    best = plays[g, s]
            count = 0
            for s in range(n):
                if still_in[s] and plays[g, s] == best:
                    count += 1
            winner = -1
            if count == 0:  # R8: nobody left in the round
                best, decision = 0, NOBODY_LEFT
            elif no_fighting:  # R8: a tie catches nothing, and the tied are out
                decision = SOLE_BEST if count == 1 else NO_FIGHTING
                for s in range(n):
                    if still_in[s] and plays[g, s] == best:
                        still_in[s] = False
                        if count == 1:
                            winner = s
            else:  # R1: Kiti's priority among the contenders; ranks[0] deep, ranks[1] shallow
                order = 1 if shallow else 0
                for s in range(n):
                    if (
                        still_in[s]
                        and plays[g, s] == best
                        and (winner < 0 or ranks[order, round_number, s] < ranks[order, round_number, winner])
                    ):
                        winner = s
                still_in[winner] = False
                decision = SOLE_BEST if count == 1 else KITI
            catchers[g, depth], best_cards[g, depth], decisions[g, depth] = winner, best, decision
            if winner < 0:
                continue
            caught_depth[g, winner, depth] = 1.0
            for k in range(lagoon_len[g, depth]):  # the whole space, oldest first (R8)
                _land(g, winner, lagoon[g, depth, k], depth, round_number, stats, kind, kinds, piles, pile_len, pile_stats,
                      box_stats, lantern_peeker, caught_stats, stolen_stats, thefts, triples)  # fmt: skip
                lagoon[g, depth, k] = empty
                peeker[g, depth, k] = -1
            lagoon_len[g, depth] = 0
        if round_number < NUM_ROUNDS:
            for depth in range(NUM_SPACES):
                slot = lagoon_len[g, depth]
                lagoon[g, depth, slot] = placement[g, NUM_SPACES * round_number + depth]
                peeker[g, depth, slot] = lantern_peeker[depth]
                lagoon_len[g, depth] = slot + 1


@njit(cache=True)
def first_round_orders(placement, uniforms, games, kind, seagull):
    """R4 round 1 for the listed games, as rules.first_round_order does it: a Seagull drawn is
    replaced by the next card and inserted at position int(u * (len + 1)) of what remains, u the
    next of the deal's Seagull uniforms (1.0 once they run out). placement[g] holds the deck after
    the put-back card and becomes the lagoon order (round 1's three cards first)."""
    size = placement.shape[1]
    deck = np.empty(size + 1, dtype=placement.dtype)
    first = np.empty(NUM_SPACES, dtype=placement.dtype)
    for g in games:
        length = size
        for i in range(size):
            deck[i] = placement[g, i]
        used = 0
        for space in range(NUM_SPACES):
            card = deck[0]
            for i in range(length - 1):  # pop the top card
                deck[i] = deck[i + 1]
            length -= 1
            while kind[card] == seagull:
                replacement = deck[0]
                for i in range(length - 1):
                    deck[i] = deck[i + 1]
                length -= 1
                u = uniforms[g, used] if used < uniforms.shape[1] else 1.0
                used += 1
                position = min(int(u * (length + 1)), length)
                for i in range(length, position, -1):  # make room, then insert
                    deck[i] = deck[i - 1]
                deck[position] = card
                length += 1
                card = replacement
            first[space] = card
        for space in range(NUM_SPACES):
            placement[g, space] = first[space]
        for i in range(length):
            placement[g, NUM_SPACES + i] = deck[i]


@njit(cache=True, inline="always")
def _features_of_stats(out, g, s, at, stats, divisor):
    """observation.features of stats[g, s] (integer stats), written at out[g, s, at:at+8]."""
    for k in range(CARD_DIM):
        out[g, s, at + k] = np.float32(stats[g, s, k] / divisor[k])


@njit(cache=True)
def encode_pieces(
    rows, public, lagoon_features, rest_features, no_fighting, opponent_mask, round_cols, features, stats, divisor, empty, hidden,
    hands, lagoon, lagoon_len, peeker, piles, pile_len, pile_stats, last_plays, caught_depth, caught_stats, stolen_stats,
    thefts, triples,
):  # fmt: skip
    """The per-game pieces of the observations, as observation.Encoder computes them:
    seat rows (absolute seats) as their owner sees them and as the others do (R11's mask), and the
    lagoon as everyone sees it (face-down cards hidden). numpy then copies them into place.
    Direct indexing throughout: numba's slices and array views cost ~100 ns each here."""
    games, n, seat_dim = rows.shape
    for g in range(games):
        for s in range(n):
            rows[g, s, _PRESENT] = 1.0
            for k in range(3):  # kiti, deep_priority, shallow_priority: contiguous in the row
                rows[g, s, _KITI + k] = round_cols[s, k]
            rows[g, s, _SUMMARY] = np.float32(pile_len[g, s] / NUM_ROUNDS)
            for k in range(CARD_DIM - 1):  # as observation.pile_summary: kind counts / 4, value / 60
                value = pile_stats[g, s, k] / 4.0
                if k == CARD_DIM - 2:
                    value /= divisor[k]
                rows[g, s, _SUMMARY + 1 + k] = np.float32(value)
            for j in range(PILE_SLOTS):
                below = pile_len[g, s] - 1 - j
                card = piles[g, s, below] if below >= 0 else empty
                for k in range(CARD_DIM):
                    rows[g, s, _PILE + CARD_DIM * j + k] = features[card, k]
            for c in range(CARDS):
                rows[g, s, _PLAYED + c] = 1.0 - hands[g, s, c]
            for k in range(_LAST, seat_dim):
                rows[g, s, k] = 0.0
            if last_plays[g, s] > 0:
                rows[g, s, _LAST + last_plays[g, s] - 1] = 1.0
                for d in range(NUM_SPACES):
                    rows[g, s, _CAUGHT_AT + d] = caught_depth[g, s, d]
                _features_of_stats(rows, g, s, _CAUGHT, caught_stats, divisor)
                _features_of_stats(rows, g, s, _STOLEN, stolen_stats, divisor)
                rows[g, s, _THEFTS] = thefts[g, s]
                rows[g, s, _TRIPLES] = triples[g, s]
            for k in range(seat_dim):
                public[g, s, k] = rows[g, s, k] * opponent_mask[k]
        for depth in range(NUM_SPACES):
            for slot in range(LAGOON_SLOTS):
                card = lagoon[g, depth, slot] if slot < lagoon_len[g, depth] else empty
                if card != empty and peeker[g, depth, slot] >= 0:
                    card = hidden
                for k in range(CARD_DIM):
                    lagoon_features[g, (depth * LAGOON_SLOTS + slot) * CARD_DIM + k] = features[card, k]
            if no_fighting:
                for k in range(CARD_DIM):
                    total = 0
                    for slot in range(LAGOON_SLOTS, lagoon_len[g, depth]):
                        total += stats[hidden if peeker[g, depth, slot] >= 0 else lagoon[g, depth, slot], k]
                    rest_features[g, depth * CARD_DIM + k] = np.float32(total / divisor[k])


@njit(cache=True)
def add_peeks(obs, lagoon_at, rest_at, peek_delta, lagoon, lagoon_len, peeker):
    """R5: add each face-down card's true features to its peeker's observation, in lagoon order."""
    games = obs.shape[0]
    for g in range(games):
        for depth in range(NUM_SPACES):
            for slot in range(lagoon_len[g, depth]):
                s = peeker[g, depth, slot]
                if s >= 0:
                    at = lagoon_at + (depth * LAGOON_SLOTS + slot) * CARD_DIM if slot < LAGOON_SLOTS else rest_at + depth * CARD_DIM
                    for k in range(CARD_DIM):
                        obs[g, s, at + k] += peek_delta[lagoon[g, depth, slot], k]
