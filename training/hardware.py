"""Where a trainer computes: its torch device and its CPU threads, one setting for every trainer.

**Threads.** `threads` (a config key of every run config, and `--threads` on every trainer's
command line) is the number of CPU threads both torch and the batched engine use. They take turns
(the engine steps the games, then the network picks the next cards or learns), never run at once,
so one number serves both. The default is 1, chosen by measurement (README, "Threads"): on an idle
2-core machine a second thread gains about a quarter, while on a busy one torch's threads spin
against the other jobs and a run gets several times slower. Raise it on a machine whose cores are
the run's alone (`configs/gpu.yaml` takes 16).

**Device.** `device` is `auto` (CUDA when torch sees a GPU, else the CPU), `cpu`, `cuda` or
`cuda:<k>`. The policy, the privileged critic, the compact observations' expansion and the
teacher's guidance live there; the engine stays on the CPU and hands over uint8 codes once per
step. A checkpoint trained on a GPU loads anywhere: the arena, human play and the browser app map
it to the CPU, and `--resume` to the run's device.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from training.config_files import ConfigError
from training.config_schema import DEVICE_PATTERN

if TYPE_CHECKING:
    import torch


def available_cores() -> int:
    """CPU cores this process may run on (its affinity where the OS tells it, else every core)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def check_threads(threads: object, key: str = "threads") -> int:
    """`threads` if it is a thread count this machine can run (1 up to its cores), else ConfigError naming `key`."""
    import numba

    most = min(available_cores(), int(numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= most:
        raise ConfigError(f"{key}={threads!r} is not allowed; it must be an integer from 1 to {most} (the CPU cores here)")
    return threads


def torch_device(name: str, key: str = "device") -> torch.device:
    """The torch device `name` stands for (`auto`: CUDA when torch sees it); ConfigError naming `key`
    for a name outside DEVICE_PATTERN or a GPU this machine does not have."""
    import torch

    if not isinstance(name, str) or not re.fullmatch(DEVICE_PATTERN, name):
        raise ConfigError(f"{key}={name!r} is not allowed; devices are auto, cpu, cuda and cuda:<index>")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise ConfigError(f"{key}={name!r} but torch sees no CUDA GPU here ({torch.__version__}); use device=auto or cpu")
        if device.index is not None and device.index >= count:
            raise ConfigError(f"{key}={name!r} but torch sees {count} GPU(s): cuda:0 to cuda:{count - 1}")
    return device


@contextlib.contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """Run torch's CPU work on `threads` threads, restoring its setting after."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
