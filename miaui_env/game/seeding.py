"""Seed trees: every random stream of a run, a table or a lineup is a child of one seed.

`numpy.random.SeedSequence.spawn` gives children whose streams are independent of each other and
of the parent's; `seed_children` gives the same children without advancing a parent's spawn
counter, so asking twice gives the same seeds (a resumed run, a replayed evaluation).
"""

from __future__ import annotations

import numpy as np

Seed = int | np.random.SeedSequence


class SeedError(ValueError):
    """A seed that is not a non-negative integer (or None, where a fresh seed is allowed)."""


def check_seed(seed: object, name: str = "seed") -> int | None:
    """`seed` as a Python int (numpy integers accepted), or None; SeedError for anything else."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise SeedError(f"{name}={seed!r} is not allowed; a seed is an integer >= 0 (or None for a fresh one)")
    return int(seed)


def seed_children(seed: Seed, count: int) -> list[np.random.SeedSequence]:
    """The first `count` children of `seed`'s SeedSequence, as `SeedSequence(seed).spawn(count)` gives
    them, but without touching the parent's spawn counter: the same every time it is asked."""
    parent = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(check_seed(seed))
    return [np.random.SeedSequence(parent.entropy, spawn_key=(*parent.spawn_key, i), pool_size=parent.pool_size) for i in range(count)]


def seed_int(sequence: np.random.SeedSequence) -> int:
    """One 32-bit int from a SeedSequence, for the APIs that take an int seed (torch, SB3, RLlib, agents, the arena)."""
    return int(sequence.generate_state(1)[0])
