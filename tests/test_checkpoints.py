"""Checkpoints are written as one: a run killed at any write resumes without losing an evaluation.

The kill is injected deterministically: `os.replace`, the step that puts each staged file in place,
raises `Killed` (a BaseException, as uncatchable by the trainer as a SIGKILL) at a chosen call.
"""

from __future__ import annotations

import errno
import json
import os
import re
from pathlib import Path

import pytest

from miaui_env.core import files
from miaui_env.core.files import STAGING, finish_staged, write_together

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

ROOT = Path(__file__).parent.parent


class Killed(BaseException):
    """The process dies here."""


def kill_at_staged_replace(monkeypatch: pytest.MonkeyPatch, call: int) -> None:
    """Make the `call`-th os.replace out of a staging folder (0-based) kill the process."""
    real_replace, calls = os.replace, [0]

    def replace(src: os.PathLike[str] | str, dst: os.PathLike[str] | str) -> None:
        if STAGING in str(src):
            calls[0] += 1
            if calls[0] - 1 == call:
                raise Killed
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", replace)


def write_set(directory: Path, version: str) -> None:
    names = ["model.zip", "evaluations.csv", "metadata.json"]
    write_together(directory, {name: (lambda path, name=name: path.write_text(f"{name} {version}")) for name in names})


def contents(directory: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(directory.iterdir()) if path.is_file()}


@pytest.mark.parametrize("call", range(4))  # the marker, then each of the three renames
def test_a_set_of_files_is_old_or_new_whole_wherever_the_writer_dies(tmp_path, monkeypatch, call):
    write_set(tmp_path, "old")
    kill_at_staged_replace(monkeypatch, call)
    with pytest.raises(Killed):
        write_set(tmp_path, "new")
    monkeypatch.undo()
    finish_staged(tmp_path)  # what a resuming writer does first
    versions = {text.split()[1] for text in contents(tmp_path).values()}
    assert versions == ({"old"} if call == 0 else {"new"})  # before the marker: the old set; after it: the new one
    assert set(contents(tmp_path)) == {"model.zip", "evaluations.csv", "metadata.json"}
    assert not (tmp_path / STAGING).exists()


def test_a_writer_dying_while_staging_leaves_the_old_set(tmp_path):
    write_set(tmp_path, "old")

    def dies(path: Path) -> None:
        raise Killed

    with pytest.raises(Killed):
        write_together(tmp_path, {"model.zip": lambda path: path.write_text("model.zip new"), "metadata.json": dies})
    finish_staged(tmp_path)
    assert {text.split()[1] for text in contents(tmp_path).values()} == {"old"}


TINY_RUN = [
    "total_timesteps=6000",
    "tables=[{num_players: 4, num_games: 16, learner_seats: [0]}]",
    "opponents.snapshot_every=1000",
    "evaluation.every=2000",
    "evaluation.games_per_baseline=12",
    "kickstart.decisions=0",
    "kickstart.guidance_steps=0",
]
FILES_PER_CHECKPOINT = 6  # the marker, then model, config, evaluations, chart and metadata


