"""Miaui RL: the Miaui card game as a PettingZoo environment, with an exact pure-Python rules engine."""

from gymnasium.envs.registration import register

from miaui_env.cards import DEFAULT_DECK, DeckError, FishCard, FishKind
from miaui_env.env import MiauiParallelEnv, env, parallel_env, raw_env
from miaui_env.observation import OBSERVATION_LAYOUT, OBSERVATION_VERSION, STATE_LAYOUT
from miaui_env.rules import GameConfig, IllegalActionError, InvalidConfigError, RoundRecord

__version__ = "0.1.0"

register(id="miaui_env/Miaui-v0", entry_point="miaui_env.single_agent:MiauiSingleAgentEnv")

__all__ = [
    "DEFAULT_DECK",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_VERSION",
    "STATE_LAYOUT",
    "DeckError",
    "FishCard",
    "FishKind",
    "GameConfig",
    "IllegalActionError",
    "InvalidConfigError",
    "MiauiParallelEnv",
    "RoundRecord",
    "env",
    "parallel_env",
    "raw_env",
]
