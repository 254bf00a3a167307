"""The module paths of 0.1, kept for one version: each old module is an alias of its new room.

`from miaui_env.sb3 import MiauiSelfPlayVecEnv` and `python -m miaui_env.arena` still work in
0.2 and warn (DeprecationWarning); the aliases go in 0.3. The table is the map of the move: every
module 0.1 had at the package's top level. The commands (`python -m miaui_env.arena`, ...) keep a
file each, which `-m` needs; the rest, and the modules of an old package (`miaui_env.web.app`), are
found by `OLD_PATHS`, a finder placed first on `sys.meta_path` when the package is imported.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

MOVED = {
    "miaui_env.adapters": "miaui_env.integrations.adapters",
    "miaui_env.arena": "miaui_env.apps.arena",
    "miaui_env.belief": "miaui_env.observe.belief",
    "miaui_env.cards": "miaui_env.game.cards",
    "miaui_env.cli": "miaui_env.apps.cli",
    "miaui_env.compact": "miaui_env.observe.compact",
    "miaui_env.compact_torch": "miaui_env.integrations.compact_torch",
    "miaui_env.demo": "miaui_env.apps.demo",
    "miaui_env.env": "miaui_env.envs.miaui",
    "miaui_env.files": "miaui_env.apps.files",
    "miaui_env.observation": "miaui_env.observe.observation",
    "miaui_env.picture": "miaui_env.display.picture",
    "miaui_env.play": "miaui_env.apps.play",
    "miaui_env.privileged": "miaui_env.integrations.privileged",  # 0.1 checkpoints (the shipped ones too) pickle its policy class
    "miaui_env.render": "miaui_env.display.text",
    "miaui_env.replay": "miaui_env.apps.replay",
    "miaui_env.rules": "miaui_env.game.rules",
    "miaui_env.saved_state": "miaui_env.game.saved_state",
    "miaui_env.sb3": "miaui_env.integrations.sb3",
    "miaui_env.seeding": "miaui_env.game.seeding",
    "miaui_env.settings": "miaui_env.spec",  # Settings is TableSpec now (the old names warn there)
    "miaui_env.single_agent": "miaui_env.envs.single_agent",
    "miaui_env.web": "miaui_env.apps.web",
    "miaui_env.web.views": "miaui_env.apps.web.routes",  # its routes were 0.1's views
}
COMMANDS = ("miaui_env.arena", "miaui_env.play", "miaui_env.demo", "miaui_env.replay", "miaui_env.web")  # -m runs files only


def new_path(old: str) -> str | None:
    """Where the 0.1 module `old` lives now (a module of an old package too: `miaui_env.web.app`); None if it did not move."""
    if old in MOVED:
        return MOVED[old]
    parent = old.rpartition(".")[0]
    while parent and parent not in MOVED:
        parent = parent.rpartition(".")[0]
    return MOVED[parent] + old[len(parent) :] if parent else None


def alias(old: str) -> None:
    """Make the module `old` (being imported, or run with -m) stand for its new home, with a warning."""
    new = new_path(old)
    assert new is not None, old  # the finder and the command files ask for moved paths only
    main_spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if main_spec is not None and main_spec.name == old:  # `python -m <old>`: a person reads this (FutureWarning shows)
        warnings.warn(f"{old} moved to {new}: run `python -m {new}` (the old path goes in miaui-rl 0.3)", FutureWarning, stacklevel=2)
        importlib.import_module(new).main()
        return
    warnings.warn(f"{old} moved to {new}; the old path goes in miaui-rl 0.3", DeprecationWarning, stacklevel=3)
    sys.modules[old] = importlib.import_module(new)


class _OldPathFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a 0.1 path with no file of its own, before the file finders do (which would load a
    moved package's modules a second time under the old name); loading it makes it an alias."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        """A spec for a moved 0.1 path; None for anything else (other finders decide)."""
        if not fullname.startswith("miaui_env.") or fullname in COMMANDS:
            return None
        new = new_path(fullname)
        if new is None or importlib.util.find_spec(new) is None:
            return None
        return ModuleSpec(fullname, self)

    def exec_module(self, module: ModuleType) -> None:
        """Put the new room in the old path's place (the import system hands back what sys.modules holds)."""
        alias(module.__name__)


OLD_PATHS = _OldPathFinder()
