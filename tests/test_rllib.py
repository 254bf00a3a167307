"""RLlib self-play: a local run that trains, checkpoints, resumes and exports; the cluster path for
real on one machine (a Ray head on loopback, training joined with --address); and its checkpoint,
folders and files, written as one set wherever the writer dies."""

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
import yaml

from miaui_env.core.errors import IllegalActionError
from miaui_env.games.miaui.agents import RandomAgent
from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.miaui.arena import ArenaConfig, play

pytestmark = pytest.mark.rllib  # Ray starts and trains: out of the fast loop

ROOT = Path(__file__).parent.parent
SMALL = [
    "--set",
    "evaluation.games_per_baseline=24",
    "--set",
    "evaluation.every=1",
    "--set",
    "tables=[{num_players: 4, num_games: 16, learner_seats: [0]}]",
    "--set",
    "opponents.snapshot_every=300",
    "--set",
    "training={lr: 0.0003, train_batch_size_per_learner: 352, minibatch_size: 176, num_epochs: 1, gamma: 1.0}",
]
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
    assert metadata["iterations"] == 2 and metadata["env_steps"] == 2 * 352  # 16 games x 22 steps: two games per row and iteration
    assert all(t["env_steps_per_second"] > 0 for t in metadata["timing"])
    assert metadata["env_runner_memory_mb"] and min(metadata["env_runner_memory_mb"]) > 0
    assert (out / "ray").is_dir() and (out / "ray_results").is_dir()  # Ray's folders, not the home's
    assert {row["baseline"] for row in metadata["evaluations"]} == {"random", "greedy", "counter"}
    # A snapshot every 300 env steps: one after each iteration, each seated on the env runner and met by the learner.
    assert sorted(path.name for path in (out / "pool").iterdir()) == ["step_0000000352.pt", "step_0000000704.pt"]
    assert set(json.loads((out / "league.json").read_text())["games"]) == {"snapshot@352"}
    assert set(metadata["league"]) == {"snapshot@352", "snapshot@704"}

    assert metadata["env_runner_threads"] == [1]
    resumed = run("--resume", str(out), "--set", "iterations=3", "--threads", "2")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    after = json.loads((out / "metadata.json").read_text())
    assert after["iterations"] == 3 and after["env_steps"] > metadata["env_steps"]
    assert after["env_runner_threads"] == [2]  # a resumed run's env runners take its threads as given now
    # The resumed run seats the checkpoint's pool again (from pool/) and its league carries on against it.
    assert "snapshot@704" in json.loads((out / "league.json").read_text())["games"]
    assert [row["iteration"] for row in after["evaluations"]][-1] == 3

    agent = load_agent(str(out))  # the exported policy, as the arena and human play load it
    _, scores, winners = play([agent, RandomAgent(0)], "gauntlet", ArenaConfig(num_players=4, games=40, seed=3))
    assert scores.shape == (40, 4) and winners.any(axis=1).all()  # the engine refuses any illegal card
    masks = np.zeros((5, 12), dtype=np.int8)
    masks[np.arange(5), [0, 3, 6, 9, 11]] = 1
    assert agent.act(np.zeros((5, 620), dtype=np.float32), masks).tolist() == [0, 3, 6, 9, 11]


