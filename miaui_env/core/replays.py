"""Replay files every game shares: a replay is JSON text, written whole or not at all and read back
within the library's file limit, each game refusing a bad one with its own `ReplayError`.

Miaui's replays are `miaui_env.games.miaui.replay`, the octopus game's `miaui_env.games.octopus.replay`,
any other game's `miaui_env.apps.any_game`.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from miaui_env.core.files import MAX_FILE_BYTES, atomic_write, file_path, read_bounded


class ReplayError(ValueError):
    """A replay this library cannot play back: another version, bad JSON, illegal or edited decisions."""


_Replay = TypeVar("_Replay")


def write_replay_file(text: str, path: str | os.PathLike[str], error: type[ReplayError]) -> Path:
    """Write a replay's JSON `text` to `path` (folders made as needed), `error` for a bad path; returns the path.
    Every game's `save_replay` writes with it."""
    target = file_path(path, error, "a replay path")
    if target.is_dir():
        raise error(f"cannot save a replay to {target}: it is a folder, and a file name is needed")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, text)
    except OSError as failed:
        raise error(f"cannot save a replay to {target}: {failed.strerror or failed}") from None
    return target


def read_replay_file(path: str | os.PathLike[str], error: type[ReplayError], parse: Callable[[str], _Replay]) -> _Replay:
    """`parse` of the replay file at `path`; `error` naming the file if it cannot be read or `parse`
    refuses it with `error`. Every game's `load_replay` reads with it."""
    data = read_bounded(file_path(path, error, "a replay path"), MAX_FILE_BYTES, error, "a replay")
    try:
        text = data.decode()
    except UnicodeDecodeError as bad:
        raise error(f"{path}: cannot be read as a replay (it is not UTF-8 text: {bad.reason} at byte {bad.start})") from None
    try:
        return parse(text)
    except error as bad:
        raise error(f"{path}: {bad}") from bad


def replay_parser(description: str, what: str) -> argparse.ArgumentParser:
    """The parser a game's replay command starts from, as `python -m miaui_env.apps.replay` names it:
    its one positional argument, `replay`, is `what` (a game's replay file)."""
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="python -m miaui_env.apps.replay",
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("replay", type=Path, help=what)
    return parser
