"""The SB3 self-play VecEnv and the Gymnasium single-agent env."""

from __future__ import annotations

import re
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env
from helpers import RecordingAgent
from sb3_contrib import MaskablePPO

import miaui_env
from miaui_env import OBSERVATION_LAYOUT, IllegalActionError, InvalidConfigError
from miaui_env.games.miaui.agents import RandomAgent
from miaui_env.games.miaui.rules import NUM_ROUNDS
from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv


def lowest_card(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """An opponent that always plays its lowest card."""
    return np.argmax(masks, axis=1)


def play_episode(venv: MiauiSelfPlayVecEnv, rng: np.random.Generator) -> tuple[np.ndarray, list[dict]]:
    """Random legal learner actions until the episode ends; returns summed rewards and final infos."""
    total = np.zeros(venv.num_envs)
    while True:
        actions = np.argmax(rng.random((venv.num_envs, 12)) * venv.action_masks(), axis=1)
        _, rewards, dones, infos = venv.step(actions)
        total += rewards
        if dones.all():
            return total, infos
        assert not dones.any()


def test_each_index_gets_its_own_seats_reward_and_seats_rotate():
    venv = MiauiSelfPlayVecEnv(num_games=8, num_players=5, learner_seats=[0, 3], opponent=lowest_card, reward="score", seed=1)
    venv.reset()
    rng = np.random.default_rng(0)
    for episode in range(3):
        total, infos = play_episode(venv, rng)
        seats = [info["seat"] for info in infos]
        assert seats == [(s + episode) % 5 for s in (0, 3)] * 8
        assert total.tolist() == [info["score"] for info in infos]  # its own seat's score, nobody else's
        assert [info["episode"]["r"] for info in infos] == total.tolist()
        for info in infos:
            assert info["terminal_observation"].shape == (620,)


def test_opponents_move_only_on_their_seats_and_swap_between_episodes():
    calls = []

    def counting(observations, masks):
        calls.append(len(masks))
        return np.argmax(masks, axis=1)

    venv = MiauiSelfPlayVecEnv(num_games=4, num_players=4, learner_seats=[1], opponent=counting, rotate_seats=False, seed=2)
    venv.reset()
    rng = np.random.default_rng(1)
    venv.step(np.argmax(rng.random((4, 12)) * venv.action_masks(), axis=1))
    assert calls == [4 * 3]
    venv.set_opponent(RandomAgent(0))
    play_episode(venv, rng)
    assert len(calls) == 11 and venv.opponent is not counting  # swapped only once the episode ended


def test_masks_are_the_learner_seats_hands():
    venv = MiauiSelfPlayVecEnv(num_games=3, num_players=3, learner_seats=[2], seed=3)
    venv.reset()
    np.testing.assert_array_equal(venv.action_masks(), venv.engine.action_masks()[:, 2].astype(bool))
    masks = np.stack(venv.env_method("action_masks"))  # how sb3-contrib asks for them
    assert masks.shape == (3, 12) and masks.all()
    venv.step(np.full(3, 4))
    assert not venv.action_masks()[:, 4].any()
    with pytest.raises(IllegalActionError, match="player_2"):
        venv.step(np.full(3, 4))


def test_same_seed_same_experience():
    def experience(seed: int) -> list[np.ndarray]:
        venv = MiauiSelfPlayVecEnv(num_games=4, num_players=4, learner_seats=[0], seed=seed)
        venv.seed(seed)
        seen = [venv.reset()]
        rng = np.random.default_rng(0)
        for _ in range(15):
            obs, rewards, _, _ = venv.step(np.argmax(rng.random((4, 12)) * venv.action_masks(), axis=1))
            seen += [obs.copy(), rewards]
        return seen

    assert all(np.array_equal(a, b) for a, b in zip(experience(7), experience(7), strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(experience(7), experience(8), strict=True))


def test_bad_learner_seats_are_refused():
    with pytest.raises(ValueError, match="learner_seats"):
        MiauiSelfPlayVecEnv(num_games=2, num_players=3, learner_seats=[3])


@pytest.mark.slow
def test_maskable_ppo_trains_on_the_vec_env():
    venv = MiauiSelfPlayVecEnv(num_games=16, num_players=4, learner_seats=[0, 2], seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=44, batch_size=128, n_epochs=2, seed=0, verbose=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.learn(3000)
    assert model.num_timesteps >= 3000
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=True)
    assert venv.action_masks()[np.arange(venv.num_envs), actions].all()


def test_gymnasium_env_is_registered_and_passes_the_checker():
    env = gymnasium.make("miaui_env/Miaui-v0", num_players=5, opponents=lowest_card)
    check_env(env.unwrapped)
    obs, info = env.reset(seed=0)
    assert obs.shape == (620,) and info["seat"] in range(5)


def test_single_agent_reward_is_its_seats_and_opponents_play_their_policy():
    env = miaui_env.games.miaui.single_agent.MiauiSingleAgentEnv(num_players=4, opponents=lowest_card, seat=2, reward="margin")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    total, steps = 0.0, 0
    while True:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
        steps += 1
        assert not truncated and info["seat"] == 2
        if terminated:
            break
    game = env._game.game
    scores = [sum(game.card(c).value for c in pile) for pile in game.piles]
    assert steps == 11 and total == scores[2] - max(s for i, s in enumerate(scores) if i != 2)
    assert all(p[:-1] == sorted(p[:-1]) for i, p in enumerate(game.played) if i != 2)  # lowest card each round


def test_single_agent_refuses_a_bad_card_before_anyone_moves():
    env = miaui_env.games.miaui.single_agent.MiauiSingleAgentEnv(num_players=3, seat=0)
    env.reset(seed=1)
    env.step(0)
    with pytest.raises(IllegalActionError, match=r"player_0: action 0 \(diver card 1\) is not in hand"):
        env.step(0)
    assert env._game.game.round == 2


def test_single_agent_seeding_and_seat_draw():
    def run(seed: int) -> tuple[int, list]:
        env = miaui_env.games.miaui.single_agent.MiauiSingleAgentEnv(num_players=6)
        obs, info = env.reset(seed=seed)
        return info["seat"], obs.tolist()

    assert run(3) == run(3)
    assert {run(s)[0] for s in range(30)} == set(range(6))


def test_single_agent_games_with_heuristic_opponents_follow_the_seed():
    from miaui_env.games.miaui.agents.heuristics import GreedyAgent

    def game(seed: int) -> list:
        env = miaui_env.games.miaui.single_agent.MiauiSingleAgentEnv(num_players=4, opponents=GreedyAgent(), seat=0)
        env.reset(seed=seed)
        for _ in range(11):
            env.step(int(np.flatnonzero(env.action_masks())[0]))
        return env._game.game.played

    assert game(2) == game(2)


def test_single_agent_bad_settings():
    with pytest.raises(ValueError, match="seat=4"):
        miaui_env.games.miaui.single_agent.MiauiSingleAgentEnv(num_players=4, seat=4)
    with pytest.raises(ValueError, match="one agent for each of the 3 other seats"):
        miaui_env.games.miaui.single_agent.MiauiSingleAgentEnv(num_players=4, opponents=[lowest_card])


def test_single_agent_env_shows_a_recall_opponent_its_view():
    from miaui_env.games.miaui.observation import table_view
    from miaui_env.games.miaui.single_agent import MiauiSingleAgentEnv

    opponent = RecordingAgent("remembers", "recall")
    env = MiauiSingleAgentEnv(num_players=3, opponents=opponent, seat=0)
    observation, _ = env.reset(seed=1)
    mine = [observation]
    for _ in range(10):
        observation, *_ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        mine.append(observation)
    played = OBSERVATION_LAYOUT.view(np.concatenate(opponent.seen), "played")[:, 1:]
    assert played.sum() > 0  # the opponent remembers every card played
    assert np.array_equal(table_view(np.array(mine)), np.array(mine))  # the agent sees the table view
    assert OBSERVATION_LAYOUT.view(np.array(mine), "played")[:, 1:].sum() == 0


def supersuit_vec_env(copies: int) -> Any:
    """Four-seat MaskInObservation envs vectorised by SuperSuit for SB3, as examples/supersuit_masks.py builds them."""
    import supersuit  # the supersuit extra: only the tests of SuperSuit's adapter need it

    from miaui_env.integrations.adapters import MaskInObservation

    env = MaskInObservation(miaui_env.parallel_env(num_players=4))
    return supersuit.concat_vec_envs_v1(supersuit.pettingzoo_env_to_vec_env_v1(env), copies, num_cpus=0, base_class="stable_baselines3")


def test_supersuits_copies_of_the_env_observe_what_the_env_observes():
    from miaui_env.integrations.adapters import MaskInObservation

    venv = supersuit_vec_env(copies=2)  # SuperSuit builds each copy by pickling the env it is given
    joined, _ = venv.venv.reset(seed=5)  # the i-th copy is seeded 5 + i
    for copy, seed in enumerate((5, 6)):
        env = MaskInObservation(miaui_env.parallel_env(num_players=4))
        observations, _ = env.reset(seed=seed)
        np.testing.assert_array_equal(joined[4 * copy : 4 * copy + 4], np.stack([observations[agent] for agent in env.possible_agents]))


def test_action_masks_from_observation_follow_the_games_through_the_autoreset():
    from miaui_env.integrations.adapters import split_mask
    from miaui_env.integrations.sb3 import ActionMasksFromObservation

    venv = ActionMasksFromObservation(supersuit_vec_env(copies=2))
    with pytest.raises(ResetNeeded, match="reset"):
        venv.action_masks()
    assert venv.has_attr("action_masks")
    observations = venv.reset()
    rng = np.random.default_rng(0)
    for step in range(NUM_ROUNDS - 1):
        masks = venv.action_masks()
        np.testing.assert_array_equal(masks, split_mask(observations)[1])
        assert (masks.sum(axis=1) == NUM_ROUNDS - step).all()  # one card fewer in every hand each round
        np.testing.assert_array_equal(venv.env_method("action_masks", indices=[1, 6]), masks[[1, 6]])
        observations, _, dones, _ = venv.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
    assert dones.all() and venv.action_masks().all()  # the next games, dealt by SuperSuit's autoreset: full hands


def test_action_masks_from_observation_take_maskable_ppos_seed_to_the_games():
    from miaui_env.integrations.sb3 import ActionMasksFromObservation

    def first_observations(seed: int) -> np.ndarray:
        venv = ActionMasksFromObservation(supersuit_vec_env(copies=2))
        venv.seed(seed)
        return np.array(venv.reset())

    np.testing.assert_array_equal(first_observations(3), first_observations(3))
    assert not np.array_equal(first_observations(3), first_observations(4))


def test_a_bad_share_of_a_multi_table_step_leaves_every_table_its_earlier_actions():
    from miaui_env.core.vec import MultiTableVecEnv

    def tables() -> MultiTableVecEnv:
        venv = MultiTableVecEnv([MiauiSelfPlayVecEnv(2, num_players=3, learner_seats=[0], opponent=lowest_card, seed=s) for s in (4, 5)])
        venv.reset()
        return venv

    venv, twin = tables(), tables()
    masks = venv.action_masks()
    lowest, highest = np.argmax(masks, axis=1), 11 - np.argmax(masks[:, ::-1], axis=1)
    venv.step_async(lowest)
    twin.step_async(lowest)
    refused = np.concatenate([highest[:2], [highest[2], 12]])  # the first table's share is legal, the second's is not
    with pytest.raises(IllegalActionError, match=r"env index 1 \(game 1, player_0\): action 12"):
        venv.step_async(refused)
    played, expected = venv.step_wait(), twin.step_wait()
    np.testing.assert_array_equal(played[0], expected[0])
    with pytest.raises(IllegalActionError, match="action 12"):
        venv.tables[0].check_actions(np.array([12, 0]))
    checked = venv.tables[0].check_actions(np.array([highest[0], highest[1]]))
    assert checked.dtype == np.int64 and checked.tolist() == highest[:2].tolist()


def test_expanding_codes_refuses_a_float_observation_space():
    from miaui_env.games.miaui.compact_torch import ExpandCompactObservations

    floats = MiauiSelfPlayVecEnv(2, num_players=3, seed=0)
    with pytest.raises(miaui_env.InvalidConfigError, match=r"reads uint8 codes.*float32.*observation_dtype='uint8'"):
        ExpandCompactObservations(floats.observation_space)


@pytest.mark.parametrize(
    ("second", "message"),
    [({"observation_dtype": "uint8"}, r"table 1 has Box\(0, 255, \(620,\), uint8\)"), ({"privileged": True}, r"table 1 has .*\(796,\)")],
    ids=["codes among floats", "a wider privileged table"],
)
def test_a_multi_table_vecenv_refuses_tables_of_other_observation_spaces(second, message):
    from miaui_env.core.vec import MultiTableVecEnv

    tables = [MiauiSelfPlayVecEnv(2, num_players=3, seed=1), MiauiSelfPlayVecEnv(2, num_players=4, seed=2, **second)]
    first = r"must share one observation space: table 0 has Box\(-64.0, 64.0, \(620,\), float32\)"
    with pytest.raises(miaui_env.InvalidConfigError, match=first):
        MultiTableVecEnv(tables)
    with pytest.raises(miaui_env.InvalidConfigError, match=message):
        MultiTableVecEnv(tables)


def test_a_mask_in_observation_over_codes_declares_codes_and_holds_every_observation():
    from miaui_env.integrations.adapters import MaskInObservation, split_mask

    codes = MaskInObservation(miaui_env.parallel_env(num_players=4, observation_dtype="uint8"))
    plain = miaui_env.parallel_env(num_players=4, observation_dtype="uint8")
    space = codes.observation_space("player_0")
    assert space.dtype == np.uint8 and space.shape == (632,)
    joined, _ = codes.reset(seed=0)
    observations, _ = plain.reset(seed=0)
    while codes.agents:
        assert all(space.contains(seen) for seen in joined.values())
        for agent, seen in observations.items():
            vector, mask = split_mask(joined[agent])
            np.testing.assert_array_equal(vector, seen["observation"])
            np.testing.assert_array_equal(mask, seen["action_mask"].astype(bool))
        actions = {agent: int(np.flatnonzero(split_mask(seen)[1])[0]) for agent, seen in joined.items()}
        joined, *_ = codes.step(actions)
        observations, *_ = plain.step(actions)


def test_a_second_step_wait_is_refused_before_the_opponents_choose():
    from miaui_env.core.vec import MultiTableVecEnv

    venv = MiauiSelfPlayVecEnv(2, num_players=3, learner_seats=[0], seed=6)
    venv.reset()
    with pytest.raises(IllegalActionError, match=r"step_wait\(\) needs step_async\(actions\) first"):
        venv.step_wait()  # after a reset: nothing stored yet
    venv.step_async(np.argmax(venv.action_masks(), axis=1))
    venv.step_wait()
    opponent_state = repr(venv.opponent.rng.bit_generator.state)
    hands = venv.action_masks().copy()
    with pytest.raises(IllegalActionError, match=r"step_wait\(\) needs step_async\(actions\) first"):
        venv.step_wait()
    assert repr(venv.opponent.rng.bit_generator.state) == opponent_state
    np.testing.assert_array_equal(venv.action_masks(), hands)
    tables = MultiTableVecEnv([MiauiSelfPlayVecEnv(2, num_players=3, learner_seats=[0], seed=s) for s in (7, 8)])
    tables.reset()
    tables.tables[0].step_async(np.argmax(tables.tables[0].action_masks(), axis=1))  # only the first table has actions
    with pytest.raises(IllegalActionError, match="step_async"):
        tables.step_wait()
    assert tables.tables[0].engine.round == tables.tables[1].engine.round == 1  # neither table played


def test_wrappers_refuse_what_they_cannot_wrap_by_name():
    from miaui_env.integrations.adapters import MaskedObservationError, MaskInObservation
    from miaui_env.integrations.sb3 import ActionMasksFromObservation

    for not_parallel, words in [(None, "got NoneType"), (miaui_env.raw_env(), "got raw_env (an AEC env: wrap miaui_env.parallel_env")]:
        with pytest.raises(InvalidConfigError, match=re.escape(words)):
            MaskInObservation(not_parallel)
    with pytest.raises(MaskedObservationError, match=r"reads the action mask from the last 12 entries"):
        ActionMasksFromObservation(MiauiSelfPlayVecEnv(num_games=2, num_players=4, seed=0))  # its rows hold no mask


def test_a_ragged_multi_table_step_is_refused_by_name_and_changes_nothing():
    from miaui_env.core.vec import MultiTableVecEnv

    tables = [MiauiSelfPlayVecEnv(num_games=2, num_players=4, seed=0), MiauiSelfPlayVecEnv(num_games=2, num_players=3, seed=1)]
    venv = MultiTableVecEnv(tables)
    venv.reset()
    masks = venv.action_masks()
    with pytest.raises(IllegalActionError, match=r"one action index per env index, got \[\[0, 1\], \[2\]\]"):
        venv.step([[0, 1], [2]])
    np.testing.assert_array_equal(venv.action_masks(), masks)
    with pytest.raises(IllegalActionError, match="needs step_async"):
        venv.step_wait()  # nothing was stored for any table


def test_an_octopus_vec_env_whose_opponent_failed_mid_step_asks_for_a_reset():
    from miaui_env.games.miaui.agents import AgentError, RandomAgent
    from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv

    class FailsOnCue:
        name = "fails-on-cue"

        def __init__(self):
            self.fail, self.random = False, RandomAgent(0)

        def act(self, observations, masks):
            return np.full(len(masks), 99) if self.fail else self.random.act(observations, masks)

        def reset(self):
            pass

    opponent = FailsOnCue()
    venv = OctopusSelfPlayVecEnv(num_games=2, num_players=3, opponent=opponent, seed=0)
    venv.reset()
    first = np.array([int(np.flatnonzero(mask)[0]) for mask in venv.action_masks()])
    opponent.fail = True
    with pytest.raises(AgentError, match="played action index 99"):
        venv.step(first)
    opponent.fail = False
    again = np.array([int(np.flatnonzero(mask)[0]) for mask in venv.action_masks()])
    with pytest.raises(IllegalActionError, match=r"an opponent failed during the last step or reset \(AgentError: .*call reset\(\)"):
        venv.step(again)
    venv.reset()
    venv.step(np.array([int(np.flatnonzero(mask)[0]) for mask in venv.action_masks()]))  # a new deal plays on
