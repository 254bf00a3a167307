"""CI's rotating sample of the mutation catalogue (tests/mutations.py --sample): every mutant once
over consecutive turns, and a bad sample refused before anything is copied or run."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from mutations import CATALOGUE, rotating_sample

TOOL = Path(__file__).resolve().parent / "mutations.py"


@pytest.mark.parametrize("size", [1, 8, 13, len(CATALOGUE), 1000])
def test_consecutive_turns_run_every_mutant_exactly_once(size):
    stride = max(1, math.ceil(len(CATALOGUE) / size))
    turns = [rotating_sample(CATALOGUE, size, turn) for turn in range(100, 100 + stride)]
    names = [mutation.name for sample in turns for mutation in sample]
    assert sorted(names) == sorted(mutation.name for mutation in CATALOGUE)
    assert all(len(sample) <= size for sample in turns)
    assert rotating_sample(CATALOGUE, size, 100) == rotating_sample(CATALOGUE, size, 100 + stride)  # the cycle repeats


def test_a_turn_lists_its_slice_and_a_bad_sample_is_refused():
    listed = subprocess.run([sys.executable, str(TOOL), "--list", "--sample", "8", "--turn", "3"], capture_output=True, text=True)
    expected = rotating_sample(CATALOGUE, 8, 3)
    assert listed.returncode == 0 and f"{len(expected)} mutants" in listed.stdout
    assert all(mutation.name in listed.stdout for mutation in expected)
    for arguments in (["--sample", "0"], ["--sample", "4", "--only", CATALOGUE[0].name]):
        refused = subprocess.run([sys.executable, str(TOOL), *arguments], capture_output=True, text=True)
        assert refused.returncode == 2 and "--sample takes a number >= 1, and not with --only" in refused.stderr
