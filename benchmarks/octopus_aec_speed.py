"""Agent-steps per second of random legal play through the octopus game's AEC env, next to PettingZoo's rps_v2.

The same loop as `aec_speed.py` (whose `agent_steps_per_second` it uses): `agent_iter`, `last()`
building the observation, a random legal action, `step`, for the same wall time per env, in one
run. On a shared machine the speed of both drifts, so each octopus measurement is paired with an
rps_v2 one taken just before it, `--repeats` times, and the script prints the medians: agent-steps/s
and the ratio to rps_v2 (the issue's goal: >= 1.0x).
Usage: python benchmarks/octopus_aec_speed.py [--seconds 3] [--repeats 3] [--players 2 3 4] [--view table]
"""

from __future__ import annotations

import argparse

import numpy as np
from aec_speed import agent_steps_per_second  # this script's folder is on sys.path when it runs

from miaui_env.octopus.env import env


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="wall time per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="paired measurements per table size (medians are printed)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--view", default="table", choices=("table", "recall"))
    args = parser.parse_args()

    from pettingzoo.classic import rps_v2  # needs pygame: pip install 'miaui-rl[bench]'

    print(f"measuring {args.seconds:g} s each, {args.repeats} pairs per table size ...", flush=True)
    print(f"{'env':<26}{'agent-steps/s':>15}{'rps_v2 beside':>15}{'x rps_v2':>10}")
    for n in args.players:
        pairs = []
        for _ in range(args.repeats):
            peer = agent_steps_per_second(rps_v2.env, args.seconds)
            rate = agent_steps_per_second(lambda n=n: env(num_players=n, view=args.view), args.seconds)
            pairs.append((rate, peer, rate / peer))
        rate, peer, ratio = (float(np.median([pair[i] for pair in pairs])) for i in range(3))
        print(f"{f'octopus_v0 {n}p ({args.view})':<26}{rate:>15,.0f}{peer:>15,.0f}{ratio:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
