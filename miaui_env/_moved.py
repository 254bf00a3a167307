"""The module paths of 0.1, kept for one version: each old module is an alias of its new room.

`from miaui_env.sb3 import MiauiSelfPlayVecEnv` and `python -m miaui_env.arena` still work in
0.2 and warn (DeprecationWarning); the aliases go in 0.3. The table is the map of the move.
"""

from __future__ import annotations

import importlib
import sys
import warnings

MOVED = {
    "miaui_env.sb3": "miaui_env.integrations.sb3",
    "miaui_env.privileged": "miaui_env.integrations.privileged",  # 0.1 checkpoints pickle its policy class
    "miaui_env.rules": "miaui_env.game.rules",
    "miaui_env.observation": "miaui_env.observe.observation",
    "miaui_env.arena": "miaui_env.apps.arena",
    "miaui_env.play": "miaui_env.apps.play",
    "miaui_env.demo": "miaui_env.apps.demo",
    "miaui_env.replay": "miaui_env.apps.replay",
    "miaui_env.web": "miaui_env.apps.web",
}


def alias(old: str) -> None:
    """Make the module `old` (being imported, or run with -m) stand for its new home, with a warning."""
    new = MOVED[old]
    main_spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if main_spec is not None and main_spec.name == old:  # `python -m <old>`: a person reads this (FutureWarning shows)
        warnings.warn(f"{old} moved to {new}: run `python -m {new}` (the old path goes in miaui-rl 0.3)", FutureWarning, stacklevel=2)
        importlib.import_module(new).main()
        return
    warnings.warn(f"{old} moved to {new}; the old path goes in miaui-rl 0.3", DeprecationWarning, stacklevel=3)
    sys.modules[old] = importlib.import_module(new)
