"""A trainer's checkpoint, written as one set and read back for --resume, for every trainer.

A checkpoint is a run directory's parts (a model file or folder, the config, the evaluations, a
chart, ...) and its metadata.json, the manifest a reader trusts. `write_checkpoint` replaces them
all as one (`miaui_env.apps.files.write_together`: staged, marked complete, then moved in, the
metadata last), so a process killed at any moment leaves the old checkpoint or the new one, never a
mix; `open_checkpoint` completes (or drops) a set a killed writer was putting in place, then reads
it. Self-play PPO (model.zip), the RLlib trainer (algorithm/ and policy/) and the exploitability
yardstick's best responses all write theirs here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from miaui_env.agents.checkpoint import CheckpointError, read_metadata
from miaui_env.apps.files import finish_staged, write_together

METADATA = "metadata.json"

Writer = Callable[[Path], object]
"""Writes one part of a checkpoint (a file or a folder) at the path it is given."""


def write_checkpoint(directory: Path, parts: Mapping[str, Writer], metadata: Mapping[str, Any]) -> None:
    """Replace `directory`'s checkpoint by `parts` (written in the order given) and `metadata`, as one."""
    write_together(directory, {**parts, METADATA: lambda path: path.write_text(json.dumps(metadata, indent=2) + "\n")})


def open_checkpoint(directory: Path, parts: Sequence[str], kind: str) -> dict[str, Any]:
    """The metadata of the checkpoint in `directory`, once a set a killed writer left half in place is
    completed (or dropped); CheckpointError if `parts` or the metadata are missing, or the metadata
    is unreadable or for another observation layout. `kind` names the checkpoint in the message."""
    finish_staged(directory)
    needed = [*parts, METADATA]
    if not all((directory / part).exists() for part in needed):
        raise CheckpointError(f"{directory} holds no {kind} ({' and '.join(needed)}) to resume")
    return read_metadata(directory / METADATA)
