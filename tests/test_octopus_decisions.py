"""One mask and one agent decision for every octopus caller: the AEC env, the VecEnv, replays and the web game."""

from __future__ import annotations

import numpy as np
import pytest

from miaui_env.games.octopus import rules
from miaui_env.games.octopus.agents import RandomAgent, RiskAwareAgent
from miaui_env.games.octopus.env import decision_mask, play_decision
from miaui_env.games.octopus.observation import Painter


def test_the_decision_mask_is_the_engine_s_at_every_decision():
    for seed in range(20):
        state = rules.new_game(3, seed=seed)
        rng = np.random.default_rng(seed)
        while not state.is_over:
            mask = decision_mask(state)
            assert np.array_equal(mask, rules.action_mask(state))
            rules.step(state, rules.decision_of(state, int(rng.choice(np.flatnonzero(mask)))))


def test_the_decision_mask_cannot_be_changed_by_its_reader():
    with pytest.raises(ValueError, match="read-only"):
        decision_mask(rules.new_game(2, seed=0))[2] = 1


@pytest.mark.parametrize("view", ["table", "recall"])
def test_a_decision_plays_the_same_painted_in_place_or_afresh(view):
    games = []
    for painter in (Painter(), None):
        agents = [RiskAwareAgent(1), RandomAgent(2)]
        state = rules.new_game(2, seed=5)
        actions = []
        while not state.is_over:
            actions.append(play_decision(agents[state.active], state, view, painter))
        games.append((actions, state.totals))
    assert games[0] == games[1] and len(games[0][0]) > 5
