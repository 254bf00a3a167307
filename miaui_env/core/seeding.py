"""Seed trees: every random stream of a run, a table or a lineup comes from one seed, through here.

A seed (an int >= 0, or a `numpy.random.SeedSequence`) is the root of a tree of SeedSequences.
`seed_child(seed, i, j)` is child j of child i, numbered as `SeedSequence.spawn` numbers them but
built without advancing any spawn counter, so asking twice gives the same node (a resumed run, a
replayed evaluation); `seed_children(seed, k)` is the first k children. Children's streams are
independent of each other and of their parent's. A node's stream is drawn in one of two ways:

- `seed_generator(node)`: a numpy Generator (PCG64) on the node's stream: for an int seed, what
  `np.random.default_rng(seed)` and Gymnasium's `seeding.np_random(seed)` give, so an env reset
  with `seed=s` and an engine slot seeded s deal the same game. `seed_generators(node, k)`: one
  Generator per child, the first k.
- `seed_ints(node, k)`: k ints for the APIs that take an int seed (torch, SB3, RLlib, agents, an
  engine slot): the first k 32-bit words of the node's state (`bits=64`: 64-bit words); `seed_int`
  is the first 32-bit one.

Where the library's streams come from (seed s):

| stream                                            | node                 | drawn as                      |
|---------------------------------------------------|----------------------|-------------------------------|
| `VectorMiaui(seed=s)`: slot i's deals             | child i              | `seed_generators(s, B)[i]`    |
| `VectorMiaui.reset(seeds=[s_0, ...])`: slot i     | s_i itself           | `seed_generator(s_i)`         |
| `MiauiSelfPlayVecEnv(seed=s)`: game slot g        | child 0              | `seed_ints(child, G, bits=64)[g]`, a slot seed |
| its default (random) opponent                     | child 1              | `seed_int`                    |
| `MultiTableVecEnv.seed(s)`: table i               | child i              | as `MiauiSelfPlayVecEnv(seed=child)` |
| arena: duplicate set k (all its games)            | s itself             | `seed_ints(s, sets)[k]`, a slot seed |
| `load_agents(specs, s)`: agent i                  | child i              | `seed_int`                    |
| `search+PRIOR`: the search agent, the prior       | children 0, 1        | `seed_int`                    |
| `RegretMatchingSearchAgent(s)`: worlds and draws, its rollout agent | children 0, 1 | `seed_generator`, `seed_int` |
| an agent's own generator (`RandomAgent(s)`, ...)  | s itself             | `seed_generator(s)`           |
| a training run's streams (`training.config.RunSeeds`) | child `STREAMS.index(stream)`, then its path | `seed_child`, `seed_int` |
"""

from __future__ import annotations

import numpy as np

from miaui_env.core.errors import is_integer

Seed = int | np.random.SeedSequence
INT_BITS = (32, 64)  # the widths `seed_ints` draws


class SeedError(ValueError):
    """A seed that is not a non-negative integer (or None, where a fresh seed is allowed)."""


def check_seed(seed: object, name: str = "seed") -> int | None:
    """`seed` as a Python int (numpy integers accepted), or None; SeedError for anything else."""
    if seed is None:
        return None
    # numpy's timedelta64 is an integer to isinstance: a time span is no seed all the same.
    if not is_integer(seed) or seed < 0:
        raise SeedError(f"{name}={seed!r} is not allowed; a seed is an integer >= 0 (or None for a fresh one)")
    return int(seed)


def seed_tree(seed: Seed | None) -> np.random.SeedSequence:
    """The root of `seed`'s tree: the SeedSequence itself, or one of the int seed (fresh entropy for None)."""
    return seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(check_seed(seed))


def seed_child(seed: Seed | None, *path: int) -> np.random.SeedSequence:
    """The node of `seed`'s tree at `path` (child indices, outermost first): `seed_child(s, 2, 0)` is
    child 0 of child 2, as `SeedSequence(s).spawn(3)[2].spawn(1)[0]` gives it, spawn counters untouched."""
    for index in path:
        if not is_integer(index) or index < 0:
            raise SeedError(f"seed tree path {path!r} is not allowed; a path is child indices, integers >= 0")
    parent = seed_tree(seed)
    return np.random.SeedSequence(parent.entropy, spawn_key=(*parent.spawn_key, *map(int, path)), pool_size=parent.pool_size)


def seed_children(seed: Seed | None, count: int) -> list[np.random.SeedSequence]:
    """The first `count` children of `seed`'s tree, as `SeedSequence(seed).spawn(count)` gives them, but
    without touching the parent's spawn counter: the same every time it is asked."""
    parent = seed_tree(seed)
    return [seed_child(parent, i) for i in range(count)]


def seed_ints(seed: Seed | None, count: int, *, bits: int = 32) -> np.ndarray:
    """(count,) ints for APIs that take an int seed: the first words of the node's state, uint32 or
    (bits=64) uint64; the first `count` of more are the same words."""
    if bits not in INT_BITS:
        raise SeedError(f"bits={bits!r} is not allowed; seed ints are {' or '.join(map(str, INT_BITS))} bits wide")
    words: np.ndarray = seed_tree(seed).generate_state(count, dtype=np.uint64 if bits == 64 else np.uint32)
    return words


def seed_int(seed: Seed) -> int:
    """One 32-bit int from a node of a seed tree, for the APIs that take an int seed (torch, SB3, RLlib, agents)."""
    return int(seed_ints(seed, 1)[0])


def seed_generator(seed: Seed | None) -> np.random.Generator:
    """A Generator on the node's own stream (PCG64): for an int seed, `np.random.default_rng(seed)`'s
    stream and Gymnasium's `seeding.np_random(seed)`'s; fresh entropy for None."""
    return np.random.Generator(np.random.PCG64(seed_tree(seed)))


def seed_generators(seed: Seed | None, count: int) -> list[np.random.Generator]:
    """A Generator for each of the first `count` children of the seed's tree (the batched engine's
    game slots: no two slots, and no two batches of different seeds, share a stream); a fresh tree for None."""
    root = seed_tree(seed)
    return [np.random.Generator(np.random.PCG64(child)) for child in seed_children(root, count)]
