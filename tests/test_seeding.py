"""The seed tree (`miaui_env.core.seeding`): every stream the library derives from a seed comes
from its functions, and each stays the stream numpy's and Gymnasium's own calls give."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding as gymnasium_seeding

from miaui_env.core.seeding import (
    SeedError,
    seed_child,
    seed_children,
    seed_generator,
    seed_generators,
    seed_int,
    seed_ints,
    seed_tree,
)


def words(sequence: np.random.SeedSequence) -> list[int]:
    return sequence.generate_state(4).tolist()


def draws(generator: np.random.Generator) -> list[float]:
    return generator.random(5).tolist()


def test_a_path_names_the_node_spawn_would_give_without_spawning():
    parent = np.random.SeedSequence(7)
    assert words(seed_child(7, 2)) == words(np.random.SeedSequence(7).spawn(3)[2])
    assert words(seed_child(7, 2, 0)) == words(np.random.SeedSequence(7).spawn(3)[2].spawn(1)[0])
    assert words(seed_child(seed_child(7, 2), 0)) == words(seed_child(7, 2, 0))
    assert words(seed_child(parent, 1)) == words(seed_child(7, 1))
    assert parent.n_children_spawned == 0  # asking spawned nothing: the same node every time
    assert words(seed_child(7)) == words(parent)
    assert [words(child) for child in seed_children(7, 3)] == [words(seed_child(7, i)) for i in range(3)]
    assert len({tuple(words(seed_child(7, i))) for i in range(50)} | {tuple(words(seed_child(8, 0)))}) == 51


def test_the_training_runs_named_streams_are_nodes_of_the_tree():
    # training.config.RunSeeds: stream k's node at `path` is SeedSequence(seed, spawn_key=(k, *path)).
    assert words(seed_child(5, 5, 1, 0)) == words(np.random.SeedSequence(5, spawn_key=(5, 1, 0)))


def test_seed_ints_are_the_first_words_of_a_nodes_state():
    assert seed_ints(3, 6).tolist() == np.random.SeedSequence(3).generate_state(6, dtype=np.uint32).tolist()
    assert seed_ints(3, 6).dtype == np.uint32 and seed_ints(3, 2).tolist() == seed_ints(3, 6)[:2].tolist()
    assert seed_ints(seed_child(3, 0), 4, bits=64).tolist() == seed_child(3, 0).generate_state(4, dtype=np.uint64).tolist()
    assert seed_int(seed_child(3, 1)) == int(seed_child(3, 1).generate_state(1)[0]) == int(seed_ints(seed_child(3, 1), 1)[0])
    assert seed_int(3) == int(np.random.SeedSequence(3).generate_state(1)[0])


def test_a_seeds_generator_is_numpys_and_gymnasiums_for_that_seed():
    for seed in (0, 7, 2**40):
        assert draws(seed_generator(seed)) == draws(np.random.default_rng(seed)) == draws(gymnasium_seeding.np_random(seed)[0])
    assert draws(seed_generator(np.int64(7))) == draws(np.random.default_rng(7))
    assert draws(seed_generator(seed_child(7, 1))) == draws(np.random.default_rng(np.random.SeedSequence(7).spawn(2)[1]))
    assert draws(seed_generator(None)) != draws(seed_generator(None))  # fresh entropy each time


def test_slot_generators_are_the_childrens_streams():
    slots = seed_generators(11, 4)
    assert [draws(g) for g in slots] == [draws(np.random.Generator(np.random.PCG64(c))) for c in np.random.SeedSequence(11).spawn(4)]
    assert len({tuple(draws(g)) for g in seed_generators(11, 4)}) == 4
    assert len({tuple(draws(g)) for g in seed_generators(None, 2)}) == 2


def test_the_0_1_engine_name_slot_generators_is_gone():
    from miaui_env.games.miaui.vector import engine

    assert callable(seed_generators) and not hasattr(engine, "slot_generators")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: seed_tree(-1), "seed=-1 is not allowed"),
        (lambda: seed_tree(1.5), "seed=1.5 is not allowed"),
        (lambda: seed_child(1, 0, -2), r"path \(0, -2\) is not allowed"),
        (lambda: seed_child(1, True), r"path \(True,\) is not allowed"),
        (lambda: seed_ints(1, 3, bits=16), "bits=16 is not allowed; seed ints are 32 or 64 bits wide"),
        (lambda: seed_generator("7"), "seed='7' is not allowed"),
    ],
)
def test_bad_seeds_paths_and_widths_are_refused(call, message):
    with pytest.raises(SeedError, match=message):
        call()
