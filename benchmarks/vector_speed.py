"""Agent-steps per second of the batched engine, observations and masks included, on one core.

Measures `VectorMiaui` playing random legal cards for B = 256, 4096, 16384 and 3-6 players, next to
OpenSpiel's `goofspiel(num_cards=12,players=4,imp_info=True)` played at random through pyspiel in
the same run (rules only: it builds no observations), and prints agent-steps/s, the ratio to
goofspiel and the engine's memory per game.
Usage: python benchmarks/vector_speed.py [--seconds 3] [--batches 256 4096 16384] [--players 3 4 5 6]
Needs the benchmark extra: pip install -e ".[bench]".
"""

from __future__ import annotations

import argparse
import os
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core, as the issue asks

import numpy as np  # noqa: E402

from miaui_env.vector import VectorMiaui  # noqa: E402


def goofspiel_steps_per_second(seconds: float, seed: int = 0) -> float:
    """Random play of 4-player imperfect-information goofspiel through pyspiel."""
    import pyspiel

    game = pyspiel.load_game("goofspiel(num_cards=12,players=4,imp_info=True)")
    rng = np.random.default_rng(seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            else:
                actions = []
                for player in range(4):
                    legal = state.legal_actions(player)
                    actions.append(legal[rng.integers(len(legal))])
                state.apply_actions(actions)
                steps += 4
    return steps / (time.perf_counter() - start)


def miaui_steps_per_second(batch: int, players: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Random legal play through VectorMiaui; returns agent-steps/s and bytes per game."""
    engine = VectorMiaui(batch, num_players=players, seed=seed)
    rng = np.random.default_rng(seed)
    masks = engine.action_masks()
    noise = np.empty(masks.shape, dtype=np.float32)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        rng.random(dtype=np.float32, out=noise)
        noise *= masks  # a random legal card: the largest noise among the legal ones
        _, masks, _, _, _ = engine.step(np.argmax(noise, axis=2))
        steps += batch * players
    return steps / (time.perf_counter() - start), engine.nbytes / batch


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="wall time per measurement")
    parser.add_argument("--batches", type=int, nargs="+", default=[256, 4096, 16384])
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    args = parser.parse_args()

    print("measuring goofspiel ...", flush=True)
    peer = goofspiel_steps_per_second(args.seconds)
    print(f"{'engine':<34}{'agent-steps/s':>15}{'x goofspiel':>13}{'KiB/game':>10}")
    print(f"{'goofspiel 4p (OpenSpiel, rules)':<34}{peer:>15,.0f}{1.0:>13.2f}{'':>10}", flush=True)
    for batch in args.batches:
        for players in args.players:
            rate, per_game = miaui_steps_per_second(batch, players, args.seconds)
            label = f"VectorMiaui B={batch} {players}p"
            print(f"{label:<34}{rate:>15,.0f}{rate / peer:>13.2f}{per_game / 1024:>10.1f}", flush=True)


if __name__ == "__main__":
    main()
