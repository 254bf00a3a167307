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

ROOT = Path(__file__).parent.parent
RL_LIBRARIES = {"pettingzoo", "gymnasium", "torch", "stable_baselines3", "sb3_contrib", "ray"}
SB3 = {"stable_baselines3", "sb3_contrib"}

NOT_LOADED = [
    ("miaui_env", RL_LIBRARIES | {"numba"}),
    ("miaui_env.cards", RL_LIBRARIES | {"numba"}),
    ("miaui_env.rules", RL_LIBRARIES | {"numba"}),
    ("miaui_env.observation", RL_LIBRARIES | {"numba"}),
    ("miaui_env.compact", RL_LIBRARIES | {"numba"}),
    ("miaui_env.settings", RL_LIBRARIES | {"numba"}),
    ("miaui_env.saved_state", RL_LIBRARIES | {"numba"}),
    ("miaui_env.belief", RL_LIBRARIES | {"numba"}),
    ("miaui_env.agents.search", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.vector", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.agents.heuristics", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.arena", {"pettingzoo", "torch", "ray"} | SB3),
    ("miaui_env.env", {"torch", "ray"} | SB3),  # numba it needs: the envs play on the compiled engine
    ("miaui_env.web", {"flask", "waitress", "pettingzoo", "torch", "ray"} | SB3),  # Flask loads when the app is made
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


def test_the_check_sees_what_a_module_loads():
    # The env needs PettingZoo and Gymnasium: a check that could never see a library would pass anyway.
    assert {"pettingzoo", "gymnasium"} <= loaded_after_import("miaui_env.env")


def test_the_package_registers_its_gymnasium_env_whichever_is_imported_first():
    for order in ("import miaui_env, gymnasium", "import gymnasium, miaui_env"):
        code = f"{order}; print('miaui_env/Miaui-v0' in gymnasium.envs.registry)"
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.stdout.strip() == "True", (order, done.stderr)


def test_the_package_registers_its_pettingzoo_envs_whichever_is_imported_first():
    make = "[type(pettingzoo.make(kind, 'miaui_env/miaui-v0', num_players=5)).__name__ for kind in ('aec', 'parallel')]"
    for order in ("import miaui_env, pettingzoo", "import pettingzoo, miaui_env", "import gymnasium, miaui_env, pettingzoo"):
        done = subprocess.run([sys.executable, "-c", f"{order}; print({make})"], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.stdout.strip() == "['_CheckedOrderEnforcingWrapper', 'MiauiParallelEnv']", (order, done.stderr)


def test_the_package_attribute_env_stays_the_constructor():
    # Importing the submodule miaui_env.env would otherwise rebind the package's `env` to the module.
    code = "import miaui_env.env, miaui_env; print(callable(miaui_env.env) and miaui_env.env.__name__ == 'env')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "True", done.stderr
