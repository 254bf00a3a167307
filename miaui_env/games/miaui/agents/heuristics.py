"""Two heuristic agents that read nothing but their observations, compiled with numba.

Both value the three depths the same way, then score every card in hand by the chance that it
wins each depth times that depth's value, and play the best one:

- **Depth values.** A fish is worth its value to the catcher. A Seagull is worth minus the
  catcher's top fish (so one landing on a Jellyfish is good news); a Jellyfish that would be the
  catcher's third is worth the two it sends away with it; a face-down card the agent has not
  peeked is worth the deck's average. No Fighting stacks are landed card by card.
- **Winning chances.** Each opponent's card is modelled as uniform over the cards she may still
  hold, independently; Kiti's priorities decide ties (in No Fighting a tie wins nothing). A card
  wins the deepest space if it beats every opponent, the deep space if exactly one opponent beats
  it, the shallow space if every opponent plays higher.

`GreedyAgent` assumes every opponent may still hold any card. `CountingAgent` remembers every
diver card revealed since the game began (the observation shows each round's reveal; Open Baskets
and the recall view show them all), so it knows exactly which cards each opponent has left, and it
keeps its extreme cards for when they matter: a card that wins no more than a middling one is
never spent.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from miaui_env.core.seeding import Seed, seed_generator
from miaui_env.games.miaui.agents import checked_batch
from miaui_env.games.miaui.cards import DEFAULT_DECK, FISH_KINDS, FishKind
from miaui_env.games.miaui.observation import (
    CARD_DIM,
    COUNT_SCALE,
    HEIGHT_SCALE,
    HIDDEN_FEATURE,
    LAGOON_SLOTS,
    OBSERVATION_LAYOUT,
    PILE_SLOTS,
    SEAT_LAYOUT,
    VALUE_SCALE,
)
from miaui_env.games.miaui.rules import MAX_PLAYERS, NUM_DIVER_CARDS, NUM_SPACES

# A face-down card nobody told us about is worth what an average card of the deck is worth.
UNKNOWN_FISH_VALUE = float(np.mean([c.value for c in DEFAULT_DECK]))
TYPICAL_JELLYFISH = float(np.mean([c.value for c in DEFAULT_DECK if c.kind is FishKind.JELLYFISH]))

# Module globals are compile-time constants to numba: where each piece the kernels read begins.
_VALUE = len(FISH_KINDS)  # a card's value feature follows its one-hot kind
_SEAGULL, _JELLYFISH = FISH_KINDS.index(FishKind.SEAGULL), FISH_KINDS.index(FishKind.JELLYFISH)
_LAGOON, _LAGOON_REST = OBSERVATION_LAYOUT.offset("lagoon"), OBSERVATION_LAYOUT.offset("lagoon_rest")
_NO_FIGHTING = OBSERVATION_LAYOUT.offset("variant") + 1
_SEATS, _SEAT_SIZE = OBSERVATION_LAYOUT.offset("seats"), SEAT_LAYOUT.size
# A nested piece's offset is the first row's: the observer's own (seat row 0).
_OWN_SUMMARY, _OWN_PILE = OBSERVATION_LAYOUT.offset("pile_summary"), OBSERVATION_LAYOUT.offset("pile")
_PRESENT, _DEEP, _SHALLOW = (SEAT_LAYOUT.offset(name) for name in ("present", "deep_priority", "shallow_priority"))


@njit(cache=True)
def _row_depth_values(row, values):
    """`values[depth]`: what catching each space adds to the score of `row`'s observer."""
    tops = np.empty(PILE_SLOTS)  # the observer's pile as the landing goes, top first
    for depth in range(NUM_SPACES):
        for slot in range(PILE_SLOTS):
            tops[slot] = row[_OWN_PILE + slot * CARD_DIM + _VALUE] * VALUE_SCALE
        height = np.rint(row[_OWN_SUMMARY] * HEIGHT_SCALE)
        jellies = np.rint(row[_OWN_SUMMARY + 1 + _JELLYFISH] * COUNT_SCALE)
        gain = 0.0
        for slot in range(LAGOON_SLOTS):
            card = _LAGOON + (depth * LAGOON_SLOTS + slot) * CARD_DIM
            present = False
            for feature in range(CARD_DIM):
                present |= row[card + feature] != 0
            if not present:
                continue
            hidden = row[card + HIDDEN_FEATURE] > 0
            kind = -1
            if not hidden:
                kind = 0
                for other in range(1, _VALUE):
                    if row[card + other] > row[card + kind]:
                        kind = other
            value = UNKNOWN_FISH_VALUE if hidden else row[card + _VALUE] * VALUE_SCALE
            if kind == _SEAGULL:  # it takes the top fish, if any, to the box
                if height > 0:
                    gain -= tops[0]
                    for slot in range(PILE_SLOTS - 1):
                        tops[slot] = tops[slot + 1]
                    tops[-1] = 0.0
                    height -= 1
                continue
            if kind == _JELLYFISH and jellies == 2:  # the third: it and the two held go to the box
                gain -= 2 * TYPICAL_JELLYFISH
                jellies = 0
            else:
                gain += value
                if kind == _JELLYFISH:
                    jellies += 1
            for slot in range(PILE_SLOTS - 1, 0, -1):
                tops[slot] = tops[slot - 1]
            tops[0] = value
            height += 1
        rest = _LAGOON_REST + depth * CARD_DIM
        values[depth] = gain + row[rest + _VALUE] * VALUE_SCALE + row[rest + HIDDEN_FEATURE] * UNKNOWN_FISH_VALUE


