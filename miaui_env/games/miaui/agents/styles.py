"""Playing styles: cheap, recognisable ways to play badly, for a learner to punish rather than imitate.

Each style is a fixed habit in choosing a diver card, visible to anyone who remembers the cards it
reveals (Open Baskets, or the recall view):

- `high`: its highest card left: it spends its big divers first, then has only low ones.
- `low`: its lowest card left: it saves its big divers for the end.
- `extremes`: its highest card in odd rounds, its lowest in even ones, keeping the middle for last.
- `middle`: the middle card of those left (of two middle cards, one at random), keeping its extremes.
- `noisy-counter`: the `counter` heuristic, but a random legal card in a seeded 30% of its
  decisions: a plausible, careless human.

They read the action mask (the hand: action k is diver card k + 1), `extremes` also the round, and
act on a whole batch with plain numpy. `high`, `low` and `extremes` are deterministic; `middle`
and `noisy-counter` draw from their own generator, seeded by `seed` (`noisy-counter`: the counter
from child 0 of the seed's tree, its draws from child 1).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from miaui_env.core.agents import AgentBatchError
from miaui_env.core.seeding import Seed, seed_children, seed_generator
from miaui_env.games.miaui.agents import checked_batch
from miaui_env.games.miaui.agents.heuristics import CountingAgent
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS


def legal_cards(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(k, 12) bool: the cards each row may play; AgentBatchError naming what is wrong with the batch."""
    legal = np.asarray(masks) > 0
    if legal.ndim != 2 or legal.shape[1] != NUM_DIVER_CARDS:
        raise AgentBatchError(f"masks have shape {legal.shape}; an agent acts on masks of shape (k, {NUM_DIVER_CARDS})")
    size = np.asarray(observations).size
    if size != legal.shape[0] * OBSERVATION_LAYOUT.size:
        raise AgentBatchError(
            f"observations hold {size} numbers for {legal.shape[0]} rows of masks; "
            f"an agent acts on observations of shape (k, {OBSERVATION_LAYOUT.size}), one row per mask"
        )
    empty = np.flatnonzero(~legal.any(axis=1))
    if empty.size:
        raise AgentBatchError(f"row {int(empty[0])} of the masks allows no card; every row must allow at least one")
    return legal


def highest_cards(legal: np.ndarray) -> np.ndarray:
    """(k,) int64: the index of each row's highest legal card."""
    return np.asarray(NUM_DIVER_CARDS - 1 - np.argmax(legal[:, ::-1], axis=1), dtype=np.int64)


def lowest_cards(legal: np.ndarray) -> np.ndarray:
    """(k,) int64: the index of each row's lowest legal card."""
    return np.asarray(np.argmax(legal, axis=1), dtype=np.int64)


def rounds_of(observations: np.ndarray) -> np.ndarray:
    """(k,) int64: the round each observation is about to play (1-12)."""
    rows = np.asarray(observations).reshape(-1, OBSERVATION_LAYOUT.size)
    return np.asarray(np.argmax(OBSERVATION_LAYOUT.view(rows, "round"), axis=1) + 1, dtype=np.int64)


class StyleAgent(ABC):
    """A playing style: a rule for choosing among the legal cards, applied to a whole batch."""

    name: str
    about: str  # one line for menus (the browser app's list of opponents)

    def __init__(self, seed: Seed | None = None):
        self.rng = seed_generator(seed)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The style's card for every row, as int64 indices the masks allow."""
        observations, masks = checked_batch(observations, masks, f"the {self.name} agent")
        return self.choose(observations, legal_cards(observations, masks))  # a style refuses a row with no card

    @abstractmethod
    def choose(self, observations: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """(k,) int64 card indices, one of each row's `legal` (k, 12) cards."""

    def reset(self) -> None:  # noqa: B027 -- a style remembers nothing unless it says otherwise (noisy-counter's counter does)
        """Nothing is remembered."""


class HighAgent(StyleAgent):
    """Always plays its highest card left."""

    name = "high"
    about = "always its highest card left (spends its big divers first)"

    def choose(self, observations: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Each row's highest legal card."""
        return highest_cards(legal)


class LowAgent(StyleAgent):
    """Always plays its lowest card left."""

    name = "low"
    about = "always its lowest card left (saves its big divers for the end)"

    def choose(self, observations: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Each row's lowest legal card."""
        return lowest_cards(legal)


class ExtremesAgent(StyleAgent):
    """Plays its highest card left in odd rounds and its lowest in even ones."""

    name = "extremes"
    about = "its highest card in odd rounds, its lowest in even ones (keeps the middle for last)"

    def choose(self, observations: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The highest legal card in odd rounds, the lowest in even rounds."""
        odd = rounds_of(observations) % 2 == 1
        return np.where(odd, highest_cards(legal), lowest_cards(legal))


class MiddleAgent(StyleAgent):
    """Plays the middle card of those left; of two middle cards (an even hand), one at random."""

    name = "middle"
    about = "the middle card of those left (keeps its extremes to the end)"

    def choose(self, observations: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Each row's median legal card; with an even count, the lower or upper middle one by a fair draw."""
        held = legal.sum(axis=1)
        upper = (held % 2 == 0) & (self.rng.random(len(legal)) < 0.5)  # drawn for every row: one draw per row per call
        rank = (held - 1) // 2 + upper  # 0-based rank among the legal cards, lowest first
        return np.asarray(np.argmax(np.cumsum(legal, axis=1) > rank[:, None], axis=1), dtype=np.int64)


class NoisyCountingAgent(StyleAgent):
    """The `counter` heuristic, playing a uniformly random legal card in a seeded RANDOM_SHARE of its decisions."""

    name = "noisy-counter"
    RANDOM_SHARE = 0.3
    about = f"the counter, but a random card {RANDOM_SHARE:.0%} of the time (a careless human)"

    def __init__(self, seed: Seed | None = None):
        counter_seed, draws_seed = seed_children(seed, 2)
        super().__init__(draws_seed)
        self.counter = CountingAgent(counter_seed)

    def choose(self, observations: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The counter's card, or in RANDOM_SHARE of the rows a random legal one; the counter sees every
        row either way, so it remembers every reveal."""
        counted = np.asarray(self.counter.act(observations, legal), dtype=np.int64)
        uniform = np.argmax(self.rng.random(legal.shape) * legal, axis=1)
        careless = self.rng.random(len(legal)) < self.RANDOM_SHARE
        return np.where(careless, uniform, counted)

    def reset(self) -> None:
        """The counter forgets every reveal (new games begin)."""
        self.counter.reset()


STYLE_AGENTS: tuple[type[StyleAgent], ...] = (HighAgent, LowAgent, ExtremesAgent, MiddleAgent, NoisyCountingAgent)
