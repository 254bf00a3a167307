"""The metadata every checkpoint carries, and the errors of one that cannot be read.

A checkpoint directory holds its weights and `metadata.json`; every loader (agents, trainers,
the arena) reads the metadata through `read_metadata`, which refuses another game's checkpoint, then
another observation layout than that game's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium

from miaui_env.core.files import MAX_FILE_BYTES, read_bounded
from miaui_env.core.registry import LEGACY_GAME, UnknownGameError, game_of, get_game


class CheckpointError(ValueError):
    """A checkpoint that cannot be read: missing, corrupt, or not what its name says."""


class CheckpointVersionError(CheckpointError):
    """A checkpoint trained on another observation layout than this library's."""


class CheckpointSpaceError(CheckpointError):
    """A policy trained on another game's observation or action space than this game's."""


class CheckpointGameError(CheckpointSpaceError):
    """A checkpoint of another game than the one asked for; `game` is the game it names."""

    def __init__(self, message: str, game: object):
        super().__init__(message)
        self.game = game


def space_name(space: Any) -> str:
    """A space in a few words (a Box's repr lists every bound)."""
    if isinstance(space, gymnasium.spaces.Box):
        return f"Box({', '.join(map(str, space.shape))},) of {space.dtype}"
    return repr(space)


def _title(game: str) -> str:
    """How a message names `game`: its registered title, or the name as given."""
    try:
        return get_game(game).title
    except UnknownGameError:
        return repr(game)


def observation_version(game: str) -> int:
    """The observation layout version the library builds for the registered `game` (its `observation_version` part)."""
    version: int = get_game(game).part("observation_version")
    return version


def check_observation_version(metadata: Mapping[str, Any], source: Path | str, game: str = LEGACY_GAME, version: int | None = None) -> None:
    """Refuse a checkpoint whose metadata names another observation layout than this library builds
    for `game` (`version`, by default the game's own)."""
    version = observation_version(game) if version is None else version
    saved = metadata.get("observation_version")
    # True == 1 and 1.0 == 1 in Python, so equality alone would let a bool or a float through.
    if isinstance(saved, bool) or not isinstance(saved, int) or saved != version:
        raise CheckpointVersionError(
            f"{source} was trained on {_title(game)}'s observation layout version {saved!r}, but this library builds "
            f"version {version}; retrain it or use a matching miaui-rl"
        )


def read_metadata(path: Path, game: str = LEGACY_GAME, version: int | None = None) -> dict[str, Any]:
    """A run's metadata.json, checked to be `game`'s (a checkpoint naming no game is Miaui's), then
    built for that game's observation layout `version` (by default the game's own) and one of its
    views; {} for a Miaui run without one."""
    if not path.exists():
        if game != LEGACY_GAME:  # only Miaui's first runs were saved without metadata
            raise CheckpointError(f"{path} is missing: every {game} policy names its game and observation layout there")
        return {}
    text = read_bounded(path, MAX_FILE_BYTES, CheckpointError, "a run's metadata")
    try:
        metadata = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
        raise CheckpointError(f"{path} is not readable JSON: it is not valid JSON ({error}); the checkpoint is damaged") from None
    if not isinstance(metadata, dict):
        raise CheckpointError(f"{path} holds {type(metadata).__name__}, not a metadata object; the checkpoint is damaged")
    saved_game = game_of(metadata)
    if saved_game != game:
        raise CheckpointGameError(
            f"{path.parent} is a policy for the {saved_game!r} game, not {_title(game)}; "
            f"load it as that game's agent (e.g. --game {saved_game})",
            saved_game,
        )
    check_observation_version(metadata, path.parent, game, version)
    views = get_game(saved_game).views
    if metadata.get("view", views[0]) not in views:
        raise CheckpointError(f"{path} names view {metadata['view']!r}; views are {', '.join(views)}")
    return metadata
