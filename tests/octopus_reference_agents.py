"""The octopus heuristics as they were first written: the straightforward numpy maths of
`miaui_env.games.octopus.agents` (flip odds, theft values by k-subset enumeration, the three
risk-aware players), frozen here as the reference the compiled agents are checked against
(tests/test_octopus_agents_fast.py). Test-only: never imported by the library, never sped up.

Copied unchanged from agents.py before its kernels (miaui_env/games/octopus/agent_kernels.py)
replaced it; only the names differ (a `Reference` prefix on the agents). The input checks
(`checked_batch`, `checked_row`) and the action table (`theft_action`) are the library's own:
they decide nothing the maths does.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from miaui_env.core.agents import AgentError
from miaui_env.core.seeding import Seed, seed_generator
from miaui_env.games.octopus.agents import RiskAwareAgent, checked_batch, checked_row, theft_action, theft_mask
from miaui_env.games.octopus.observation import OBSERVATION_LAYOUT, SCORE_SCALE, VALUES
from miaui_env.games.octopus.rules import DIE_FACES, FISH_VALUES, MAX_PLAYERS, MAX_STEAL, NUM_ACTIONS, NUM_OCTOPUSES, NUM_SPECIES, TARGET

STOP_ACTION, FLIP_ACTION, NO_THEFT_ACTION = 0, 1, 2
VALUE_ARRAY = np.array(VALUES, dtype=np.float64)
COPIES = np.array([FISH_VALUES.count(v) for v in VALUES], dtype=np.float64)
RIVAL_WEIGHT = 0.0
MAX_SUBSETS = 256
ROW_SCALE = float(NUM_SPECIES)
VALUE_SCALE = float(max(FISH_VALUES))
BACKFIRE_PROBABILITY = DIE_FACES.count(-1) / len(DIE_FACES)


def success_probability(k: int) -> float:
    return sum(face >= k for face in DIE_FACES) / len(DIE_FACES)


def _card_slots(counts: np.ndarray) -> np.ndarray:
    """Every card of a (10, 4) count block as its flat slot `species * 4 + value column`, one entry per card."""
    flat = np.clip(np.rint(counts), 0, None).astype(np.int64).ravel()
    return np.repeat(np.arange(flat.size), flat)


def _removed(counts: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """(subsets, 10, 4): `counts` less the cards of each row of `taken` (flat slots, (subsets, k))."""
    out = np.repeat(counts.reshape(1, -1), len(taken), axis=0)
    np.add.at(out, (np.repeat(np.arange(len(taken)), taken.shape[1]), taken.ravel()), -1.0)
    return out.reshape(len(taken), *counts.shape)


def best_values(counts: np.ndarray) -> np.ndarray:
    """(..., 10): per species the highest value 1-4 with a card in a (..., 10, 4) count block, 0 if none."""
    best: np.ndarray = np.where(counts > 0.5, VALUE_ARRAY, 0.0).max(axis=-1)
    return best


def flip_odds(observation: np.ndarray) -> tuple[float, float, float, float]:
    """For one recall-view observation: (P_bust, P_octopus, E_flip, G_stop) of the next flip."""
    checked_row(observation, "flip_odds")
    row_values = np.clip(np.rint(OBSERVATION_LAYOUT.view(observation, "row") * VALUE_SCALE), 0, VALUE_SCALE)  # (10,), 0 where none
    row_order = np.rint(OBSERVATION_LAYOUT.view(observation, "row_order") * ROW_SCALE)
    collections = OBSERVATION_LAYOUT.view(observation, "collection")  # (4, 10, 4), row 0 its own
    seen = OBSERVATION_LAYOUT.view(observation, "discard") + collections.sum(axis=0)
    in_row = row_values > 0
    seen[in_row, (row_values[in_row] - 1).astype(np.int64)] += 1  # values 1-4 are columns 0-3
    unseen = np.clip(COPIES - np.rint(seen), 0, None)
    unseen_octopuses = NUM_OCTOPUSES - round(float(OBSERVATION_LAYOUT.view(observation, "discard_octopuses")[0]) * NUM_OCTOPUSES)
    deck = float(unseen.sum()) + unseen_octopuses
    if deck <= 0:
        return 0.0, 0.0, 0.0, 0.0
    own_best = best_values(collections[0])
    row_gain = np.where(in_row, np.maximum(row_values - own_best, 0.0), 0.0)  # what each row card adds
    stop_gain = float(row_gain.sum())
    p_species = unseen.sum(axis=1) / deck
    # A bust on species s keeps the row's cards flipped before s (O3).
    before = (row_order[None, :] < row_order[:, None]) & in_row[None, :]
    kept_gain = (before * row_gain[None, :]).sum(axis=1)
    bust_value = float((np.where(in_row, p_species, 0.0) * kept_gain).sum())
    # A new species s of value v joins the row: the row's gain plus the card's own.
    new_gain = stop_gain + np.maximum(VALUE_ARRAY[None, :] - own_best[:, None], 0.0)
    new_value = float((np.where(in_row[:, None], 0.0, unseen / deck) * new_gain).sum())
    p_bust = float(p_species[in_row].sum())
    return p_bust, unseen_octopuses / deck, bust_value + new_value, stop_gain


class ReferenceRiskAwareAgent:
    """Flips while one more flip's expected score gain is positive; thefts by the die's odds (recall view)."""

    name = "risk-aware"
    view = "recall"

    def __init__(self, seed: Seed | None = None):
        self.rng = seed_generator(seed)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Flip while `flip_edge` is positive; the theft of highest expected value, or none."""
        observations, masks = checked_batch(observations, masks, self.name)
        actions = np.zeros(len(masks), dtype=np.int64)
        for i, mask in enumerate(masks):
            if mask[STOP_ACTION] or mask[FLIP_ACTION]:
                actions[i] = FLIP_ACTION if mask[FLIP_ACTION] and self.flip_edge(observations[i]) > 0 else STOP_ACTION
            else:
                actions[i] = self.choose_theft(observations[i], mask)[0]
        return actions

    def flip_edge(self, observation: np.ndarray) -> float:
        """`E_flip - G_stop` (`flip_odds`): what one more flip gains in expectation over stopping now."""
        _, _, flip_value, stop_value = flip_odds(observation)
        return flip_value - stop_value

    def theft_values(self, observation: np.ndarray, mask: np.ndarray) -> dict[int, float]:
        """EV of every legal theft action, by action index."""
        checked_row(observation, f"{self.name} theft_values")
        if np.shape(mask) != (NUM_ACTIONS,):
            raise AgentError(f"{self.name} theft_values: a mask is one row of {NUM_ACTIONS} actions; got shape {np.shape(mask)}")
        collections = np.rint(OBSERVATION_LAYOUT.view(observation, "collection"))  # (4, 10, 4) counts
        own = collections[0]
        own_best = best_values(own)
        own_cards = _card_slots(own)
        weights = self.target_weights(observation)
        values: dict[int, float] = {}
        for offset in range(1, MAX_PLAYERS):
            legal = [k for k in range(1, MAX_STEAL + 1) if mask[theft_action(offset, k)]]
            if not legal:
                continue
            target = collections[offset]
            target_best = best_values(target)
            backfire = 0.0
            if own_cards.size:  # the -1 face: the target takes one random card of ours
                lost = own_best.sum() - best_values(_removed(own, own_cards[:, None])).sum(axis=1)
                given = np.maximum(VALUE_ARRAY[own_cards % len(VALUES)] - target_best[own_cards // len(VALUES)], 0.0)
                backfire = float((lost + weights[offset] * given).mean())
            target_cards = _card_slots(target)
            for k in legal:
                taken = target_cards[self._subsets(len(target_cards), k)]  # (subsets, k) card slots
                moved = -_removed(np.zeros_like(target), taken)
                gained = best_values(own[None] + moved).sum(axis=1) - own_best.sum()
                lost_by_target = target_best.sum() - best_values(_removed(target, taken)).sum(axis=1)
                # a target's cards the view hides: nothing known
                swing = float((gained + weights[offset] * lost_by_target).mean()) if len(taken) else 0.0
                values[theft_action(offset, k)] = success_probability(k) * swing - BACKFIRE_PROBABILITY * backfire
        return values

    def target_weights(self, observation: np.ndarray) -> np.ndarray:
        """(4,) by clockwise offset: how much an opponent's score counts against its own (every one fully)."""
        return np.ones(MAX_PLAYERS)

    def _subsets(self, m: int, k: int) -> np.ndarray:
        """(count, k) indices: every k-subset of m cards, or MAX_SUBSETS drawn at random when there are more."""
        if math.comb(m, k) <= MAX_SUBSETS:
            return np.array(list(itertools.combinations(range(m), k)), dtype=np.int64).reshape(-1, k)
        return np.argsort(self.rng.random((MAX_SUBSETS, m)), axis=1)[:, :k]

    # The library's choice among the values, unchanged by the kernels: here it reads the reference's values.
    choose_theft = RiskAwareAgent.choose_theft
    reset = RiskAwareAgent.reset


class ReferenceTheftAwareAgent(ReferenceRiskAwareAgent):
    """Risk-aware, but a flip's octopus is worth the best theft it allows."""

    name = "theft-aware"

    def flip_edge(self, observation: np.ndarray) -> float:
        _, p_octopus, flip_value, stop_value = flip_odds(observation)
        edge = flip_value - stop_value
        if edge > 0 or p_octopus == 0:  # the theft's value is never negative: it cannot change these
            return edge
        return edge + p_octopus * self.choose_theft(observation, theft_mask(observation))[1]


class ReferenceRivalAwareAgent(ReferenceTheftAwareAgent):
    """Theft-aware, but only the leading opponent's score counts fully against its own."""

    name = "rival-aware"

    def __init__(self, seed: Seed | None = None, rival_weight: float = RIVAL_WEIGHT):
        super().__init__(seed)
        self.rival_weight = float(rival_weight)

    def target_weights(self, observation: np.ndarray) -> np.ndarray:
        return np.where(leading_opponents(observation), 1.0, self.rival_weight)


def leading_opponents(observation: np.ndarray) -> np.ndarray:
    checked_row(observation, "leading_opponents")
    present = OBSERVATION_LAYOUT.view(observation, "present")[:, 0] > 0.5
    points = np.rint(OBSERVATION_LAYOUT.view(observation, "total")[:, 0] * TARGET) + np.rint(
        OBSERVATION_LAYOUT.view(observation, "session_score")[:, 0] * SCORE_SCALE
    )
    present[0] = False
    leaders: np.ndarray = present & (points == points[present].max(initial=-np.inf))
    return leaders


REFERENCE_AGENTS = {
    "risk-aware": ReferenceRiskAwareAgent,
    "theft-aware": ReferenceTheftAwareAgent,
    "rival-aware": ReferenceRivalAwareAgent,
}
