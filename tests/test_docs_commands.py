"""Every shell command the README and the docs show starts as written, on a fresh copy of the repository.

tests/test_docs.py runs the cheap marked blocks to their end. The rest are commands of minutes or
hours (a 10M-step run, a 6,000-game arena, a best response): each runs here, exactly as the page
writes it, in a fresh clone of its own (the tracked files), until it ends or for `STARTUP_SECONDS`. A
command passes if it ends with status 0 or is still working when stopped: what a user meets first
(argument parsing, configs, agent specs, shipped policies, files) all happens in that time, and a
refusal there is what this test exists to catch (a model card's `--opponents octopus-ppo-v1`
once was one).

A command that reads what another documented command writes (a run folder, a best response, a
replay) finds a stand-in made the same way at a small size (`STAND_INS`). The few commands that
cannot run here say why in `NOT_RUN`, and a test keeps that list to commands the pages still show.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.test_docs import PAGES, ROOT

pytestmark = pytest.mark.slow  # spawns every documented command: out of the fast loop (docs/contributing.md)

STARTUP_SECONDS = 6  # a refusal comes within about 2 s of the start here

# A pattern found in a command -> why that command does not run here.
NOT_RUN = {
    "pip install": "installs packages: CI's own install is this check (.ci/run)",
    "python3 -m venv": "makes a virtual environment: CI's own install is this check",
    "bash .ci/run": "CI itself",
    "python -m pytest": "the test suite itself",
    "tests/mutations.py --only NAME": "a placeholder for a mutant's name; `--list` and `--only` with a real name run",
    "tests/mutations.py  ": "the whole catalogue (minutes per mutant); CI runs its rotating sample, and `--list` runs here",
    "tests/mutations.py --sample": "CI's own step (.ci/run)",
    "ray start": "starts a Ray cluster node",
    "ray stop": "stops a Ray cluster node",
    "--address": "joins a Ray cluster (`ray start` above)",
    "your_script.py": "a placeholder for the reader's script",
    "<time>": "a placeholder for a replay's time stamp; tests/test_replay.py prints octopus replays",
    "my_package.bots": "a placeholder for the reader's package",
    "--device cuda": "needs a CUDA GPU",
    "configs/gpu.yaml": "needs a CUDA GPU",
    "checkpoints/miaui-rllib": "reads an RLlib run folder (minutes of Ray to make); tests/test_rllib.py exports and loads one",
    "rllib_selfplay  ": "starts a local Ray for 50 iterations; tests/test_rllib.py trains through the same code",
    "rllib_selfplay --set iterations": "starts a local Ray; tests/test_rllib.py trains through the same code",
    "rllib_selfplay --set game=octopus": "starts a local Ray; tests/test_rllib.py trains an octopus run through the same code",
    "checkpoints/octopus-rllib": "reads an octopus RLlib run folder; tests/test_rllib.py trains one and plays it in the octopus arena",
    "benchmarks/rllib_speed.py": "starts a local Ray; tests/test_benchmarks.py runs the benchmark at a small size",
}


def _commands() -> list[tuple[str, str]]:
    """(page:line, command) of every line of every unmarked ```bash block, continuations joined."""
    block = re.compile(r"^(<!-- snippet: run -->\n)?```bash\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in block.finditer(text):
            if match.group(1):
                continue  # tests/test_docs.py runs marked blocks to their end
            first = text.count("\n", 0, match.start(2)) + 1
            for number, line in _numbered(match.group(2), first):
                if line.strip() and not line.lstrip().startswith("#"):
                    found.append((f"{page.relative_to(ROOT)}:{number}", line.strip()))
    return found


def _numbered(code: str, first: int) -> list[tuple[int, str]]:
    """The block's commands with the line each starts on, backslash continuations joined."""
    commands, pending, start = [], "", first
    for number, line in enumerate(code.splitlines(), start=first):
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + "  "
            continue
        commands.append((start, pending + line))
        pending = ""
    return commands


def _why_not_run(command: str) -> str | None:
    padded = command + "  "
    return next((why for pattern, why in NOT_RUN.items() if pattern in padded), None)


COMMANDS = _commands()
RUN = list({command: (where, command) for where, command in reversed(COMMANDS) if _why_not_run(command) is None}.values())[::-1]


_SMOKE_RUN = "-m training.selfplay --config configs/smoke.yaml --out {out}"
_OCTOPUS_RUN = (
    "-m training.selfplay --config configs/octopus.yaml --out {out} --set total_timesteps=4096 --set kickstart.decisions=2048"
    " --set evaluation.every=4096 --set evaluation.games_per_baseline=12 --set probe.steps=0 --set opponents.snapshot_every=2048"
)

# A folder a documented command reads (written there by another documented command) -> how a stand-in is made:
# a folder of the clone to copy, or python's arguments for a small run of the command that writes it ({out}: where).
STAND_INS: dict[str, str] = {
    "checkpoints/miaui-ppo": _SMOKE_RUN,
    "checkpoints/default-20m": "checkpoints/miaui-ppo-v1",
    "checkpoints/octopus-ppo": _OCTOPUS_RUN,
    "checkpoints/oct-levers": _OCTOPUS_RUN,  # the octopus study's runs (docs/guides/selfplay-study.md)
    "checkpoints/oct-base": _OCTOPUS_RUN,
    "results/study/base-seed0": _SMOKE_RUN,
    "results/study-mix/magnet-0.2-seed0": _SMOKE_RUN,
    "results/study-magnet-more/magnet-0.5-seed0": _SMOKE_RUN,
    "results/exploit/counter/best-response-4p": "checkpoints/miaui-ppo-v1/exploit/best-response-4p",
    "results/tutorial/run": _SMOKE_RUN,
    "results/arena/search-replays": "-m miaui_env.apps.arena --candidate counter --field greedy --games 4 --replays 1 --out {out}",
}


