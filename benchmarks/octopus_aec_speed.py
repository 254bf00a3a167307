"""Agent-steps per second of random legal play through the octopus game's AEC env, next to PettingZoo's rps_v2.

The loop and the two ways of counting of `aec_speed.py` (whose `compare` it uses): whole games with
every `reset()` timed, and steps only; the octopus env and rps_v2 take turns `--rounds` times, and
the script prints the medians: agent-steps/s and the ratio to rps_v2 (the goal: >= 1.0x).
Usage: python benchmarks/octopus_aec_speed.py [--seconds 2] [--rounds 5] [--players 2 3 4] [--view table]
"""

from __future__ import annotations

import argparse

from aec_speed import compare  # this script's folder is on sys.path when it runs
from peers import peer

from miaui_env.games.octopus.env import env


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="wall time of each env in each round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of taking turns (medians are printed)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--view", default="table", choices=("table", "recall"))
    args = parser.parse_args()

    rps_v2 = peer("pettingzoo.classic.rps_v2", "pygame")

    print(f"{args.rounds} rounds of {args.seconds:g} s each, taking turns with rps_v2 ...", flush=True)
    print(f"{'env':<26}{'whole games':>14}{'x rps_v2':>10}{'steps only':>14}{'x rps_v2':>10}   (agent-steps/s)")
    for n in args.players:
        found = compare(lambda n=n: env(num_players=n, view=args.view), rps_v2.env, args.seconds, args.rounds)
        print(f"{'rps_v2 (PettingZoo)':<26}{found['peer_whole']:>14,.0f}{1.0:>10.2f}{found['peer_steps']:>14,.0f}{1.0:>10.2f}")
        print(
            f"{f'octopus_v0 {n}p ({args.view})':<26}{found['whole']:>14,.0f}{found['ratio_whole']:>10.2f}"
            f"{found['steps']:>14,.0f}{found['ratio_steps']:>10.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
