"""RLlib self-play: a local run that trains, checkpoints, resumes and exports; and the cluster path
for real on one machine (a Ray head on loopback, training joined with --address)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from miaui_env.agents import RandomAgent
from miaui_env.agents.loading import load_agent
from miaui_env.apps.arena import ArenaConfig, play

ROOT = Path(__file__).parent.parent
SMALL = ["--set", "evaluation.games_per_baseline=24", "--set", "evaluation.every=1",
         "--set", "env_runners={num_env_runners: 1, num_envs_per_env_runner: 4, rollout_fragment_length: 11}",
         "--set", "training={lr: 0.0003, train_batch_size_per_learner: 352, minibatch_size: 88, num_epochs: 2, gamma: 1.0}"]  # fmt: skip
# Loopback only, and no token file in the home directory: this machine is its own test cluster.
LOOPBACK = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "disabled"}


def run(*args: str, timeout: float = 420) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "training.rllib_selfplay", *args], cwd=ROOT, env=LOOPBACK, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def short_dir():
    """Ray's sockets live under the run directory; keep its path short (AF_UNIX paths are limited)."""
    directory = Path(tempfile.mkdtemp(prefix="rl", dir="/tmp"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def test_local_run_trains_checkpoints_resumes_and_exports(short_dir):
    out = short_dir / "run"
    done = run("--set", "iterations=2", *SMALL, "--out", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    metadata = json.loads((out / "metadata.json").read_text())
    assert metadata["framework"] == "rllib" and metadata["observation_version"] == 1
    assert metadata["iterations"] == 2 and metadata["env_steps"] > 0
    assert all(t["env_steps_per_second"] > 0 for t in metadata["timing"])
    assert metadata["env_runner_memory_mb"] and min(metadata["env_runner_memory_mb"]) > 0
    assert (out / "ray").is_dir() and (out / "ray_results").is_dir()  # Ray's folders, not the home's
    assert {row["baseline"] for row in metadata["evaluations"]} == {"random", "greedy", "counter"}

    resumed = run("--resume", str(out), "--set", "iterations=3")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    after = json.loads((out / "metadata.json").read_text())
    assert after["iterations"] == 3 and after["env_steps"] > metadata["env_steps"]
    assert [row["iteration"] for row in after["evaluations"]][-1] == 3

    agent = load_agent(str(out))  # the exported policy, as the arena and human play load it
    _, scores, winners = play([agent, RandomAgent(0)], "gauntlet", ArenaConfig(players=4, games=40, seed=3))
    assert scores.shape == (40, 4) and winners.any(axis=1).all()  # the engine refuses any illegal card
    masks = np.zeros((5, 12), dtype=np.int8)
    masks[np.arange(5), [0, 3, 6, 9, 11]] = 1
    assert agent.act(np.zeros((5, 620), dtype=np.float32), masks).tolist() == [0, 3, 6, 9, 11]


def test_the_cluster_path_on_one_machine(short_dir):
    ray_cli = Path(sys.executable).parent / "ray"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = [str(ray_cli), "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2",
             f"--temp-dir={short_dir / 'head'}", "--include-dashboard=false", "--disable-usage-stats"]  # fmt: skip
    started = subprocess.run(start, env=LOOPBACK, capture_output=True, text=True, timeout=180)
    assert started.returncode == 0, started.stderr[-2000:]
    try:
        out = short_dir / "run"
        done = run("--address", f"127.0.0.1:{port}", "--set", "iterations=1", *SMALL, "--out", str(out))
        assert done.returncode == 0, done.stderr[-3000:]
        assert json.loads((out / "metadata.json").read_text())["iterations"] == 1
        assert (out / "policy" / "module_state.pkl").exists()
        assert not (out / "ray").exists()  # the cluster's own temp folder was used
    finally:
        subprocess.run([str(ray_cli), "stop", "--force"], env=LOOPBACK, capture_output=True, timeout=120)
