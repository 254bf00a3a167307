"""The compiled octopus heuristics (miaui_env/games/octopus/agents.py on agent_kernels.py) against the
straightforward numpy version they replaced (tests/octopus_reference_agents.py), never against themselves.

On every decision of real games (flip or stop, thefts; 2, 3 and 4 players; recall and table views;
collections large enough that a theft's k-subsets are sampled from the agent's generator): the same
actions, the generator left in the same state, and the same theft values, flip odds and flip edges,
bit for bit (the kernels add in numpy's order, so a tie at `> 0` or between two thefts falls the same
way). Every arena figure published for these players rests on it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from octopus_reference_agents import REFERENCE_AGENTS, ReferenceRivalAwareAgent
from octopus_reference_agents import flip_odds as reference_flip_odds
from octopus_reference_agents import leading_opponents as reference_leading_opponents

from miaui_env.games.octopus import agent_kernels, rules
from miaui_env.games.octopus.agents import (
    MAX_SUBSETS,
    RiskAwareAgent,
    RivalAwareAgent,
    TheftAwareAgent,
    flip_odds,
    leading_opponents,
    theft_mask,
)
from miaui_env.games.octopus.observation import OBSERVATION_LAYOUT, observe

AGENTS = {RiskAwareAgent.name: RiskAwareAgent, TheftAwareAgent.name: TheftAwareAgent, RivalAwareAgent.name: RivalAwareAgent}
VIEWS = ("recall", "table")


def played(seed: int, num_players: int, max_sessions: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Every decision of one game, from both views ((2 * decisions, 306) rows, (2 * decisions, 12) masks).
    The seats flip on nine times in ten and steal at random, so collections grow past the sizes whose
    k-subsets are enumerated (C(m, k) > MAX_SUBSETS); a compiled heuristic plays one seat in three."""
    driver = np.random.default_rng(seed)
    heuristics = [make(seed) for make in AGENTS.values()]
    state = rules.new_game(num_players, seed=seed, max_sessions=max_sessions)
    rows, masks = [], []
    while not state.is_over:
        mask = rules.action_mask(state)
        for view in VIEWS:
            rows.append(observe(state, state.active, view))
            masks.append(mask)
        if driver.random() < 1 / 3:
            action = int(heuristics[state.active % 3].act(rows[-2][None], mask[None])[0])
        elif mask[1]:  # flip or stop
            action = 1 if driver.random() < 0.9 else 0
        else:
            action = int(driver.choice(np.flatnonzero(mask)))
        rules.step(state, rules.decision_of(state, action))
    return np.array(rows), np.array(masks)


