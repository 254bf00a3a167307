"""Play any game in the terminal: you take one seat, arena agents take the others.

    python -m miaui_env.apps.play [--players 4] [--opponents counter greedy random] [--seat 0] [--seed 1]
                            [--open-baskets] [--no-fighting] [--view table]
    python -m miaui_env.apps.play --game octopus [--players 3] [--opponents random] [--seat 0] [--seed 1]

Each round shows exactly what your seat may know (your observation, read back in words: the env
builds it, so nothing hidden can show), asks for your move, then shows what happened. Opponents are
any arena agents of the game: built-in names, checkpoints or module:callable, cycled over the other
seats. Type `q` to leave; bad input is simply asked again. A finished game is saved as a replay
(`--replay PATH`; default results/replays/GAME-<time>.json; `--no-replay`): `python -m
miaui_env.apps.replay PATH` prints it back. `--game` (default Miaui) picks the game; each game of
the registry (miaui_env.games) plays its own loop, its `play` part (Miaui's:
`miaui_env.games.miaui.play`), and a variant of another game is refused.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

# The game's loop is imported by the registry inside `run_command` (seconds of start-up, numba among
# them), so Ctrl-C during start-up ends in one line, as during the game.
from miaui_env.core.cli import add_game_argument, game_chooser, non_negative_int, run_command
from miaui_env.core.registry import game_names, get_game

_NO_REPLAY = Path("-")  # --no-replay


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and play the game `--game` names (its registry `play` part)."""
    game = get_game(game_chooser().parse_known_args(argv)[0].game)
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_game_argument(parser)
    parser.add_argument("--players", type=int, default=game.default_players, choices=game.players)
    parser.add_argument("--opponents", nargs="+", default=list(game.play_opponents))
    parser.add_argument("--seat", type=non_negative_int, default=0)
    parser.add_argument("--seed", type=non_negative_int, default=None)
    variants = list(dict.fromkeys(variant for name in game_names() for variant in get_game(name).variants))
    for variant in variants:  # every game's, so that another game's is refused by name, not as unknown
        parser.add_argument(f"--{variant.replace('_', '-')}", action="store_true", help=f"a variant of {_games_with(variant)}")
    parser.add_argument("--view", default=game.views[0], choices=game.views)
    saving = parser.add_mutually_exclusive_group()  # --replay PATH --no-replay contradict each other
    saving.add_argument(
        "--replay", type=Path, default=None, help="where the finished game is saved (default: results/replays/GAME-<time>.json)"
    )
    saving.add_argument("--no-replay", dest="replay", action="store_const", const=_NO_REPLAY, help="do not save the game")
    args = parser.parse_args(argv)
    foreign = [f"--{variant.replace('_', '-')}" for variant in variants if getattr(args, variant) and variant not in game.variants]
    if foreign:
        parser.error(f"{', '.join(foreign)}: not a variant of {game.title}, which has {_listed(game.variants)}")
    if args.replay is _NO_REPLAY:
        args.replay = None
    elif args.replay is None:
        args.replay = Path("results/replays") / f"{game.name}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    if args.seat >= args.players:
        parser.error(f"--seat {args.seat} is not a seat at a {args.players}-player table; seats are 0-{args.players - 1}")
    if args.seed is None:
        args.seed = int(np.random.default_rng().integers(2**31))
    # The game's loop is imported here, under `run_command` (a Ctrl-C in start-up ends in one line).
    run_command(parser.prog, lambda: game.part("play")(args), interrupted="game abandoned")


def _games_with(variant: str) -> str:
    return " and ".join(get_game(name).title for name in game_names() if variant in get_game(name).variants)


def _listed(variants: tuple[str, ...]) -> str:
    return ", ".join(f"--{variant.replace('_', '-')}" for variant in variants) if variants else "none"


if __name__ == "__main__":
    main()