@njit(cache=True)
def _row_winning_chances(row, opponent_cards, chances):
    """`chances[card, depth]`: the chance that playing each card catches each space."""
    chances[:, 0] = 1.0  # P(every opponent below me, at the high depths)
    chances[:, 1] = 0.0  # P(exactly one opponent above me)
    chances[:, 2] = 1.0  # P(every opponent above me)
    no_fighting = row[_NO_FIGHTING] > 0
    for seat in range(1, MAX_PLAYERS):
        base = _SEATS + seat * _SEAT_SIZE
        if not row[base + _PRESENT] > 0:
            continue
        wins_high_tie = not no_fighting and row[_SEATS + _DEEP] > row[base + _DEEP]
        wins_low_tie = not no_fighting and row[_SEATS + _SHALLOW] > row[base + _SHALLOW]
        held = max(float(opponent_cards[seat].sum()), 1.0)
        below = 0.0  # P(her card < mine), mine running 1..12
        for card in range(NUM_DIVER_CARDS):
            equal = opponent_cards[seat, card] / held
            above = 1.0 - below - equal
            a = below + equal * wins_high_tie
            b = above + equal * wins_low_tie
            chances[card, 1] = chances[card, 1] * a + chances[card, 0] * (1.0 - a)
            chances[card, 0] *= a
            chances[card, 2] *= b
            below += equal


@njit(cache=True)
def _card_scores(observations, opponent_cards, legal, thrift, seen):
    """(k, 12): each legal card's expected catch less `thrift` per step from the hand's middle.

    With `seen` (k, 6, 12) (the counter's memory; empty for the greedy agent) each row first marks
    in it the cards it shows played (`_remember_row`), and its opponents may hold the cards not
    seen, written into `opponent_cards`: one pass over each row, which a playout of the search
    reads from memory for every seat at every step."""
    scores = np.full((observations.shape[0], NUM_DIVER_CARDS), -np.inf)
    values, chances = np.empty(NUM_SPACES), np.empty((NUM_DIVER_CARDS, NUM_SPACES))
    remember = seen.shape[0] > 0
    for i in range(observations.shape[0]):
        if remember:
            _remember_row(observations[i], seen[i])
            for seat in range(MAX_PLAYERS):
                for card in range(NUM_DIVER_CARDS):
                    opponent_cards[i, seat, card] = not seen[i, seat, card]
        _row_depth_values(observations[i], values)
        _row_winning_chances(observations[i], opponent_cards[i], chances)
        held, total = 0, 0
        for card in range(NUM_DIVER_CARDS):
            if legal[i, card]:
                held += 1
                total += card + 1
        middle = total / max(held, 1)
        for card in range(NUM_DIVER_CARDS):
            if legal[i, card]:
                expected = 0.0
                for depth in range(NUM_SPACES):
                    expected += chances[card, depth] * values[depth]
                scores[i, card] = expected - thrift * abs(card + 1 - middle)
    return scores


@njit(cache=True)
def _depth_values(observations):
    """`_row_depth_values` of every row."""
    values = np.empty((observations.shape[0], NUM_SPACES))
    for i in range(observations.shape[0]):
        _row_depth_values(observations[i], values[i])
    return values


@njit(cache=True)
def _winning_chances(observations, opponent_cards):
    """`_row_winning_chances` of every row."""
    chances = np.empty((observations.shape[0], NUM_DIVER_CARDS, NUM_SPACES))
    for i in range(observations.shape[0]):
        _row_winning_chances(observations[i], opponent_cards[i], chances[i])
    return chances


_ROUND = OBSERVATION_LAYOUT.offset("round")
_CARD_PLAYED, _PLAYED = OBSERVATION_LAYOUT.offset("card_played"), OBSERVATION_LAYOUT.offset("played")  # seat row 0's


