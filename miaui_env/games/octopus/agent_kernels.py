"""The risk-aware, theft-aware and rival-aware octopus players' maths, numba-compiled for a batch of
observations (`miaui_env.games.octopus.agents` holds the players and, in its docstring, the maths).

`plan` reads each row's flip odds (`flip_odds`) and which thefts it must value; the agent then draws
the uniforms of the thefts whose k-subsets are sampled, `pick_subsets` turns them into subsets, and
`decide` values the thefts and chooses every row's action. They compute the floats the first,
straightforward numpy version computed (tests/octopus_reference_agents.py keeps it, and
tests/test_octopus_agents_fast.py holds these kernels to it bit for bit on thousands of decisions of
real games), so that a tie at `> 0` or between two thefts falls as it always fell:

- quantities in whole points (card counts, gains, losses, their sums) are exact in any order;
- every sum of fractions is added in numpy's order: `np.add.reduce` over a contiguous float64 array
  is `0.0 + pairwise(a)` (`_pairwise`: numpy's pairwise summation, 8 accumulators in blocks of up to
  128), and a mean is that sum / n;
- arithmetic on the raw observation (its scales, the discard pile plus the collections) is done in
  the observation's own dtype, float32 or float64, as numpy does it (NEP 50): `scales` carries the
  constants in that dtype.

The sampled subsets (more than `max_subsets`, the agents' MAX_SUBSETS, k-subsets of a target's
cards) use the agent's generator as before: one `rng.random(total)` for an act's sampled thefts is
the very stream of one `rng.random((MAX_SUBSETS, m))` per theft, row by row, target by target, k by
k; a subset is the first k of a row's argsort, that is the k smallest uniforms. Where the k-th and
the (k+1)-th smallest of a row are equal (numpy's argsort would choose between them) `pick_subsets`
flags the row and the agent asks numpy's argsort.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from miaui_env.games.octopus.observation import OBSERVATION_LAYOUT, SEAT_LAYOUT, VALUES
from miaui_env.games.octopus.rules import FISH_VALUES, MAX_PLAYERS, MAX_STEAL, NUM_OCTOPUSES, NUM_SPECIES

THEFTS = (MAX_PLAYERS - 1) * MAX_STEAL  # actions 3-11: offset 1-3, k 1-3
STOP_ACTION, FLIP_ACTION, NO_THEFT_ACTION = 0, 1, 2
# `scales`, in the observation's dtype: the row's values are stored / 4, its order / 10, collection sizes / 66.
VALUE_AT, ORDER_AT, SIZE_AT, ONE_AT = 0, 1, 2, 3

# Module globals are compile-time constants to numba: where each piece the kernels read begins.
_ROW, _ORDER = OBSERVATION_LAYOUT.offset("row"), OBSERVATION_LAYOUT.offset("row_order")
_DISCARD, _DISCARD_OCTOPUSES = OBSERVATION_LAYOUT.offset("discard"), OBSERVATION_LAYOUT.offset("discard_octopuses")
# A nested piece's offset is the first row's: the observer's own (seat row 0); seat j's is j rows on.
_SEAT = SEAT_LAYOUT.size
_PRESENT, _SIZE = OBSERVATION_LAYOUT.offset("present"), OBSERVATION_LAYOUT.offset("collection_size")
_COLLECTION = OBSERVATION_LAYOUT.offset("collection")
_SPECIES, _VALUES = NUM_SPECIES, len(VALUES)
_SLOTS = _SPECIES * _VALUES  # a (10, 4) count block, flat: slot = species * 4 + value column
_PLAYERS, _STEAL, _OCTOPUSES = MAX_PLAYERS, MAX_STEAL, float(NUM_OCTOPUSES)
_COPIES = np.array([FISH_VALUES.count(v) for v in VALUES], dtype=np.float64)  # O1: 2, 2, 1, 1 cards of each value


@njit(cache=True)
def _block(a: np.ndarray, start: int, n: int) -> float:
    """numpy's pairwise sum of a[start:start + n] for n <= 128: plain below 8, else 8 accumulators, then the rest."""
    if n < 8:
        res = 0.0
        for i in range(start, start + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    i = 8
    while i < n - n % 8:
        j = start + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[start + i]
        i += 1
    return float(res)


@njit(cache=True)
def _pairwise(a: np.ndarray, start: int, n: int) -> float:
    """numpy's pairwise sum of a[start:start + n] (float64): above 128 the sum of its two halves (the first
    a multiple of 8), each summed so; walked with a stack (a cached recursive kernel crashes numba)."""
    if n <= 128:
        return _block(a, start, n)
    starts = np.zeros(64, dtype=np.int64)  # the halves still open, and how far each is done (0, 1, 2)
    sizes = np.zeros(64, dtype=np.int64)
    stages = np.zeros(64, dtype=np.int64)
    sums = np.zeros(64)
    open_, done = 1, 0
    starts[0], sizes[0] = start, n
    while open_ > 0:
        top = open_ - 1
        size = sizes[top]
        if size <= 128:
            sums[done] = _block(a, starts[top], size)
            done += 1
            open_ -= 1
            continue
        half = size // 2
        half -= half % 8
        if stages[top] == 2:  # both halves summed: their sum replaces them
            sums[done - 2] = sums[done - 2] + sums[done - 1]
            done -= 1
            open_ -= 1
            continue
        child = starts[top] if stages[top] == 0 else starts[top] + half
        child_size = half if stages[top] == 0 else size - half
        stages[top] += 1
        starts[open_], sizes[open_], stages[open_] = child, child_size, 0
        open_ += 1
    return float(sums[0])


@njit(cache=True)
def _numpy_sum(a: np.ndarray, n: int) -> float:
    """`a[:n].sum()` as numpy adds it: its identity 0.0, then the pairwise sum."""
    return 0.0 + _pairwise(a, 0, n)


@njit(cache=True)
def _comb(m: int, k: int) -> int:
    """C(m, k) for k = 1, 2, 3; 0 where m < k."""
    if m < k:
        return 0
    if k == 1:
        return m
    if k == 2:
        return m * (m - 1) // 2
    return m * (m - 1) * (m - 2) // 6


@njit(cache=True)
def _row_odds(row: np.ndarray, scales: np.ndarray, odds: np.ndarray, i: int, buf: np.ndarray) -> None:
    """`odds[i]` = (P_bust, P_octopus, E_flip, G_stop) of `row` (`agents.flip_odds`), in numpy's floats."""
    values = np.zeros(_SPECIES)  # the row's card per species, 0 where none (whole numbers)
    order = np.zeros(_SPECIES)
    unseen = np.zeros((_SPECIES, _VALUES))
    own_best = np.zeros(_SPECIES)
    deck = 0.0
    for s in range(_SPECIES):
        value = np.rint(row[_ROW + s] * scales[VALUE_AT])  # in the observation's dtype, as numpy
        values[s] = min(max(value, 0.0), float(_VALUES))
        order[s] = np.rint(row[_ORDER + s] * scales[ORDER_AT])
        for c in range(_VALUES):
            slot = _COLLECTION + s * _VALUES + c
            together = row[slot]  # collections.sum(axis=0): seat rows added one after the other
            for seat in range(1, _PLAYERS):
                together = together + row[slot + seat * _SEAT]
            seen = row[_DISCARD + s * _VALUES + c] + together
            if values[s] > 0 and c == int(values[s]) - 1:
                seen = seen + scales[ONE_AT]
            unseen[s, c] = max(_COPIES[c] - np.rint(seen), 0.0)
            deck += unseen[s, c]  # whole numbers: exact in any order
            if row[slot] > 0.5:
                own_best[s] = c + 1.0
    unseen_octopuses = _OCTOPUSES - np.rint(np.float64(row[_DISCARD_OCTOPUSES]) * _OCTOPUSES)  # round(): half to even
    deck = deck + unseen_octopuses
    if deck <= 0:
        odds[i, :] = 0.0
        return
    row_gain = np.zeros(_SPECIES)
    p_species = np.zeros(_SPECIES)
    stop_gain = 0.0
    for s in range(_SPECIES):
        if values[s] > 0:
            row_gain[s] = max(values[s] - own_best[s], 0.0)
        stop_gain += row_gain[s]
        p_species[s] = (unseen[s, 0] + unseen[s, 1] + unseen[s, 2] + unseen[s, 3]) / deck
    # A bust on species s keeps the row's cards flipped before s (O3).
    for s in range(_SPECIES):
        kept_gain = 0.0
        for t in range(_SPECIES):
            if order[t] < order[s] and values[t] > 0:
                kept_gain += row_gain[t]
        buf[s] = (p_species[s] if values[s] > 0 else 0.0) * kept_gain
    bust_value = _numpy_sum(buf, _SPECIES)
    # A new species s of value v joins the row: the row's gain plus the card's own.
    for s in range(_SPECIES):
        for c in range(_VALUES):
            new_gain = stop_gain + max(c + 1.0 - own_best[s], 0.0)
            buf[s * _VALUES + c] = (0.0 if values[s] > 0 else unseen[s, c] / deck) * new_gain
    new_value = _numpy_sum(buf, _SLOTS)
    busts = 0
    for s in range(_SPECIES):
        if values[s] > 0:
            buf[busts] = p_species[s]
            busts += 1
    odds[i, 0] = _numpy_sum(buf, busts)
    odds[i, 1] = unseen_octopuses / deck
    odds[i, 2] = bust_value + new_value
    odds[i, 3] = stop_gain


@njit(cache=True)
def _cards(row: np.ndarray, seat: int) -> int:
    """How many cards seat row `seat`'s collection holds, counted card by card (its rounded counts, none below 0)."""
    cards = 0
    for slot in range(_SLOTS):
        cards += max(int(np.rint(row[_COLLECTION + seat * _SEAT + slot])), 0)
    return cards


@njit(cache=True)
def plan(
    obs: np.ndarray, masks: np.ndarray, theft_rows: np.ndarray, scales: np.ndarray, theft_aware: bool, max_subsets: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For rows `obs` (B, 306) with `masks` (B, 12, bool) and `theft_rows` (B,: a theft to choose, else flip or
    stop): the flip odds (B, 4) of the flip rows; the thefts to value (B, 9: the row's mask, or, for a
    theft-aware flip row that weighs the octopus's theft, the mask an octopus would give, `agents.theft_mask`);
    which rows value thefts (B,); and per theft the cards m of its target where its k-subsets are sampled
    (C(m, k) > MAX_SUBSETS, else 0): the uniforms to draw, in the order the reference drew them."""
    rows = obs.shape[0]
    odds = np.zeros((rows, 4))
    legal = np.zeros((rows, THEFTS), dtype=np.bool_)
    need = np.zeros(rows, dtype=np.bool_)
    draws = np.zeros((rows, THEFTS), dtype=np.int64)
    buf = np.zeros(_SLOTS)
    for i in range(rows):
        row = obs[i]
        if theft_rows[i]:
            need[i] = True
            for a in range(THEFTS):
                legal[i, a] = masks[i, 3 + a]
        else:
            _row_odds(row, scales, odds, i, buf)
            edge = odds[i, 2] - odds[i, 3]
            if theft_aware and masks[i, FLIP_ACTION] and not (edge > 0 or odds[i, 1] == 0):
                need[i] = True
                for offset in range(1, _PLAYERS):
                    present = row[_PRESENT + offset * _SEAT] > 0.5
                    size = np.rint(row[_SIZE + offset * _SEAT] * scales[SIZE_AT])
                    for k in range(1, _STEAL + 1):
                        legal[i, (offset - 1) * _STEAL + k - 1] = present and size >= k
        if not need[i]:
            continue
        for offset in range(1, _PLAYERS):
            m = _cards(row, offset)
            for k in range(1, _STEAL + 1):
                a = (offset - 1) * _STEAL + k - 1
                if legal[i, a] and _comb(m, k) > max_subsets:
                    draws[i, a] = m
    return odds, legal, need, draws


@njit(cache=True)
def pick_subsets(uniforms: np.ndarray, cards: np.ndarray, ks: np.ndarray, max_subsets: int) -> tuple[np.ndarray, np.ndarray]:
    """For each sampled theft d (its target's `cards[d]` cards, k = `ks[d]`), MAX_SUBSETS rows of `cards[d]`
    uniforms, one after the other in `uniforms`: each row's subset, the indices of its k smallest uniforms
    ((draws * MAX_SUBSETS, 3), -1 past k), and whether the k-th and (k+1)-th smallest tie (the subset is then
    numpy argsort's to choose)."""
    draws = cards.shape[0]
    picks = np.full((draws * max_subsets, _STEAL), -1, dtype=np.int64)
    tied = np.zeros(draws * max_subsets, dtype=np.bool_)
    low = np.zeros(_STEAL + 1)  # the k + 1 smallest so far, ascending
    where = np.zeros(_STEAL + 1, dtype=np.int64)
    start = 0
    for d in range(draws):
        m, k = cards[d], ks[d]
        for r in range(max_subsets):
            base = start + r * m
            held = 0
            for j in range(m):
                u = uniforms[base + j]
                if held == k + 1 and not u < low[k]:
                    continue
                p = held if held < k + 1 else k  # insert before the first larger one
                while p > 0 and u < low[p - 1]:
                    if p < k + 1:
                        low[p], where[p] = low[p - 1], where[p - 1]
                    p -= 1
                low[p], where[p] = u, j
                if held < k + 1:
                    held += 1
            for q in range(k):
                picks[d * max_subsets + r, q] = where[q]
            tied[d * max_subsets + r] = low[k - 1] == low[k]
        start += max_subsets * m
    return picks, tied


@njit(cache=True)
def _species_after(counts: np.ndarray, s: int, chosen: np.ndarray, k: int, sign: int) -> int:
    """The best value of species s in a (40,) count block once the cards `chosen[:k]` (slots) of it are
    added (sign 1) or taken away (sign -1); 0 if none is left."""
    best = 0
    for c in range(_VALUES):
        slot = s * _VALUES + c
        moved = 0
        for q in range(k):
            if chosen[q] == slot:
                moved += 1
        if counts[slot] + sign * moved >= 1:
            best = c + 1
    return best


@njit(cache=True)
def _swing_term(
    chosen: np.ndarray, k: int, own: np.ndarray, target: np.ndarray, own_best: np.ndarray, target_best: np.ndarray, weight: float
) -> float:
    """gained + weight * lost for the subset `chosen[:k]` (slots): what the thief gains and the target
    loses (whole points), as the reference's arrays `gained + weights[offset] * lost_by_target`."""
    gained = 0
    lost = 0
    for p in range(k):
        s = chosen[p] // _VALUES
        first = True
        for q in range(p):
            if chosen[q] // _VALUES == s:
                first = False
        if first:
            gained += _species_after(own, s, chosen, k, 1) - own_best[s]
            lost += target_best[s] - _species_after(target, s, chosen, k, -1)
    return float(gained) + weight * float(lost)


@njit(cache=True)
def _theft_values(
    row: np.ndarray,
    legal: np.ndarray,
    weights: np.ndarray,
    draw_index: np.ndarray,
    picks: np.ndarray,
    dice: np.ndarray,
    max_subsets: int,
    values: np.ndarray,
    buf: np.ndarray,
) -> np.ndarray:
    """`values[a]` for every legal theft a of one row (`agents.RiskAwareAgent.theft_values`); returns the buffer (grown if needed)."""
    counts = np.zeros((_PLAYERS, _SLOTS), dtype=np.int64)  # rounded, as np.rint(collection)
    best = np.zeros((_PLAYERS, _SPECIES), dtype=np.int64)
    for seat in range(_PLAYERS):
        for slot in range(_SLOTS):
            counts[seat, slot] = int(np.rint(row[_COLLECTION + seat * _SEAT + slot]))
            if counts[seat, slot] >= 1:
                best[seat, slot // _VALUES] = slot % _VALUES + 1
    own, own_best = counts[0], best[0]
    own_cards = 0
    for slot in range(_SLOTS):
        own_cards += max(own[slot], 0)
    chosen = np.zeros(_STEAL, dtype=np.int64)
    slots = np.zeros(0, dtype=np.int64)
    for offset in range(1, _PLAYERS):
        first = (offset - 1) * _STEAL
        if not (legal[first] or legal[first + 1] or legal[first + 2]):
            continue
        target, target_best, weight = counts[offset], best[offset], weights[offset]
        backfire = 0.0
        if own_cards > 0:  # the -1 face: the target takes one random card of ours
            if buf.shape[0] < own_cards:
                buf = np.zeros(own_cards)
            n = 0
            for slot in range(_SLOTS):
                if own[slot] < 1:
                    continue
                s, c = slot // _VALUES, slot % _VALUES
                chosen[0] = slot
                lost = own_best[s] - _species_after(own, s, chosen, 1, -1)
                given = max(c + 1 - target_best[s], 0)
                term = float(lost) + weight * float(given)
                for _ in range(own[slot]):
                    buf[n] = term
                    n += 1
            backfire = _numpy_sum(buf, n) / n
        m = 0
        for slot in range(_SLOTS):
            m += max(target[slot], 0)
        if slots.shape[0] < m:
            slots = np.zeros(m, dtype=np.int64)
        m = 0
        for slot in range(_SLOTS):
            for _ in range(target[slot]):
                slots[m] = slot
                m += 1
        if buf.shape[0] < max_subsets:
            buf = np.zeros(max_subsets)
        for k in range(1, _STEAL + 1):
            a = first + k - 1
            if not legal[a]:
                continue
            n = 0
            d = draw_index[a]
            if d >= 0:  # sampled subsets
                for r in range(max_subsets):
                    for q in range(k):
                        chosen[q] = slots[picks[d * max_subsets + r, q]]
                    buf[n] = _swing_term(chosen, k, own, target, own_best, target_best, weight)
                    n += 1
            elif k == 1:  # every k-subset, in itertools.combinations' order
                for x in range(m):
                    chosen[0] = slots[x]
                    buf[n] = _swing_term(chosen, k, own, target, own_best, target_best, weight)
                    n += 1
            elif k == 2:
                for x in range(m):
                    for y in range(x + 1, m):
                        chosen[0], chosen[1] = slots[x], slots[y]
                        buf[n] = _swing_term(chosen, k, own, target, own_best, target_best, weight)
                        n += 1
            else:
                for x in range(m):
                    for y in range(x + 1, m):
                        for z in range(y + 1, m):
                            chosen[0], chosen[1], chosen[2] = slots[x], slots[y], slots[z]
                            buf[n] = _swing_term(chosen, k, own, target, own_best, target_best, weight)
                            n += 1
            swing = _numpy_sum(buf, n) / n if n > 0 else 0.0  # a target's cards the view hides: nothing known
            values[a] = dice[k - 1] * swing - dice[_STEAL] * backfire
    return buf


@njit(cache=True)
def decide(
    obs: np.ndarray,
    masks: np.ndarray,
    theft_rows: np.ndarray,
    odds: np.ndarray,
    need: np.ndarray,
    legal: np.ndarray,
    weights: np.ndarray,
    draw_index: np.ndarray,
    picks: np.ndarray,
    theft_aware: bool,
    dice: np.ndarray,
    max_subsets: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every row's action (B,), flip edge (B,: flip rows), theft values (B, 9: where `legal`) and best theft's
    EV (B,: 0.0 for no theft), from `plan`'s outputs, the rows' `weights` (B, 4, by offset) and the sampled
    subsets (`draw_index` (B, 9): the sampled theft's place in `picks`' blocks, -1 where enumerated); `dice` is
    P(roll >= k) for k = 1, 2, 3, then P(-1) (O5), `max_subsets` the most k-subsets enumerated."""
    rows = obs.shape[0]
    actions = np.zeros(rows, dtype=np.int64)
    edges = np.zeros(rows)
    values = np.zeros((rows, THEFTS))
    best_values = np.zeros(rows)
    buf = np.zeros(max_subsets)
    for i in range(rows):
        best = NO_THEFT_ACTION
        if need[i]:
            buf = _theft_values(obs[i], legal[i], weights[i], draw_index[i], picks, dice, max_subsets, values[i], buf)
            found = -1
            for a in range(THEFTS):  # the first of the highest, as max() over the reference's dict
                if legal[i, a] and (found < 0 or values[i, a] > values[i, found]):
                    found = a
            if found >= 0 and values[i, found] > 0:
                best, best_values[i] = 3 + found, values[i, found]
        if theft_rows[i]:
            actions[i] = best
            continue
        edge = odds[i, 2] - odds[i, 3]
        if need[i]:  # theft-aware: the octopus's theft counts
            edge = edge + odds[i, 1] * best_values[i]
        edges[i] = edge
        actions[i] = FLIP_ACTION if masks[i, FLIP_ACTION] and edge > 0 else STOP_ACTION
    return actions, edges, values, best_values