def test_an_octopus_run_trains_through_the_same_game_hooks_and_loads_as_an_octopus_agent(short_dir):
    """`game=octopus`: the octopus tables (a game a row), its agents as opponents and baselines, its
    arena's evaluations and its probe; the run's folder then loads as an octopus agent, and not as Miaui's."""
    from miaui_env.core.checkpoint import CheckpointGameError
    from miaui_env.games import get_game

    out = short_dir / "octopus"
    settings = [
        "--set", "game=octopus",
        "--set", "iterations=2",
        "--set", "tables=[{num_players: 2, num_games: 8}, {num_players: 3, num_games: 4}]",
        "--set", "evaluation={every: 1, num_players: 2, games_per_baseline: 12, baselines: [risk-aware, random]}",
        "--set", "probe={steps: 400, num_players: 2, games: 12}",
        "--set", "opponents.snapshot_every=300",
        "--set", "training={lr: 0.0003, train_batch_size_per_learner: 336, minibatch_size: 168, num_epochs: 1, gamma: 1.0}",
    ]  # fmt: skip
    done = run(*settings, "--out", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    metadata = json.loads((out / "metadata.json").read_text())
    config = yaml.safe_load((out / "config.yaml").read_text())
    assert metadata["game"] == "octopus" and metadata["observation_version"] == get_game("octopus").observation_version
    assert "privileged_critic" not in config and "open_baskets" not in config["tables"][0]  # an octopus config has no Miaui keys
    assert metadata["iterations"] == 2 and metadata["env_steps"] >= 2 * 336
    assert {row["baseline"] for row in metadata["evaluations"]} == {"risk-aware", "random"}
    assert metadata["env_runner_threads"] == []  # no batched engine: no engine threads to report
    assert set(metadata["league"]) and metadata["exploitability"]["players"] == 2  # snapshots met; the probe measured it

    agent = get_game("octopus").load_agent(str(out), seed=0)
    assert agent.view == "recall" and agent.name == "octopus"
    with pytest.raises(CheckpointGameError, match="octopus"):
        load_agent(str(out))  # a Miaui agent it is not
    arena = run_module("miaui_env.apps.arena", "--game", "octopus", "--candidate", str(out), "--field", "cautious", "--games", "8")
    assert arena.returncode == 0, arena.stderr[-2000:]
    resumed = run("--resume", str(out), "--set", "iterations=3")  # opened as the octopus run it is
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert json.loads((out / "metadata.json").read_text())["iterations"] == 3


def test_a_plug_in_game_trains_on_rllib_through_its_aec_env(short_dir):
    """A game that gives only its AEC env and agents (tests/games/sealed_bids.py, registered through
    MIAUI_RL_GAMES in the driver and, inherited, in the env runners) trains on RLlib too: its
    defaults made from its sizes and agents, its generic arena's evaluations."""
    out = short_dir / "bids"
    plug_in = {**LOOPBACK, "PYTHONPATH": str(ROOT / "tests" / "games"), "MIAUI_RL_GAMES": "sealed_bids:GAME"}
    settings = [
        "--set", "game=sealed_bids",
        "--set", "iterations=2",
        "--set", "tables=[{num_players: 3, num_games: 16}]",
        "--set", "evaluation={every: 1, num_players: 3, games_per_baseline: 24, baselines: [random, match-the-prize]}",
        "--set", "training={lr: 0.0003, train_batch_size_per_learner: 288, minibatch_size: 144, num_epochs: 1, gamma: 1.0}",
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "training.rllib_selfplay", *settings, "--out", str(out)],
        cwd=ROOT, env=plug_in, capture_output=True, text=True, timeout=420,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    metadata = json.loads((out / "metadata.json").read_text())
    assert metadata["game"] == "sealed_bids" and metadata["env_steps"] >= 2 * 288
    assert {row["baseline"] for row in metadata["evaluations"]} == {"random", "match-the-prize"}


def run_module(module: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_an_octopus_row_that_ends_is_held_one_step_while_the_others_play_on():
    """Next-step autoreset row by row: an octopus row whose game ended returns its final row
    (terminated, every action allowed); at its next step its action is ignored and its new game,
    already dealt, is returned untouched, while the rows still in their games play on."""
    env = vector_env("game=octopus", "tables=[{num_players: 2, num_games: 6}]", "seed=4")
    table = env.tables[0]
    rows, _ = env.reset(seed=2)
    assert rows["observation"].shape == (12, table.observation_space.shape[0]) and set(rows) == {"observation", "action_mask"}
    rng = np.random.default_rng(0)
    ended = np.zeros(12, dtype=bool)
    while not (ended.any() and not ended.all()):
        legal = [rng.choice(np.flatnonzero(mask)) for mask in rows["action_mask"]]
        rows, rewards, terminated, truncated, _ = env.step(np.array(legal))
        ended = terminated | truncated
    assert rows["action_mask"][ended].all() and set(rewards[ended]) <= {0.0, 0.5, 1.0} and not rewards[~ended].any()
    new_games = {int(r): (table.games[r], len(table.games[r].events)) for r in np.flatnonzero(ended)}
    playing = {int(r): len(table.games[r].events) for r in np.flatnonzero(~ended)}
    legal = [np.flatnonzero(mask)[0] for mask in rows["action_mask"]]
    illegal = np.array(legal)
    playing_row = min(playing)
    illegal[playing_row] = np.flatnonzero(rows["action_mask"][playing_row] == 0)[0]
    with pytest.raises(IllegalActionError, match=f"env index {playing_row}"):
        env.step(illegal)  # refused whole: no table plays, and the ended rows stay held
    assert all(len(table.games[r].events) == count for r, count in playing.items())
    after, rewards, terminated, truncated, _ = env.step(np.array(legal))  # the ended rows' actions: from their final rows, ignored
    for r, (game, events) in new_games.items():
        assert table.games[r] is game and len(game.events) == events  # dealt, not played: its first decision is the policy's
        assert not terminated[r] and not truncated[r] and rewards[r] == 0.0
        assert np.array_equal(after["action_mask"][r], table.action_masks()[r])
    assert all(len(table.games[r].events) > count for r, count in playing.items() if not (terminated[r] or truncated[r]))


def test_an_rllib_league_fades_per_episode_of_octopus_games_as_the_sb3_trainer_s_does(tmp_path):
    """Octopus games end apart: each step's finished games fade the league by their share of an
    episode's worth of games (`League.record`'s `games_per_episode`), not by a whole episode each step."""
    from types import SimpleNamespace

    from training.config import load_rllib_config
    from training.rllib_opponents import RLlibOpponents

    env = vector_env("game=octopus", "tables=[{num_players: 2, num_games: 6}]", "seed=4")
    assert env.games_per_episode == 12  # every octopus row a game of its own, as the SB3 trainer counts them
    rows, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    while len(env.results) < 3:  # three steps that each ended some games, not all
        rows, *_ = env.step(np.array([rng.choice(np.flatnonzero(mask)) for mask in rows["action_mask"]]))
    finished = sum(len(games) for games in env.results)
    opponents = RLlibOpponents(load_rllib_config(None, ["game=octopus"]).opponents, tmp_path)
    recorded = []
    opponents.record = lambda games, per_episode=None: recorded.append((len(games), per_episode))  # type: ignore[method-assign]
    runner = SimpleNamespace(env=SimpleNamespace(unwrapped=env))
    opponents.collect(SimpleNamespace(env_runner_group=SimpleNamespace(foreach_env_runner=lambda fn: [fn(runner)])))
    assert len(recorded) == 3 and sum(count for count, _ in recorded) == finished < 12
    assert {per for _, per in recorded} == {12}  # each step's games weigh their share of an episode


def test_the_cluster_path_on_one_machine(short_dir):
    ray_cli = Path(sys.executable).parent / "ray"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = [
        str(ray_cli),
        "start",
        "--head",
        "--node-ip-address=127.0.0.1",
        f"--port={port}",
        "--num-cpus=2",
        f"--temp-dir={short_dir / 'head'}",
        "--include-dashboard=false",
        "--disable-usage-stats",
    ]
    started = subprocess.run(start, env=LOOPBACK, capture_output=True, text=True, timeout=180)
    assert started.returncode == 0, started.stderr[-2000:]
    try:
        out = short_dir / "run"
        # With the privileged critic, whose rows carry the global state through RLlib's connectors to the learner.
        done = run("--address", f"127.0.0.1:{port}", "--set", "iterations=1", "--set", "privileged_critic=true", *SMALL, "--out", str(out))
        assert done.returncode == 0, done.stderr[-3000:]
        metadata = json.loads((out / "metadata.json").read_text())
        assert metadata["iterations"] == 1 and metadata["privileged_critic"]
        assert (out / "policy" / "module_state.pkl").exists()
        assert not (out / "ray").exists()  # the cluster's own temp folder was used
    finally:
        subprocess.run([str(ray_cli), "stop", "--force"], env=LOOPBACK, capture_output=True, timeout=120)


class Killed(BaseException):
    """The process dies here (a BaseException: nothing in the trainer catches it, as nothing catches a SIGKILL)."""


class FakeSaved:
    """Stands in for what RLlib saves to a folder: the folder holds one file, `state_file`, naming the version it belongs to."""

    state_file = ""

    def __init__(self, version: str):
        self.version = version

    def save_to_path(self, path: str) -> None:
        Path(path).mkdir(parents=True)
        (Path(path) / self.state_file).write_text(self.version)


class FakeModule(FakeSaved):
    """Stands in for RLlib's module: its export is a folder naming the version it belongs to."""

    state_file = "module_state.pkl"


class FakeAlgorithm(FakeSaved):
    """Stands in for RLlib's Algorithm: its checkpoint folder and its module's, each naming a version."""

    state_file = "algorithm_state.pkl"

    def get_module(self, module_id: str) -> FakeModule:
        from training.rllib_selfplay import MODULE_ID

        assert module_id == MODULE_ID
        return FakeModule(self.version)


def write_rllib_checkpoint(run: Path, iteration: int) -> None:
    from training.config import RLlibConfig
    from training.rllib_selfplay import checkpoint

    config = RLlibConfig.load(None, [f"run_name=at-{iteration}"])
    rows = [
        {"iteration": i, "baseline": "random", "win_share": 0.5, "win_share_ci": 0.1, "mean_score": 3.0} for i in range(1, iteration + 1)
    ]
    metadata = {"framework": "rllib", "observation_version": 1, "iterations": iteration, "evaluations": rows}
    checkpoint(FakeAlgorithm(str(iteration)), run, config, metadata)


def checkpointed_iterations(run: Path) -> set[int]:
    """The iteration every part of the run's checkpoint belongs to (one number if they agree)."""
    metadata = json.loads((run / "metadata.json").read_text())
    return {
        metadata["iterations"],
        int((run / "algorithm" / "algorithm_state.pkl").read_text()),
        int((run / "policy" / "module_state.pkl").read_text()),
        int(yaml.safe_load((run / "config.yaml").read_text())["run_name"].removeprefix("at-")),
        int((run / "evaluations.csv").read_text().splitlines()[-1].split(",")[0]),
    }


def test_an_rllib_checkpoint_is_old_or_new_whole_wherever_the_writer_dies(tmp_path, monkeypatch):
    """Its folders (algorithm/, policy/) and files are one set: a process killed at any rename of the
    write leaves, once --resume has completed or dropped the staged set, the old checkpoint or the
    new one, never parts of both."""
    from miaui_env.core import files
    from miaui_env.core.files import STAGING
    from training.checkpoint import open_checkpoint

    real_replace = os.replace
    renames: list[str] = []

    def counting(src, dst):
        renames.append(Path(dst).name)
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", counting)
    write_rllib_checkpoint(tmp_path / "counted", 1)
    renames.clear()
    write_rllib_checkpoint(tmp_path / "counted", 2)  # replacing a checkpoint: the old folders are moved aside too
    marker = renames.index("COMPLETE")
    assert renames.count("algorithm") == renames.count("policy") == 2 and len(renames) > marker + 5

    for kill in range(len(renames)):
        run, calls = tmp_path / f"killed-at-{kill}", [0]

        def dies(src, dst, kill=kill, calls=calls):
            calls[0] += 1
            if calls[0] - 1 == kill:
                raise Killed
            real_replace(src, dst)

        monkeypatch.setattr(files.os, "replace", real_replace)
        write_rllib_checkpoint(run, 1)
        monkeypatch.setattr(files.os, "replace", dies)
        with pytest.raises(Killed):
            write_rllib_checkpoint(run, 2)
        monkeypatch.setattr(files.os, "replace", real_replace)
        if json.loads((run / "metadata.json").read_text())["iterations"] == 2:  # a reader trusts the metadata: it comes last
            assert checkpointed_iterations(run) == {2}, f"killed at rename {kill} ({renames[kill]})"
        assert open_checkpoint(run, ["algorithm/"], "RLlib checkpoint")["iterations"] == (1 if kill <= marker else 2)
        assert checkpointed_iterations(run) == {1 if kill <= marker else 2}, f"killed at rename {kill} ({renames[kill]})"
        assert not (run / STAGING).exists()


def test_an_rllib_writer_dying_while_staging_leaves_the_old_checkpoint(tmp_path):
    from training.checkpoint import open_checkpoint

    write_rllib_checkpoint(tmp_path, 1)

    class Dying(FakeAlgorithm):
        def get_module(self, module_id: str) -> FakeModule:
            raise Killed

    from training.config import RLlibConfig
    from training.rllib_selfplay import checkpoint

    with pytest.raises(Killed):
        checkpoint(Dying("2"), tmp_path, RLlibConfig.load(None, ["run_name=at-2"]), {"observation_version": 1, "iterations": 2})
    open_checkpoint(tmp_path, ["algorithm/"], "RLlib checkpoint")
    assert checkpointed_iterations(tmp_path) == {1}


def vector_env(*overrides: str, privileged: bool = False):
    from training.config import load_rllib_config
    from training.rllib_env import make_vector_env
    from training.rllib_selfplay import env_config

    tables = "tables=[{num_players: 4, num_games: 3, learner_seats: [0, 2]}, {num_players: 3, num_games: 2, learner_seats: [1]}]"
    miaui = [tables, "seed=5", f"privileged_critic={str(privileged).lower()}"]
    return make_vector_env(env_config(load_rllib_config(None, [*miaui, *overrides] if not overrides else list(overrides))))


def ppo_module(privileged: bool, env=None):
    """The trainer's module, built as an env runner's learner builds it, for rows of this kind (of `env`'s game: Miaui's by default)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib_module import MaskedPPOTorchRLModule

    env = env if env is not None else vector_env(privileged=privileged)
    return RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=env.single_observation_space,
        action_space=env.single_action_space,
        model_config={"vf_share_layers": False},
    ).build()


def test_the_vector_env_is_every_learner_seat_a_row_with_next_step_autoreset():
    """RLlib's runner reads Gymnasium's next-step autoreset: the last round's step returns the final
    rows with `terminated`, the next step (actions ignored) the new games' first rows."""
    from gymnasium.vector import AutoresetMode

    env = vector_env()
    assert env.num_envs == 3 * 2 + 2 and env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    rows, _ = env.reset(seed=1)
    assert set(rows) == {"observation", "action_mask"} and rows["observation"].shape == (8, 620)
    rng = np.random.default_rng(0)
    for round_ in range(11):
        legal = [rng.choice(np.flatnonzero(mask)) for mask in rows["action_mask"]]
        rows, rewards, terminated, truncated, _ = env.step(np.array(legal))
        assert terminated.all() == (round_ == 10) and not truncated.any()
    assert rewards.sum() > 0 and rows["action_mask"].all()  # a final row: its game is over, every card allowed (none played)
    first, rewards, terminated, _, _ = env.step(np.full(8, 99))  # no card: ignored
    assert not terminated.any() and not rewards.any() and first["action_mask"].sum(axis=1).tolist() == [12] * 8  # full hands
    assert env.take_results() and env.take_results() == []  # one episode's games, handed over once


def test_the_vector_env_seats_snapshots_of_the_module_and_the_privileged_state():
    """Snapshot weights shipped as a state dict play as agents named for their step; privileged rows hold the global state."""
    from miaui_env.games.miaui.privileged import PRIVILEGED_SIZE

    env = vector_env(privileged=True)
    rows, _ = env.reset(seed=1)
    assert rows["privileged"].shape == (8, PRIVILEGED_SIZE) and rows["privileged"].any()
    module = ppo_module(privileged=True)
    env.set_opponents(module, [("snapshot@7", module.get_state(inference_only=True))], True, ["counter"], [0.25, 0.25, 0.5], "game")
    mixture = env.tables[0]._next_opponent  # seated from the next episode on
    names = [agent.name for agent in mixture.agents]
    assert names == ["snapshot@7", "learner", "counter"] and mixture.agents[0].policy.module is not module
    for _ in range(24):  # two games: the seats change from the next episode on
        legal = [np.flatnonzero(mask)[0] for mask in rows["action_mask"]]
        rows, *_ = env.step(np.array(legal))
    before, after = env.take_results()
    assert {name for opponents, _, _ in before for name in opponents} == {"random"}
    assert {name for opponents, _, _ in after for name in opponents} <= set(names) and len(after) == 5  # one per game


def test_the_privileged_critic_values_the_state_while_the_policy_reads_the_observation():
    import torch
    from ray.rllib.core.columns import Columns

    module = ppo_module(privileged=True)
    rows, _ = vector_env(privileged=True).reset(seed=2)
    batch = {key: torch.as_tensor(value) for key, value in rows.items()}
    changed = {**batch, "privileged": batch["privileged"] + 1.0}
    values, other = (module.compute_values({Columns.OBS: dict(b)}) for b in (batch, changed))
    assert values.shape == (8,) and not torch.allclose(values, other)
    logits, same = (module.forward_train({Columns.OBS: dict(b)})[Columns.ACTION_DIST_INPUTS] for b in (batch, changed))
    assert torch.equal(logits, same) and (logits[batch["action_mask"] == 0] < -1e30).all()
    plain = ppo_module(privileged=False)
    assert not plain.privileged and not torch.allclose(
        plain.compute_values({Columns.OBS: {"observation": batch["observation"], "action_mask": batch["action_mask"]}}), values
    )


def test_the_rllib_config_leaves_the_vector_keys_to_the_trainer():
    from training.config import ConfigError, RLlibConfig

    assert RLlibConfig.load(None, ["tables=[{num_players: 6, num_games: 10, learner_seats: [0, 3]}]"]).rows == 20
    with pytest.raises(ConfigError, match=r"env_runners\.num_envs_per_env_runner"):
        RLlibConfig.load(None, ["env_runners.num_envs_per_env_runner=8"])
    with pytest.raises(ConfigError, match="'tables' is empty"):
        RLlibConfig.load(None, ["tables=[]"])


def test_the_probe_measures_the_exported_policy_once_on_the_main_variant(tmp_path, monkeypatch):
    import training.exploit
    from training.config import RLlibConfig
    from training.rllib_selfplay import probe_final_policy

    tables = "tables=[{num_players: 4, num_games: 8, no_fighting: true}, {num_players: 3, num_games: 2, open_baskets: true}]"
    config = RLlibConfig.load(None, [tables, "probe.steps=100", "probe.games=40"])
    (tmp_path / "policy").mkdir()
    asked = []
    final = {"win_share": 0.3, "win_share_ci": 0.1, "gain": 0.05, "gain_ci": 0.1}
    monkeypatch.setattr(training.exploit, "measure", lambda settings, show: asked.append(settings) or {"tables": [{"final": final}]})
    metadata = {"iterations": 3}
    probe_final_policy(config, tmp_path, metadata, show_progress=False)
    (settings,) = asked
    assert settings.target == str(tmp_path) and (settings.open_baskets, settings.no_fighting) == (False, True)
    assert (settings.players, settings.steps, settings.eval_games) == ((4,), 100, 40)
    assert metadata["exploitability"]["variant"] == "no_fighting" and metadata["exploitability"]["gain"] == 0.05
    assert json.loads((tmp_path / "metadata.json").read_text())["exploitability"] == metadata["exploitability"]
    probe_final_policy(config, tmp_path, metadata, show_progress=False)  # the same policy, measured as asked: kept
    metadata["iterations"] = 4
    probe_final_policy(config, tmp_path, metadata, show_progress=False)  # a newer policy: measured anew
    assert len(asked) == 2
