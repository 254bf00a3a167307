"""Distributed self-play on Ray RLlib: PPO on the new API stack, one policy for every seat.

    python -m training.rllib_selfplay                             # configs/rllib.yaml, local Ray
    python -m training.rllib_selfplay --address auto              # join a running Ray cluster
    python -m training.rllib_selfplay --resume checkpoints/miaui-rllib

RLlib samples the PettingZoo parallel env (`miaui_env.parallel_env`) with its env runners; a
`policy_mapping_fn` sends every agent to the one module "shared", an action-masking PPO module of
ours (training/rllib_module.py). Env runners, envs per runner, fragment length and learners are
config settings. Without --address a local Ray starts with its temp folder in the run directory;
with it, the run joins the cluster. A run lives in checkpoints/<run_name>/ like the SB3 runs:

    algorithm/        RLlib's full checkpoint (what --resume continues from)
    policy/           the exported module: the arena and human play load the run directory by path
    config.yaml       the resolved config
    metadata.json     observation layout version, iterations, env steps, timing, evaluations
    evaluations.csv   arena win share against each baseline, per evaluation

Every `evaluation.every` iterations (and after the last) the policy plays duplicate-dealt arena
gauntlets against the baselines (training/gauntlet.py), on the run's variant, and the checkpoint is
rewritten as one set (training/checkpoint.py: algorithm/, policy/, config, evaluations, metadata
last), so a run killed at any moment resumes from a checkpoint whose parts agree.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from miaui_env.agents.checkpoint import CheckpointError
from miaui_env.agents.loading import load_agent
from miaui_env.agents.policy import load_rllib_policy
from miaui_env.apps.cli import check_writable, run_command
from miaui_env.apps.files import write_rows
from miaui_env.observe.observation import OBSERVATION_VERSION
from training.checkpoint import open_checkpoint, write_checkpoint
from training.config import ROOT, RLlibConfig, thaw
from training.gauntlet import gauntlet

ENV_NAME = "miaui_parallel"
MODULE_ID = "shared"


def make_env(env_config: dict[str, Any]) -> Any:
    """The PettingZoo parallel env as an RLlib MultiAgentEnv (called on every env runner)."""
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    import miaui_env

    return ParallelPettingZooEnv(miaui_env.parallel_env(**env_config))


def algorithm_config(config: RLlibConfig) -> Any:
    """The RLlib PPOConfig for a run config (its RLlib sections passed as they are written)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib_module import MaskedPPOTorchRLModule

    env_config = {"num_players": config.num_players, "open_baskets": config.open_baskets, "no_fighting": config.no_fighting,
                  "view": config.view, "reward": config.reward}  # fmt: skip
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(ENV_NAME, env_config=env_config)
        .framework("torch")
        .env_runners(**thaw(config.env_runners))
        .learners(**thaw(config.learners))
        .training(**thaw(config.training))
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=lambda agent_id, episode, **kwargs: MODULE_ID)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={MODULE_ID: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=thaw(config.model))}
            )
        )
        .debugging(seed=config.seeds.integer("ppo"))
    )


def evaluate(policy_dir: Path, config: RLlibConfig, step: int) -> list[dict[str, Any]]:
    """Arena gauntlets of the exported policy in `policy_dir` against each baseline, on the variant the
    run trains on (`open_baskets`, `no_fighting`), on the same deals at every evaluation of a run
    (the `evaluation` stream of its seed tree, as self-play PPO's)."""
    evaluation, rows = config.evaluation, []
    agent = load_rllib_policy(policy_dir, name="rllib", view=config.view)
    (table,) = config.evaluation_specs  # an RLlib run plays one variant
    for i, name in enumerate(evaluation.baselines):
        figures = gauntlet(agent, name, table, evaluation.games_per_baseline, config.seeds, (i,)).figures()
        rows.append({"iteration": step, "baseline": name, **{key: figures[key] for key in ("win_share", "win_share_ci", "mean_score")}})
    return rows


@contextlib.contextmanager
def exported_policy(algo: Any, directory: Path) -> Iterator[Path]:
    """The shared module as the arena loads it, exported to a temporary folder of the run directory."""
    with tempfile.TemporaryDirectory(prefix=".exported-", dir=directory) as folder:
        policy_dir = Path(folder) / "policy"
        algo.get_module(MODULE_ID).save_to_path(str(policy_dir))
        yield policy_dir


