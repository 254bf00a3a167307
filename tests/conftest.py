"""Fixtures for every test file: the browser app's `app` and `client` (tests/web_helpers.py), which
the Miaui and the octopus page tests share, and the game registry as each test found it."""

import pytest

import miaui_env.games

pytest_plugins = ("web_helpers",)


@pytest.fixture(autouse=True)
def registry_as_found():
    """A game a test (or a docs snippet) registers is gone after it: the next test sees the built-in games."""
    miaui_env.games.game_names()  # the built-in games and entry points, found once
    found = dict(miaui_env.games._registry)
    yield
    miaui_env.games._registry.clear()
    miaui_env.games._registry.update(found)
