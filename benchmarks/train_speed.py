"""End-to-end self-play training throughput, next to SB3's PPO on CartPole-v1 in the same run.

Measures environment steps per second of `learn()` (rollouts, opponents and PPO updates all
included): Miaui self-play as each config sets it up, and Stable-Baselines3's PPO with default
settings on CartPole-v1 with 8 environments, the usual yardstick. The default rows:
configs/default.yaml (no teacher: its PFSP league's snapshots and styles as opponents, so networks
in about half the opponent seats, the privileged critic and the moving-average magnet, whose
network is run again on every minibatch); configs/kickstart.yaml (0.1's default: mostly baselines
as opponents, the teacher's guidance, a plain critic); configs/v1.yaml (its league, a best
response, its first stage and v0 as opponents, and the privileged critic). Exploiters are not
counted: a run's exploit.json under exploiters/ times each. They are measured in turn
`--repeats` times, so that a machine whose speed drifts during the run slows all alike; each ratio
is printed, and the medians.
Usage: python benchmarks/train_speed.py [--steps 300000] [--cartpole-steps 50000] [--repeats 3]
       [--configs configs/default.yaml configs/kickstart.yaml,privileged_critic=true ...]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from training.config import load_config


def cartpole_steps_per_second(steps: int) -> float:
    """SB3 PPO, default settings, CartPole-v1 x 8 envs."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    model = PPO("MlpPolicy", make_vec_env("CartPole-v1", n_envs=8, seed=0), seed=0, device="cpu")
    start = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - start)


def miaui_steps_per_second(steps: int, config_spec: str) -> float:
    """A self-play config (the teacher's guidance included), evaluations switched off and the pool
    filled once with snapshots of the fresh learner (a league meets its pool's networks); the
    cloning that precedes PPO is not counted (it is timed in the run's metadata), nor is a first
    rollout and update, which compiles the kernels of a fresh install."""
    from training.selfplay import Run

    config_file, *overrides = config_spec.split(",")  # "configs/default.yaml,privileged_critic=true"
    config = load_config(config_file, [*overrides, "evaluation.every=1000000000", "opponents.snapshot_every=1000000000"])
    with tempfile.TemporaryDirectory() as directory:
        run = Run(config, Path(directory), resume=False)
        if config.opponents.mode != "latest":
            for index in range(config.opponents.pool_size):
                run.pool.add(run.model, index)
            run.refresh_opponents()
        run.model.learn(1, callback=run.guidance)  # one rollout and update: numba compiles here
        warm = run.model.num_timesteps
        start = time.perf_counter()
        run.model.learn(steps, callback=run.guidance, reset_num_timesteps=False)
        return (run.model.num_timesteps - warm) / (time.perf_counter() - start)


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300_000)
    parser.add_argument("--cartpole-steps", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--configs",
        nargs="+",
        default=["configs/default.yaml", "configs/kickstart.yaml", "configs/v1.yaml"],
        help="config files, each optionally followed by ,KEY=VALUE overrides",
    )
    args = parser.parse_args()
    print(f"{'repeat':<8}{'config':<42}{'CartPole PPO steps/s':>22}{'Miaui self-play steps/s':>25}{'ratio':>8}", flush=True)
    ratios: dict[str, list[float]] = {name: [] for name in args.configs}
    for repeat in range(1, args.repeats + 1):
        peer = cartpole_steps_per_second(args.cartpole_steps)
        for name in args.configs:
            ours = miaui_steps_per_second(args.steps, name)
            ratios[name].append(ours / peer)
            print(f"{repeat:<8}{name.removeprefix('configs/'):<42}{peer:>22,.0f}{ours:>25,.0f}{ratios[name][-1]:>8.2f}", flush=True)
    for name, values in ratios.items():
        print(f"median ratio ({name.removeprefix('configs/')} self-play / SB3 PPO CartPole-v1 x 8 envs): {statistics.median(values):.2f}")


if __name__ == "__main__":
    main()
