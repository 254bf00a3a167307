"""Miaui RL: the Miaui card game for reinforcement learning, on an exact pure-Python rules engine.

The package is a house of rooms, each importing only from the rooms listed before it:

    core/          what every game shares: the game registry, errors, the seed tree, layouts, the AEC
                   base, the agent protocol and policy loading, arena statistics, replay files, CLI helpers
    games/         one package a game, each importing the core and itself only:
      miaui/         Miaui: cards, rules, saved states, what a seat sees, the table spec, the batched
                     engine, display, agents, the AEC/Parallel envs and the single-seat Gymnasium env,
                     its self-play VecEnv, privileged critic, card counting and torch expanders
      octopus/       the octopus fishing game: rules, observation, env, agents, arena, replays, play,
                     web page, its self-play VecEnv and odds
    envs/          importing it registers the envs with Gymnasium and PettingZoo
    integrations/  the games in other libraries' shapes: mask adapters, SB3 for wrapped envs, OpenSpiel
    apps/          the arena, card, replays, human play, demo and browser app, each once for any game

Importing the package loads no RL library: the names below that need PettingZoo, Gymnasium,
numba or torch are imported on first use (PEP 562). It registers `miaui_env/Miaui-v0` with
Gymnasium and `miaui_env/miaui-v0` (AEC and Parallel) and the octopus game's `miaui_env/octopus-v0`
(AEC) with PettingZoo 1.27 and later, as Gymnasium's convention asks (`import miaui_env;
gymnasium.make("miaui_env/Miaui-v0")`), yet without importing either: the ids join a library's
registry when it is imported (miaui_env/registration.py). `gymnasium.make("miaui_env.envs:miaui_env/Miaui-v0")`
works in a fresh interpreter too.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from miaui_env import _interrupts  # noqa: F401  # first: Ctrl-C while one of our commands starts ends it in one line
from miaui_env.core.errors import DeckError, IllegalActionError, InvalidConfigError
from miaui_env.games.miaui import GYMNASIUM_ID, PETTINGZOO_ID
from miaui_env.games.miaui.cards import DEFAULT_DECK, FishCard, FishKind
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT, OBSERVATION_VERSION, STATE_LAYOUT
from miaui_env.games.miaui.rules import GameConfig, RoundRecord
from miaui_env.games.miaui.spec import TableKwargs, TableSpec
from miaui_env.registration import register_envs

if TYPE_CHECKING:
    from miaui_env.games.miaui.env import MiauiParallelEnv, env, parallel_env, raw_env
    from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv
    from miaui_env.games.miaui.single_agent import MiauiSingleAgentEnv
    from miaui_env.games.miaui.vector import VectorMiaui
    from miaui_env.games.octopus.env import octopus_env

__version__ = "0.2.0"
register_envs()

_LAZY = {
    "env": "miaui_env.games.miaui.env",
    "parallel_env": "miaui_env.games.miaui.env",
    "raw_env": "miaui_env.games.miaui.env",
    "MiauiParallelEnv": "miaui_env.games.miaui.env",
    "MiauiSingleAgentEnv": "miaui_env.games.miaui.single_agent",
    "VectorMiaui": "miaui_env.games.miaui.vector",
    "MiauiSelfPlayVecEnv": "miaui_env.games.miaui.selfplay",
    "octopus_env": "miaui_env.games.octopus.env",  # the octopus game's AEC env (`miaui_env.games.octopus.env`)
}


def __getattr__(name: str) -> Any:
    """The envs, engine and VecEnv, imported on first use (PEP 562)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'miaui_env' has no attribute {name!r}")


__all__ = [
    "DEFAULT_DECK",
    "GYMNASIUM_ID",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_VERSION",
    "PETTINGZOO_ID",
    "STATE_LAYOUT",
    "DeckError",
    "FishCard",
    "FishKind",
    "GameConfig",
    "IllegalActionError",
    "InvalidConfigError",
    "MiauiParallelEnv",
    "MiauiSelfPlayVecEnv",
    "MiauiSingleAgentEnv",
    "RoundRecord",
    "TableKwargs",
    "TableSpec",
    "VectorMiaui",
    "env",
    "octopus_env",
    "parallel_env",
    "raw_env",
]