# The library is linked, not copied: numba's compiled kernels stay where the suite cached them. (Its shipped
# policies are found beside it, which are the clone's own files; trainers write runs into the clone.)
LINKED = "miaui_env"
COPY_THE_LIBRARY = ("tests/mutations.py",)  # tools that copy the checkout and check that the copy is what imports
PARALLEL = 3  # commands starting at once (each mostly waits on its imports)


@dataclass(frozen=True)
class Outcome:
    """How a command's start went: its exit status (None: still working when stopped) and its output."""

    status: int | None
    out: str
    err: str


def _fresh_clone(root: Path) -> Path:
    """The repository's tracked files under `root`, committed to a git repository there as a fresh clone has them."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode()
    for name in filter(None, tracked.split("\0")):
        source = ROOT / name
        if name.split("/")[0] != LINKED and source.is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    (root / LINKED).symlink_to(ROOT / LINKED, target_is_directory=True)
    for git in (["init", "-q"], ["add", "-A"], ["-c", "user.name=docs", "-c", "user.email=docs@invalid", "commit", "-qm", "clone"]):
        subprocess.run(["git", *git], cwd=root, check=True, capture_output=True)
    return root


def _stand_ins(clone: Path, made: Path) -> Path:
    """Every stand-in, each at its path under `made` (a run made once, and copied for the others it stands in for)."""
    runs: dict[str, Path] = {}
    for path, made_by in STAND_INS.items():
        if made_by in runs:
            shutil.copytree(runs[made_by], made / path)
        elif made_by.startswith("-m "):
            argv = made_by.format(out=made / path).split()
            subprocess.run([sys.executable, *argv], cwd=clone, check=True, capture_output=True, timeout=600)
            runs[made_by] = made / path
        else:
            shutil.copytree(clone / made_by, made / path)
    return made


def _reads(command: str, path: str) -> bool:
    """Whether `command` reads the folder `path` (names it, other than as where it writes)."""
    words = re.sub(r"\s#.*$", "", command).replace(f"--out {path}", "")  # a comment may name where a run writes
    return re.search(rf"(?<![\w/-]){re.escape(path)}(?![\w-])", words) is not None


def _start(command: str, clone: Path, stand_ins: Path, workspace: Path) -> Outcome:
    """`command` run in a fresh clone of its own (with the stand-ins it reads, and no others: a run folder in the
    way is refused) until it ends or for STARTUP_SECONDS."""
    shutil.copytree(clone, workspace, symlinks=True, copy_function=os.link)  # no command writes into a tracked file
    if any(tool in command for tool in COPY_THE_LIBRARY):
        (workspace / LINKED).unlink()
        shutil.copytree(ROOT / LINKED, workspace / LINKED, ignore=shutil.ignore_patterns("__pycache__"))
    for path in STAND_INS:
        if _reads(command, path):
            shutil.copytree(stand_ins / path, workspace / path)
    bin_dir = str(Path(sys.executable).parent)  # the commands of this environment (python, mkdocs, ...)
    process = subprocess.Popen(
        ["bash", "-euo", "pipefail", "-c", f'export PATH="{bin_dir}:$PATH"\n{command}'],
        cwd=workspace,
        stdin=subprocess.DEVNULL,  # terminal play reads the end of its input and abandons the game
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    try:
        out, err = process.communicate(timeout=STARTUP_SECONDS)
        status: int | None = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        status = None
    shutil.rmtree(workspace, ignore_errors=True)
    return Outcome(status, out, err)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, Outcome]:
    """Every documented command's start, PARALLEL at a time."""
    clone = _fresh_clone(tmp_path_factory.mktemp("fresh-clone"))
    stand_ins = _stand_ins(clone, tmp_path_factory.mktemp("stand-ins"))
    workspaces = tmp_path_factory.mktemp("workspaces")
    with ThreadPoolExecutor(PARALLEL) as pool:
        started = {
            command: pool.submit(_start, command, clone, stand_ins, workspaces / str(number)) for number, (_, command) in enumerate(RUN)
        }
    return {command: future.result() for command, future in started.items()}


def test_the_pages_show_commands_and_most_of_them_run():
    assert len(COMMANDS) >= 80 and len(RUN) >= 60  # every other command has its reason in NOT_RUN


def test_every_reason_not_to_run_still_names_a_documented_command():
    for pattern in NOT_RUN:
        assert any(pattern in command + "  " for _, command in COMMANDS), f"NOT_RUN's {pattern!r} matches no command the docs show"


def test_every_stand_in_is_read_by_a_documented_command():
    for path in STAND_INS:
        assert any(_reads(command, path) for _, command in RUN), f"no documented command reads the stand-in {path}"


@pytest.mark.parametrize("command", [command for _, command in RUN], ids=[where for where, _ in RUN])
def test_documented_command_starts_as_written(command, outcomes):
    outcome = outcomes[command]
    shown = f"{command}\n--- stdout\n{outcome.out[-2000:]}\n--- stderr\n{outcome.err[-3000:]}"
    if outcome.status is None:  # still working after its start: it runs as written
        assert "Traceback" not in outcome.err and "error:" not in outcome.err, shown
    else:
        assert outcome.status == 0, shown
