"""The metadata every checkpoint carries, and the errors of one that cannot be read.

A checkpoint directory holds its weights and `metadata.json`; every loader (agents, trainers,
the arena) reads the metadata through `read_metadata`, which refuses another observation layout.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from miaui_env.observe.observation import OBSERVATION_VERSION, VIEWS


class CheckpointError(ValueError):
    """A checkpoint that cannot be read: missing, corrupt, or not what its name says."""


class CheckpointVersionError(CheckpointError):
    """A checkpoint trained on another observation layout than this library's."""


def check_observation_version(metadata: Mapping[str, Any], source: Path | str) -> None:
    """Refuse a checkpoint whose metadata names another observation layout than this library builds."""
    version = metadata.get("observation_version")
    if version != OBSERVATION_VERSION:
        raise CheckpointVersionError(
            f"{source} was trained on observation layout version {version}, but this library builds "
            f"version {OBSERVATION_VERSION}; retrain it or use a matching miaui-rl"
        )


def read_metadata(path: Path) -> dict[str, Any]:
    """A run's metadata.json ({} if there is none), its observation layout version checked."""
    if not path.exists():
        return {}
    try:
        metadata = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise CheckpointError(f"{path} is not valid JSON ({error}); the checkpoint is damaged") from None
    if not isinstance(metadata, dict):
        raise CheckpointError(f"{path} holds {type(metadata).__name__}, not a metadata object; the checkpoint is damaged")
    check_observation_version(metadata, path.parent)
    if metadata.get("view", "table") not in VIEWS:
        raise CheckpointError(f"{path} names view {metadata['view']!r}; views are {', '.join(VIEWS)}")
    return metadata