@njit(cache=True, inline="always")
def _remember_row(row, seen):
    """Mark in `seen` (6, 12) every card each seat row shows played (the last reveal, and in Open
    Baskets or recall every card); a row in round 1 starts a new game and forgets the old one."""
    if row[_ROUND] > 0:
        seen[:] = False
    for seat in range(MAX_PLAYERS):
        if not row[_SEATS + seat * _SEAT_SIZE + _PRESENT] > 0:  # rows past the table are empty
            continue
        for card in range(NUM_DIVER_CARDS):
            at = seat * _SEAT_SIZE + card
            if row[_CARD_PLAYED + at] > 0 or row[_PLAYED + at] > 0:
                seen[seat, card] = True


@njit(cache=True)
def _remember_reveals(observations, seen):
    """`_remember_row` for every row."""
    for i in range(observations.shape[0]):
        _remember_row(observations[i], seen[i])


_NOTHING_SEEN = np.zeros((0, MAX_PLAYERS, NUM_DIVER_CARDS), dtype=np.bool_)  # the greedy agent remembers nothing


def _rows(observations: np.ndarray) -> np.ndarray:
    """Observations as the kernels take them: a C-ordered float32 (k, size) array."""
    return np.ascontiguousarray(np.asarray(observations, dtype=np.float32).reshape(-1, OBSERVATION_LAYOUT.size))


def depth_values(observations: np.ndarray) -> np.ndarray:
    """(k, 3): what catching each lagoon space would add to the observer's score."""
    return _depth_values(_rows(observations))


def winning_chances(observations: np.ndarray, opponent_cards: np.ndarray) -> np.ndarray:
    """(k, 12 cards, 3 depths): chance that playing each card catches each space.

    `opponent_cards` (k, 6, 12) marks the cards each seat (relative; row 0 ignored) may still hold.
    """
    return _winning_chances(_rows(observations), np.ascontiguousarray(opponent_cards, dtype=np.bool_))


class GreedyAgent:
    """Plays the card with the best expected catch, assuming opponents may hold any card."""

    name = "greedy"
    THRIFT = 0.0  # no price on spending an extreme card (see CountingAgent)

    def __init__(self, seed: Seed | None = None):
        self.rng = seed_generator(seed)

    def opponent_cards(self, observations: np.ndarray) -> np.ndarray:
        """Every card is possible for every opponent."""
        return np.ones((observations.shape[0], MAX_PLAYERS, NUM_DIVER_CARDS), dtype=bool)

    def card_scores(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """(k, 12) expected catch of each card, less THRIFT for each step it lies away from the
        middle of the hand; illegal cards get -inf."""
        rows = _rows(observations)
        opponent_cards = np.ascontiguousarray(self.opponent_cards(rows), dtype=np.bool_)
        legal = np.ascontiguousarray(np.asarray(masks).reshape(-1, NUM_DIVER_CARDS) > 0)
        return _card_scores(rows, opponent_cards, legal, self.THRIFT, _NOTHING_SEEN)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The best-scoring legal card; ties broken at random."""
        observations, masks = checked_batch(observations, masks, f"the {self.name} agent")
        scores = self.card_scores(observations, masks)
        noise = self.rng.random(scores.shape) * 1e-9
        return np.argmax(scores + noise, axis=1)

    def reset(self) -> None:
        """Nothing is remembered."""


class CountingAgent(GreedyAgent):
    """Greedy play with exact knowledge of every opponent's remaining cards, and thrift."""

    name = "counter"
    # Points a card must earn for each step it lies away from the middle of the hand. Measured at
    # 4 players (1 counter against 3 greedy, 2048 duplicate deals): win share 0.27 at 0, 0.34 at
    # 0.6, 0.42 at 1.0, 0.40 at 2.0, 0.31 at 3.0.
    THRIFT = 1.0

    def __init__(self, seed: Seed | None = None):
        super().__init__(seed)
        self._seen: np.ndarray | None = None  # (k, 6, 12): cards each seat has revealed this game

    def reset(self) -> None:
        """Forget every reveal (new games begin)."""
        self._seen = None

    def opponent_cards(self, observations: np.ndarray) -> np.ndarray:
        """The cards each opponent has not revealed yet, remembered across rounds."""
        _remember_reveals(_rows(observations), self._memory(observations.shape[0]))
        return ~self._memory(observations.shape[0])

    def card_scores(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """As the greedy agent's, with the opponents' cards remembered in the same compiled pass."""
        rows = _rows(observations)
        seen = self._memory(rows.shape[0])
        opponent_cards = np.empty(seen.shape, dtype=np.bool_)
        legal = np.ascontiguousarray(np.asarray(masks).reshape(-1, NUM_DIVER_CARDS) > 0)
        return _card_scores(rows, opponent_cards, legal, self.THRIFT, seen)

    def _memory(self, rows: int) -> np.ndarray:
        """The reveals seen so far, (rows, 6, 12): new when the number of rows changes."""
        if self._seen is None or self._seen.shape[0] != rows:
            self._seen = np.zeros((rows, MAX_PLAYERS, NUM_DIVER_CARDS), dtype=bool)
        return self._seen
