"""End-to-end self-play training throughput, next to SB3's PPO on CartPole-v1 in the same run.

Measures environment steps per second of `learn()` (rollouts, opponents and PPO updates all
included): Miaui self-play as configs/default.yaml sets it up (MaskablePPO over every table, the
baselines as opponents), and Stable-Baselines3's PPO with default settings on CartPole-v1 with 8
environments, the usual yardstick. Prints both and the ratio.
Usage: python benchmarks/train_speed.py [--steps 300000] [--cartpole-steps 50000]
"""

from __future__ import annotations

import argparse
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


def miaui_steps_per_second(steps: int) -> float:
    """The default self-play config (the teacher's guidance included), evaluations and snapshots
    switched off; the cloning that precedes PPO is not counted (it is timed in the run's metadata)."""
    from training.selfplay import Run

    config = load_config(None, ["evaluation.every=1000000000", "opponents.snapshot_every=1000000000"])
    with tempfile.TemporaryDirectory() as directory:
        run = Run(config, Path(directory), resume=False)
        start = time.perf_counter()
        run.model.learn(steps, callback=run.guidance)  # the teacher's guidance is part of training
        return run.model.num_timesteps / (time.perf_counter() - start)


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300_000)
    parser.add_argument("--cartpole-steps", type=int, default=50_000)
    args = parser.parse_args()
    print("measuring CartPole-v1 PPO ...", flush=True)
    peer = cartpole_steps_per_second(args.cartpole_steps)
    print(f"{'run':<44}{'env steps/s':>12}{'x CartPole':>12}")
    print(f"{'SB3 PPO, CartPole-v1, 8 envs, defaults':<44}{peer:>12,.0f}{1.0:>12.2f}", flush=True)
    rate = miaui_steps_per_second(args.steps)
    print(f"{'Miaui self-play, MaskablePPO, default.yaml':<44}{rate:>12,.0f}{rate / peer:>12.2f}")


if __name__ == "__main__":
    main()
