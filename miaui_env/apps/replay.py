"""Show a saved game of any game: `python -m miaui_env.apps.replay FILE`.

The file's `game` field picks the game (a file from before games had names is Miaui's), and that
game's registry `replay` part shows it in its own words: Miaui's hand history and pictures
(`miaui_env.games.miaui.replay`, with `--gif OUT.gif [--seat K]`), the octopus game's hand history
(`miaui_env.games.octopus.replay`), or a plug-in game's.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from miaui_env.core.files import MAX_FILE_BYTES, read_bounded
from miaui_env.core.registry import LEGACY_GAME, UnknownGameError, game_of, get_game
from miaui_env.core.replays import ReplayError


def replay_game(path: Path) -> str:
    """The game a replay file names (a file from before games had names is Miaui's; so is one that
    cannot be read, for Miaui's command to refuse in its own words)."""
    try:
        data = json.loads(read_bounded(path, MAX_FILE_BYTES, ReplayError, "a replay"))
    except (ReplayError, OSError, ValueError, RecursionError):
        return LEGACY_GAME
    return game_of(data)


def main(argv: list[str] | None = None) -> None:
    """Show a replay of any game: the replay command of the game the file names (its registry `replay` part)."""
    chooser = argparse.ArgumentParser(allow_abbrev=False, add_help=False)
    chooser.add_argument("replay", type=Path, nargs="?")
    path = chooser.parse_known_args(argv)[0].replay
    game = LEGACY_GAME if path is None else replay_game(path)
    try:
        show = get_game(game).part("replay")
    except UnknownGameError as error:  # a file of a game this install does not have
        chooser.exit(2, f"python -m miaui_env.apps.replay: error: {path}: a replay of another game: {error}\n")
    show(argv)


if __name__ == "__main__":
    main()
