"""Ctrl-C while a command starts: one line and status 130, not a KeyboardInterrupt traceback from an import.

A command's imports (torch, Stable-Baselines3, numba's kernels) take seconds, and they run before
its `main()` can catch anything. So the packages a command lives in (`miaui_env`, `training`) call
`quiet_interrupts_while_starting()` first thing when, and only when, the process was started as one
of our commands: `python -m miaui_env.…` or `python -m training.…` (while a `-m` module's parent
packages load, `sys.argv[0]` is "-m"), or a console script of ours (`miaui-arena`, ...). Importing
the library from anything else leaves Ctrl-C alone. Once the command's work starts,
`miaui_env.core.cli.run_command` hands Ctrl-C back to Python, and the command's own handling
(a checkpoint, "nothing written") takes over.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from types import FrameType
from typing import Any, NoReturn

INTERRUPTED = 130  # the shell's exit status for a command ended by Ctrl-C
CONSOLE_SCRIPTS = ("miaui-arena", "miaui-card", "miaui-play", "miaui-demo", "miaui-exploit", "miaui-replay", "miaui-web")
PACKAGES = ("miaui_env.", "training.")


def command_name() -> str | None:
    """The name argparse will give this process's command (`selfplay.py`, `miaui-arena`), if it is one of ours; else None."""
    if sys.argv and sys.argv[0] == "-m":
        arguments = getattr(sys, "orig_argv", [])
        module = arguments[arguments.index("-m") + 1] if "-m" in arguments[:-1] else ""
        return module.rsplit(".", 1)[-1] + ".py" if module.startswith(PACKAGES) else None
    script = os.path.basename(sys.argv[0]) if sys.argv else ""
    return script if script in CONSOLE_SCRIPTS else None


class StartingUp:
    """The SIGINT handler while a command starts: one line on stderr, then exit with status 130."""

    def __init__(self, prog: str):
        self.prog = prog

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        """End the command with its one line."""
        print(f"\n{self.prog}: interrupted while starting", file=sys.stderr)
        exit_interrupted()


def exit_interrupted() -> NoReturn:
    """End an interrupted command with status 130. A process started as one of our commands leaves at
    once (`os._exit`, its streams flushed): an import that Ctrl-C cut short can leave CPython's
    "unhandled KeyboardInterrupt" mark behind (a C extension running code through PyRun_String),
    and the interpreter would then end by SIGINT, not with 130. Called in-process, SystemExit(130)."""
    stop_listening_for_interrupts()
    if STARTED_AS is None:
        raise SystemExit(INTERRUPTED)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more can reach it anyway
            stream.flush()
    os._exit(INTERRUPTED)


def quiet_interrupts_while_starting() -> None:
    """Install `StartingUp` for one of our commands (a no-op for any other process, and off the main thread)."""
    prog = STARTED_AS
    if prog is None or threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # never replace a handler someone else set
        signal.signal(signal.SIGINT, StartingUp(prog))


def stop_listening_for_interrupts() -> None:
    """Ignore SIGINT from here on (on the main thread): the command is already ending with its one line."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


class Remembered:
    """The SIGINT handler once a command's work starts: Python's KeyboardInterrupt, remembered. CPython
    drops an exception raised inside a ctypes callback (numba's compiler runs some while a kernel
    compiles), so `run_command` also ends a command that returns after one with its line and 130."""

    def __init__(self) -> None:
        self.came = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        """Raise KeyboardInterrupt, as Python's own handler does, and remember that it came."""
        self.came = True
        raise KeyboardInterrupt


def hand_interrupts_back() -> Remembered | None:
    """From here on Ctrl-C is Python's KeyboardInterrupt again, for the command's own handling; the
    handler that remembers it, for one of our commands (None in any other process)."""
    if isinstance(signal.getsignal(signal.SIGINT), StartingUp) and threading.current_thread() is threading.main_thread():
        remembered = Remembered()
        signal.signal(signal.SIGINT, remembered)
        sys.unraisablehook = _quiet_dropped_interrupts  # the dropped one's traceback: the command's one line says it
        return remembered
    return None


def _quiet_dropped_interrupts(unraisable: Any) -> None:
    """sys.unraisablehook for our commands: a KeyboardInterrupt CPython dropped is left to `run_command`; anything else as usual."""
    if unraisable.exc_type is not KeyboardInterrupt:
        sys.__unraisablehook__(unraisable)


STARTED_AS = command_name()  # read once, first thing: while a -m module loads, sys.argv[0] is "-m" only until it runs
quiet_interrupts_while_starting()  # on import: the packages import this module first thing (see above)
