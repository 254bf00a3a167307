"""Distributed self-play on Ray RLlib: PPO on the new API stack, one policy for every learner seat.

    python -m training.rllib_selfplay                             # configs/rllib.yaml, local Ray
    python -m training.rllib_selfplay --address auto              # join a running Ray cluster
    python -m training.rllib_selfplay --resume checkpoints/miaui-rllib
    python -m training.rllib_selfplay --set game=octopus           # the octopus game (any registered game)

Every env runner steps the run's `tables` as one Gymnasium vector env (training/rllib_env.py,
registered as RLlib's `vector_entry_point`): each learner seat of each game is a row of the SB3
trainer's own tables, built by the same game hooks (training/games.py: Miaui's batched engine, the
octopus game's VecEnv, a plug-in game's AEC env). The other seats are dealt among the pool
(snapshots of the learner, or the learner itself) and the baselines by the game's `seat` hook, with
the SB3 trainer's `League` and `SnapshotPool` (training/opponents.py, kept by the driver and shipped
to every runner: training/rllib_opponents.py). A config is keyed on its `game`
(training.config.load_rllib_config). The module is our action-masking PPO module
(training/rllib_module.py), with a privileged critic on Miaui's `privileged_critic`. Env runners,
fragment length and learners are config settings; `threads` sets torch's and the engine's threads
in the driver, every env runner and every learner. Without
--address a local Ray starts with its temp folder in the run directory; with it, the run joins
the cluster. A run lives in checkpoints/<run_name>/ like the SB3 runs:

    algorithm/        RLlib's full checkpoint (what --resume continues from)
    policy/           the exported module: the arena and human play load the run directory by path
    pool/             the opponent snapshots (module weights)
    league.json       a league's statistics
    config.yaml       the resolved config
    metadata.json     the game, its observation layout version, iterations, env steps, timing, evaluations, the league, the probe
    evaluations.csv   arena win share against each baseline, per evaluation
    exploit/          the exploitability probe's best response (training/exploit.py)

Every `evaluation.every` iterations (and after the last) the policy plays duplicate-dealt arena
gauntlets against the baselines (training/gauntlet.py) on each variant its tables play, and the
checkpoint is rewritten as one set (training/checkpoint.py: algorithm/, policy/, league, config,
evaluations, metadata last), so a run killed at any moment resumes from a checkpoint whose parts
agree. At the end an exploitability probe trains a best response against the exported policy
(`probe`), as the SB3 trainer's does.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from miaui_env.core.checkpoint import CheckpointError
from miaui_env.core.cli import check_writable, fail, half_width, run_command
from miaui_env.core.files import atomic_write, write_rows
from miaui_env.core.policy import RLLIB_EXTRA, PolicyAgent, RLlibModulePolicy
from miaui_env.core.registry import get_game
from training.checkpoint import open_checkpoint, saved_game, write_checkpoint
from training.config import RLlibConfig, load_rllib_config, variant_name
from training.config_files import ROOT, thaw
from training.gauntlet import check_arenas
from training.hardware import check_threads

ENV_NAME = "selfplay_vector"
MODULE_ID = "default_policy"  # RLlib's one module of a single-agent env (DEFAULT_MODULE_ID)


def env_config(config: RLlibConfig) -> dict[str, Any]:
    """What every env runner builds its vector env from (training/rllib_env.py's `make_vector_env`): the run's config."""
    return {"run": config.to_dict()}


def algorithm_config(config: RLlibConfig) -> Any:
    """The RLlib PPOConfig for a run config (its RLlib sections passed as they are written), every
    env runner stepping all the tables' learner seats as one vector env."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib_module import MaskedPPOTorchRLModule

    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(ENV_NAME, env_config=env_config(config))
        .framework("torch")
        .env_runners(**thaw(config.env_runners), num_envs_per_env_runner=config.rows, gym_env_vectorize_mode="vector_entry_point")
        .learners(**thaw(config.learners))
        .training(**thaw(config.training))
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=thaw(config.model)))
        .debugging(seed=config.seeds.integer("ppo"))
    )


