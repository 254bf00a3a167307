"""The envs: PettingZoo AEC and Parallel (`miaui`, whose docstring is the env card) and one seat
against fixed opponents as a Gymnasium env (`single_agent`).

Importing this package registers `miaui_env/Miaui-v0` with Gymnasium and `miaui_env/miaui-v0`
(AEC and Parallel) with PettingZoo 1.27 and later, so both of these work in a fresh interpreter:

    gymnasium.make("miaui_env.envs:miaui_env/Miaui-v0", num_players=4)
    import miaui_env.envs; pettingzoo.make("aec", "miaui_env/miaui-v0", num_players=5)
    import miaui_env.envs; pettingzoo.make("aec", "miaui_env/octopus-v0", num_players=3)   # the octopus game
"""

import gymnasium
import pettingzoo

from miaui_env.envs.miaui import MiauiParallelEnv, env, parallel_env, raw_env
from miaui_env.envs.single_agent import ENV_ID, MiauiSingleAgentEnv

PETTINGZOO_ID = "miaui_env/miaui-v0"
OCTOPUS_PETTINGZOO_ID = "miaui_env/octopus-v0"  # the octopus game (miaui_env.octopus.env), AEC only: its turns are sequential

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="miaui_env.envs.single_agent:MiauiSingleAgentEnv")
if hasattr(pettingzoo, "register"):  # registries came with PettingZoo 1.27
    for _kind, _entry_point in (("aec", "miaui_env.envs.miaui:env"), ("parallel", "miaui_env.envs.miaui:parallel_env")):
        if PETTINGZOO_ID not in getattr(pettingzoo, f"{_kind}_registry"):
            pettingzoo.register(_kind, PETTINGZOO_ID, entry_point=_entry_point)
    if OCTOPUS_PETTINGZOO_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", OCTOPUS_PETTINGZOO_ID, entry_point="miaui_env.octopus.env:env")

__all__ = ["ENV_ID", "OCTOPUS_PETTINGZOO_ID", "PETTINGZOO_ID", "MiauiParallelEnv", "MiauiSingleAgentEnv", "env", "parallel_env", "raw_env"]
