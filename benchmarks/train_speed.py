"""End-to-end self-play training throughput, next to SB3's PPO on CartPole-v1 in the same run, and
where the time goes.

Measures learner steps per second of `learn()` (rollouts, opponents and PPO updates all
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

Each row also splits the time into its parts: `engine` (the batched engine's rounds and the rows
it hands over, privileged state included), `opponents` (the opponent seats' agents, snapshots'
networks included), `transfer` (rows and minibatches copied to the learner's device), `update`
(PPO's epochs, less their copies) and `rest` (the learner choosing its cards in the rollouts, and
SB3's bookkeeping). On a GPU the clock waits for the device at each part's end, so the parts add up.

`--device cuda` measures every config on the GPU and on the CPU, one row each (the GPU row's
speed-up printed beside it); `,threads=N` after a config sets its CPU threads.
Usage: python benchmarks/train_speed.py [--steps 300000] [--cartpole-steps 50000] [--repeats 3]
       [--device cpu|cuda|cuda:K] [--configs configs/default.yaml configs/gpu.yaml,threads=16 ...]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch

from training.config import load_config

PARTS = ("engine", "opponents", "transfer", "update", "rest")
MISSING = object()


def cartpole_steps_per_second(steps: int) -> float:
    """SB3 PPO, default settings, CartPole-v1 x 8 envs."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    model = PPO("MlpPolicy", make_vec_env("CartPole-v1", n_envs=8, seed=0), seed=0, device="cpu")
    start = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - start)


class PartClock:
    """Seconds spent in each part of a run's training (see the module docstring), by wrapping the
    functions that do each part on the run's own objects, for the timed stretch only."""

    def __init__(self, device: torch.device):
        self.seconds = dict.fromkeys(PARTS, 0.0)
        self.synchronize: Callable[[], None] = torch.cuda.synchronize if device.type == "cuda" else lambda: None
        self._depth = 0  # a part inside another (a copy inside the update) counts for the inner part only
        self._inner = 0.0  # seconds of the parts run inside others so far

    def timed(self, part: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """`function`, its time (less any inner part's) counted for `part`."""

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self.synchronize()
            inner_before, began = self._inner, time.perf_counter()
            self._depth += 1
            try:
                return function(*args, **kwargs)
            finally:
                self.synchronize()
                self._depth -= 1
                elapsed = time.perf_counter() - began
                own = elapsed - (self._inner - inner_before)
                self.seconds[part] += own
                self._inner += elapsed if self._depth else 0.0

        return wrapper

    @contextlib.contextmanager
    def watching(self, run: Any) -> Iterator[None]:
        """Count the parts of `run` (training/selfplay.py's Run) while inside."""
        import sb3_contrib.ppo_mask.ppo_mask as maskable_ppo

        model = run.model
        patches: list[tuple[Any, str, Any]] = [(maskable_ppo, "obs_as_tensor", "transfer")]
        patches += [(table.engine, "step", "engine") for table in run.tables]
        patches += [(table, "_learner_rows", "engine") for table in run.tables]
        patches += [(mixture, "act", "opponents") for mixture in run.mixtures]
        patches += [(model, "train", "update"), (model.rollout_buffer, "to_torch", "transfer")]
        saved = [(owner, name, vars(owner).get(name, MISSING)) for owner, name, _ in patches]
        for owner, name, part in patches:
            setattr(owner, name, self.timed(part, getattr(owner, name)))
        try:
            yield
        finally:
            for owner, name, original in saved:  # a method wrapped on an instance was the class's: unshadow it
                if original is MISSING:
                    delattr(owner, name)
                else:
                    setattr(owner, name, original)


def miaui_steps_per_second(steps: int, config_spec: str, device: str) -> tuple[float, dict[str, float]]:
    """A self-play config (the teacher's guidance included) on `device`, evaluations switched off and
    the pool filled once with snapshots of the fresh learner (a league meets its pool's networks);
    the cloning that precedes PPO is not counted (it is timed in the run's metadata), nor is a first
    rollout and update, which compiles the kernels of a fresh install. Returns learner steps/s and
    each part's share of the time."""
    from training.hardware import torch_threads
    from training.selfplay import Run

    config_file, *overrides = config_spec.split(",")  # "configs/default.yaml,privileged_critic=true"
    quiet = ["evaluation.every=1000000000", "opponents.snapshot_every=1000000000"]
    config = load_config(config_file, [*overrides, f"device={device}", *quiet])
    with tempfile.TemporaryDirectory() as directory, torch_threads(config.threads):
        run = Run(config, Path(directory), resume=False)
        if config.opponents.mode != "latest":
            run.opponents.pool.fill(run.model)
            run.refresh_opponents()
        run.model.learn(1, callback=run.guidance)  # one rollout and update: numba compiles here
        warm = run.model.num_timesteps
        clock = PartClock(run.model.device)
        start = time.perf_counter()
        with clock.watching(run):
            run.model.learn(steps, callback=run.guidance, reset_num_timesteps=False)
        total = time.perf_counter() - start
        clock.seconds["rest"] = max(total - sum(clock.seconds.values()), 0.0)
        return (run.model.num_timesteps - warm) / total, {part: seconds / total for part, seconds in clock.seconds.items()}


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300_000)
    parser.add_argument("--cartpole-steps", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu", help="cpu, or a GPU (cuda, cuda:K) measured beside the CPU")
    parser.add_argument(
        "--configs",
        nargs="+",
        default=["configs/default.yaml", "configs/kickstart.yaml", "configs/v1.yaml"],
        help="config files, each optionally followed by ,KEY=VALUE overrides",
    )
    args = parser.parse_args()
    devices = ["cpu"] if args.device == "cpu" else ["cpu", args.device]
    parts = "".join(f"{part:>10}" for part in PARTS)
    print(f"{'repeat':<8}{'config':<36}{'device':<8}{'CartPole steps/s':>18}{'Miaui steps/s':>15}{'ratio':>8}{parts}", flush=True)
    ratios: dict[tuple[str, str], list[float]] = {(name, device): [] for name in args.configs for device in devices}
    for repeat in range(1, args.repeats + 1):
        peer = cartpole_steps_per_second(args.cartpole_steps)
        for name in args.configs:
            for device in devices:
                ours, shares = miaui_steps_per_second(args.steps, name, device)
                ratios[name, device].append(ours / peer)
                split = "".join(f"{shares[part]:>10.0%}" for part in PARTS)
                label = name.removeprefix("configs/")
                print(f"{repeat:<8}{label:<36}{device:<8}{peer:>18,.0f}{ours:>15,.0f}{ratios[name, device][-1]:>8.2f}{split}", flush=True)
    for (name, device), values in ratios.items():
        label = f"{name.removeprefix('configs/')} on {device}"
        line = f"median ratio ({label} self-play / SB3 PPO CartPole-v1 x 8 envs on the CPU): {statistics.median(values):.2f}"
        if device != "cpu":
            line += f"; {statistics.median(values) / statistics.median(ratios[name, 'cpu']):.1f}x the CPU"
        print(line)


if __name__ == "__main__":
    main()
