"""A trainer's checkpoint, written as one set and read back for --resume, for every trainer.

A checkpoint is a run directory's parts (a model file or folder, the config, the evaluations, a
chart, ...) and its metadata.json, the manifest a reader trusts. `write_checkpoint` replaces them
all as one (`miaui_env.core.files.write_together`: staged, marked complete, then moved in, the
metadata last), so a process killed at any moment leaves the old checkpoint or the new one, never a
mix; `open_checkpoint` completes (or drops) a set a killed writer was putting in place, then reads
it. Self-play PPO (model.zip), the RLlib trainer (algorithm/ and policy/) and the exploitability
yardstick's best responses all write theirs here.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from miaui_env.core.checkpoint import CheckpointError, CheckpointGameError, read_metadata
from miaui_env.core.files import MAX_FILE_BYTES, finish_staged, read_bounded, write_together
from miaui_env.core.registry import LEGACY_GAME, game_of
from miaui_env.games.miaui.observation import OBSERVATION_VERSION
from training.config import ConfigError

METADATA = "metadata.json"

Writer = Callable[[Path], object]
"""Writes one part of a checkpoint (a file or a folder) at the path it is given."""


class DiskFullError(OSError):
    """A run's file that could not be written because the disk is full (ENOSPC), named."""


@contextmanager
def naming_a_full_disk(target: Path) -> Iterator[None]:
    """Turn a full disk's bare `[Errno 28] No space left on device` inside the block into a
    DiskFullError naming `target`, the file (or folder) being written."""
    try:
        yield
    except DiskFullError:
        raise
    except OSError as error:
        if error.errno != errno.ENOSPC:
            raise
        raise DiskFullError(
            errno.ENOSPC, "the disk is full (no space left on device); free some space and run again", str(target)
        ) from error


def _named_writer(target: Path, write: Writer) -> Writer:
    """`write`, its full-disk error naming `target` (the file it puts in place) rather than its staged copy."""

    def written(path: Path) -> object:
        with naming_a_full_disk(target):
            return write(path)

    return written


def write_checkpoint(directory: Path, parts: Mapping[str, Writer], metadata: Mapping[str, Any]) -> None:
    """Replace `directory`'s checkpoint by `parts` (written in the order given) and `metadata`, as one;
    DiskFullError naming the file when the disk fills up (the old checkpoint then stands)."""
    writers = {**parts, METADATA: lambda path: path.write_text(json.dumps(metadata, indent=2) + "\n")}
    with naming_a_full_disk(directory):  # the set's own marker and moves
        write_together(directory, {name: _named_writer(directory / name, write) for name, write in writers.items()})


def open_checkpoint(
    directory: Path, parts: Sequence[str], kind: str, game: str = LEGACY_GAME, version: int = OBSERVATION_VERSION
) -> dict[str, Any]:
    """The metadata of the checkpoint in `directory`, once a set a killed writer left half in place is
    completed (or dropped); CheckpointError if `parts` or the metadata are missing, or the metadata
    is unreadable or built for another observation layout than `version`; ConfigError if it is a run
    of another game than the config's `game`. `kind` names the checkpoint in the message."""
    finish_staged(directory)
    needed = [*parts, METADATA]
    if not all((directory / part).exists() for part in needed):
        raise CheckpointError(f"{directory} holds no {kind} ({' and '.join(needed)}) to resume")
    try:
        return read_metadata(directory / METADATA, game, version)
    except CheckpointGameError as other:
        raise ConfigError(f"{directory} is a run of the {other.game!r} game, but its config says game={game!r}") from None


def saved_game(directory: Path) -> str:
    """The game the checkpoint in `directory` names, once a set a killed writer left half in place is
    completed (or dropped): Miaui (LEGACY_GAME) if it names none or its metadata cannot be read
    (`open_checkpoint` then says why), so a run can be opened for its own game before its config is read."""
    finish_staged(directory)
    try:
        metadata = json.loads(read_bounded(directory / METADATA, MAX_FILE_BYTES, CheckpointError, "a run's metadata"))
    except (ValueError, RecursionError):
        return LEGACY_GAME
    return game_of(metadata)