def check_run(config: RLlibConfig) -> None:
    """Refuse now, not after the first iterations, what the run would fail on later: a view its game
    lacks, an agent name nothing can load, an arena with more games than it allows, a thread count
    this machine lacks."""
    from training.games import training_game  # the SB3 VecEnvs the games' tables are: loaded by the env runners

    check_threads(config.threads)
    config.check_game()
    game = training_game(config.game)
    for name in (*config.evaluation.baselines, *config.opponents.baseline_names):
        game.load_agent(name)
    check_arenas(config.evaluation, config.probe)


def exported_agent(policy_dir: Path, view: str) -> PolicyAgent:
    """The exported module as the arena plays it once loaded: its most likely action, seeing the run's view."""
    return PolicyAgent(RLlibModulePolicy(policy_dir), "rllib", view)


def evaluate(policy_dir: Path, config: RLlibConfig, step: int) -> list[dict[str, Any]]:
    """Arena gauntlets of the exported policy in `policy_dir` against each baseline, on each variant
    the run's tables play, on the same deals at every evaluation of a run (the `evaluation` stream
    of its seed tree), by the game's hooks that the SB3 trainer evaluates with (training/games.py)."""
    from training.games import training_game

    game, evaluation, rows = training_game(config.game), config.evaluation, []
    agent = exported_agent(policy_dir, config.view)
    for i, name in enumerate(evaluation.baselines):
        for variant, table in game.evaluation_tables(config):
            figures = game.gauntlet(agent, name, table, evaluation.games_per_baseline, config.seeds, (i,)).figures()
            rows.append(
                {
                    "iteration": step,
                    "baseline": name,
                    **{key: figures[key] for key in ("win_share", "win_share_ci", "mean_score")},
                    "variant": variant,
                }
            )
    return rows


@contextlib.contextmanager
def exported_policy(algo: Any, directory: Path) -> Iterator[Path]:
    """The module as the arena loads it, exported to a temporary folder of the run directory."""
    with tempfile.TemporaryDirectory(prefix=".exported-", dir=directory) as folder:
        policy_dir = Path(folder) / "policy"
        algo.get_module(MODULE_ID).save_to_path(str(policy_dir))
        yield policy_dir


def checkpoint(
    algo: Any, directory: Path, config: RLlibConfig, metadata: dict[str, Any], extra_parts: dict[str, Any] | None = None
) -> None:
    """Algorithm, exported policy, the league (`extra_parts`), config, evaluations and metadata, as one set (`write_checkpoint`)."""
    parts = {
        "algorithm": lambda path: algo.save_to_path(str(path)),
        "policy": lambda path: algo.get_module(MODULE_ID).save_to_path(str(path)),
        **(extra_parts or {}),
        "config.yaml": lambda path: path.write_text(config.to_yaml()),
        "evaluations.csv": lambda path: write_rows(path, metadata["evaluations"]),
    }
    write_checkpoint(directory, parts, metadata)


def runner_memory(algo: Any) -> list[float]:
    """Resident memory (MB) of every env runner process, the driver's local one first."""

    def rss(_: Any) -> float:
        import psutil

        return round(float(psutil.Process().memory_info().rss) / 2**20, 1)

    return [float(mb) for mb in algo.env_runner_group.foreach_env_runner(rss)]


def runner_threads(algo: Any) -> list[int]:
    """The engine threads of every env runner that steps games (the driver's local runner holds none)."""

    def threads(runner: Any) -> int | None:
        engine = getattr(runner.env.unwrapped.tables[0], "engine", None) if runner.env is not None else None
        return int(engine.threads) if engine is not None else None  # a game without a batched engine has none

    return [count for count in algo.env_runner_group.foreach_env_runner(threads) if count is not None]


def set_threads(algo: Any, threads: int) -> None:
    """Torch's threads in the driver and every learner (the env runners set theirs when they build their env)."""
    import torch

    def pin(_: Any) -> None:
        torch.set_num_threads(threads)

    torch.set_num_threads(threads)
    if algo.learner_group is not None and not algo.learner_group.is_local:
        algo.learner_group.foreach_learner(pin)