@pytest.mark.parametrize("call", [0, 1, 5], ids=["before the marker", "after the marker", "before the metadata"])
def test_a_run_killed_while_checkpointing_resumes_without_losing_an_evaluation(tmp_path, monkeypatch, call):
    from training.config import load_config
    from training.selfplay import train

    config = load_config(ROOT / "configs" / "smoke.yaml", TINY_RUN)
    run = tmp_path / "run"
    kill_at_staged_replace(monkeypatch, FILES_PER_CHECKPOINT + call)  # during the second checkpoint (step 4000)
    with pytest.raises(Killed):
        train(config, run, show_progress=False)
    monkeypatch.undo()

    metadata = train(config, run, resume=True, show_progress=False)
    steps = [row["step"] for row in metadata["evaluations"]]
    baselines = list(config.evaluation.baselines)
    # Every `every` steps, then at the end of the last rollout: each evaluation once, none lost.
    evaluated = [2000, 4000, 6000, metadata["steps"]]
    assert steps == [step for step in evaluated for _ in baselines]
    assert [row["baseline"] for row in metadata["evaluations"]] == baselines * len(evaluated)
    on_disk = json.loads((run / "metadata.json").read_text())
    # Compared as JSON text: 12 games are 3 duplicate sets, whose intervals are NaN (too few to give one).
    assert json.dumps(on_disk["evaluations"]) == json.dumps(metadata["evaluations"]) and on_disk["steps"] == metadata["steps"]
    assert (run / "evaluations.csv").read_text().count("\n") == 1 + len(steps)
    pool_steps = sorted(int(path.stem.removeprefix("step_")) for path in (run / "pool").glob("step_*.pt"))
    assert pool_steps and max(pool_steps) <= metadata["steps"] and len(pool_steps) <= config.opponents.pool_size
    assert not (run / STAGING).exists()


def full_disk_at(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make writing a file called `name` fail as a full disk does: OSError(ENOSPC), no file named."""
    real_write_text = Path.write_text

    def write_text(path: Path, *args, **kwargs) -> int:
        if path.name == name:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write_text(path, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)


def test_a_full_disk_names_the_checkpoint_file_it_could_not_write_and_keeps_the_old_set(tmp_path, monkeypatch):
    from training.checkpoint import DiskFullError, write_checkpoint

    write_set(tmp_path, "old")
    before = contents(tmp_path)
    full_disk_at(monkeypatch, "evaluations.csv")
    parts = {name: (lambda path, name=name: path.write_text(f"{name} new")) for name in ["model.zip", "evaluations.csv"]}
    with pytest.raises(DiskFullError, match="the disk is full") as raised:
        write_checkpoint(tmp_path, parts, {"observation_version": 1})
    assert str(tmp_path / "evaluations.csv") in str(raised.value) and raised.value.errno == errno.ENOSPC
    assert contents(tmp_path) == before


def test_an_evaluation_whose_checkpoint_never_landed_leaves_no_replays(tmp_path, monkeypatch):
    from training.checkpoint import DiskFullError
    from training.config import load_config
    from training.selfplay import Run

    overrides = ["kickstart.decisions=0", "evaluation.games_per_baseline=8"]
    run = Run(load_config(ROOT / "configs" / "smoke.yaml", overrides), tmp_path, resume=False)
    run.checkpoint(0, run.evaluate(0))
    landed = sorted(path.name for path in (tmp_path / "replays").iterdir())
    assert landed and all(name.startswith("step-000000000-") for name in landed)
    rows = run.evaluate(7)
    assert len(list((tmp_path / "replays").iterdir())) == 2 * len(landed)
    full_disk_at(monkeypatch, "config.yaml")
    with pytest.raises(DiskFullError, match=re.escape(str(tmp_path / "config.yaml"))):
        run.checkpoint(7, rows)
    assert sorted(path.name for path in (tmp_path / "replays").iterdir()) == landed
    assert json.loads((tmp_path / "metadata.json").read_text())["steps"] == 0


def test_a_run_killed_between_an_evaluation_and_its_checkpoint_resumes_without_its_replays(tmp_path):
    from training.config import load_config
    from training.selfplay import Run

    config = load_config(ROOT / "configs" / "smoke.yaml", ["kickstart.decisions=0", "evaluation.games_per_baseline=8"])
    run = Run(config, tmp_path, resume=False)
    run.checkpoint(0, run.evaluate(0))
    landed = sorted(path.name for path in (tmp_path / "replays").iterdir())
    run.evaluate(7)  # killed here: no checkpoint, no chance to clean up
    assert len(list((tmp_path / "replays").iterdir())) == 2 * len(landed)
    Run(config, tmp_path, resume=True)
    assert sorted(path.name for path in (tmp_path / "replays").iterdir()) == landed