def checkpoint(algo: Any, directory: Path, config: RLlibConfig, metadata: dict[str, Any]) -> None:
    """Algorithm, exported policy, config, evaluations and metadata, as one set (`write_checkpoint`)."""
    parts = {
        "algorithm": lambda path: algo.save_to_path(str(path)),
        "policy": lambda path: algo.get_module(MODULE_ID).save_to_path(str(path)),
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


def train(config: RLlibConfig, directory: Path, address: str | None, resume: bool) -> dict[str, Any]:
    """Run (or continue) RLlib self-play; returns the metadata."""
    import ray
    import ray.tune.trainable.trainable as trainable
    from ray.rllib.algorithms.algorithm import Algorithm
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, LEARNER_UPDATE_TIMER, NUM_ENV_STEPS_SAMPLED_LIFETIME, TIMERS
    from ray.tune.registry import register_env
    from tqdm import tqdm

    directory.mkdir(parents=True, exist_ok=True)
    # RLlib's result folder defaults to ~/ray_results; a run keeps everything in its own directory.
    trainable.DEFAULT_STORAGE_PATH = str(directory / "ray_results")
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        # A local Ray listens on loopback only, so it needs no token (which Ray would otherwise
        # write to ~/.ray); its temp folder goes under the run directory.
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        ray.init(include_dashboard=False, log_to_driver=False, _temp_dir=str(directory / "ray"), _node_ip_address="127.0.0.1")
    register_env(ENV_NAME, make_env)
    try:
        if resume:
            metadata = open_checkpoint(directory, ["algorithm/"], "RLlib checkpoint")
            algo = Algorithm.from_checkpoint(str(directory / "algorithm"))
        else:
            algo = algorithm_config(config).build_algo()
            metadata = {"framework": "rllib", "observation_version": OBSERVATION_VERSION, "num_players": config.num_players,
                        "variants": [config.open_baskets, config.no_fighting], "view": config.view,
                        "iterations": 0, "env_steps": 0, "evaluations": [], "timing": []}  # fmt: skip
        start, total, every = metadata["iterations"], config.iterations, config.evaluation.every
        with tqdm(total=total, initial=start, unit="iter", desc="rllib self-play") as bar:
            for iteration in range(start + 1, total + 1):
                began = time.perf_counter()
                result = algo.train()
                seconds = time.perf_counter() - began
                steps = int(result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])
                sampled = steps - metadata["env_steps"]
                timing = {
                    "iteration": iteration,
                    "seconds": round(seconds, 3),
                    "env_steps": sampled,
                    "env_steps_per_second": round(sampled / seconds, 1),
                    "learner_seconds": round(float(result[TIMERS][LEARNER_UPDATE_TIMER]), 3),
                }
                metadata["timing"].append(timing)
                metadata["iterations"], metadata["env_steps"] = iteration, steps
                bar.set_postfix(env_steps_per_s=f"{timing['env_steps_per_second']:.0f}")
                bar.update(1)
                if iteration % every == 0 or iteration == total:
                    metadata["env_runner_memory_mb"] = runner_memory(algo)
                    with exported_policy(algo, directory) as policy_dir:
                        metadata["evaluations"] += evaluate(policy_dir, config, iteration)
                    checkpoint(algo, directory, config, metadata)
                    latest = {row["baseline"]: row["win_share"] for row in metadata["evaluations"][-len(config.evaluation.baselines) :]}
                    bar.set_postfix(latest)
        algo.stop()
    finally:
        ray.shutdown()
    return metadata


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and train."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=None, help="a YAML config (default: configs/rllib.yaml)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--address", default=None, help="a Ray cluster to join (e.g. auto, or 10.0.0.1:6379)")
    parser.add_argument("--resume", type=Path, default=None, metavar="RUN_DIR")
    parser.add_argument("--out", type=Path, default=None, help="run directory (default: checkpoints/<run_name>)")
    args = parser.parse_args(argv)
    if args.resume is not None and (args.config is not None or args.out is not None):
        parser.error("--resume continues a run with its own config.yaml and folder: --config and --out do not apply (--set does)")

    def rllib_selfplay() -> None:
        if args.resume:
            open_checkpoint(args.resume, ["algorithm/"], "RLlib checkpoint")  # readable, and built for this observation layout
        config = RLlibConfig.load(args.resume / "config.yaml" if args.resume else args.config, args.overrides)
        if args.resume:
            directory = args.resume
        else:
            directory = args.out or ROOT / "checkpoints" / config.run_name
            if (directory / "algorithm").exists():
                raise CheckpointError(f"{directory} already holds a run: --resume it, or choose another --out")
            check_writable(directory)
        for name in config.evaluation.baselines:
            load_agent(name)  # a name nothing can load is refused now, not after the first iterations
        metadata = train(config, directory, args.address, resume=args.resume is not None)
        last = metadata["timing"][-1] if metadata["timing"] else {}
        rate = last.get("env_steps_per_second")
        print(f"{metadata['iterations']} iterations, {metadata['env_steps']:,} env steps; last iteration {rate} env steps/s")
        for row in metadata["evaluations"][-len(config.evaluation.baselines) :]:
            print(f"  vs {row['baseline']:<8} win share {row['win_share']:.3f} +- {row['win_share_ci']:.3f}")
        print(f"run written to {directory}/ (algorithm/, policy/, metadata.json, evaluations.csv)")

    run_command(parser.prog, rllib_selfplay)


if __name__ == "__main__":
    main()