def start_ray(directory: Path, address: str | None) -> None:
    """Join the cluster at `address`, or start a local Ray on loopback with its folders in the run directory."""
    import ray
    import ray.tune.trainable.trainable as trainable

    # RLlib's result folder defaults to ~/ray_results; a run keeps everything in its own directory.
    trainable.DEFAULT_STORAGE_PATH = str(directory / "ray_results")
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        # A local Ray listens on loopback only, so it needs no token (which Ray would otherwise
        # write to ~/.ray); its temp folder goes under the run directory.
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        ray.init(include_dashboard=False, log_to_driver=False, _temp_dir=str(directory / "ray"), _node_ip_address="127.0.0.1")


def train(config: RLlibConfig, directory: Path, address: str | None, resume: bool, show_progress: bool = True) -> dict[str, Any]:
    """Run (or continue) RLlib self-play; returns the metadata."""
    import ray
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, LEARNER_UPDATE_TIMER, NUM_ENV_STEPS_SAMPLED_LIFETIME, TIMERS
    from ray.tune.registry import register_env
    from tqdm import tqdm

    from training.games import training_game
    from training.rllib_env import make_vector_env
    from training.rllib_opponents import RLlibOpponents

    game = training_game(config.game)
    directory.mkdir(parents=True, exist_ok=True)
    start_ray(directory, address)
    register_env(ENV_NAME, make_vector_env)
    opponents = RLlibOpponents(config.opponents, directory)
    try:
        if resume:
            metadata = open_checkpoint(directory, ["algorithm/"], "RLlib checkpoint", config.game, game.observation_version)
            # Built from the run's config as it is now (its --set overrides, threads included: the env
            # runners build their envs from it), then given the checkpoint's state.
            algo = algorithm_config(config).build_algo()
            algo.restore_from_path(str(directory / "algorithm"))
            opponents.resume(directory, metadata["env_steps"])
        else:
            algo = algorithm_config(config).build_algo()
            metadata = {
                "framework": "rllib",
                "game": config.game,
                "observation_version": game.observation_version,
                "tables": [table.to_dict() for table in config.tables],
                "variants": config.variants,
                "view": config.view,
                "privileged_critic": config.privileged_critic,
                "iterations": 0,
                "env_steps": 0,
                "evaluations": [],
                "timing": [],
            }
        set_threads(algo, config.threads)
        opponents.refresh(algo)
        start, total, every = metadata["iterations"], config.iterations, config.evaluation.every
        snapshot_every = config.opponents.snapshot_every
        with tqdm(total=total, initial=start, unit="iter", desc="rllib self-play", disable=not show_progress) as bar:
            for iteration in range(start + 1, total + 1):
                began = time.perf_counter()
                result = algo.train()
                seconds = time.perf_counter() - began
                steps = int(result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])
                sampled, before = steps - metadata["env_steps"], metadata["env_steps"]
                timing = {
                    "iteration": iteration,
                    "seconds": round(seconds, 3),
                    "env_steps": sampled,
                    "env_steps_per_second": round(sampled / seconds, 1),
                    "learner_seconds": round(float(result[TIMERS][LEARNER_UPDATE_TIMER]), 3),
                }
                metadata["timing"].append(timing)
                metadata["iterations"], metadata["env_steps"] = iteration, steps
                opponents.collect(algo)
                if steps // snapshot_every > before // snapshot_every:
                    if config.opponents.mode != "latest":
                        opponents.pool.add(algo.get_module(MODULE_ID), steps)
                    opponents.refresh(algo)
                bar.set_postfix(env_steps_per_s=f"{timing['env_steps_per_second']:.0f}")
                bar.update(1)
                if iteration % every == 0 or iteration == total:
                    metadata["env_runner_memory_mb"], metadata["env_runner_threads"] = runner_memory(algo), runner_threads(algo)
                    league = opponents.summary()
                    if league:
                        metadata["league"] = league
                    with exported_policy(algo, directory) as policy_dir:
                        metadata["evaluations"] += evaluate(policy_dir, config, iteration)
                    checkpoint(algo, directory, config, metadata, opponents.checkpoint_parts())
                    opponents.pool.trim()
                    latest = {row["baseline"]: row["win_share"] for row in metadata["evaluations"][-len(config.evaluation.baselines) :]}
                    bar.set_postfix(latest)
        algo.stop()
    finally:
        ray.shutdown()
    probe_final_policy(config, directory, metadata, show_progress)
    return metadata


