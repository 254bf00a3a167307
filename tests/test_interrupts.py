"""Ctrl-C at any moment of a command, its start-up and imports included: one line naming the
command, exit status 130, no traceback (miaui_env/_interrupts.py, then core/cli.py's run_command)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

ROOT = Path(__file__).parent.parent

COMMANDS = {
    "selfplay.py": ["-m", "training.selfplay", "--config", "configs/smoke.yaml"],
    "exploit.py": ["-m", "training.exploit", "--target", "counter"],
    "arena.py": ["-m", "miaui_env.apps.arena", "--candidate", "counter"],
    "card.py": ["-m", "miaui_env.apps.card", "--candidate", "counter"],
    "demo.py": ["-m", "miaui_env.apps.demo"],
    "play.py": ["-m", "miaui_env.apps.play", "--no-replay"],
}


def restore_ctrl_c() -> None:
    """In the child before it starts: SIGINT handled as by default, whatever the test run inherited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("delay", [0.3, 1.0])
@pytest.mark.parametrize("prog", COMMANDS)
def test_ctrl_c_ends_every_command_with_one_line_and_status_130(prog, delay, tmp_path):
    out = [] if prog in ("demo.py", "play.py") else ["--out", str(tmp_path / "out")]
    # Ctrl-C as a terminal sends it: SIGINT, to a process that does not ignore it (a job started in the background of a
    # script inherits SIGINT ignored, and Python keeps it ignored: the command is then started with it restored).
    started = subprocess.Popen(
        [sys.executable, *COMMANDS[prog], *out],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=restore_ctrl_c,
    )
    time.sleep(delay)
    started.send_signal(signal.SIGINT)
    _, err = started.communicate(timeout=120)
    last = err.strip().splitlines()[-1] if err.strip() else ""
    assert started.returncode == 130 and "Traceback" not in err, (started.returncode, err[-1500:])
    assert last.startswith(f"{prog}: ") and ("interrupted" in last or "abandoned" in last), err[-500:]


def test_importing_the_library_from_any_other_program_leaves_ctrl_c_alone():
    code = "import signal, miaui_env, training.config; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, preexec_fn=restore_ctrl_c)
    assert done.stdout.strip() == "True", done.stderr


def test_a_ctrl_c_dropped_inside_a_ctypes_callback_still_ends_the_command_with_130(monkeypatch, capsys):
    """CPython drops an exception raised inside a ctypes callback (numba's compiler runs some): the
    command's work then returns as if nothing came, and run_command must still end it with 130."""
    import ctypes
    import os

    from miaui_env import _interrupts
    from miaui_env.core import cli

    remembered = _interrupts.Remembered()
    monkeypatch.setattr(cli, "hand_interrupts_back", lambda: remembered)
    before = signal.signal(signal.SIGINT, remembered)

    def ctrl_c_in_a_callback() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # bytecode, so the handler runs here, inside the callback
            time.sleep(0)

    def work() -> int:
        ctypes.CFUNCTYPE(None)(ctrl_c_in_a_callback)()
        return 0

    try:
        with pytest.raises(SystemExit) as ended:
            cli.run_command("demo.py", work)
    finally:
        signal.signal(signal.SIGINT, before)
    assert remembered.came and ended.value.code == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "demo.py: interrupted"
