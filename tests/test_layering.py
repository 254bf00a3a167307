"""Imports flow one way: what each module loads, checked in a fresh interpreter.

`lint-imports` (the contracts in pyproject.toml) checks the import statements; this checks what
importing a module really loads, lazy imports and third-party chains included.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

ROOT = Path(__file__).parent.parent
RL_LIBRARIES = {"pettingzoo", "gymnasium", "torch", "stable_baselines3", "sb3_contrib", "ray"}
SB3 = {"stable_baselines3", "sb3_contrib"}

NOT_LOADED = [
    ("miaui_env", RL_LIBRARIES | {"numba"}),
    ("miaui_env.game.cards", RL_LIBRARIES | {"numba"}),
    ("miaui_env.game.rules", RL_LIBRARIES | {"numba"}),
    ("miaui_env.observe.observation", RL_LIBRARIES | {"numba"}),
    ("miaui_env.observe.compact", RL_LIBRARIES | {"numba"}),
    ("miaui_env.spec", RL_LIBRARIES | {"numba"}),
    ("miaui_env.game.saved_state", RL_LIBRARIES | {"numba"}),
    ("miaui_env.observe.belief", RL_LIBRARIES | {"numba"}),
    ("miaui_env.octopus.rules", RL_LIBRARIES | {"numba"}),
    ("miaui_env.octopus.observation", RL_LIBRARIES | {"numba"}),
    ("miaui_env.octopus", RL_LIBRARIES | {"numba"}),
    ("miaui_env.aec", {"numba", "torch", "ray"} | SB3),  # both games' env plumbing: PettingZoo, not the batched engine
    ("miaui_env.octopus.env", {"numba", "torch", "ray"} | SB3),  # the octopus game has no compiled path to load
    ("miaui_env.agents.search", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.vector", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.agents.heuristics", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.apps.arena", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.envs.miaui", {"torch", "ray"} | SB3),  # numba it needs: the envs play on the compiled engine
    ("miaui_env.apps.web", {"flask", "waitress", "pettingzoo", "torch", "ray"} | SB3),  # Flask loads when the app is made
    ("training.config", {"torch", "ray"} | SB3),
    ("training.rllib_selfplay", SB3),
]


def loaded_after_import(module: str) -> set[str]:
    """Top-level packages in sys.modules after importing `module` in a new interpreter."""
    code = f"import json, sys, {module}; print(json.dumps(sorted({{name.split('.')[0] for name in sys.modules}})))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize(("module", "forbidden"), NOT_LOADED, ids=[module for module, _ in NOT_LOADED])
def test_importing_a_module_loads_nothing_above_it(module, forbidden):
    assert loaded_after_import(module) & forbidden == set()


def test_the_envs_errors_are_one_set_that_users_import_from_the_miaui_env():
    import miaui_env.aec
    import miaui_env.envs.miaui

    for name in ("ResetOptionError", "ResetOptionWarning", "UnknownAgentError", "_CheckedOrderEnforcingWrapper"):
        assert getattr(miaui_env.envs.miaui, name) is getattr(miaui_env.aec, name), name


def test_the_check_sees_what_a_module_loads():
    # The env needs PettingZoo and Gymnasium: a check that could never see a library would pass anyway.
    assert {"pettingzoo", "gymnasium"} <= loaded_after_import("miaui_env.envs.miaui")


def test_the_envs_room_registers_its_gymnasium_env_for_a_fresh_interpreter():
    # Gymnasium's "module:id" form imports the module before it looks the id up.
    code = "import gymnasium; print(type(gymnasium.make('miaui_env.envs:miaui_env/Miaui-v0', num_players=4).unwrapped).__name__)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "MiauiSingleAgentEnv", done.stderr
    for order in ("import miaui_env.envs, gymnasium", "import gymnasium, miaui_env.envs", "import miaui_env, gymnasium; miaui_env.env"):
        code = f"{order}; print('miaui_env/Miaui-v0' in gymnasium.envs.registry)"
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.stdout.strip() == "True", (order, done.stderr)


@pytest.mark.parametrize("order", ["import miaui_env, gymnasium, pettingzoo", "import gymnasium, pettingzoo, miaui_env"])
def test_importing_the_package_registers_every_id_whichever_comes_first(order):
    # Gymnasium's convention (`import ale_py`): the package's import registers its ids, here without loading either library.
    makes = (
        "type(gymnasium.make('miaui_env/Miaui-v0', num_players=4).unwrapped).__name__",
        "type(pettingzoo.make('aec', 'miaui_env/octopus-v0', num_players=3)).__name__",
        "type(pettingzoo.make('parallel', 'miaui_env/miaui-v0', num_players=5)).__name__",
    )
    done = subprocess.run(
        [sys.executable, "-c", f"{order}; print([{', '.join(makes)}])"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.stdout.strip() == "['MiauiSingleAgentEnv', '_CheckedOrderEnforcingWrapper', 'MiauiParallelEnv']", done.stderr


def test_the_envs_room_registers_its_pettingzoo_envs():
    make = "[type(pettingzoo.make(kind, 'miaui_env/miaui-v0', num_players=5)).__name__ for kind in ('aec', 'parallel')]"
    orders = ("import miaui_env.envs, pettingzoo", "import pettingzoo, miaui_env.envs")
    orders += ("import gymnasium, miaui_env.envs.miaui, pettingzoo",)
    for order in orders:
        done = subprocess.run([sys.executable, "-c", f"{order}; print({make})"], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.stdout.strip() == "['_CheckedOrderEnforcingWrapper', 'MiauiParallelEnv']", (order, done.stderr)


def test_the_package_attribute_env_is_the_constructor():
    code = "import miaui_env.envs.miaui, miaui_env; print(callable(miaui_env.env) and miaui_env.env.__name__ == 'env')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "True", done.stderr


def old_paths():
    """Every module 0.1 had at the package's top level (read from the tree of 0.1's layout, not from MOVED)."""
    return [
        "adapters",
        "arena",
        "belief",
        "cards",
        "cli",
        "compact",
        "compact_torch",
        "demo",
        "env",
        "files",
        "observation",
        "picture",
        "play",
        "privileged",
        "render",
        "replay",
        "rules",
        "saved_state",
        "sb3",
        "seeding",
        "settings",
        "single_agent",
        "web",
    ]


OLD_PATHS = old_paths()


@pytest.mark.parametrize("old", OLD_PATHS)
def test_the_old_module_paths_are_deprecated_aliases_of_their_new_rooms(old):
    code = (
        "import warnings, importlib; warnings.simplefilter('error', DeprecationWarning)\n"
        f"try:\n    importlib.import_module('miaui_env.{old}')\nexcept DeprecationWarning as w:\n    print(w)\n"
        f"warnings.simplefilter('ignore')\nfrom miaui_env._moved import MOVED\n"
        f"print(importlib.import_module('miaui_env.{old}') is importlib.import_module(MOVED['miaui_env.{old}']))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    warning, same = done.stdout.strip().splitlines()
    assert f"miaui_env.{old} moved to miaui_env." in warning and same == "True", done.stderr


def test_an_old_command_path_still_runs_its_command():
    done = subprocess.run([sys.executable, "-m", "miaui_env.arena", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "--candidate" in done.stdout, done.stderr
    assert "miaui_env.arena moved to miaui_env.apps.arena" in done.stderr


def test_the_old_names_warn_and_stand_for_the_new():
    with pytest.warns(DeprecationWarning, match="TableSpec"):
        from miaui_env import Settings
    from miaui_env import TableSpec

    assert Settings is TableSpec


def test_the_old_settings_attribute_warns_and_is_the_table_spec():
    import miaui_env
    from miaui_env.vector import VectorMiaui

    for made in (miaui_env.raw_env(num_players=5, view="recall"), VectorMiaui(2, num_players=5, view="recall")):
        with pytest.warns(DeprecationWarning, match="table_spec"):
            assert made.settings is made.table_spec


def test_a_module_of_an_old_package_is_the_new_module_not_a_second_copy():
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "import miaui_env.web.app as old, miaui_env.web.games as old_games\n"
        "import miaui_env.apps.web.app as new, miaui_env.apps.web.games as games\n"
        "import miaui_env.web.views as views, miaui_env.apps.web.routes as routes\n"  # 0.1's views are the routes now
        "print(old is new and old_games is games and old.GameStore is games.GameStore and views is routes)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "True", done.stderr
