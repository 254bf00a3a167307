"""Games/s and decisions/s of the pure octopus rules engine (`miaui_env.games.octopus.rules`) under
random legal play, for 2, 3 and 4 players: the yardstick for the AEC env and a batched engine later.

Each game is seeded (seed = game number); each decision is drawn uniformly from `legal_decisions`.
Usage: python benchmarks/octopus_engine_speed.py [--seconds 3] [--players 2 3 4]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from miaui_env.games.octopus.rules import legal_decisions, new_game, step


def measure(num_players: int, seconds: float) -> tuple[float, float, float, float]:
    """(games/s, decisions/s, decisions per game, sessions per game) of random legal play."""
    picker = np.random.default_rng(0)
    games = decisions = sessions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = new_game(num_players, games)
        while not state.is_over:
            legal = legal_decisions(state)
            step(state, legal[int(picker.integers(len(legal)))])
            decisions += 1
        games += 1
        sessions += state.session
    elapsed = time.perf_counter() - start
    return games / elapsed, decisions / elapsed, decisions / games, sessions / games


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="wall time per player count")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    args = parser.parse_args()
    print(f"{'players':>7} {'games/s':>9} {'decisions/s':>12} {'decisions/game':>15} {'sessions/game':>14}")
    for n in args.players:
        games, decisions, per_game, sessions = measure(n, args.seconds)
        print(f"{n:>7} {games:>9.1f} {decisions:>12.0f} {per_game:>15.1f} {sessions:>14.2f}")


if __name__ == "__main__":
    main()
