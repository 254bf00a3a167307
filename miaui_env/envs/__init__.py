"""The envs, registered: Miaui's PettingZoo AEC and Parallel envs (`miaui_env.games.miaui.env`, whose
docstring is the env card), one seat against fixed opponents as a Gymnasium env
(`miaui_env.games.miaui.single_agent`), and the octopus game's AEC env (`miaui_env.games.octopus.env`).

Importing `miaui_env` registers `miaui_env/Miaui-v0` with Gymnasium and `miaui_env/miaui-v0`
(AEC and Parallel) and `miaui_env/octopus-v0` with PettingZoo 1.27 and later
(miaui_env/registration.py), so all of these work in a fresh interpreter:

    import miaui_env; gymnasium.make("miaui_env/Miaui-v0", num_players=4)
    gymnasium.make("miaui_env.envs:miaui_env/Miaui-v0", num_players=4)
    import miaui_env; pettingzoo.make("aec", "miaui_env/miaui-v0", num_players=5)
    import miaui_env; pettingzoo.make("aec", "miaui_env/octopus-v0", num_players=3)   # the octopus game
"""

import gymnasium
import pettingzoo

from miaui_env.games.miaui import PETTINGZOO_ID
from miaui_env.games.miaui.env import MiauiParallelEnv, env, parallel_env, raw_env
from miaui_env.games.miaui.single_agent import ENV_ID, MiauiSingleAgentEnv
from miaui_env.games.octopus import PETTINGZOO_ID as OCTOPUS_PETTINGZOO_ID
from miaui_env.registration import register_gymnasium_ids, register_pettingzoo_ids

register_gymnasium_ids(gymnasium)  # `import miaui_env` has hooked both already; this makes it plain
register_pettingzoo_ids(pettingzoo)

__all__ = ["ENV_ID", "OCTOPUS_PETTINGZOO_ID", "PETTINGZOO_ID", "MiauiParallelEnv", "MiauiSingleAgentEnv", "env", "parallel_env", "raw_env"]
