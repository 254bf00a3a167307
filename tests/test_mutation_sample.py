"""CI's rotating sample of the mutation catalogue (tests/mutations.py --sample): every mutant once
over consecutive turns, and a bad sample refused before anything is copied or run."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from mutations import CATALOGUE, rotating_sample, seed_kernel_cache

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


def test_the_checkouts_compiled_kernels_are_put_where_numba_looks_for_the_copys(tmp_path):
    from numba.core.caching import UserProvidedCacheLocator

    checkout, copy, cache = tmp_path / "checkout", tmp_path / "copy", tmp_path / "cache"
    kernels = checkout / "miaui_env" / "vector"
    (kernels / "__pycache__").mkdir(parents=True)
    (kernels / "rule_kernels.py").write_text("")
    for name in ("rule_kernels.resolve-10.py311.nbi", "rule_kernels.resolve-10.py311.1.nbc", "rule_kernels.cpython-311.pyc"):
        (kernels / "__pycache__" / name).write_bytes(name.encode())
    assert seed_kernel_cache(checkout, copy, cache) == 2  # the index and its data, not Python's bytecode
    expected = cache / UserProvidedCacheLocator.get_suitable_cache_subpath(str(copy / "miaui_env" / "vector" / "rule_kernels.py"))
    assert sorted(path.name for path in expected.iterdir()) == ["rule_kernels.resolve-10.py311.1.nbc", "rule_kernels.resolve-10.py311.nbi"]
    assert (expected / "rule_kernels.resolve-10.py311.nbi").read_bytes() == b"rule_kernels.resolve-10.py311.nbi"
