"""Agent-steps per second of random legal play through `miaui_env.env()`, next to PettingZoo's rps_v2.

Both envs run the same loop (`agent_iter`, `last()` building the observation, a random legal
action, `step`) for the same wall time; the script prints agent-steps/s and the ratio to rps_v2.
Usage: python benchmarks/aec_speed.py [--seconds 5] [--players 3 4 5 6]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import miaui_env


def agent_steps_per_second(make_env, seconds: float, seed: int = 0) -> float:
    """Play random legal games for `seconds`; return agent-steps (calls to step) per second."""
    env = make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset()
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            elif isinstance(obs, dict) and "action_mask" in obs:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            else:
                action = int(rng.integers(env.action_space(agent).n))
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="wall time per measurement")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    args = parser.parse_args()

    from pettingzoo.classic import rps_v2  # needs pygame: pip install 'miaui-rl[bench]'

    print(f"measuring {args.seconds:.0f} s each ...", flush=True)
    peer = agent_steps_per_second(rps_v2.env, args.seconds)
    print(f"{'env':<22}{'agent-steps/s':>15}{'x rps_v2':>10}")
    print(f"{'rps_v2 (PettingZoo)':<22}{peer:>15,.0f}{1.0:>10.2f}")
    for n in args.players:
        rate = agent_steps_per_second(lambda n=n: miaui_env.env(num_players=n), args.seconds)
        print(f"{'miaui_v0 ' + str(n) + ' players':<22}{rate:>15,.0f}{rate / peer:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
