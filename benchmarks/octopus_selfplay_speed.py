"""Speed of the octopus self-play VecEnv, next to Miaui's `MiauiSelfPlayVecEnv` (the peer) in the same run.

Three measurements, each for both VecEnvs at 3 players with every seat a learner row:
1. env steps/s of random legal play at 64 and 256 games (a step is one decision of every row, so
   row-steps/s = learner decisions/s; the octopus line also counts the opponents' decisions played
   in between, and splits the time into `engine` (rules.step and new games), `observation`
   (painting the canvas and cutting each seat's view), `opponent` (the opponent agent choosing) and
   `python` (the rest: the VecEnv's own loops, masks, infos, autoresets));
2. MaskablePPO learner steps/s (`learn()`: rollouts and updates) on one CPU thread.
Octopus rows each own a game (turns are sequential, see `miaui_env.games.octopus.selfplay`), so 64 games
at 3 learner seats are 192 octopus games; Miaui's 64 games hold 3 learner rows each.
Usage: python benchmarks/octopus_selfplay_speed.py [--seconds 3] [--games 64 256] [--ppo-steps 30000]
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv
from miaui_env.games.octopus import rules, selfplay
from miaui_env.games.octopus.observation import Painter
from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv

PARTS = ("engine", "observation", "opponent")


def random_play(venv: Any, seconds: float) -> tuple[float, float]:
    """Row-steps per second of random legal play for `seconds`, and the wall time it took."""
    rng = np.random.default_rng(0)
    venv.reset()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = venv.action_masks()
        venv.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
        steps += 1
    elapsed = time.perf_counter() - start
    return steps * venv.num_envs / elapsed, elapsed


@contextlib.contextmanager
def part_clock() -> Iterator[dict[str, float]]:
    """Seconds spent in each part, by wrapping the functions that do it for the timed stretch only."""
    spent = dict.fromkeys(PARTS, 0.0)
    patches: list[tuple[Any, str, Any]] = [
        (rules, "step", "engine"),
        (rules, "new_game", "engine"),
        (Painter, "canvas", "observation"),
        (selfplay, "observe_canvas", "observation"),
        (selfplay, "checked_actions", "opponent"),
    ]
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]

    def timed(function: Callable[..., Any], part: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[part] += time.perf_counter() - start

        return wrapper

    for owner, name, part in patches:
        setattr(owner, name, timed(getattr(owner, name), part))
    try:
        yield spent
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


def ppo_steps_per_second(venv: Any, steps: int) -> float:
    """MaskablePPO's learner steps per second of `learn()` on `venv`, one CPU thread."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", venv, n_steps=max(1, 4096 // venv.num_envs), batch_size=1024, seed=0, device="cpu")
    model.learn(2 * model.n_steps * venv.num_envs)  # warm up (first rollouts, first update)
    start, before = time.perf_counter(), model.num_timesteps
    model.learn(steps, reset_num_timesteps=False)
    return (model.num_timesteps - before) / (time.perf_counter() - start)


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="wall time per random-play measurement")
    parser.add_argument("--games", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--ppo-steps", type=int, default=30_000, help="learner steps timed per MaskablePPO measurement")
    parser.add_argument("--ppo-games", type=int, default=64)
    args = parser.parse_args()
    torch.set_num_threads(1)

    print("random legal play, 3 players, every seat a learner row (steps/s = learner decisions/s)")
    for games in args.games:
        peer = MiauiSelfPlayVecEnv(games, num_players=3, seed=0)
        random_play(peer, 0.5)  # the compiled engine's first calls
        peer_speed, _ = random_play(peer, args.seconds)
        octopus = OctopusSelfPlayVecEnv(games, num_players=3, seed=0)
        speed, elapsed = random_play(octopus, args.seconds)
        all_decisions = speed + octopus.opponent_decisions / elapsed
        with part_clock() as spent:
            _, elapsed = random_play(OctopusSelfPlayVecEnv(games, num_players=3, seed=1), args.seconds)
        shares = {part: spent[part] / elapsed for part in PARTS}
        shares["python"] = 1 - sum(shares.values())
        split = ", ".join(f"{part} {share:.0%}" for part, share in shares.items())
        print(f"  {games:4d} games: octopus {speed:9,.0f} row-steps/s (all seats' decisions ~{all_decisions:,.0f}/s; {split})")
        print(f"  {games:4d} games: miaui   {peer_speed:9,.0f} row-steps/s (peer; ratio octopus/miaui {speed / peer_speed:.2f})")

    print(f"MaskablePPO learn(), 1 thread, {args.ppo_games} games, 3 players")
    octopus_ppo = ppo_steps_per_second(OctopusSelfPlayVecEnv(args.ppo_games, num_players=3, seed=0), args.ppo_steps)
    miaui_ppo = ppo_steps_per_second(MiauiSelfPlayVecEnv(args.ppo_games, num_players=3, seed=0), args.ppo_steps)
    print(f"  octopus {octopus_ppo:9,.0f} learner steps/s")
    print(f"  miaui   {miaui_ppo:9,.0f} learner steps/s (peer; ratio {octopus_ppo / miaui_ppo:.2f})")


if __name__ == "__main__":
    main()