def probe_final_policy(config: RLlibConfig, directory: Path, metadata: dict[str, Any], show_progress: bool) -> None:
    """The exploitability probe's figures in the metadata (`probe`): a best response trained against
    the exported policy at its last checkpoint (training/exploit.py), on the run's main variant;
    kept if they already describe that policy as the config asks to measure it."""
    from training import exploit

    settings = config.probe
    wanted = {"at_iteration": metadata["iterations"], **settings.in_metadata(), "variant": variant_name(*config.main_variant)}
    if settings.steps == 0 or {key: metadata.get("exploitability", {}).get(key) for key in wanted} != wanted:
        metadata.pop("exploitability", None)
    if settings.steps == 0 or "exploitability" in metadata or not (directory / "policy").exists():
        return
    metadata["exploitability"] = {**wanted, **exploit.probe_run(config, str(directory), show_progress)}
    atomic_write(directory / "metadata.json", json.dumps(metadata, indent=2) + "\n")


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and train."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=None, help="a YAML config (default: configs/rllib.yaml)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--address", default=None, help="a Ray cluster to join (e.g. auto, or 10.0.0.1:6379)")
    parser.add_argument("--resume", type=Path, default=None, metavar="RUN_DIR")
    parser.add_argument("--out", type=Path, default=None, help="run directory (default: checkpoints/<run_name>)")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads for torch and the engine in every process (--set threads=N)")
    args = parser.parse_args(argv)
    if args.resume is not None and (args.config is not None or args.out is not None):
        parser.error("--resume continues a run with its own config.yaml and folder: --config and --out do not apply (--set does)")
    args.overrides += [f"threads={args.threads}"] if args.threads is not None else []

    try:
        import ray  # noqa: F401
    except ModuleNotFoundError as missing:
        if (missing.name or "ray").partition(".")[0] != "ray":
            raise
        fail(parser.prog, f"training with RLlib needs Ray, which is not installed: {RLLIB_EXTRA}")

    def rllib_selfplay() -> None:
        if args.resume:
            saved = get_game(saved_game(args.resume))  # the run's own game: its config, read below, must name it too
            open_checkpoint(args.resume, ["algorithm/"], "RLlib checkpoint", saved.name, saved.observation_version)
        config = load_rllib_config(args.resume / "config.yaml" if args.resume else args.config, args.overrides)
        if args.resume:
            directory = args.resume
        else:
            directory = args.out or ROOT / "checkpoints" / config.run_name
            if (directory / "algorithm").exists():
                raise CheckpointError(f"{directory} already holds a run: --resume it, or choose another --out")
            check_writable(directory)
        check_run(config)
        metadata = train(config, directory, args.address, resume=args.resume is not None)
        last = metadata["timing"][-1] if metadata["timing"] else {}
        rate = last.get("env_steps_per_second")
        print(f"{metadata['iterations']} iterations, {metadata['env_steps']:,} env steps; last iteration {rate} env steps/s")
        for row in metadata["evaluations"][-len(config.evaluation.baselines) * len(config.variants) :]:
            print(f"  vs {row['baseline']:<8} win share {row['win_share']:.3f} +- {half_width(row['win_share_ci'])} ({row['variant']})")
        probed = metadata.get("exploitability")
        if probed:
            print(
                f"exploitability probe: a best response wins {probed['win_share']:.3f} +- {half_width(probed['win_share_ci'])} "
                f"at {probed['players']} players, gain over the fair share {probed['gain']:+.3f}"
            )
        print(f"run written to {directory}/ (algorithm/, policy/, metadata.json, evaluations.csv)")

    run_command(parser.prog, rllib_selfplay)


if __name__ == "__main__":
    main()
