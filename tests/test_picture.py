"""Pictures of the table (`render_mode="rgb_array"`): what they show, and what a seat's never shows."""

from __future__ import annotations

import itertools
import sys
from functools import partial

import gymnasium
import numpy as np
import pytest
from helpers import stacked_game
from pettingzoo.test import render_test
from stable_baselines3.common.env_util import make_vec_env

import miaui_env
from miaui_env.core.errors import InvalidConfigError
from miaui_env.core.render import MissingExtraError, require_pillow
from miaui_env.games.miaui.display.picture import seat_picture, table_picture
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.rules import LagoonCard, play_round

# Round 1 puts a Lantern at the bottom; whoever catches it peeks round 2's bottom card face-down (R5).
LANTERN_FIRST = [["lantern:7", "tigerfish:6", "kittenfish:2"], ["emperor_tuna:15", "tigerfish:9", "kittenfish:4"]]


@pytest.mark.parametrize("n", [3, 4, 6])
def test_pettingzoo_render_test_passes_in_every_mode(n):
    render_test(partial(miaui_env.env, num_players=n))
    render_test(partial(miaui_env.env, num_players=n, no_fighting=True, open_baskets=True))


def test_the_picture_keeps_its_size_and_changes_with_the_game():
    env = miaui_env.parallel_env(num_players=5, render_mode="rgb_array")
    observations, _ = env.reset(seed=2)
    pictures = [env.render()]
    while env.agents:
        observations, *_ = env.step({agent: int(np.flatnonzero(seen["action_mask"])[-1]) for agent, seen in observations.items()})
        pictures.append(env.render())
    assert {picture.shape for picture in pictures} == {pictures[0].shape} and pictures[0].dtype == np.uint8
    assert all((before != after).any() for before, after in itertools.pairwise(pictures))


def test_a_seat_picture_shows_nothing_its_seat_may_not_know():
    game = stacked_game(LANTERN_FIRST, num_players=3)
    play_round(game, [12, 5, 1])  # player_0 catches the Lantern: round 2's bottom card lies face-down, peeked by player_0
    assert game.lagoon[0][0].peeker == 0
    swapped = game.clone()
    swapped.lagoon[0][0] = LagoonCard(game.lagoon[1][0].card, peeker=0)  # another face under the face-down card
    encoder = Encoder(game.config, "table")
    observe = lambda state, seat: (encoder.refresh(state), encoder.observe(seat))[1]  # noqa: E731
    for seat in (1, 2):  # they did not peek: their observations, and so their pictures, cannot tell
        np.testing.assert_array_equal(seat_picture(observe(game, seat), 3), seat_picture(observe(swapped, seat), 3))
    assert (seat_picture(observe(game, 0), 3) != seat_picture(observe(swapped, 0), 3)).any()  # the peeker sees the face
    assert (table_picture(game) != table_picture(swapped)).any()  # and so does the spectator


def test_single_seat_env_draws_its_own_seat_and_sb3_make_vec_env_records_it():
    env = gymnasium.make("miaui_env/Miaui-v0", num_players=4, seat=2, render_mode="rgb_array")
    observation, _ = env.reset(seed=0)
    np.testing.assert_array_equal(env.render(), seat_picture(observation, 4))
    vec = make_vec_env("miaui_env/Miaui-v0", n_envs=2, seed=0)  # SB3 asks for rgb_array
    vec.reset()
    image = vec.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8


def test_without_pillow_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now fails, as if it were not installed
    with pytest.raises(MissingExtraError, match=r'pip install "miaui-rl\[render\]"'):
        require_pillow()
    with pytest.raises(MissingExtraError, match="render_mode='rgb_array' draws with Pillow"):
        miaui_env.env(render_mode="rgb_array")
    miaui_env.env(render_mode="ansi")  # the text modes need nothing


def test_bad_seat_picture_input_is_refused():
    with pytest.raises(InvalidConfigError, match="seat_picture takes one observation"):
        seat_picture(np.zeros(10, dtype=np.float32), 4)
    with pytest.raises(InvalidConfigError, match="3-6 players; got"):
        seat_picture(np.zeros(620, dtype=np.float32), 7)


def test_a_seat_picture_of_uint8_codes_is_the_picture_of_the_floats_they_stand_for():
    floats = miaui_env.parallel_env(num_players=4)
    codes = miaui_env.parallel_env(num_players=4, observation_dtype="uint8")
    float_obs, _ = floats.reset(seed=3)
    code_obs, _ = codes.reset(seed=3)
    assert code_obs["player_1"]["observation"].dtype == np.uint8
    np.testing.assert_array_equal(
        seat_picture(code_obs["player_1"]["observation"], 4), seat_picture(float_obs["player_1"]["observation"], 4)
    )


@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_a_seat_picture_refuses_a_table_size_its_observation_does_not_have(dtype):
    observations, _ = miaui_env.parallel_env(num_players=4, observation_dtype=dtype).reset(seed=0)
    with pytest.raises(InvalidConfigError, match="observation is of a 4-player table, not num_players=3"):
        seat_picture(observations["player_0"]["observation"], 3)


def test_a_table_picture_of_no_game_names_what_it_takes():
    with pytest.raises(InvalidConfigError, match=r"table_picture takes a GameState .*; got NoneType"):
        table_picture(None)
