"""Numba kernels of the rules for the batched engine: a round's resolution (R7-R9, then R4/R5's
restock), the deal (R3, with round 1's Seagull replacement, R4) and the check that every action
is a card in hand (R6).

The round and the deal loop over the games of a batch and work on `state.GameArrays` in place; a
round also writes the whole `state.Reveal` and the `state.RoundArrays` record. They know the rules and nothing
of the observation: cards are deck indices and card stats are summed as integers, whatever their
columns mean to an encoder (only the kind columns, for R9's Jellyfish count, mean something here).
`tests/test_vector.py` proves them equal to `rules.py` game by game.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from miaui_env.games.miaui.rules import NUM_DIVER_CARDS, NUM_SPACES, Decision
from miaui_env.games.miaui.vector.state import GameArrays, Reveal, RoundArrays, RuleTables

# Module globals are compile-time constants to numba. RoundArrays.decisions holds these indices.
SOLE_BEST, KITI, NO_FIGHTING, NOBODY_LEFT = (list(Decision).index(d) for d in Decision)


# The two effects that move cards to the box (R9) are functions of their own, called only when they
# happen: a function handed the state's arrays on every landing (inlined or not) made numba
# reference-count each array in and out around it (NRT incref/decref), and the round ran 3.4x
# slower (measured on 4096 games).
@njit(cache=True)
def _steal(
    g: int,
    w: int,
    c: int,
    stats: np.ndarray,
    piles: np.ndarray,
    pile_len: np.ndarray,
    pile_stats: np.ndarray,
    box_stats: np.ndarray,
    stolen_stats: np.ndarray,
) -> None:
    """R9: Seagull c caught by seat w in game g goes to the box, and the pile's top card with it."""
    width = stats.shape[1]
    for k in range(width):
        box_stats[g, k] += stats[c, k]
    if pile_len[g, w] > 0:
        pile_len[g, w] -= 1
        top = piles[g, w, pile_len[g, w]]
        for k in range(width):
            pile_stats[g, w, k] -= stats[top, k]
            box_stats[g, k] += stats[top, k]
            stolen_stats[g, w, k] += stats[top, k]


@njit(cache=True)
def _send_triple(
    g: int,
    w: int,
    stats: np.ndarray,
    kind: np.ndarray,
    jellyfish: int,
    piles: np.ndarray,
    pile_len: np.ndarray,
    pile_stats: np.ndarray,
    box_stats: np.ndarray,
) -> None:
    """R9: seat w's third Jellyfish in game g: all three go to the box, and the rest of the pile closes up."""
    width = stats.shape[1]
    kept = 0
    for i in range(pile_len[g, w]):
        p = piles[g, w, i]
        if kind[p] == jellyfish:
            for k in range(width):
                pile_stats[g, w, k] -= stats[p, k]
                box_stats[g, k] += stats[p, k]
        else:
            piles[g, w, kept] = p
            kept += 1
    pile_len[g, w] = kept


@njit(cache=True)
def first_illegal_action(hands: np.ndarray, actions: np.ndarray) -> int:
    """The flat index g * n + s of the first action that is no diver card in its seat's hand (R6), or -1."""
    games, n = actions.shape
    for g in range(games):
        for s in range(n):
            card = actions[g, s]
            if card < 0 or card >= NUM_DIVER_CARDS or hands[g, s, card] == 0:
                return int(g * n + s)
    return -1


