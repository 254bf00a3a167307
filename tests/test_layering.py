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
from helpers import OLD_MODULES

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

ROOT = Path(__file__).parent.parent
RL_LIBRARIES = {"pettingzoo", "gymnasium", "torch", "stable_baselines3", "sb3_contrib", "ray"}
SB3 = {"stable_baselines3", "sb3_contrib"}

NOT_LOADED = [
    ("miaui_env", RL_LIBRARIES | {"numba"}),
    ("miaui_env.games.miaui.cards", RL_LIBRARIES | {"numba"}),
    ("miaui_env.games.miaui.rules", RL_LIBRARIES | {"numba"}),
    ("miaui_env.games.miaui.observation", RL_LIBRARIES | {"numba"}),
    ("miaui_env.games.miaui.compact", RL_LIBRARIES | {"numba"}),
    ("miaui_env.games.miaui.spec", RL_LIBRARIES | {"numba"}),
    ("miaui_env.games.miaui.saved_state", RL_LIBRARIES | {"numba"}),
    ("miaui_env.games.miaui.belief", RL_LIBRARIES | {"numba"}),
    ("miaui_env.games.octopus.rules", RL_LIBRARIES | {"numba"}),
    ("miaui_env.games.octopus.observation", RL_LIBRARIES | {"numba"}),
    ("miaui_env.games.octopus", RL_LIBRARIES | {"numba"}),
    ("miaui_env.core.aec", {"numba", "torch", "ray"} | SB3),  # both games' env plumbing: PettingZoo, not the batched engine
    ("miaui_env.games.octopus.env", {"numba", "torch", "ray"} | SB3),  # the octopus game has no compiled path to load
    ("miaui_env.games.miaui.agents.search", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.games.miaui.vector", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.games.miaui.agents.heuristics", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.apps.arena", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.games.miaui.env", {"torch", "ray"} | SB3),  # numba it needs: the envs play on the compiled engine
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
    import miaui_env.core.aec
    import miaui_env.games.miaui.env

    for name in ("ResetOptionError", "ResetOptionWarning", "UnknownAgentError", "_CheckedOrderEnforcingWrapper"):
        assert getattr(miaui_env.games.miaui.env, name) is getattr(miaui_env.core.aec, name), name


def test_the_check_sees_what_a_module_loads():
    # The env needs PettingZoo and Gymnasium: a check that could never see a library would pass anyway.
    assert {"pettingzoo", "gymnasium"} <= loaded_after_import("miaui_env.games.miaui.env")


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
    orders += ("import gymnasium, miaui_env.games.miaui.env, pettingzoo",)
    for order in orders:
        done = subprocess.run([sys.executable, "-c", f"{order}; print({make})"], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.stdout.strip() == "['_CheckedOrderEnforcingWrapper', 'MiauiParallelEnv']", (order, done.stderr)


def test_the_package_attribute_env_is_the_constructor():
    code = "import miaui_env.games.miaui.env, miaui_env; print(callable(miaui_env.env) and miaui_env.env.__name__ == 'env')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "True", done.stderr


@pytest.mark.parametrize("old", [*OLD_MODULES, "miaui_env.web.views", "miaui_env.web.app"])
def test_the_0_1_module_paths_are_gone(old):
    # 0.2 kept them as deprecated aliases; 0.3 removed them (docs/errors.md, "Upgrading to 0.3")
    code = f"import importlib, sys\ntry:\n    importlib.import_module({old!r})\nexcept ModuleNotFoundError as gone:\n    print(gone)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "No module named 'miaui_env." in done.stdout, (done.stdout, done.stderr)


def test_the_0_1_names_are_gone():
    import miaui_env
    from miaui_env.games.miaui.vector import VectorMiaui

    for name in ("Settings", "SettingsKwargs"):
        assert not hasattr(miaui_env, name) and not hasattr(miaui_env.games.miaui.spec, name)
    for made in (miaui_env.raw_env(num_players=5, view="recall"), VectorMiaui(2, num_players=5, view="recall")):
        assert not hasattr(made, "settings") and made.table_spec.num_players == 5
