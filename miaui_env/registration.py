"""The envs' ids in Gymnasium's and PettingZoo's registries, from `import miaui_env` alone.

Gymnasium's convention is that importing a package registers its ids (`import ale_py`), but
importing `miaui_env` must stay light: every room of the package (the pure engine too) imports it
first, and it loads no RL library. So the ids are registered the moment both can be cheap: at once
if Gymnasium or PettingZoo is already imported, otherwise right after it is (a post-import hook on
`sys.meta_path` that wraps only that library's loader). Registering names an entry point string;
the env modules load when an env is made.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

from miaui_env.games.miaui import GYMNASIUM_ID, PETTINGZOO_ID
from miaui_env.games.octopus import PETTINGZOO_ID as OCTOPUS_PETTINGZOO_ID


def register_gymnasium_ids(gymnasium: ModuleType) -> None:
    """`miaui_env/Miaui-v0`: one seat against fixed opponents (miaui_env.games.miaui.single_agent)."""
    if GYMNASIUM_ID not in gymnasium.registry:
        gymnasium.register(id=GYMNASIUM_ID, entry_point="miaui_env.games.miaui.single_agent:MiauiSingleAgentEnv")


def register_pettingzoo_ids(pettingzoo: ModuleType) -> None:
    """`miaui_env/miaui-v0` (AEC and Parallel) and `miaui_env/octopus-v0` (AEC), on PettingZoo 1.27 and later."""
    if not hasattr(pettingzoo, "register"):  # registries came with PettingZoo 1.27
        return
    entries = (
        ("aec", PETTINGZOO_ID, "miaui_env.games.miaui.env:env"),
        ("parallel", PETTINGZOO_ID, "miaui_env.games.miaui.env:parallel_env"),
        ("aec", OCTOPUS_PETTINGZOO_ID, "miaui_env.games.octopus.env:env"),
    )
    for kind, env_id, entry_point in entries:
        if env_id not in getattr(pettingzoo, f"{kind}_registry"):
            pettingzoo.register(kind, env_id, entry_point=entry_point)


REGISTRARS: dict[str, Callable[[ModuleType], None]] = {"gymnasium": register_gymnasium_ids, "pettingzoo": register_pettingzoo_ids}


class _RegisterAfterLoading(importlib.abc.Loader):
    """A library's own loader, followed by our registration once its module is whole."""

    def __init__(self, loader: importlib.abc.Loader, register: Callable[[ModuleType], None]):
        self.loader, self.register = loader, register

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        """What the library's loader creates."""
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        """The library's module runs as it always does, then our ids join its registry."""
        self.loader.exec_module(module)
        self.register(module)


class RegisterOnImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for Gymnasium and PettingZoo it asks the finders after it and wraps the loader."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        """The library's own spec with its loader wrapped; None for every other module."""
        register = REGISTRARS.get(fullname)
        if register is None:
            return None
        others = [finder for finder in sys.meta_path if finder is not self]
        for finder in others:
            spec = finder.find_spec(fullname, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None and spec.loader is not None:
                spec.loader = _RegisterAfterLoading(spec.loader, register)
                return spec
        return None


REGISTER_ON_IMPORT = RegisterOnImport()


def register_envs() -> None:
    """Register the ids with each library now if it is imported, and hook it to register when it is."""
    for name, register in REGISTRARS.items():
        module = sys.modules.get(name)
        if module is not None:
            register(module)
    if REGISTER_ON_IMPORT not in sys.meta_path:
        sys.meta_path.insert(0, REGISTER_ON_IMPORT)
