"""Trained policies by name or path, for every game: the shipped policies, play modes, and
`load_game_agent`, which a game's `load_agent` part builds on.

    load_game_agent("octopus", "octopus-ppo-v1@sample", seed=0, built_ins=..., observation_version=1)

A spec is one of the game's built-in agents, a shipped policy's name (`SHIPPED_POLICIES`), a
self-play run's folder or a model .zip, with `@best` or `@sample` after a trained policy (its most
likely action, or an action drawn from its mixed strategy by its own seeded generator). Shipped
policies are found in the installed package's own copy, `miaui_env/shipped/` (a wheel
carries the repository's checkpoints/<name>/ there), else the checkout's checkpoints/.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from miaui_env.core.agents import Agent
from miaui_env.core.checkpoint import read_metadata
from miaui_env.core.files import MAX_FILE_BYTES, read_bounded
from miaui_env.core.policy import RLLIB_POLICY_FILE, PolicyAgent, load_rllib_policy, load_sb3_policy
from miaui_env.core.registry import LEGACY_GAME, game_of
from miaui_env.core.seeding import check_seed


def _shipped_policies() -> Path:
    """The installed package's shipped policies (a wheel's miaui_env/shipped/), else the checkout's checkpoints/."""
    packaged = resources.files("miaui_env") / "shipped"
    return packaged if isinstance(packaged, Path) and packaged.is_dir() else Path(__file__).resolve().parents[2] / "checkpoints"


SHIPPED_POLICIES = _shipped_policies()
_Loaded = TypeVar("_Loaded")  # an agent of any type, returned as given


def shipped_policy_names(game: str = LEGACY_GAME, policies: Path | None = None) -> list[str]:
    """The names of the policies in `policies` (default SHIPPED_POLICIES) trained on `game`: each
    folder with a model.zip whose metadata.json names that game (a checkpoint that names none is Miaui's)."""
    names = []
    for model in sorted(Path(policies or SHIPPED_POLICIES).glob("*/model.zip")):
        try:
            metadata = json.loads(read_bounded(model.parent / "metadata.json", MAX_FILE_BYTES, ValueError, "a run's metadata"))
        except (ValueError, RecursionError):
            continue
        if isinstance(metadata, dict) and game_of(metadata) == game:
            names.append(model.parent.name)
    return names


PLAY_MODES = {"best": True, "sample": False}  # a trained policy's `@mode` suffix: is its play deterministic?
_ALLOWED_MODES = ", ".join(f"@{name}" for name in PLAY_MODES)


_MODE_SUFFIX = re.compile(r"@(\w*)")  # after the last @: a word (a path's tail has a '/' or a '.', a callable has no '@')


class AgentSpecError(ValueError):
    """An agent spec that names nothing we can load."""


def split_play_mode(spec: str) -> tuple[str, str | None]:
    """`spec` without its `@mode` suffix, and the mode (None without one); AgentSpecError for a mode
    that is not one of PLAY_MODES. A spec that exists as a path has no suffix."""
    at = spec.rfind("@")
    suffix = _MODE_SUFFIX.fullmatch(spec, at) if at >= 0 else None
    if suffix is None or names_a_file(spec, Path.exists):
        return spec, None
    base, mode = spec[:at], suffix.group(1)
    if mode not in PLAY_MODES:
        raise AgentSpecError(f"agent {spec!r}: unknown play mode {mode!r}; play modes are {_ALLOWED_MODES} (and no path {spec!r} exists)")
    if not base:
        raise AgentSpecError(f"agent {spec!r}: a play mode follows a trained policy's spec, e.g. miaui-ppo-v0{spec}")
    return base, mode


