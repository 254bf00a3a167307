"""A study of self-play recipes (training/study.py): each variant is the self-play command with its
keys, the table and chart gather their evaluations, finished runs are not trained again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from training.config import ConfigError
from training.study import Variant, collect, table

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

ROOT = Path(__file__).parent.parent
SMALL = ["--config", "configs/smoke.yaml", "--steps", "3000", "--every", "1500", "--games", "20", "--baselines", "random", "greedy"]


def study(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "training.study", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_each_variant_trains_as_the_self_play_command_with_its_keys_and_the_table_gathers_them(tmp_path):
    out = tmp_path / "study"
    done = study(*SMALL, "--variant", "base", "--variant", "fast: ppo.learning_rate=0.001 ppo.n_epochs=3", "--out", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    fast = yaml.safe_load((out / "fast-seed0" / "config.yaml").read_text())
    assert fast["ppo"]["learning_rate"] == 0.001 and fast["ppo"]["n_epochs"] == 3 and fast["exploiters"]["every"] == 0
    assert yaml.safe_load((out / "base-seed0" / "config.yaml").read_text())["ppo"]["learning_rate"] == 0.0003  # smoke.yaml's own
    rows = collect(out)
    assert {row["variant"] for row in rows} == {"base", "fast"} and {row["baseline"] for row in rows} == {"random", "greedy"}
    written = (out / "study.md").read_text()
    assert written == table(rows) and written in done.stdout and written.count("\n") == 4  # header, rule, two variants
    assert (out / "study.png").read_bytes()[:4] == b"\x89PNG"
    again = study(*SMALL, "--variant", "base", "--out", str(out))
    assert again.returncode == 0 and "base-seed0: finished already" in again.stdout


@pytest.mark.parametrize("text", ["", "a b", "x: ppo.learning_rate", "../up"])
def test_a_variant_that_cannot_be_a_run_is_refused(text):
    with pytest.raises(ConfigError):
        Variant.parse(text)


def test_a_bad_key_is_refused_before_any_run_trains(tmp_path):
    done = study(*SMALL, "--variant", "good", "--variant", "bad: ppo.n_steps=0", "--out", str(tmp_path))
    assert done.returncode == 2 and "ppo.n_steps=0 is not allowed" in done.stderr and not list(tmp_path.glob("*-seed*"))
