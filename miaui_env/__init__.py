"""Miaui RL: the Miaui card game as a PettingZoo environment, with an exact pure-Python rules engine.

Importing the package loads no RL library: the rules (`miaui_env.rules`), the observation
(`miaui_env.observation`) and the cards stand alone, and the names below that need PettingZoo or
Gymnasium (`env`, `parallel_env`, `raw_env`, `MiauiParallelEnv`) are imported on first use. The
Gymnasium env `miaui_env/Miaui-v0` is registered as soon as Gymnasium is imported, before or after
this package, and so are the AEC and Parallel envs `miaui_env/miaui-v0` in PettingZoo's registry
(PettingZoo 1.27 and later: `pettingzoo.make("aec", "miaui_env/miaui-v0", num_players=5)`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from miaui_env.cards import DEFAULT_DECK, DeckError, FishCard, FishKind
from miaui_env.observation import OBSERVATION_LAYOUT, OBSERVATION_VERSION, STATE_LAYOUT
from miaui_env.rules import GameConfig, IllegalActionError, InvalidConfigError, RoundRecord
from miaui_env.settings import Settings

if TYPE_CHECKING:
    from miaui_env.env import MiauiParallelEnv, env, parallel_env, raw_env

__version__ = "0.1.0"
GYMNASIUM_ID = "miaui_env/Miaui-v0"
PETTINGZOO_ID = "miaui_env/miaui-v0"

_LAZY = {"env": "miaui_env.env", "parallel_env": "miaui_env.env", "raw_env": "miaui_env.env", "MiauiParallelEnv": "miaui_env.env"}


def __getattr__(name: str) -> Any:
    """The PettingZoo envs, imported on first use (PEP 562)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'miaui_env' has no attribute {name!r}")


class _Package(ModuleType):
    """`miaui_env.env` stays the AEC env constructor: importing the submodule `miaui_env.env` would
    otherwise bind the module to that name (the import system sets it on the package), and the
    lazy `__getattr__` above would never be asked again. The module itself is in sys.modules."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "env" and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def _register_with_gymnasium() -> None:
    from gymnasium.envs.registration import register, registry

    if GYMNASIUM_ID not in registry:
        register(id=GYMNASIUM_ID, entry_point="miaui_env.single_agent:MiauiSingleAgentEnv")


def _register_with_pettingzoo() -> None:
    import pettingzoo

    if not hasattr(pettingzoo, "register"):  # registries came with PettingZoo 1.27
        return
    for kind, entry_point in (("aec", "miaui_env.env:env"), ("parallel", "miaui_env.env:parallel_env")):
        if PETTINGZOO_ID not in getattr(pettingzoo, f"{kind}_registry"):
            pettingzoo.register(kind, PETTINGZOO_ID, entry_point=entry_point)


_REGISTRATIONS = {"gymnasium": _register_with_gymnasium, "pettingzoo": _register_with_pettingzoo}


class _RegisterOnImport(importlib.abc.MetaPathFinder):
    """Registers the envs right after Gymnasium or PettingZoo finishes importing (a post-import
    hook), so that `gymnasium.make` and `pettingzoo.make` find them without this package importing
    either library itself."""

    def find_spec(self, fullname: str, path: Any, target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _REGISTRATIONS or fullname in sys.modules:
            return None
        # The real finders locate the library (this finder steps aside while they look).
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        loader, execute, register = spec.loader, spec.loader.exec_module, _REGISTRATIONS[fullname]

        def exec_module(module: ModuleType) -> None:
            execute(module)
            register()

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


for _library, _register in _REGISTRATIONS.items():
    if _library in sys.modules:
        _register()
if not any(isinstance(finder, _RegisterOnImport) for finder in sys.meta_path):
    sys.meta_path.insert(0, _RegisterOnImport())

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
    "RoundRecord",
    "Settings",
    "env",
    "parallel_env",
    "raw_env",
]
