"""What every command line shares: argument types that refuse bad values, an output check made
before the work starts, and one way to end on a user error or Ctrl-C (one line, no traceback)."""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from miaui_env._interrupts import exit_interrupted, hand_interrupts_back
from miaui_env.core.registry import LEGACY_GAME, GamePartError, game_names, get_game


def game_chooser() -> argparse.ArgumentParser:
    """A parser of `--game` alone (default Miaui), for a command that hands the rest of its line to that game's part."""
    chooser = argparse.ArgumentParser(allow_abbrev=False, add_help=False)
    chooser.add_argument("--game", choices=game_names(), default=LEGACY_GAME)
    return chooser


def add_game_argument(parser: argparse.ArgumentParser) -> None:
    """`--game`, as a game's own parser lists it in its help: every registered game, each with its `--help`."""
    games = ", ".join(f"{name} ({get_game(name).title})" for name in game_names())
    parser.add_argument("--game", choices=game_names(), default=LEGACY_GAME, help=f"the game: {games}; each has its own --help")


def check_writable(directory: Path) -> None:
    """Create `directory` if needed and make sure files can be written there (OSError naming it if not)."""
    if directory.exists() and not directory.is_dir():
        raise OSError(f"cannot write to {directory}: it is a file (or a device), and a folder is needed")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as error:
        raise OSError(f"cannot write to {directory}: {error.strerror or error}") from None


def check_output_file(path: Path) -> None:
    """A file the command will write: not a folder, in a folder that can be written (OSError naming it if not)."""
    if path.name in ("", ".", "..") or path.is_dir():
        raise OSError(f"cannot write to {path}: it is a folder, and a file name is needed")
    if path.exists() and not path.is_file():  # a device or a pipe (/dev/null): a save there would be refused at the end
        raise OSError(f"cannot write to {path}: it exists and is not a regular file")
    check_writable(path.parent)


def read_answer(read: Callable[[str], str], prompt: str) -> str | None:
    """What the player types at `prompt`, trimmed and lower-cased; None to quit (q, quit, exit or closed input)."""
    try:
        answer = read(prompt).strip().lower()
    except EOFError:
        return None
    return None if answer in ("q", "quit", "exit") else answer


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    return _bounded_int(text, 1)


def non_negative_int(text: str) -> int:
    """An argparse type: an integer >= 0."""
    return _bounded_int(text, 0)


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (a free one) to 65535."""
    return _bounded_int(text, 0, 65535)


def _bounded_int(text: str, least: int, most: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < least or (most is not None and value > most):
        allowed = f"from {least} to {most}" if most is not None else f"at least {least}"
        raise argparse.ArgumentTypeError(f"{value} is not allowed; it must be {allowed}")
    return value


def half_width(ci: float, digits: int = 3) -> str:
    """An interval's half-width as a table prints it: "n/a" where there is none (one duplicate set, or none varied)."""
    return f"{ci:.{digits}f}" if math.isfinite(ci) else "n/a"


def fail(prog: str, error: BaseException | str) -> NoReturn:
    """End the command on a user error: one line on stderr, exit status 2 (as argparse does)."""
    print(f"{prog}: error: {error}", file=sys.stderr)
    raise SystemExit(2)


def distinct(parser: argparse.ArgumentParser, option: str, values: Sequence[object] | None) -> None:
    """Refuse a list option that names one value twice (usage error, status 2): `--players 3 3` is a slip, not a wish."""
    given = list(values or ())
    repeated = sorted({str(value) for value in given if given.count(value) > 1})
    if repeated:
        parser.error(f"{option} names {', '.join(repeated)} more than once; give each once")


def run_command(prog: str, command: Callable[[], int | None], interrupted: str = "interrupted") -> NoReturn:
    """Run a command's work: a user error (ValueError, OSError, a game part that cannot be had) or Ctrl-C
    ends it with one line, not a traceback."""
    remembered = hand_interrupts_back()  # the start-up's one-line exit (miaui_env/_interrupts.py) gives way to the command's own
    try:
        status = command()
    except KeyboardInterrupt:
        print(f"\n{prog}: {interrupted}", file=sys.stderr)
        exit_interrupted()
    except (ValueError, OSError, GamePartError) as error:
        fail(prog, error)
    if remembered is not None and remembered.came:  # a Ctrl-C that CPython dropped on the way (a ctypes callback)
        print(f"\n{prog}: {interrupted}", file=sys.stderr)
        exit_interrupted()
    raise SystemExit(status or 0)
