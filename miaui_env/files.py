"""Files that a reader never sees half-written, and the checkpoint metadata every loader checks.

Everything the library and the trainers write (arena results, checkpoints, charts, snapshot
weights) goes through `replacing`: written beside its target, then renamed over it in one step,
so a killed process leaves the old file or the new one, never a torn one.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from miaui_env.observation import OBSERVATION_VERSION


class CheckpointVersionError(ValueError):
    """A checkpoint trained on another observation layout than this library's."""


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Yield a temporary path beside `path` to write; when the block succeeds it replaces `path`."""
    temporary = path.with_name(f".{path.stem}.tmp{path.suffix}")  # hidden, and keeps the suffix (savefig reads it)
    try:
        yield temporary
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


def atomic_write(path: Path, text: str) -> None:
    """Write `text` to `path` so that a reader never sees half a file."""
    with replacing(path) as temporary:
        temporary.write_text(text)


def write_rows(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Rows of equal keys as a CSV file, written atomically (nothing while there are no rows)."""
    if rows:
        lines = [",".join(rows[0]), *(",".join(str(row[key]) for key in rows[0]) for row in rows)]
        atomic_write(path, "\n".join(lines) + "\n")


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
    metadata: dict[str, Any] = json.loads(path.read_text())
    check_observation_version(metadata, path.parent)
    return metadata
