"""The games the library plays, one package each, and the registry that finds them by name.

    miaui/      Miaui (R1-R11): rules, saved states, observation, batched engine, envs, agents, display
    octopus/    the octopus fishing game (O1-O12): rules, observation, env, agents, arena, play, replays, web page, self-play

Each game's package imports the core (`miaui_env.core`) and the registry only, never another game;
the apps and trainers find a game through the registry (`get_game(name)`), whose names are given
here where a user looks for them. The registry and the protocol a game follows are
`miaui_env.core.registry`:

    from miaui_env.games import Game, get_game, register
"""

from miaui_env.core.registry import (
    ENTRY_POINT_GROUP,
    GAMES_VARIABLE,
    GENERIC_PARTS,
    LEGACY_GAME,
    OPTIONAL_PARTS,
    PARTS,
    Game,
    GamePartError,
    GameWords,
    UnknownGameError,
    game_names,
    game_of,
    game_of_agents_module,
    get_game,
    register,
    unregister,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "GAMES_VARIABLE",
    "GENERIC_PARTS",
    "LEGACY_GAME",
    "OPTIONAL_PARTS",
    "PARTS",
    "Game",
    "GamePartError",
    "GameWords",
    "UnknownGameError",
    "game_names",
    "game_of",
    "game_of_agents_module",
    "get_game",
    "register",
    "unregister",
]
