"""The arena: fair schedules, reproducible numbers, files, agent specs, and the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from miaui_env.agents import RandomAgent
from miaui_env.agents.heuristics import GreedyAgent
from miaui_env.agents.loading import AgentSpecError, load_agent
from miaui_env.agents.policy import load_sb3_policy
from miaui_env.arena import ArenaConfig, lineups, play, summarize
from miaui_env.files import CheckpointVersionError

ROOT = Path(__file__).parent.parent


def lowest_card(observations, masks):
    """A module-level policy for the module:callable spec."""
    return np.argmax(masks, axis=1)


def make_random(seed=None):
    """A module-level agent factory."""
    return RandomAgent(seed)


def test_duplicate_sets_rotate_every_agent_through_every_seat():
    config = ArenaConfig(players=4, games=400, seed=0, batch_games=64)
    seats, _, winners = play([RandomAgent(0), GreedyAgent(1), RandomAgent(2)], "gauntlet", config)
    assert seats.shape == (400, 4)
    for set_start in range(0, 400, 4):
        block = seats[set_start : set_start + 4]
        assert sorted(np.flatnonzero(block == 0) % 4) == [0, 1, 2, 3]  # the candidate in every seat once
        for r in range(4):
            np.testing.assert_array_equal(block[r], np.roll(block[0], r))
    assert (winners.sum(axis=1) >= 1).all()


def test_same_numbers_from_the_same_seed():
    config = ArenaConfig(players=3, games=90, seed=5, batch_games=30)
    first = play([GreedyAgent(0), RandomAgent(1)], "pool", config)
    second = play([GreedyAgent(0), RandomAgent(1)], "pool", config)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)


def test_every_game_of_a_duplicate_set_is_dealt_the_same():
    # Two copies of one deterministic policy: whatever the rotation, each set replays one game.
    config = ArenaConfig(players=4, games=200, seed=6, batch_games=40)
    _, scores, _ = play([load_agent("test_arena:lowest_card"), load_agent("test_arena:lowest_card")], "pool", config)
    for set_start in range(0, 200, 4):
        assert (scores[set_start : set_start + 4] == scores[set_start]).all()
    assert len({tuple(row) for row in scores}) > 10  # and the sets are different deals


def test_pool_tables_cover_every_pairing():
    tables = lineups("pool", 5, 4, 5)
    assert {tuple(t) for t in tables} == {(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 3, 4), (0, 2, 3, 4), (1, 2, 3, 4)}
    small = lineups("pool", 2, 4, 2)
    assert (small == [[0, 1, 0, 1], [1, 0, 1, 0]]).all()


def test_summary_numbers_are_consistent():
    config = ArenaConfig(players=4, games=800, seed=2, batch_games=400)
    seats, scores, winners = play([GreedyAgent(0), RandomAgent(1)], "gauntlet", config)
    results = summarize(["greedy", "random"], seats, scores, winners, 4)
    greedy, random_ = results
    assert greedy.games == 800 and random_.games == 2400
    assert greedy.win_share + 3 * random_.win_share == pytest.approx(1.0)
    assert greedy.mean_rank < random_.mean_rank and greedy.rating_mu > random_.rating_mu
    assert 0 < greedy.win_share_ci < 0.1


def test_agent_specs(tmp_path):
    assert load_agent("counter", seed=1).name == "counter"
    policy = load_agent("test_arena:lowest_card")
    assert policy.act(np.zeros((2, 620)), np.array([[0, 1] + [1] * 10, [0, 0, 1] + [1] * 9])).tolist() == [1, 2]
    assert isinstance(load_agent("test_arena:make_random", seed=3), RandomAgent)
    with pytest.raises(AgentSpecError, match="not a built-in"):
        load_agent("alphazero")
    with pytest.raises(AgentSpecError, match="cannot load agent"):
        load_agent("no_such_module:bot")


def test_a_checkpoint_for_another_observation_layout_is_refused(tmp_path):
    from sb3_contrib import MaskablePPO

    from miaui_env.sb3 import MiauiSelfPlayVecEnv

    model = MaskablePPO("MlpPolicy", MiauiSelfPlayVecEnv(2, num_players=3, seed=0), n_steps=8, batch_size=8)
    model.save(tmp_path / "model.zip")
    (tmp_path / "metadata.json").write_text(json.dumps({"observation_version": 0}))
    with pytest.raises(CheckpointVersionError, match=r"version 0.*version 1"):
        load_sb3_policy(tmp_path)
    (tmp_path / "metadata.json").write_text(json.dumps({"observation_version": 1}))
    agent = load_agent(str(tmp_path))
    masks = np.zeros((3, 12), dtype=np.int8)
    masks[:, 4] = 1
    assert agent.act(np.zeros((3, 620), dtype=np.float32), masks).tolist() == [4, 4, 4]


@pytest.mark.parametrize("command", ["miaui_env.arena", "training.evaluate"])  # the old command still works
def test_command_line_writes_table_json_csv_and_png(tmp_path, command):
    out = tmp_path / "arena"
    done = subprocess.run(
        [sys.executable, "-m", command, "--pool", "greedy", "random", "counter", "--players", "3", "--games", "300",
         "--seed", "4", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "win share" in done.stdout and "counter" in done.stdout
    assert "arena" in done.stderr and "300/300" in done.stderr  # the progress bar
    report = json.loads((out / "arena.json").read_text())
    assert report["mode"] == "pool" and {a["name"] for a in report["agents"]} == {"greedy", "random", "counter"}
    assert (out / "arena.csv").read_text().startswith("name,games,win_share")
    assert (out / "arena.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


class ViewRecorder:
    """Plays its lowest card and keeps what it was shown."""

    def __init__(self, name: str, view: str | None = None):
        self.name, self.seen = name, []
        if view is not None:
            self.view = view

    def act(self, observations, masks):
        self.seen.append(observations.copy())
        return np.argmax(masks, axis=1)

    def reset(self):
        pass


@pytest.mark.parametrize("arena_view", ["table", "recall"])
def test_each_agent_is_shown_the_view_it_plays_from(arena_view):
    from miaui_env import OBSERVATION_LAYOUT
    from miaui_env.observation import table_view

    remembers, plain, forgets = ViewRecorder("remembers", "recall"), ViewRecorder("plain"), ViewRecorder("forgets", "table")
    play([remembers, plain, forgets], "pool", ArenaConfig(players=3, games=30, view=arena_view))

    def played_by_opponents(agent):
        return OBSERVATION_LAYOUT.view(np.concatenate(agent.seen), "played")[:, 1:].sum()

    assert played_by_opponents(remembers) > 0  # the recall view shows every card opponents played
    assert played_by_opponents(forgets) == 0  # the table view does not (R11)
    assert (played_by_opponents(plain) > 0) == (arena_view == "recall")  # the arena's view for the rest
    for agent in (forgets, plain) if arena_view == "table" else (forgets,):
        seen = np.concatenate(agent.seen)
        assert np.array_equal(table_view(seen), seen)
