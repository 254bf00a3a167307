"""Agent-steps per second of the batched engine, observations and masks included, next to named peers.

Measures `VectorMiaui` playing random legal cards for B = 256, 4096, 16384 and 3-6 players on one
thread with float32 observations, next to OpenSpiel's `goofspiel(num_cards=12,players=4,imp_info=True)`
played at random through pyspiel (rules only: it builds no observations); then, at B=4096 and 4
players, compact (uint8) observations and two threads, next to the same engine with float32
observations on one thread. Every row is measured `--repeats` times, each time right after its
peer, and the table gives the medians: rate, ratio to the peer (median of the paired ratios), and
the engine's memory per game. A noisy moment on a shared machine moves one pair, not the median.
The rates include choosing the random cards (one uniform per seat and a small numba function on
the calling thread, ~0.2 ms a step at B=4096; numpy's argmax over a noise per card took 0.6 ms);
the engine-against-engine rows also give the ratio of the time spent in `step` alone, which is
what observation dtype and threads change.
Usage: python benchmarks/vector_speed.py [--seconds 2] [--repeats 3] [--batches 256 4096 16384] [--players 3 4 5 6]
Needs the benchmark extra: pip install -e ".[bench]".
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # numpy on one core: the engine's threads are what the rows vary

import numba  # noqa: E402
import numpy as np  # noqa: E402
from peers import peer  # noqa: E402  (this script's folder is on sys.path when it runs)

from miaui_env.games.miaui.rules import NUM_ROUNDS  # noqa: E402
from miaui_env.games.miaui.vector import VectorMiaui  # noqa: E402


def goofspiel_steps_per_second(seconds: float, seed: int = 0) -> float:
    """Random play of 4-player imperfect-information goofspiel through pyspiel."""
    pyspiel = peer("pyspiel", "OpenSpiel")

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


@numba.njit(cache=True)
def random_legal_cards(uniforms: np.ndarray, masks: np.ndarray, cards: np.ndarray) -> None:
    """cards[g, s]: the legal card of rank int(u * legal cards) among the legal ones, u = uniforms[g, s]
    (uniform over the legal cards); branch-free, as mispredicted branches would cost more than the choice."""
    games, n, width = masks.shape
    for g in range(games):
        for s in range(n):
            legal = 0
            for c in range(width):
                legal += masks[g, s, c]
            left, chosen = int(uniforms[g, s] * legal), 0
            for c in range(width):
                chosen += c * masks[g, s, c] * (left == 0)
                left -= masks[g, s, c]
            cards[g, s] = chosen


def miaui_steps_per_second(batch: int, players: int, seconds: float, seed: int = 0, **options: object) -> tuple[float, float, float]:
    """Random legal play through VectorMiaui(**options); returns agent-steps/s, agent-steps per second
    spent in `step` itself, and bytes per game."""
    engine = VectorMiaui(batch, num_players=players, seed=seed, **options)  # type: ignore[arg-type]
    rng = np.random.default_rng(seed)
    masks = engine.action_masks()
    uniforms, actions = np.empty((batch, players)), np.empty((batch, players), dtype=np.int64)
    for _ in range(NUM_ROUNDS):  # warm up: compile, touch the buffers
        random_legal_cards(rng.random(out=uniforms), masks, actions)
        _, masks, _, _, _ = engine.step(actions)
    steps, in_step, start = 0, 0.0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        random_legal_cards(rng.random(out=uniforms), masks, actions)
        stepping = time.perf_counter()
        _, masks, _, _, _ = engine.step(actions)
        in_step += time.perf_counter() - stepping
        steps += batch * players
    return steps / (time.perf_counter() - start), steps / in_step, engine.nbytes / batch


def paired(measure: Callable[[], float], peer: Callable[[], float], repeats: int) -> tuple[float, float, float]:
    """Median rate of `measure`, median rate of `peer`, and the median of their paired ratios,
    each measurement taken right after its peer's."""
    rates, peers = [], []
    for _ in range(repeats):
        peers.append(peer())
        rates.append(measure())
    ratios = np.array(rates) / np.array(peers)
    return float(np.median(rates)), float(np.median(peers)), float(np.median(ratios))


def paired_engines(options: dict[str, Any], seconds: float, repeats: int) -> tuple[float, float, float, float]:
    """`paired` for VectorMiaui(B=4096, 4 players, **options) against float32 on one thread: median
    rates of both, the median paired ratio, and the median paired ratio of the time in `step` alone."""
    rates, peers, step_ratios = [], [], []
    for _ in range(repeats):
        peer, peer_in_step, _ = miaui_steps_per_second(4096, 4, seconds)
        rate, in_step, _ = miaui_steps_per_second(4096, 4, seconds, **options)
        rates.append(rate)
        peers.append(peer)
        step_ratios.append(in_step / peer_in_step)
    ratios = np.array(rates) / np.array(peers)
    return float(np.median(rates)), float(np.median(peers)), float(np.median(ratios)), float(np.median(step_ratios))


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="wall time per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="measurements per row, each paired with its peer's")
    parser.add_argument("--batches", type=int, nargs="+", default=[256, 4096, 16384])
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    args = parser.parse_args()

    def goofspiel() -> float:
        return goofspiel_steps_per_second(args.seconds)

    print(f"{args.repeats} paired measurements of {args.seconds:g} s per row; medians", flush=True)
    print(f"{'engine':<40}{'agent-steps/s':>15}{'peer':>30}{'x peer':>9}{'KiB/game':>10}{'x peer, step only':>19}")
    for batch in args.batches:
        for players in args.players:
            memory: list[float] = []

            def engine(batch: int = batch, players: int = players, memory: list[float] = memory) -> float:
                rate, _, per_game = miaui_steps_per_second(batch, players, args.seconds)
                memory.append(per_game)
                return rate

            rate, peer, ratio = paired(engine, goofspiel, args.repeats)
            row = f"VectorMiaui B={batch} {players}p"
            print(f"{row:<40}{rate:>15,.0f}{f'goofspiel 4p {peer:,.0f}':>30}{ratio:>9.2f}{memory[0] / 1024:>10.1f}", flush=True)

    most = min(2, numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # set at import, from the cores
    for label, options in (
        ("uint8 observations", {"observation_dtype": "uint8"}),
        (f"float32, {most} threads", {"threads": most}),
        (f"uint8, {most} threads", {"observation_dtype": "uint8", "threads": most}),
    ):
        rate, peer, ratio, step_ratio = paired_engines(options, args.seconds, args.repeats)
        row = f"VectorMiaui B=4096 4p {label}"
        print(f"{row:<40}{rate:>15,.0f}{f'1 thread, float32 {peer:,.0f}':>30}{ratio:>9.2f}{'':>10}{step_ratio:>19.2f}", flush=True)


if __name__ == "__main__":
    main()
