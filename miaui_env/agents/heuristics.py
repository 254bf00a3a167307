"""Two heuristic agents that read nothing but their observations, batched with numpy.

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

from miaui_env.cards import DEFAULT_DECK, FISH_KINDS, FishKind
from miaui_env.observation import HIDDEN_FEATURE, OBSERVATION_LAYOUT, VALUE_SCALE
from miaui_env.rules import MAX_PLAYERS, NUM_DIVER_CARDS, NUM_SPACES

_VIEW = OBSERVATION_LAYOUT.view
_VALUE = len(FISH_KINDS)
_SEAGULL, _JELLYFISH = FISH_KINDS.index(FishKind.SEAGULL), FISH_KINDS.index(FishKind.JELLYFISH)
_CARDS = np.arange(1, NUM_DIVER_CARDS + 1)
# A face-down card nobody told us about is worth what an average card of the deck is worth.
UNKNOWN_FISH_VALUE = float(np.mean([c.value for c in DEFAULT_DECK]))
TYPICAL_JELLYFISH = float(np.mean([c.value for c in DEFAULT_DECK if c.kind is FishKind.JELLYFISH]))


def depth_values(observations: np.ndarray) -> np.ndarray:
    """(k, 3): what catching each lagoon space would add to the observer's score."""
    lagoon = _VIEW(observations, "lagoon")  # (k, 3, slots, 8)
    rest = _VIEW(observations, "lagoon_rest")  # (k, 3, 8)
    own = _VIEW(observations, "pile")[:, 0]  # (k, 3 slots, 8), top first
    summary = _VIEW(observations, "pile_summary")[:, 0]  # height/12, kind counts/4, value/60
    k = observations.shape[0]
    values = np.zeros((k, NUM_SPACES))
    for depth in range(NUM_SPACES):
        # The pile as the landing goes: its top values (top first), height and Jellyfish held.
        tops = own[:, :, _VALUE] * VALUE_SCALE
        height = np.rint(summary[:, 0] * 12)
        jellies = np.rint(summary[:, 1 + _JELLYFISH] * 4)
        gain = np.zeros(k)
        for slot in range(lagoon.shape[2]):
            card = lagoon[:, depth, slot]
            present = card.any(axis=1)
            hidden = card[:, HIDDEN_FEATURE] > 0
            kind = np.where(present & ~hidden, card[:, :_VALUE].argmax(axis=1), -1)
            value = np.where(hidden, UNKNOWN_FISH_VALUE, card[:, _VALUE] * VALUE_SCALE)
            gull = kind == _SEAGULL
            triple = (kind == _JELLYFISH) & (jellies == 2)
            stolen = np.where(height > 0, tops[:, 0], 0.0)
            landed = np.where(gull, -stolen, np.where(triple, -2 * TYPICAL_JELLYFISH, value))
            gain += np.where(present, landed, 0.0)
            # Update the pile model: a Seagull pops the top, anything else is pushed.
            pushed = present & ~gull
            popped = present & gull & (height > 0)
            after_push = np.column_stack([value, tops[:, :-1]])
            after_pop = np.column_stack([tops[:, 1:], np.zeros(k)])
            tops = np.where(pushed[:, None], after_push, np.where(popped[:, None], after_pop, tops))
            height = height + pushed - popped
            jellies = np.where(triple, 0, jellies + (kind == _JELLYFISH))
        gain += rest[:, depth, _VALUE] * VALUE_SCALE + rest[:, depth, HIDDEN_FEATURE] * UNKNOWN_FISH_VALUE
        values[:, depth] = gain
    return values


def winning_chances(observations: np.ndarray, opponent_cards: np.ndarray) -> np.ndarray:
    """(k, 12 cards, 3 depths): chance that playing each card catches each space.

    `opponent_cards` (k, 6, 12) marks the cards each seat (relative; row 0 ignored) may still hold.
    """
    present = _VIEW(observations, "present")[:, :, 0] > 0
    no_fighting = _VIEW(observations, "variant")[:, 1] > 0
    deep = _VIEW(observations, "deep_priority")[:, :, 0]
    shallow = _VIEW(observations, "shallow_priority")[:, :, 0]
    k = observations.shape[0]
    beat_high = np.ones((k, NUM_DIVER_CARDS))  # P(every opponent below me, at the high depths)
    one_above = np.zeros((k, NUM_DIVER_CARDS))  # P(exactly one opponent above me)
    beat_low = np.ones((k, NUM_DIVER_CARDS))  # P(every opponent above me)
    for seat in range(1, MAX_PLAYERS):
        plays = present[:, seat]
        cards = opponent_cards[:, seat].astype(float)
        dist = cards / np.maximum(cards.sum(axis=1, keepdims=True), 1.0)
        below = np.cumsum(dist, axis=1) - dist  # P(card < c) for c = 1..12
        equal = dist
        above = 1.0 - below - equal
        win_tie_high = ((deep[:, 0] > deep[:, seat]) & ~no_fighting)[:, None]
        win_tie_low = ((shallow[:, 0] > shallow[:, seat]) & ~no_fighting)[:, None]
        a = np.where(plays[:, None], below + equal * win_tie_high, 1.0)
        b = np.where(plays[:, None], above + equal * win_tie_low, 1.0)
        one_above = one_above * a + beat_high * (1.0 - a)
        beat_high = beat_high * a
        beat_low = beat_low * b
    return np.stack([beat_high, one_above, beat_low], axis=2)


class GreedyAgent:
    """Plays the card with the best expected catch, assuming opponents may hold any card."""

    name = "greedy"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def opponent_cards(self, observations: np.ndarray) -> np.ndarray:
        """Every card is possible for every opponent."""
        return np.ones((observations.shape[0], MAX_PLAYERS, NUM_DIVER_CARDS), dtype=bool)

    def card_scores(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """(k, 12) expected catch of each card; illegal cards get -inf."""
        chances = winning_chances(observations, self.opponent_cards(observations))
        expected = (chances * depth_values(observations)[:, None, :]).sum(axis=2)
        return np.where(masks > 0, expected, -np.inf)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The best-scoring legal card; ties broken at random."""
        scores = self.card_scores(np.asarray(observations), np.asarray(masks))
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

    def __init__(self, seed: int | None = None):
        super().__init__(seed)
        self._seen: np.ndarray | None = None  # (k, 6, 12): cards each seat has revealed this game

    def reset(self) -> None:
        """Forget every reveal (new games begin)."""
        self._seen = None

    def opponent_cards(self, observations: np.ndarray) -> np.ndarray:
        """The cards each opponent has not revealed yet, remembered across rounds."""
        k = observations.shape[0]
        if self._seen is None or self._seen.shape[0] != k:
            self._seen = np.zeros((k, MAX_PLAYERS, NUM_DIVER_CARDS), dtype=bool)
        first_round = _VIEW(observations, "round")[:, 0] > 0
        self._seen[first_round] = False  # a new game in that row
        self._seen |= _VIEW(observations, "last_round")[:, :, :NUM_DIVER_CARDS] > 0
        self._seen |= _VIEW(observations, "played") > 0  # shown in Open Baskets and recall
        return ~self._seen

    def card_scores(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Expected catch, less a small price for spending the hand's extreme cards."""
        scores = super().card_scores(observations, masks)
        held = masks > 0
        middle = (held * _CARDS).sum(axis=1, keepdims=True) / np.maximum(held.sum(axis=1, keepdims=True), 1)
        return scores - self.THRIFT * np.abs(_CARDS - middle)
