"""The package as a user installs it: a wheel built from this checkout, installed into a fresh virtual
environment outside it, finds its shipped policies and default configs through the installed package
(importlib.resources): the arena plays miaui-ppo-v1, and self-play trains with the default config.

Offline and quick: the wheel is built with this environment's setuptools (no build isolation), and the
fresh environment takes its dependencies (numpy, numba, torch, ...) from this one through a .pth file
after its own site-packages, so nothing is downloaded; only the wheel's code and files are new there.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheel  # builds and installs the wheel: out of the fast loop

ROOT = Path(__file__).resolve().parent.parent
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
ARENA = ["--candidate", "miaui-ppo-v1", "--field", "random", "--games", "8", "--seed", "3"]
TINY_DEFAULT_RUN = [  # configs/default.yaml as it stands, on a budget of one rollout
    "total_timesteps=1",
    "kickstart.decisions=0",
    "evaluation.games_per_baseline=4",
    "probe.steps=0",
]


def package_folder(package: str) -> Path:
    """Where a listed package's files stand in the checkout (a mapped one where pyproject maps it)."""
    return ROOT / SETUPTOOLS.get("package-dir", {}).get(package, package.replace(".", "/"))


def test_every_package_of_the_source_tree_is_listed_for_the_wheel():
    source = {
        ".".join(init.parent.relative_to(ROOT).parts) for top in ("miaui_env", "training") for init in (ROOT / top).rglob("__init__.py")
    }
    assert source <= set(SETUPTOOLS["packages"]), f"add to [tool.setuptools] packages: {sorted(source - set(SETUPTOOLS['packages']))}"
    assert all(package_folder(package).is_dir() for package in SETUPTOOLS["packages"])


def test_every_shipped_file_exists():
    for package, patterns in SETUPTOOLS["package-data"].items():
        for pattern in patterns:
            assert list(package_folder(package).glob(pattern)), f"{package}: nothing matches {pattern!r} in {package_folder(package)}"


def run(command: list[str | Path], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """A command that must succeed (its output in the failure message)."""
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the fresh environment's python, an empty folder outside the checkout to run it in)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"  # only what the build reads: never a developer's runs or build/ leftovers
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for top in ("miaui_env", "training"):
        shutil.copytree(ROOT / top, source / top, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for package, patterns in SETUPTOOLS["package-data"].items():
        folder = package_folder(package)
        for file in (file for pattern in patterns for file in folder.glob(pattern)):
            (source / file.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, source / file.relative_to(ROOT))
    run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", "-w", work / "dist", source],
        work,
    )
    (wheel,) = (work / "dist").glob("miaui_rl-*.whl")

    environment = work / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", environment], work)
    python = environment / "bin" / "python"
    purelib = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], work).stdout.strip()
    # This environment's packages after the fresh one's own: dependencies, not miaui_env (an editable
    # install's finder is loaded by a .pth file of its own, which a path added here does not run).
    (Path(purelib) / "zz_dependencies.pth").write_text("\n".join([*site.getsitepackages(), site.getusersitepackages()]) + "\n")
    run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", "--no-index", wheel], work)
    user = work / "user"
    user.mkdir()
    return python, user


def test_the_installed_package_is_the_wheel_with_its_files(installed):
    python, user = installed
    code = (
        "import json, miaui_env, training.config_files as config\n"
        "from miaui_env.games.miaui.agents.loading import SHIPPED_POLICIES\n"
        "print(json.dumps([miaui_env.__file__, str(SHIPPED_POLICIES), str(config.CONFIG_DIR), str(config.ROOT),"
        " sorted(path.parent.name for path in SHIPPED_POLICIES.glob('*/model.zip'))]))"
    )
    package, policies, configs, root, names = json.loads(run([python, "-c", code], user).stdout)
    environment = python.parent.parent
    assert Path(package).is_relative_to(environment) and not Path(package).is_relative_to(ROOT)
    assert Path(policies) == Path(package).parent / "shipped" and Path(configs).name == "configs"
    assert Path(configs).is_relative_to(environment) and Path(root) == user  # new runs land where the user is
    assert names == ["miaui-ppo-v0", "miaui-ppo-v1", "miaui-ppo-v1-league", "miaui-ppo-v2", "octopus-ppo-v1"]
    assert sorted(path.name for path in Path(configs).glob("*.yaml")) == sorted(path.name for path in (ROOT / "configs").glob("*.yaml"))


def test_the_installed_arena_plays_the_shipped_policy_as_the_checkout_does(installed, tmp_path):
    python, user = installed
    run([python.parent / "miaui-arena", *ARENA, "--out", user / "arena"], user)
    run([sys.executable, "-m", "miaui_env.apps.arena", *ARENA, "--out", tmp_path / "arena"], ROOT)
    installed_result, checkout_result = (json.loads((folder / "arena" / "arena.json").read_text()) for folder in (user, tmp_path))
    assert installed_result["agents"] == checkout_result["agents"]  # same policy, same games, same numbers


def test_the_installed_trainer_trains_with_the_default_config(installed):
    python, user = installed
    run([python, "-m", "training.selfplay", *(part for override in TINY_DEFAULT_RUN for part in ("--set", override))], user)
    run_folder = user / "checkpoints" / "miaui-ppo"  # run_name of the default config, under the user's folder
    assert (run_folder / "model.zip").is_file()
    saved = (run_folder / "config.yaml").read_text()
    assert "run_name: miaui-ppo\n" in saved and "total_timesteps: 1\n" in saved
    metadata = json.loads((run_folder / "metadata.json").read_text())
    assert metadata["steps"] >= 1 and {row["baseline"] for row in metadata["evaluations"]} == {"random", "greedy", "counter"}
