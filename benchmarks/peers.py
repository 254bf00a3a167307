"""The speed peers' imports, refused by name when the `[bench]` extra is missing."""

from __future__ import annotations

import importlib
from types import ModuleType


def peer(module: str, needs: str) -> ModuleType:
    """Import a peer's module, or stop with what to install instead of a traceback."""
    try:
        return importlib.import_module(module)
    except ImportError as missing:
        raise SystemExit(f"the speed peer {module} needs {needs}: pip install 'miaui-rl[bench]' ({missing})") from None
