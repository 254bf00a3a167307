"""Miaui RL: the Miaui card game for reinforcement learning, on an exact pure-Python rules engine.

The package is a house of rooms, each importing only from the rooms listed before it:

    game/          cards, rules, saved states, the seed tree        (stdlib + numpy)
    observe/       what a seat may see (R11): layout, visibility tables, encoder, compact codes, belief
    spec           TableSpec: players, variants, view, reward, dtype, taken by every layer
    vector/        the batched engine, proven identical to game/ + observe/
    display/       text and pictures of a table, one observation decoder for both
    agents/        the agent protocol, baselines, trained policies, search, agent loading
    envs/          PettingZoo AEC + Parallel, the single-seat Gymnasium env (importing it registers them)
    integrations/  the SB3 VecEnvs, the privileged critic, adapters, torch expanders
    apps/          arena, replays, human play, demo, the browser app, run files, CLI conventions

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
from miaui_env.game.cards import DEFAULT_DECK, FishCard, FishKind
from miaui_env.game.rules import GameConfig, RoundRecord
from miaui_env.observe.observation import OBSERVATION_LAYOUT, OBSERVATION_VERSION, STATE_LAYOUT
from miaui_env.registration import GYMNASIUM_ID, PETTINGZOO_ID, register_envs
from miaui_env.spec import TableKwargs, TableSpec

if TYPE_CHECKING:
    from miaui_env.envs.miaui import MiauiParallelEnv, env, parallel_env, raw_env
    from miaui_env.envs.single_agent import MiauiSingleAgentEnv
    from miaui_env.games.octopus.env import octopus_env
    from miaui_env.integrations.sb3 import MiauiSelfPlayVecEnv
    from miaui_env.vector import VectorMiaui

__version__ = "0.2.0"
register_envs()

_LAZY = {
    "env": "miaui_env.envs.miaui",
    "parallel_env": "miaui_env.envs.miaui",
    "raw_env": "miaui_env.envs.miaui",
    "MiauiParallelEnv": "miaui_env.envs.miaui",
    "MiauiSingleAgentEnv": "miaui_env.envs.single_agent",
    "VectorMiaui": "miaui_env.vector",
    "MiauiSelfPlayVecEnv": "miaui_env.integrations.sb3",
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
