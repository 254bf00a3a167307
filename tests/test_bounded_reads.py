"""Every file the library reads is read with a bound: a device, a pipe, a folder or a huge file is
refused with the library's own error naming it, never read until memory runs out."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from miaui_env.core.checkpoint import CheckpointError, read_metadata
from miaui_env.core.files import MAX_FILE_BYTES, read_bounded
from miaui_env.games.miaui import replay
from miaui_env.games.miaui.saved_state import MAX_STATE_BYTES, StateFormatError, load_state
from miaui_env.games.octopus import replay as octopus_replay
from training.config import load_config
from training.config_files import MAX_CONFIG_BYTES, ConfigError

READERS = {
    "replay": (replay.load_replay, replay.ReplayError, MAX_FILE_BYTES),
    "octopus replay": (octopus_replay.load_replay, octopus_replay.OctopusReplayError, MAX_FILE_BYTES),
    "saved state": (load_state, StateFormatError, MAX_STATE_BYTES),
    "metadata": (read_metadata, CheckpointError, MAX_FILE_BYTES),
    "config": (load_config, ConfigError, MAX_CONFIG_BYTES),
}


def sparse_file(path: Path, size: int) -> Path:
    """A file of `size` zero bytes that costs no disk (a hole)."""
    with path.open("wb") as file:
        file.truncate(size)
    return path


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("case", ["/dev/zero", "/dev/null", "a folder", "one byte past the limit"])
def test_a_file_that_is_not_one_or_is_too_big_is_refused_by_name(reader, case, tmp_path):
    read, error, limit = READERS[reader]
    path = {
        "/dev/zero": Path("/dev/zero"),
        "/dev/null": Path("/dev/null"),
        "a folder": tmp_path,
        "one byte past the limit": sparse_file(tmp_path / "huge.json", limit + 1),
    }[case]
    words = {"a folder": "is a folder", "one byte past the limit": f"more than {limit:,} bytes"}.get(case, "is not a regular file")
    with pytest.raises(error, match=re.escape(words)) as refused:
        read(path)
    assert str(path) in str(refused.value)


def test_the_bound_reads_no_further_than_one_byte_past_it(tmp_path):
    path = tmp_path / "file"
    path.write_bytes(b"x" * 10)
    assert read_bounded(path, 10, ValueError, "a test file") == b"x" * 10
    with pytest.raises(ValueError, match="more than 9 bytes, the most a test file may hold"):
        read_bounded(path, 9, ValueError, "a test file")
    with pytest.raises(ValueError, match="does not exist"):
        read_bounded(tmp_path / "missing", 9, ValueError, "a test file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    opened_for_writing = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # so that opening it to read does not wait
    try:
        with pytest.raises(ValueError, match="is not a regular file"):
            read_bounded(fifo, 9, ValueError, "a test file")
    finally:
        os.close(opened_for_writing)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a: " + "[" * 100_000 + "]" * 100_000 + "\n", "nests deeper than a config can (at most 16 levels)"),
        ("ppo:\n  policy_kwargs: " + "{a: " * 20 + "1" + "}" * 20 + "\n", "nests deeper than a config can"),
        (b"\xff\xfe\x00binary", "not a YAML text file (not UTF-8"),
    ],
)
def test_a_config_nested_too_deep_or_not_text_is_refused(text, words, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ConfigError, match=re.escape(words)):
        load_config(path)
    load_config("smoke")  # a real config still reads (its deepest key is ppo.policy_kwargs.net_arch: 3 levels)
