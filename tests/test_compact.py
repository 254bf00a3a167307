"""Compact (uint8) observations and the engine's threads: exact codes, identical games."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import miaui_env
from miaui_env.core.errors import InvalidConfigError
from miaui_env.games.miaui.compact import (
    COMPACT_SCALE,
    COMPACT_ZERO,
    CompactError,
    compact_observations,
    empty_compact,
    expand_observations,
)
from miaui_env.games.miaui.compact_torch import ExpandCompactObservations, expand_observations_torch
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv
from miaui_env.games.miaui.spec import TableSpec
from miaui_env.games.miaui.vector import VectorMiaui

CONFIGS = list(itertools.product(range(3, 7), (False, True), (False, True), ("table", "recall")))
EVERY_CODE = np.tile(np.arange(256, dtype=np.uint8)[:, None], (1, OBSERVATION_LAYOUT.size))


def random_plays(engine: VectorMiaui, rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return np.argmax(rng.random(masks.shape) * masks, axis=2)


@pytest.mark.parametrize(("n", "open_baskets", "no_fighting", "view"), CONFIGS)
def test_reference_observations_round_trip_through_codes(n, open_baskets, no_fighting, view):
    env = miaui_env.parallel_env(num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, view=view)
    rng = np.random.default_rng(n)
    for game in range(3):
        observations, _ = env.reset(seed=game)
        while env.agents:
            floats = np.stack([observations[agent]["observation"] for agent in env.agents])
            codes = compact_observations(floats)
            assert codes.dtype == np.uint8
            np.testing.assert_array_equal(expand_observations(codes), floats, strict=True)
            actions = {agent: int(rng.choice(np.flatnonzero(observations[agent]["action_mask"]))) for agent in env.agents}
            observations, *_ = env.step(actions)


def test_every_code_of_every_entry_expands_alike_in_numpy_and_torch():
    numpy_floats = expand_observations(EVERY_CODE)
    torch_floats = expand_observations_torch(torch.from_numpy(EVERY_CODE)).numpy()
    np.testing.assert_array_equal(torch_floats, numpy_floats, strict=True)
    # and each expands to (code - zero) / scale, as the documentation says
    np.testing.assert_array_equal(numpy_floats, ((np.arange(256)[:, None] - COMPACT_ZERO) / COMPACT_SCALE).astype(np.float32))


def test_documented_scales_per_piece():
    scale, zero = (lambda name: OBSERVATION_LAYOUT.view(COMPACT_SCALE, name)), (lambda name: OBSERVATION_LAYOUT.view(COMPACT_ZERO, name))
    assert (scale("hand") == 1).all() and (zero("hand") == 0).all()
    np.testing.assert_array_equal(scale("lagoon")[0, 0], [1, 1, 1, 1, 1, 1, 15, 1])
    np.testing.assert_array_equal(zero("caught")[0], [0, 0, 0, 0, 0, 0, 50, 0])  # the deck's negative values sum to -50
    np.testing.assert_array_equal(scale("pile_summary")[0], [12, 4, 4, 4, 4, 4, 4, 60])
    assert (scale("deep_priority") == 60).all() and (scale("shallow_priority") == 60).all()
    # an all-zero observation is the zeros' codes
    np.testing.assert_array_equal(expand_observations(empty_compact((2, OBSERVATION_LAYOUT.size))), 0.0)


@pytest.mark.parametrize(("n", "open_baskets", "no_fighting", "view"), CONFIGS)
def test_compact_engine_writes_the_codes_of_the_float_engine(n, open_baskets, no_fighting, view):
    settings = dict(num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, view=view)
    floats, codes = VectorMiaui(32, seed=n, **settings), VectorMiaui(32, seed=n, observation_dtype="uint8", **settings)
    rng = np.random.default_rng(0)
    observations, masks = floats.reset(seed=n)
    compact, _ = codes.reset(seed=n)
    for _ in range(24):  # two games and more: the buffers swap at each game's end
        assert compact.dtype == np.uint8
        np.testing.assert_array_equal(expand_observations(compact), observations, strict=True)
        actions = random_plays(floats, rng, masks)
        observations, masks, rewards, _, infos = floats.step(actions)
        compact, compact_masks, compact_rewards, _, compact_infos = codes.step(actions)
        np.testing.assert_array_equal(compact_masks, masks)
        np.testing.assert_array_equal(compact_rewards, rewards)
        if "final_observation" in infos:
            np.testing.assert_array_equal(expand_observations(compact_infos["final_observation"]), infos["final_observation"])


@pytest.mark.parametrize(("n", "open_baskets", "no_fighting", "view"), CONFIGS[::3])
@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_two_threads_play_the_same_games_as_one(n, open_baskets, no_fighting, view, dtype):
    settings = dict(num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, view=view, observation_dtype=dtype)
    one, two = VectorMiaui(257, seed=7, **settings), VectorMiaui(257, seed=7, threads=2, **settings)  # chunks of unequal size
    rng = np.random.default_rng(1)
    masks = one.action_masks()
    for _ in range(23):
        actions = random_plays(one, rng, masks)
        observations, masks, rewards, dones, _ = one.step(actions)
        other = two.step(actions)
        for mine, theirs in zip((observations, masks, rewards, dones), other[:4], strict=True):
            np.testing.assert_array_equal(mine, theirs, strict=True)
        np.testing.assert_array_equal(two.scores(), one.scores())


def test_threads_leave_the_callers_numba_setting_alone():
    import numba

    numba.set_num_threads(1)
    VectorMiaui(8, threads=2).step(np.zeros((8, 4), dtype=np.int64))
    assert numba.get_num_threads() == 1


def test_an_engines_thread_count_is_fixed_at_construction():
    engine = VectorMiaui(8, threads=1)  # its scratch holds one game per thread: more threads would write past it
    with pytest.raises(AttributeError):
        engine.threads = 2  # type: ignore[misc]
    assert engine.threads == 1


@pytest.mark.parametrize("threads", [0, -1, 2.0, True, "2", 10_000])
def test_bad_thread_counts_are_refused(threads):
    with pytest.raises(InvalidConfigError, match=f"threads={threads!r} is not allowed; it must be an integer from 1 to"):
        VectorMiaui(4, threads=threads)


@pytest.mark.parametrize("dtype", ["float16", "int8", np.float64, None])
def test_bad_observation_dtypes_are_refused(dtype):
    with pytest.raises(InvalidConfigError, match="observation dtypes are 'float32', 'uint8'"):
        TableSpec.of(observation_dtype=dtype)
    assert TableSpec.of(observation_dtype=np.uint8).observation_dtype == "uint8"


def test_codes_refuse_what_they_cannot_give_back():
    floats = np.zeros((2, OBSERVATION_LAYOUT.size), dtype=np.float32)
    OBSERVATION_LAYOUT.view(floats, "pile_summary")[1, 2, 0] = 0.3  # no whole number of twelfths
    with pytest.raises(CompactError, match=r"of observation \(1,\) is 0\.3.*pile_summary|pile_summary.*0\.3"):
        compact_observations(floats)
    with pytest.raises(CompactError, match="must be float32"):
        compact_observations(floats.astype(np.float64))
    with pytest.raises(CompactError, match="codes must be uint8"):
        expand_observations(np.zeros((2, 5), dtype=np.uint8))
    with pytest.raises(CompactError, match="codes must be a uint8 torch tensor"):
        expand_observations_torch(torch.zeros((2, OBSERVATION_LAYOUT.size)))


def test_sb3_vecenv_hands_codes_to_the_learner_and_floats_to_opponents():
    seen_by_opponent: list[np.ndarray] = []

    def opponent(observations, masks):
        seen_by_opponent.append(observations)
        return np.argmax(masks, axis=1)

    floats = MiauiSelfPlayVecEnv(16, learner_seats=[0], opponent=opponent, seed=3)
    codes = MiauiSelfPlayVecEnv(16, learner_seats=[0], opponent=opponent, seed=3, observation_dtype="uint8", threads=2)
    assert codes.observation_space.dtype == np.uint8 and floats.observation_space.dtype == np.float32
    expand = ExpandCompactObservations(codes.observation_space)
    learner_floats, learner_codes = floats.reset(), codes.reset()
    for _ in range(12):
        features = expand(torch.as_tensor(learner_codes, dtype=torch.float32))  # as SB3 hands a uint8 Box over
        np.testing.assert_array_equal(features.numpy(), learner_floats)
        actions = np.argmax(floats.action_masks(), axis=1)
        learner_floats, *_ = floats.step(actions)
        learner_codes, *_ = codes.step(actions)
    assert all(observations.dtype == np.float32 for observations in seen_by_opponent)
    np.testing.assert_array_equal(seen_by_opponent[-1], seen_by_opponent[-2])  # same floats from both envs


def test_envs_hand_out_the_codes_of_their_float_observations():
    floats, codes = (
        miaui_env.parallel_env(num_players=5, view="recall"),
        miaui_env.parallel_env(num_players=5, view="recall", observation_dtype="uint8"),
    )
    first, _ = floats.reset(seed=4)
    second, _ = codes.reset(seed=4)
    while floats.agents:
        for agent in floats.agents:
            assert codes.observation_space(agent).contains(second[agent])
            np.testing.assert_array_equal(expand_observations(second[agent]["observation"]), first[agent]["observation"], strict=True)
        actions = {agent: int(np.flatnonzero(first[agent]["action_mask"])[0]) for agent in floats.agents}
        first, *_ = floats.step(actions)
        second, *_ = codes.step(actions)

    aec = miaui_env.env(observation_dtype="uint8")
    aec.reset(seed=1)
    observation, *_ = aec.last()
    assert observation["observation"].dtype == np.uint8 and aec.observation_space("player_0").contains(observation)

    from miaui_env.games.miaui.single_agent import MiauiSingleAgentEnv

    one_seat = MiauiSingleAgentEnv(seat=0, observation_dtype="uint8")
    float_seat = MiauiSingleAgentEnv(seat=0)
    mine, _ = one_seat.reset(seed=2)
    theirs, _ = float_seat.reset(seed=2)
    assert one_seat.observation_space.contains(mine)
    np.testing.assert_array_equal(expand_observations(mine), theirs, strict=True)
