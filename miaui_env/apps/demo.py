"""Random legal play through the PettingZoo AEC env: a first look at the game and its speed.

    python -m miaui_env.apps.demo [--games 2000] [--players 4] [--open-baskets] [--no-fighting] [--seed 0]

Prints progress with an ETA, one rendered game, and per-seat results; writes them to
`results/demo.json` (or `--out`).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.core.cli import check_output_file, non_negative_int, positive_int, run_command
from miaui_env.core.files import atomic_write
from miaui_env.core.seeding import seed_children, seed_generator, seed_int
from miaui_env.games.miaui.env import env as aec_env


def play_games(games: int, players: int, open_baskets: bool, no_fighting: bool, seed: int) -> dict[str, Any]:
    """Play `games` random legal games; return per-seat win shares, mean scores and speed."""
    env = aec_env(num_players=players, open_baskets=open_baskets, no_fighting=no_fighting)
    deals, choices = seed_children(seed, 2)  # one tree: the deals and the cards chosen
    rng = seed_generator(choices)
    wins = np.zeros(players)
    scores = np.zeros((games, players))
    steps, start, last_report = 0, time.perf_counter(), 0.0
    for game in range(games):
        env.reset(seed=seed_int(deals) if game == 0 else None)  # then the env's generator deals on
        for agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                scores[game, env.possible_agents.index(agent)] = info["score"]
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        best = scores[game].max()
        winners = scores[game] == best
        wins += winners / winners.sum()
        elapsed = time.perf_counter() - start
        if elapsed - last_report >= 2.0 or game + 1 == games:
            last_report = elapsed
            eta = elapsed / (game + 1) * (games - game - 1)
            print(f"  {game + 1:>6}/{games} games  {steps / elapsed:>9,.0f} agent-steps/s  ETA {eta:5.1f} s", flush=True)
    elapsed = time.perf_counter() - start
    return {
        "games": games,
        "players": players,
        "open_baskets": open_baskets,
        "no_fighting": no_fighting,
        "seed": seed,
        "win_share": (wins / games).round(4).tolist(),
        "mean_score": scores.mean(axis=0).round(2).tolist(),
        "agent_steps_per_second": round(steps / elapsed),
        "seconds": round(elapsed, 2),
    }


MAX_GAMES = 1_000_000  # random games in one batch of the engine: about 22 GB at 4 players, past most machines already


def main(argv: list[str] | None = None) -> None:
    """Run the demo from the command line."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=positive_int, default=2000)
    parser.add_argument("--players", type=int, default=4, choices=range(3, 7))
    parser.add_argument("--open-baskets", action="store_true")
    parser.add_argument("--no-fighting", action="store_true")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--out", type=Path, default=Path("results/demo.json"))
    args = parser.parse_args(argv)
    if args.games > MAX_GAMES:
        parser.error(f"--games {args.games}: at most {MAX_GAMES:,} (the demo plays them in one batch)")
    run_command(parser.prog, lambda: demo(args))


def demo(args: argparse.Namespace) -> None:
    """One game shown, then the measured games, written to `args.out`."""
    check_output_file(args.out)  # before the games, not after them
    shown = aec_env(num_players=args.players, open_baskets=args.open_baskets, no_fighting=args.no_fighting, render_mode="ansi")
    deals, choices = seed_children(args.seed, 2)
    shown.reset(seed=seed_int(deals))
    rng = seed_generator(choices)
    for _agent in shown.agent_iter():
        obs, _, terminated, truncated, _ = shown.last()
        shown.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    print("One random game, as it ended:\n" + shown.unwrapped.render() + "\n")

    print(f"Playing {args.games} random games ...")
    results = play_games(args.games, args.players, args.open_baskets, args.no_fighting, args.seed)
    print(f"{'seat':<10}{'win share':>10}{'mean score':>12}")
    for seat, (share, score) in enumerate(zip(results["win_share"], results["mean_score"], strict=True)):
        print(f"player_{seat:<3}{share:>10.3f}{score:>12.2f}")
    atomic_write(args.out, json.dumps(results, indent=2) + "\n")
    print(f"results written to {args.out}")


if __name__ == "__main__":
    main()