def games(seeds: range, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    found = [played(seed, num_players) for seed in seeds]
    return np.concatenate([rows for rows, _ in found]), np.concatenate([masks for _, masks in found])


def sampled_thefts(rows: np.ndarray, masks: np.ndarray, theft_aware: bool) -> int:
    """How many of the thefts the rows value have their k-subsets sampled (not enumerated)."""
    legal = masks != 0
    theft_rows = ~(legal[:, 0] | legal[:, 1])
    scales = np.array([4.0, 10.0, 66.0, 1.0], dtype=rows.dtype)
    draws = agent_kernels.plan(rows, legal, theft_rows, scales, theft_aware, MAX_SUBSETS)[3]
    return int((draws > 0).sum())


def assert_same_play(agent, reference, rows: np.ndarray, masks: np.ndarray, batch: int) -> int:
    """Both decide `rows` in batches of `batch`: the same actions and the same generator state after each batch."""
    for start in range(0, len(rows), batch):
        chosen = agent.act(rows[start : start + batch], masks[start : start + batch])
        expected = reference.act(rows[start : start + batch], masks[start : start + batch])
        np.testing.assert_array_equal(chosen, expected, err_msg=f"{agent.name}, rows {start}-{start + batch}")
        assert agent.rng.bit_generator.state == reference.rng.bit_generator.state, f"{agent.name}: rows {start}-{start + batch}"
    return len(rows)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_compiled_heuristics_play_as_the_reference(num_players):
    # Batches of 1, 7 and 32 rows: the draws of one act are the draws of one row at a time.
    rows, masks = games(range(100 + 10 * num_players, 105 + 10 * num_players), num_players)
    assert (masks[:, 2] == 1).any() and (masks[:, 1] == 1).any()
    assert sampled_thefts(rows, masks, True) > 0  # the generator's path is played
    decisions = 0
    for batch, (name, make) in zip([1, 7, 32], AGENTS.items(), strict=True):
        decisions += assert_same_play(make(num_players), REFERENCE_AGENTS[name](num_players), rows, masks, batch)
    assert decisions > 4000


@pytest.mark.slow  # about a minute: tens of thousands of decisions
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_compiled_heuristics_play_as_the_reference_on_many_games(num_players):
    rows, masks = games(range(20), num_players)
    for name, make in AGENTS.items():
        assert_same_play(make(7), REFERENCE_AGENTS[name](7), rows, masks, 64)
    for weight in (0.3, 1.0):
        assert_same_play(RivalAwareAgent(7, weight), ReferenceRivalAwareAgent(7, weight), rows, masks, 64)


@pytest.mark.parametrize("name", list(AGENTS))
def test_the_values_are_the_references_bit_for_bit(name):
    # One row at a time, in game order: theft values (whatever the decision, with the row's mask or with the
    # mask an octopus would give), flip odds and flip edges, and the generator's state after each.
    rows, masks = games(range(3), 3)
    agent, reference = AGENTS[name](5), REFERENCE_AGENTS[name](5)
    compared = 0
    for row, mask in zip(rows[::3], masks[::3], strict=True):
        assert flip_odds(row) == reference_flip_odds(row)
        assert agent.flip_edge(row) == reference.flip_edge(row)
        octopus_mask = theft_mask(row)  # unchanged by the kernels: the reference asks it too
        theft = mask if mask[2] else octopus_mask
        assert agent.theft_values(row, theft) == reference.theft_values(row, theft)
        assert agent.choose_theft(row, theft) == reference.choose_theft(row, theft)
        assert agent.rng.bit_generator.state == reference.rng.bit_generator.state
        compared += 1
    assert compared > 200


def test_a_trailing_weight_between_zero_and_one_adds_as_the_reference():
    # w * loss is no whole number: the sums' order shows in the last bits, and it is numpy's.
    rows, masks = games(range(200, 202), 4)
    for weight in (0.3, 0.7):
        agent, reference = RivalAwareAgent(1, weight), ReferenceRivalAwareAgent(1, weight)
        thefts = [(row, mask) for row, mask in zip(rows, masks, strict=True) if mask[2]]
        assert len(thefts) > 20
        for row, mask in thefts:
            assert agent.theft_values(row, mask) == reference.theft_values(row, mask)
        assert_same_play(agent, reference, rows, masks, 16)


class CoarseGenerator:
    """Uniforms on a grid of eight values drawn from a PCG64 stream: ties in nearly every sampled subset, where
    numpy's argsort decides which equal uniform comes first (`pick_subsets` hands those rows to it)."""

    def __init__(self, seed: int):
        self.bit_generator = np.random.default_rng(seed).bit_generator
        self._inner = np.random.Generator(self.bit_generator)

    def random(self, size):
        return np.floor(self._inner.random(size) * 8) / 8


def test_tied_uniforms_choose_the_subsets_numpys_argsort_chose():
    rows, masks = games(range(300, 306), 3)
    thefts = masks[:, 2] == 1
    rows, masks = rows[thefts], masks[thefts]
    assert sampled_thefts(rows, masks, False) > 10
    for name, make in AGENTS.items():
        agent, reference = make(0), REFERENCE_AGENTS[name](0)
        agent.rng, reference.rng = CoarseGenerator(3), CoarseGenerator(3)
        assert_same_play(agent, reference, rows, masks, 8)


def test_rows_off_the_game_decide_as_the_reference():
    # Perturbed entries (counts off the whole numbers, negative ones, sizes and orders between steps), and the
    # same rows as float64, big-endian and integers: the kernels do numpy's arithmetic in the rows' own dtype.
    rows, masks = games(range(400, 402), 3)
    noise = np.random.default_rng(0)
    odd = rows + (noise.normal(0, 0.4, rows.shape) * (noise.random(rows.shape) < 0.3)).astype(np.float32)
    odd = np.clip(odd, -2, 3).astype(np.float32)
    for batch in (odd, odd.astype(np.float64), odd.astype(">f4"), np.rint(rows * 3).astype(np.int16)):
        for name, make in AGENTS.items():
            assert_same_play(make(2), REFERENCE_AGENTS[name](2), batch, masks, 50)
        for row in batch[:300]:
            assert flip_odds(row) == reference_flip_odds(row)


def test_the_leaders_and_the_weights_are_the_references():
    rows, _ = games(range(500, 503), 4)
    rival = RivalAwareAgent(0, 0.25)
    weights = rival._target_weight_rows(rows)
    for row, row_weights in zip(rows, weights, strict=True):
        np.testing.assert_array_equal(leading_opponents(row), reference_leading_opponents(row))
        np.testing.assert_array_equal(row_weights, rival.target_weights(row))
        np.testing.assert_array_equal(row_weights, ReferenceRivalAwareAgent(0, 0.25).target_weights(row))


def test_the_pairwise_sum_is_numpys():
    noise = np.random.default_rng(1)
    for n in [*range(0, 300), 1000, 2560]:
        a = noise.random(n) * 10.0 ** noise.integers(-3, 3, n)
        assert agent_kernels._numpy_sum(a, n) == a.sum(), n
        if n:
            assert agent_kernels._numpy_sum(a, n) / n == a.mean(), n


def test_the_subsets_are_the_k_smallest_uniforms():
    noise = np.random.default_rng(2)
    cards, ks = np.array([13, 30, 24]), np.array([3, 3, 2])
    uniforms = noise.random(MAX_SUBSETS * int(cards.sum()))
    picks, tied = agent_kernels.pick_subsets(uniforms, cards, ks, MAX_SUBSETS)
    assert not tied.any()
    start = 0
    for d, (m, k) in enumerate(zip(cards, ks, strict=True)):
        block = uniforms[start : start + MAX_SUBSETS * m].reshape(MAX_SUBSETS, m)
        expected = np.sort(np.argsort(block, axis=1)[:, :k], axis=1)
        np.testing.assert_array_equal(np.sort(picks[d * MAX_SUBSETS : (d + 1) * MAX_SUBSETS, :k], axis=1), expected)
        assert math.comb(int(m), int(k)) > MAX_SUBSETS
        start += MAX_SUBSETS * m


def test_an_empty_batch_draws_nothing():
    for make in AGENTS.values():
        agent = make(0)
        before = agent.rng.bit_generator.state
        assert agent.act(np.zeros((0, OBSERVATION_LAYOUT.size), np.float32), np.zeros((0, 12), np.int8)).shape == (0,)
        assert agent.rng.bit_generator.state == before


class LastSeatOnly(TheftAwareAgent):
    """A user's subclass: only the seat just before its own (the last offset) counts against its score."""

    name = "last-seat-only"

    def target_weights(self, observation):
        return np.array([0.0, 0.0, 0.0, 1.0])


class ReferenceLastSeatOnly(REFERENCE_AGENTS["theft-aware"]):
    name = "last-seat-only"

    def target_weights(self, observation):
        return np.array([0.0, 0.0, 0.0, 1.0])


@pytest.mark.parametrize("base", [TheftAwareAgent, RivalAwareAgent])
def test_a_subclass_target_weights_steer_act_as_in_the_reference(base):
    # `act` decides in the kernels; a subclass's own `target_weights` must still reach them.
    subclass = type("Mine", (base,), {"name": "mine", "target_weights": LastSeatOnly.target_weights})
    rows, masks = games(range(300, 303), 4)
    assert_same_play(subclass(1), ReferenceLastSeatOnly(1), rows, masks, 16)
    plain = base(1).act(rows, masks)
    assert (subclass(1).act(rows, masks) != plain).any()  # the weights changed some decision
