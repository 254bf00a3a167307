"""The octopus VecEnv's opponent seating: each agent reset once per reset, rows grouped by agent."""

from __future__ import annotations

import numpy as np
import pytest

from miaui_env.core.errors import InvalidConfigError
from miaui_env.core.vec import MultiTableVecEnv
from miaui_env.games.miaui.agents import RandomAgent
from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv


class CountedRandomAgent(RandomAgent):
    """A random agent that counts how often it is told a new game begins."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.resets = 0

    def reset(self) -> None:
        self.resets += 1


def test_reset_resets_each_opponent_once_whether_or_not_a_new_mix_was_given():
    venv = OctopusSelfPlayVecEnv(3, num_players=3, seed=0)
    first, second = CountedRandomAgent(1), CountedRandomAgent(2)
    venv.set_opponents([first, second], seed=3, draw="seat")
    venv.reset()
    assert (first.resets, second.resets) == (1, 1)
    venv.reset()  # the same mix: its agents are reset for the new games all the same
    assert (first.resets, second.resets) == (2, 2)


def test_rows_seat_their_learner_as_plain_ints_and_the_opponents_play_around_them():
    venv = OctopusSelfPlayVecEnv(2, num_players=3, learner_seats=[0, 2], seed=0)
    assert venv.row_seats == [0, 2, 0, 2] and all(type(seat) is int for seat in venv.row_seats)
    venv.set_opponents([CountedRandomAgent(1), CountedRandomAgent(2)], seed=3, draw="seat")
    venv.reset()
    for _ in range(40):
        masks = venv.action_masks()
        venv.step(np.argmax(masks, axis=1))
    assert venv.opponent_decisions > 40


def test_a_multi_table_env_asks_for_self_play_tables_of_one_game():
    with pytest.raises(InvalidConfigError, match=r"non-empty list of self-play tables \(of one game\), got \[\]"):
        MultiTableVecEnv([])
