"""Fixtures for every test file: the browser app's `app` and `client` (tests/web_helpers.py), which
the Miaui and the octopus page tests share, and the game registry as each test found it.

The games of tests/games/ (test-only games, each one module whose `GAME` is its registry entry) are
registered here, before any test module is collected, so every test parametrised over the registry
plays them too. `helpers.environment_with_test_games()` names them to a command run in a subprocess."""

import importlib
import sys
from pathlib import Path

import pytest

import miaui_env.core.registry
import miaui_env.games

TEST_GAMES = Path(__file__).parent / "games"
sys.path.insert(0, str(TEST_GAMES))
for module in sorted(TEST_GAMES.glob("*.py")):
    miaui_env.games.register(importlib.import_module(module.stem).GAME)

pytest_plugins = ("web_helpers",)


@pytest.fixture(autouse=True)
def registry_as_found():
    """A game a test (or a docs snippet) registers is gone after it: the next test sees the built-in games."""
    miaui_env.games.game_names()  # the built-in games and entry points, found once
    found = dict(miaui_env.core.registry._registry)
    yield
    miaui_env.core.registry._registry.clear()
    miaui_env.core.registry._registry.update(found)
