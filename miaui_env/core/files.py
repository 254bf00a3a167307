"""Files that a reader never sees half-written.

Everything the library and the trainers write (arena results, charts, snapshot weights) goes
through `replacing`: written beside its target, then renamed over it in one step, so a killed
process leaves the old file or the new one, never a torn one. A set of files that must agree (a
checkpoint's model, metadata and evaluations) goes through `write_together`: all or none.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Yield a temporary path beside `path` to write; when the block succeeds it replaces `path`.

    A `path` that exists and is not a regular file is refused with FileExistsError before anything is
    written: the rename would put a file in place of a folder, a device, a pipe or a socket."""
    if path.exists() and not path.is_file():
        raise FileExistsError(errno.EEXIST, "it exists and is not a regular file (a folder, a device, a pipe or a socket)", str(path))
    temporary = path.with_name(f".{path.stem}.tmp{path.suffix}")  # hidden, and keeps the suffix (savefig reads it)
    try:
        yield temporary
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


STAGING = ".staged"  # a run directory's set of files on their way in, see `write_together`
_COMPLETE = "COMPLETE"
_REPLACED = ".replaced"  # inside the staging folder: the folders a set replaces, moved aside until it is in place


def write_together(directory: Path, writers: Mapping[str, Callable[[Path], object]]) -> None:
    """Replace several files of `directory` as one: all or none, even if the process is killed.

    Each `writers[name](path)` writes its file (or folder) into a staging folder; a marker listing
    them is then put in place with one rename, and only then are they renamed into `directory`, in
    the order given (put the manifest a reader trusts last). A process killed before the marker
    leaves the old files; one killed after it leaves a set that `finish_staged` completes: the
    writer calls it before it resumes (readers only read, so as never to race a live writer).
    """
    staging = directory / STAGING
    shutil.rmtree(staging, ignore_errors=True)  # an unfinished set from a killed process: the old files stand
    staging.mkdir(parents=True)
    for name, write in writers.items():
        write(staging / name)
    atomic_write(staging / _COMPLETE, "\n".join(writers) + "\n")
    finish_staged(directory)


def finish_staged(directory: Path) -> None:
    """Complete (or drop, if it never became complete) a set of files that `write_together` was
    putting in place when its process died; nothing to do otherwise."""
    staging = directory / STAGING
    marker = staging / _COMPLETE
    if marker.exists():
        for name in marker.read_text().split():
            if (staging / name).exists():  # files renamed before the process died are already in place
                if (directory / name).is_dir():  # a rename cannot replace a folder: the old one goes into staging, deleted below
                    (staging / _REPLACED).mkdir(exist_ok=True)
                    os.replace(directory / name, staging / _REPLACED / name)
                os.replace(staging / name, directory / name)
    shutil.rmtree(staging, ignore_errors=True)


def atomic_write(path: Path, text: str) -> None:
    """Write `text` to `path` so that a reader never sees half a file."""
    with replacing(path) as temporary:
        temporary.write_text(text)


def write_rows(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Rows of equal keys as a CSV file, written atomically (nothing while there are no rows)."""
    if rows:
        lines = [",".join(rows[0]), *(",".join(str(row[key]) for key in rows[0]) for row in rows)]
        atomic_write(path, "\n".join(lines) + "\n")


def file_path(path: Any, error: type[ValueError], what: str) -> Path:
    """`path` as a Path if it can name a file (a non-empty str or os.PathLike, no NUL byte); else
    `error` naming it, so that no bare error comes from the operating system's call."""
    if not isinstance(path, str | os.PathLike) or not str(path) or "\0" in str(path):
        shown = path if isinstance(path, str | int | float | bool | None) else type(path).__name__
        raise error(f"{what} is {shown!r:.60}; it must be a file path (a str or os.PathLike)")
    return Path(path)


MAX_FILE_BYTES = 64 << 20  # the most any file the library reads may hold (replays, configs, metadata)


def read_bounded(path: Path, limit: int, error: type[ValueError], what: str) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; `error` naming the file for
    a folder, a device or pipe (/dev/zero, /dev/null), a missing file, or a file past the limit,
    which is refused after reading `limit` + 1 bytes, never read to the end."""
    try:
        # Non-blocking: opening a pipe no one writes to would wait forever; a regular file reads as ever.
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as opened:
            mode = os.fstat(opened.fileno()).st_mode
            if stat.S_ISDIR(mode):
                raise IsADirectoryError
            if not stat.S_ISREG(mode):
                raise error(f"{path} is not a regular file (a device, a pipe or a socket); {what} is a file")
            data = opened.read(limit + 1)
    except IsADirectoryError:
        raise error(f"{path} is a folder; {what} is a file") from None
    except FileNotFoundError:
        raise error(f"{path} does not exist") from None
    except OSError as failed:
        raise error(f"{path} cannot be read: {failed.strerror or failed}") from None
    if len(data) > limit:
        raise error(f"{path} holds more than {limit:,} bytes, the most {what} may hold; is it the right file?")
    return data
