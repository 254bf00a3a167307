"""Agent-steps per second of random legal play through `miaui_env.env()`, next to PettingZoo's rps_v2.

Both envs run the same loop: `reset()`, then `agent_iter`, `last()` building the observation, a
random legal action drawn with numpy from the mask (rps_v2 has none: any of its 3 actions), `step`,
to the end of the game. Two ways of counting, side by side:

- **whole games**: the clock runs through every `reset()` too. This is what an RL loop pays; a Miaui
  game is 4 x 12 decisions (and its end steps), an rps_v2 game 2 x 150, so Miaui resets more often;
- **steps only**: the clock stops during `reset()`: the per-step cost alone.

The two envs take turns (`--rounds` rounds of `--seconds` each, rps_v2 first in every round), so a
machine that speeds up or slows down meets both alike; each figure is the median over the rounds,
and the ratio is taken round by round. Usage:
python benchmarks/aec_speed.py [--seconds 2] [--rounds 5] [--players 3 4 5 6]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from peers import peer  # this script's folder is on sys.path when it runs

import miaui_env


def play_for(env: Any, rng: np.random.Generator, seconds: float) -> tuple[float, float]:
    """Whole random legal games for about `seconds`: (agent-steps/s with resets timed, agent-steps/s without)."""
    steps, in_resets = 0, 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        reset_start = time.perf_counter()
        env.reset()
        in_resets += time.perf_counter() - reset_start
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
    elapsed = time.perf_counter() - start
    return steps / elapsed, steps / (elapsed - in_resets)


def compare(make_env: Callable[[], Any], make_peer: Callable[[], Any], seconds: float, rounds: int) -> dict[str, float]:
    """The env against the peer, taking turns: median rates of each and median ratios, both ways of counting."""
    env, peer = make_env(), make_peer()
    env.reset(seed=0)
    peer.reset(seed=0)
    rng = np.random.default_rng(0)
    play_for(env, rng, seconds / 4)  # warm both up (numba's kernels, caches) before any round counts
    play_for(peer, rng, seconds / 4)
    rows = []
    for _ in range(rounds):
        peer_whole, peer_steps = play_for(peer, rng, seconds)
        mine_whole, mine_steps = play_for(env, rng, seconds)
        rows.append((mine_whole, mine_steps, peer_whole, peer_steps))
    return {
        "whole": statistics.median(row[0] for row in rows),
        "steps": statistics.median(row[1] for row in rows),
        "peer_whole": statistics.median(row[2] for row in rows),
        "peer_steps": statistics.median(row[3] for row in rows),
        "ratio_whole": statistics.median(row[0] / row[2] for row in rows),
        "ratio_steps": statistics.median(row[1] / row[3] for row in rows),
    }


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="wall time of each env in each round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of taking turns")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    args = parser.parse_args()

    rps_v2 = peer("pettingzoo.classic.rps_v2", "pygame")

    print(f"{args.rounds} rounds of {args.seconds:g} s each, taking turns with rps_v2 ...", flush=True)
    print(f"{'env':<20}{'whole games':>14}{'x rps_v2':>10}{'steps only':>14}{'x rps_v2':>10}   (agent-steps/s)")
    for n in args.players:
        found = compare(lambda n=n: miaui_env.env(num_players=n), rps_v2.env, args.seconds, args.rounds)
        print(f"{'rps_v2 (PettingZoo)':<20}{found['peer_whole']:>14,.0f}{1.0:>10.2f}{found['peer_steps']:>14,.0f}{1.0:>10.2f}")
        print(
            f"{f'miaui, {n} players':<20}{found['whole']:>14,.0f}{found['ratio_whole']:>10.2f}"
            f"{found['steps']:>14,.0f}{found['ratio_steps']:>10.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