@njit(cache=True, parallel=True)
def resolve_round(rules: RuleTables, game: GameArrays, reveal: Reveal, record: RoundArrays, chunks: int) -> None:
    """R7/R8 for every game: the three depths, their catches, then round r+1's restock (R4/R5).
    The games are cut into `chunks` resolved side by side on numba's threads: a game writes only its own slots."""
    games = record.plays.shape[0]
    for chunk in prange(chunks):
        resolve_games(rules, game, reveal, record, chunk * games // chunks, (chunk + 1) * games // chunks)


# The work of a chunk is a function of its own: inside a prange loop, numba (0.6x) loses writes made
# through a structure's fields (game.hands[...] = ...); a called function's writes are kept.
@njit(cache=True)
def resolve_games(rules: RuleTables, game: GameArrays, reveal: Reveal, record: RoundArrays, start: int, stop: int) -> None:
    """`resolve_round` for games start to stop - 1."""
    # Every array is taken out of its structure once, here, and read by name below.
    round_number, plays, catchers, best_cards, decisions = record.round, record.plays, record.catchers, record.best_cards, record.decisions
    stats, kind, ranks, empty = rules.stats, rules.kind, rules.ranks, rules.empty
    seagull, jellyfish, lantern = rules.seagull, rules.jellyfish, rules.lantern
    hands, lagoon, lagoon_len, peeker, placement = game.hands, game.lagoon, game.lagoon_len, game.peeker, game.placement
    piles, pile_len, pile_stats, box_stats = game.piles, game.pile_len, game.pile_stats, game.box_stats
    revealed, caught_depth, caught_stats, stolen_stats = reveal.plays, reveal.caught_depth, reveal.caught_stats, reveal.stolen_stats
    thefts, triples = reveal.thefts, reveal.triples
    n = plays.shape[1]
    width = stats.shape[1]
    still_in = np.empty(n, dtype=np.bool_)
    lantern_peeker = np.empty(NUM_SPACES, dtype=np.int64)
    for g in range(start, stop):
        for s in range(n):  # the reveal is rewritten whole
            hands[g, s, plays[g, s] - 1] = 0
            still_in[s] = True
            revealed[g, s] = plays[g, s]
            thefts[g, s] = 0
            triples[g, s] = 0
            for d in range(NUM_SPACES):
                caught_depth[g, s, d] = 0
            for k in range(width):
                caught_stats[g, s, k] = 0
                stolen_stats[g, s, k] = 0
        for d in range(NUM_SPACES):
            lantern_peeker[d] = -1
        for depth in range(NUM_SPACES):
            shallow = depth == NUM_SPACES - 1
            best = NUM_DIVER_CARDS + 1 if shallow else 0
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
            elif rules.no_fighting:  # R8: a tie catches nothing, and the tied are out
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
            caught_depth[g, winner, depth] = 1
            for k in range(lagoon_len[g, depth]):  # the whole space, oldest first (R8), each card's effect at once (R9)
                c = lagoon[g, depth, k]
                for i in range(width):
                    caught_stats[g, winner, i] += stats[c, i]
                if kind[c] == seagull:  # the Seagull and the pile's top card go to the box
                    thefts[g, winner] += 1
                    _steal(g, winner, c, stats, piles, pile_len, pile_stats, box_stats, stolen_stats)
                else:
                    height = pile_len[g, winner]
                    piles[g, winner, height] = c
                    pile_len[g, winner] = height + 1
                    for i in range(width):
                        pile_stats[g, winner, i] += stats[c, i]
                    if kind[c] == jellyfish and pile_stats[g, winner, jellyfish] == 3:  # all three go; the rest close up
                        triples[g, winner] += 1
                        _send_triple(g, winner, stats, kind, jellyfish, piles, pile_len, pile_stats, box_stats)
                    elif kind[c] == lantern and round_number < rules.rounds:  # R5: the space's next card goes face-down
                        lantern_peeker[depth] = winner
                lagoon[g, depth, k] = empty
                peeker[g, depth, k] = -1
            lagoon_len[g, depth] = 0
        if round_number < rules.rounds:  # R4: round r+1's cards, face-down where a Lantern was caught (R5)
            for depth in range(NUM_SPACES):
                slot = lagoon_len[g, depth]
                lagoon[g, depth, slot] = placement[g, NUM_SPACES * round_number + depth]
                peeker[g, depth, slot] = lantern_peeker[depth]
                lagoon_len[g, depth] = slot + 1


@njit(cache=True, parallel=True)
def deal(uniforms: np.ndarray, stacked: np.ndarray, placement: np.ndarray, kind: np.ndarray, seagull: int, chunks: int) -> None:
    """`deal_games` for every game, in `chunks` of games side by side on numba's threads."""
    games = placement.shape[0]
    for chunk in prange(chunks):
        deal_games(uniforms, stacked, placement, kind, seagull, chunk * games // chunks, (chunk + 1) * games // chunks)


@njit(cache=True)
def deal_games(
    uniforms: np.ndarray, stacked: np.ndarray, placement: np.ndarray, kind: np.ndarray, seagull: int, start: int, stop: int
) -> None:
    """R3/R4 for games start to stop - 1, as rules.deal_from does it from each game's DEAL_UNIFORMS
    `uniforms[g]`: the deck order is the stable argsort of the first DECK_SIZE of them, or
    `stacked[g]` where `stacked[g, 0] >= 0`; its first card is put back, and placement[g] gets the
    rest in lagoon order, after round 1's Seagull replacement."""
    size = stacked.shape[1]
    order = np.empty(size, dtype=np.int64)
    bucket_of = np.empty(size, dtype=np.int64)
    starts = np.empty(_SORT_BUCKETS + 1, dtype=np.int64)
    deck, first = np.empty(size, dtype=placement.dtype), np.empty(NUM_SPACES, dtype=placement.dtype)
    for g in range(start, stop):
        if stacked[g, 0] >= 0:
            for i in range(size):
                order[i] = stacked[g, i]
        else:
            _stable_argsort(uniforms[g], size, order, bucket_of, starts)
        for i in range(size - 1):
            placement[g, i] = order[i + 1]
        for space in range(NUM_SPACES):
            if kind[placement[g, space]] == seagull:
                _first_round_order(placement, uniforms[g, size:], g, kind, seagull, deck, first)
                break


_SORT_BUCKETS = 64  # a deal sorts 37 uniforms: one bucket pass leaves a few pairs for insertion to swap


@njit(cache=True, inline="always")
def _stable_argsort(values: np.ndarray, size: int, order: np.ndarray, bucket_of: np.ndarray, starts: np.ndarray) -> None:
    """order[:size] = np.argsort(values[:size], kind="stable") for values in [0, 1): a stable
    counting sort on the leading bits, then insertion on the value (equal values keep their index
    order at both steps): 2.5x faster than numpy's argsort of the same rows (measured on 4096 deals)."""
    starts[:] = 0
    for i in range(size):
        bucket = min(int(values[i] * _SORT_BUCKETS), _SORT_BUCKETS - 1)
        bucket_of[i] = bucket
        starts[bucket + 1] += 1
    for b in range(_SORT_BUCKETS):
        starts[b + 1] += starts[b]
    for i in range(size):
        order[starts[bucket_of[i]]] = i
        starts[bucket_of[i]] += 1
    for i in range(1, size):
        index, value, j = order[i], values[order[i]], i
        while j > 0 and values[order[j - 1]] > value:
            order[j] = order[j - 1]
            j -= 1
        order[j] = index


@njit(cache=True)
def _first_round_order(
    placement: np.ndarray, uniforms: np.ndarray, g: int, kind: np.ndarray, seagull: int, deck: np.ndarray, first: np.ndarray
) -> None:
    """R4 round 1 for game g, as rules.first_round_order does it: a Seagull drawn is replaced by the
    next card and inserted at position int(u * (len + 1)) of what remains, u the next of the deal's
    Seagull `uniforms` (1.0 once they run out). placement[g] holds the deck after the put-back card
    and becomes the lagoon order (round 1's three cards first)."""
    size = placement.shape[1]
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
            u = uniforms[used] if used < uniforms.size else 1.0
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
