"""Self-play training: a smoke run, resuming a killed run, refusing a mismatched checkpoint, the
config overrides, and the shipped policy."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from miaui_env.agents import RandomAgent
from training.agents import load_agent
from training.arena import ArenaConfig, play, summarize
from training.config import ConfigError, load_config

ROOT = Path(__file__).parent.parent


def selfplay(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "training.selfplay", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_smoke_run_writes_a_whole_run(tmp_path):
    run = tmp_path / "smoke"
    done = selfplay("--config", "configs/smoke.yaml", "--out", str(run))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "self-play" in done.stderr and "100%" in done.stderr  # the progress bar
    assert "last arena evaluation" in done.stdout
    metadata = json.loads((run / "metadata.json").read_text())
    assert metadata["observation_version"] == 1 and metadata["steps"] >= 6000
    assert metadata["player_counts"] == [3, 4]
    assert {row["baseline"] for row in metadata["evaluations"]} == {"random", "greedy"}
    assert len(list((run / "pool").glob("step_*.pt"))) == 2  # pool_size
    assert (run / "evaluations.csv").read_text().startswith("step,baseline,win_share")
    assert (run / "win_share.png").read_bytes()[:4] == b"\x89PNG"
    assert yaml.safe_load((run / "config.yaml").read_text())["run_name"] == "smoke"
    assert any((run / "tensorboard").rglob("events.out.tfevents.*"))
    agent = load_agent(str(run))  # the arena and human play can load it
    _, scores, _ = play([agent, RandomAgent(0)], "gauntlet", ArenaConfig(players=3, games=30))
    assert scores.shape == (30, 3)
    refused = selfplay("--config", "configs/smoke.yaml", "--out", str(run))
    assert refused.returncode != 0 and "already holds a run" in refused.stderr


def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path):
    run = tmp_path / "killed"
    overrides = ["--set", "total_timesteps=200000", "--set", "evaluation.every=3000", "--set", "evaluation.games_per_baseline=8"]
    process = subprocess.Popen(
        [sys.executable, "-m", "training.selfplay", "--config", "configs/smoke.yaml", "--out", str(run), *overrides],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.time() + 120
    while time.time() < deadline and not (run / "metadata.json").exists():
        time.sleep(0.2)
    time.sleep(1.0)
    process.send_signal(signal.SIGKILL)
    process.wait()
    stopped_at = json.loads((run / "metadata.json").read_text())["steps"]
    assert 0 < stopped_at < 200000
    done = selfplay("--resume", str(run), "--set", "total_timesteps=" + str(stopped_at + 4000))
    assert done.returncode == 0, done.stderr[-2000:]
    metadata = json.loads((run / "metadata.json").read_text())
    assert metadata["steps"] >= stopped_at + 4000
    steps = [row["step"] for row in metadata["evaluations"]]
    assert steps == sorted(steps) and steps[0] <= stopped_at < steps[-1]  # one history, continued


def test_a_checkpoint_for_another_layout_is_refused(tmp_path):
    run = tmp_path / "old"
    run.mkdir()
    (run / "model.zip").write_bytes(b"")
    (run / "metadata.json").write_text(json.dumps({"observation_version": 0}))
    done = selfplay("--resume", str(run))
    assert done.returncode != 0
    assert "observation layout version 0, but this library builds version 1" in done.stderr


def test_any_maskable_ppo_argument_is_allowed_in_the_ppo_section(tmp_path):
    config_file = tmp_path / "kl.yaml"
    config_file.write_text("ppo:\n  target_kl: 0.02\n")
    config = load_config(config_file)
    assert config["ppo"]["target_kl"] == 0.02 and config["ppo"]["n_steps"] == 22  # merged with the defaults
    config_file.write_text("opponents:\n  snapshot_evry: 5\n")
    with pytest.raises(ConfigError, match=r"unknown config key 'opponents\.snapshot_evry'"):
        load_config(config_file)


def test_config_overrides():
    config = load_config(ROOT / "configs" / "smoke.yaml", ["ppo.learning_rate=1e-4", "opponents.weights={random: 1}"])
    assert config["ppo"]["learning_rate"] == 1e-4 and config["ppo"]["gae_lambda"] == 0.95  # merged with default.yaml
    assert config["opponents"]["weights"] == {"random": 1}
    with pytest.raises(ConfigError, match=r"unknown key 'learnign_rate'; known keys here: evaluation"):
        load_config(None, ["learnign_rate=1"])
    with pytest.raises(ConfigError, match="not key=value"):
        load_config(None, ["seed"])


def test_the_shipped_policy_beats_random_clearly():
    agent = load_agent("miaui-ppo-v0")
    config = ArenaConfig(players=4, games=1200, seed=11)
    seats, scores, winners = play([agent, RandomAgent(1)], "gauntlet", config)
    result = summarize(["ppo", "random"], seats, scores, winners, 4)[0]
    assert result.games >= 1000 and result.win_share >= 0.5


def test_opponent_mixture_deals_whole_games_by_weight():
    import numpy as np

    from training.opponents import OpponentMixture

    def fixed(card):
        return lambda observations, masks: np.full(len(masks), card)

    mixture = OpponentMixture([fixed(0), fixed(5)], [1.0, 3.0], np.random.default_rng(0), seats_per_game=3)
    masks = np.ones((3000, 12), dtype=np.int8)
    first = mixture.act(np.zeros((3000, 620)), masks).reshape(1000, 3)
    assert (first == first[:, :1]).all()  # the three opponents of a game are one agent
    assert 0.70 < (first[:, 0] == 5).mean() < 0.80  # by weight
    assert (mixture.act(np.zeros((3000, 620)), masks).reshape(1000, 3) == first).all()  # kept within an episode
    mixture.reset()
    assert not (mixture.act(np.zeros((3000, 620)), masks).reshape(1000, 3) == first).all()  # redrawn after
