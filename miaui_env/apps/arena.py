"""The arena command of every game: `python -m miaui_env.apps.arena [--game NAME] ...` (or `miaui-arena`).

`--game` (default Miaui) picks the game, and that game's registry `arena` part runs: Miaui's
duplicate-dealt arena (`miaui_env.games.miaui.arena`), the octopus game's duplicate decks and dice
(`miaui_env.games.octopus.arena`), or a plug-in game's generic arena (`miaui_env.apps.any_game`).
`python -m miaui_env.apps.arena --game GAME --help` lists that game's options.
"""

from __future__ import annotations

from miaui_env.core.cli import game_chooser
from miaui_env.core.registry import get_game


def main(argv: list[str] | None = None) -> None:
    """Run the arena of the game `--game` names (default Miaui): that game's `arena` part (miaui_env.games)."""
    chosen, rest = game_chooser().parse_known_args(argv)
    get_game(chosen.game).part("arena")(rest)


if __name__ == "__main__":
    main()
