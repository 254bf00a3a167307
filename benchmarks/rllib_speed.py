"""Learner steps per second of the RLlib trainer, next to the SB3 trainer's, in the same run.

Both train the same thing: configs/rllib.yaml's table (4 players, 128 games, one learner seat
each), its opponents (a PFSP league whose pool is filled once with snapshots of the fresh learner,
and the baselines), the same network ([256, 256] for the policy and for the value) and the same
PPO work per update (8,448 steps, minibatches of 2,112, 2 epochs). The SB3 path is
`training.selfplay`'s `Run` (MaskablePPO on `MiauiSelfPlayVecEnv`); the RLlib path is
`training.rllib_selfplay`'s algorithm on a local Ray on loopback, with one env runner and with
two. Each figure is env (learner) steps sampled and learned per second of wall time, rollouts,
opponents and updates included, after one warm-up iteration (numba compiles, Ray starts its
actors). They are measured in turn `--repeats` times, so that a machine whose speed drifts slows
all alike; the ratios to the SB3 path are printed per repeat, and the medians.
Usage: python benchmarks/rllib_speed.py [--iterations 6] [--repeats 2] [--runners 1 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from training.config import RLlibConfig, load_config

BATCH, MINIBATCH, EPOCHS = 8448, 2112, 2


def rllib_config(runners: int) -> RLlibConfig:
    """configs/rllib.yaml with `runners` env runners, no evaluation, no snapshot during the measurement."""
    overrides = [
        f"env_runners.num_env_runners={runners}",
        "evaluation.every=1000000",
        "opponents.snapshot_every=1000000000",
        f"training.train_batch_size_per_learner={BATCH}",
        f"training.minibatch_size={MINIBATCH}",
        f"training.num_epochs={EPOCHS}",
    ]
    return RLlibConfig.load(None, overrides)


def sb3_steps_per_second(iterations: int) -> float:
    """The SB3 trainer on the same table, opponents, network and PPO work, its pool filled once."""
    from training.hardware import torch_threads
    from training.selfplay import Run

    rllib = rllib_config(1)
    (table,) = rllib.tables
    games = table.num_games
    overrides = [
        f"tables=[{{num_players: {table.num_players}, num_games: {games}, learner_seats: [0]}}]",
        f"view={rllib.view}",
        f"opponents.weights={dict(rllib.opponents.weights)}",
        "opponents.snapshot_every=1000000000",
        "evaluation.every=1000000000",
        f"ppo.n_steps={BATCH // games}",
        f"ppo.batch_size={MINIBATCH}",
        f"ppo.n_epochs={EPOCHS}",
        "ppo.policy_kwargs={net_arch: {pi: [256, 256], vf: [256, 256]}, activation_fn: ReLU}",
        "privileged_critic=false",
        "magnet.coef=0",
        "exploiters.every=0",
        "kickstart.decisions=0",
        "kickstart.guidance_steps=0",
        "probe.steps=0",
        "device=cpu",
    ]
    config = load_config(None, overrides)
    with tempfile.TemporaryDirectory() as directory, torch_threads(rllib.threads):  # the threads the RLlib path runs on
        run = Run(config, Path(directory), resume=False)
        run.opponents.pool.fill(run.model)
        run.refresh_opponents()
        run.model.learn(1)  # one rollout and update: numba compiles here
        warm = run.model.num_timesteps
        start = time.perf_counter()
        run.model.learn(iterations * BATCH, reset_num_timesteps=False)
        return (run.model.num_timesteps - warm) / (time.perf_counter() - start)


def rllib_steps_per_second(runners: int, iterations: int, directory: Path) -> float:
    """The RLlib trainer with `runners` env runners, its pool filled once, on the Ray started in `directory`."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    from training.rllib_opponents import RLlibOpponents
    from training.rllib_selfplay import MODULE_ID, algorithm_config, set_threads

    config = rllib_config(runners)
    algo = algorithm_config(config).build_algo()
    try:
        set_threads(algo, config.threads)
        opponents = RLlibOpponents(config.opponents, directory / f"runners-{runners}")
        opponents.pool.fill(algo.get_module(MODULE_ID))
        opponents.refresh(algo)

        def sampled(result: dict[str, Any]) -> int:
            return int(result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])

        warm = sampled(algo.train())
        start = time.perf_counter()
        for _ in range(iterations):
            result = algo.train()
            opponents.collect(algo)
        return (sampled(result) - warm) / (time.perf_counter() - start)
    finally:
        algo.stop()


def main() -> None:
    """Measure and print the figures and ratios."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=6, help="timed PPO iterations of each path (8,448 steps each)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2], help="env runner counts of the RLlib path")
    args = parser.parse_args()
    import ray
    from ray.tune.registry import register_env

    from training.rllib_env import make_vector_env
    from training.rllib_selfplay import ENV_NAME, start_ray

    with tempfile.TemporaryDirectory(prefix="rl", dir="/tmp") as folder:
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        start_ray(Path(folder), None)
        register_env(ENV_NAME, make_vector_env)
        try:
            figures: dict[str, list[float]] = {}
            for repeat in range(args.repeats):
                row = {"sb3": sb3_steps_per_second(args.iterations)}
                for runners in args.runners:
                    row[f"rllib x{runners}"] = rllib_steps_per_second(runners, args.iterations, Path(folder))
                for name, value in row.items():
                    figures.setdefault(name, []).append(value)
                ratios = ", ".join(f"{name} {value / row['sb3']:.2f}" for name, value in row.items() if name != "sb3")
                print(
                    f"repeat {repeat + 1}: "
                    + ", ".join(f"{name} {value:,.0f} steps/s" for name, value in row.items())
                    + f"; of sb3: {ratios}"
                )
        finally:
            ray.shutdown()
    medians = {name: statistics.median(values) for name, values in figures.items()}
    print("medians: " + ", ".join(f"{name} {value:,.0f} steps/s" for name, value in medians.items()))
    for name, value in medians.items():
        if name != "sb3":
            print(f"{name} / sb3: {value / medians['sb3']:.2f}")
    if len(args.runners) > 1:
        first, last = args.runners[0], args.runners[-1]
        print(f"rllib x{last} / rllib x{first}: {medians[f'rllib x{last}'] / medians[f'rllib x{first}']:.2f}")


if __name__ == "__main__":
    main()
