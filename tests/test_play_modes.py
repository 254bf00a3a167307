"""A trained policy plays its most likely card (`SPEC@best`, what a bare spec means) or its mixed
strategy (`SPEC@sample`), reproducibly from its seed; a mode on anything else is refused."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from miaui_env.core.loading import PLAY_MODES, AgentSpecError
from miaui_env.core.policy import PolicyAgent, action_probabilities
from miaui_env.games.miaui.agents.loading import load_agent, load_agents
from miaui_env.games.miaui.arena import ArenaConfig, play
from miaui_env.games.miaui.vector import VectorMiaui

ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def positions() -> tuple[np.ndarray, np.ndarray]:
    """Observations (recall view, the shipped policy's) and masks from a few rounds of random play."""
    engine = VectorMiaui(64, num_players=4, view="recall", seed=0)
    obs, masks = engine.reset()
    rng, seen, legal = np.random.default_rng(0), [], []
    for _ in range(5):
        seen.append(obs.reshape(-1, obs.shape[-1]).copy())
        legal.append(masks.reshape(-1, masks.shape[-1]).copy())
        obs, masks, *_ = engine.step(np.argmax(rng.random(masks.shape) * masks, axis=2))
    return np.concatenate(seen), np.concatenate(legal)


def test_sampled_play_varies_with_the_seed_and_best_play_does_not(positions):
    obs, masks = positions
    sampled = [load_agent("miaui-ppo-v0@sample", seed=seed).act(obs, masks) for seed in (0, 1)]
    best = [load_agent(spec, seed=seed).act(obs, masks) for spec, seed in (("miaui-ppo-v0@best", 0), ("miaui-ppo-v0", 1))]
    assert not np.array_equal(*sampled)
    assert np.array_equal(*best)
    assert not np.array_equal(sampled[0], best[0])
    for actions in (*sampled, *best):
        assert masks[np.arange(len(masks)), actions].all()  # never an illegal card
    assert np.array_equal(load_agent("miaui-ppo-v0@sample", seed=0).act(obs, masks), sampled[0])  # same seed, same cards


def test_sampled_cards_follow_the_masked_distribution(positions):
    obs, masks = positions
    row = int(np.flatnonzero(masks.sum(axis=1) >= 6)[0])
    agent = load_agent("miaui-ppo-v0@sample", seed=3)
    draws = 20_000
    cards = agent.act(np.repeat(obs[row : row + 1], draws, axis=0), np.repeat(masks[row : row + 1], draws, axis=0))
    expected = action_probabilities(agent.policy, obs[row : row + 1], masks[row : row + 1].astype(bool))[0]
    frequencies = np.bincount(cards, minlength=12) / draws
    assert np.all(frequencies[masks[row] == 0] == 0)
    assert np.abs(frequencies - expected).max() < 4 * np.sqrt(0.25 / draws)


def test_same_seed_same_games_and_the_name_says_the_mode():
    config = ArenaConfig(num_players=4, games=200, view="recall", seed=5)
    runs = [play(load_agents(["miaui-ppo-v0@sample", "counter"], seed=seed), "gauntlet", config) for seed in (7, 7, 8)]
    assert all(np.array_equal(a, b) for a, b in zip(runs[0], runs[1], strict=True))
    assert not np.array_equal(runs[0][1], runs[2][1])  # another seed, other draws
    assert load_agent("miaui-ppo-v0@sample").name == "miaui-ppo-v0@sample"
    assert load_agent("miaui-ppo-v0@best").name == "miaui-ppo-v0@best"
    assert load_agent("miaui-ppo-v0").name == "miaui-ppo-v0"
    assert load_agent("checkpoints/miaui-ppo-v0@sample", seed=0).deterministic is PLAY_MODES["sample"]  # a path takes a mode too


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("counter@sample", r"play modes \(@best, @sample\) are for trained policies; 'counter' is a built-in"),
        ("random@best", "are for trained policies"),
        ("test_arena:lowest_card@sample", "'test_arena:lowest_card' is not one"),
        ("miaui-ppo-v0@fast", "unknown play mode 'fast'; play modes are @best, @sample"),
        ("miaui-ppo-v0@", "unknown play mode ''"),
        ("@sample", "a play mode follows a trained policy's spec"),
    ],
)
def test_bad_mode_suffixes_are_refused(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        load_agent(spec, seed=0)


def test_a_path_that_exists_is_a_path_even_with_an_at(tmp_path):
    run = tmp_path / "run@sample"
    shutil.copytree(ROOT / "checkpoints" / "miaui-ppo-v0", run)
    agent = load_agent(str(run), seed=0)
    assert agent.name == "run@sample" and agent.deterministic  # the folder, played at its best
    assert load_agent(f"{run}@sample", seed=0).name == "run@sample@sample"


@pytest.mark.slow
def test_the_arena_command_measures_either_mode_and_refuses_a_mode_on_a_baseline(tmp_path):
    def arena(candidate: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "miaui_env.apps.arena", "--candidate", candidate, "--field", "random", "--games", "40"]
        return subprocess.run([*command, "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)

    done = arena("miaui-ppo-v0@sample")
    assert done.returncode == 0, done.stderr
    assert "miaui-ppo-v0@sample" in done.stdout
    refused = arena("counter@sample")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "play modes (@best, @sample) are for trained policies" in refused.stderr


class PredictOnly:
    """A masked policy with nothing but `predict`: its lowest legal card."""

    def predict(self, observation, state=None, episode_start=None, deterministic=False, action_masks=None):
        return np.argmax(action_masks, axis=1), None


def test_a_policy_network_samples_from_its_own_generator_and_a_predict_only_policy_from_its_predict(positions):
    obs, masks = positions
    network = load_agent("miaui-ppo-v0").policy.policy  # the SB3 network itself, as the snapshot pool holds it
    draws = [PolicyAgent(network, "network", deterministic=False, seed=4).act(obs, masks) for _ in range(2)]
    assert np.array_equal(*draws) and masks[np.arange(len(masks)), draws[0]].all()
    agent = PolicyAgent(PredictOnly(), "predict only", deterministic=False, seed=4)
    assert agent.rng is None and agent.act(obs, masks).tolist() == np.argmax(masks, axis=1).tolist()