def load_game_agent(
    game: str,
    spec: str,
    seed: int | None,
    built_ins: Mapping[str, Callable[[int | None], Agent]],
    observation_version: int,
    check: Callable[[Any, Path], None] | None = None,
) -> Agent | PolicyAgent:
    """An agent of the registered game `game`: one of its `built_ins` (name: a factory taking the
    seed), or a policy trained on it (a shipped policy's name, a self-play run's folder or a model
    .zip, `@best` or `@sample` after it), checked to be `game`'s, of its `observation_version`, and
    by `check(model, path)` if given. What a game's `load_agent` part can be (miaui_env.games);
    AgentSpecError for a spec nothing loads."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec of {game} is a non-empty string (a built-in name or a checkpoint), got {spec!r:.60}")
    seed = check_seed(seed)
    base, mode = split_play_mode(spec)
    refuse_play_mode_on_builtin(spec, base, mode, built_ins)
    if base in built_ins:
        return built_ins[base](seed)
    agent = load_trained_policy(game, base, seed, observation_version, check)
    if agent is None:
        shipped = ", ".join(shipped_policy_names(game)) or "none installed"
        raise AgentSpecError(
            f"unknown {game} agent {spec!r:.100}; {game} agents are {', '.join(built_ins)}, a shipped {game} policy ({shipped}) "
            f"or the folder of a {game} run (with model.zip, or an RLlib run's policy/)"
        )
    return with_play_mode(agent, spec, base, mode)


def load_trained_policy(
    game: str, base: str, seed: int | None, observation_version: int, check: Callable[[Any, Path], None] | None = None
) -> PolicyAgent | None:
    """The policy trained on `game` that `base` names (an RLlib run's folder, a self-play run's folder
    or model .zip, a shipped policy's name), checked to be `game`'s, of its `observation_version`,
    and by `check(model, path)` if given; None if `base` names no trained policy."""
    if names_a_file(Path(base) / "policy" / RLLIB_POLICY_FILE, Path.exists):  # an RLlib run (needs the [rllib] extra)
        return load_rllib_policy(Path(base) / "policy", seed=seed, game=game, observation_version=observation_version)
    path = policy_path(base)
    if path is None:
        return None
    agent = load_sb3_policy(
        path, seed=seed, metadata=read_metadata((path if path.is_dir() else path.parent) / "metadata.json", game, observation_version)
    )
    if check is not None:
        check(agent.policy, path)
    return agent


def refuse_play_mode_on_builtin(spec: str, base: str, mode: str | None, builtins: Collection[str]) -> None:
    """AgentSpecError if `spec` puts a play mode on `base`, one of the built-in agents `builtins`."""
    if mode is not None and base in builtins:
        raise AgentSpecError(f"agent {spec!r}: play modes ({_ALLOWED_MODES}) are for trained policies; {base!r} is a built-in agent")


def with_play_mode(agent: _Loaded, spec: str, base: str, mode: str | None) -> _Loaded:
    """`agent` (loaded from `base`), playing as `mode` says and named with it; unchanged without a
    mode, AgentSpecError if it is not a trained policy (only those have a play mode)."""
    if mode is None:
        return agent
    if not isinstance(agent, PolicyAgent):
        raise AgentSpecError(f"agent {spec!r}: play modes ({_ALLOWED_MODES}) are for trained policies; {base!r} is not one")
    agent.deterministic = PLAY_MODES[mode]
    agent.name = f"{agent.name}@{mode}"
    return agent


def policy_path(spec: str) -> Path | None:
    """The trained policy `spec` names: a model .zip, a run's folder (with model.zip) or a shipped
    policy's name (in SHIPPED_POLICIES); None if it names none. AgentSpecError for a missing .zip."""
    path = Path(spec)
    if path.suffix == ".zip" or names_a_file(path / "model.zip", Path.is_file):
        if not names_a_file(path, Path.exists):
            raise AgentSpecError(f"checkpoint {spec!r:.200} does not exist")
        return path
    shipped = SHIPPED_POLICIES / spec
    return shipped if names_a_file(shipped / "model.zip", Path.is_file) else None


def names_a_file(path: str | Path, check: Callable[[Path], bool]) -> bool:
    """`check(Path(path))` (exists, is_file, ...), False where the system cannot look the name up at all
    (a name too long for a path: a spec is then a name, not a file)."""
    try:
        return check(Path(path))
    except OSError:
        return False
