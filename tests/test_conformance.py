"""The envs as RL libraries use them unchanged: PettingZoo's state test and registry, illegal cards
treated as PettingZoo's classic games do (opt-in), infos of one shape, human rendering as the game
goes, Gymnasium's vector envs with valid masks at every step."""

from __future__ import annotations

import itertools

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import state_test

import miaui_env
from miaui_env import IllegalActionError, InvalidConfigError
from miaui_env.games.miaui.env import RoundResults
from miaui_env.games.miaui.rules import NUM_ROUNDS

TABLES = list(itertools.product(range(3, 7), (False, True), (False, True)))


@pytest.mark.parametrize(("n", "open_baskets", "no_fighting"), TABLES)
def test_pettingzoo_state_test_passes_with_illegal_cards_ending_the_game(n, open_baskets, no_fighting):
    settings = dict(num_players=n, open_baskets=open_baskets, no_fighting=no_fighting)
    # state_test samples actions without the mask: most games end at the first card not in hand
    state_test(miaui_env.env(illegal_action="terminate", **settings), miaui_env.parallel_env(**settings), num_cycles=40)


def test_an_illegal_card_ends_the_game_with_the_illegal_reward_for_the_offender_only():
    env = miaui_env.env(num_players=4, illegal_action="terminate", illegal_reward=-2.5)
    env.reset(seed=3)
    for card in (0, 1, 2, 3):  # round 1: everyone plays a different card
        env.step(card)
    before = env.unwrapped.game.round
    env.step(0)  # player_0 already played card 1
    assert all(env.terminations.values()) and env.unwrapped.game.round == before  # no round was played
    assert env.rewards == {"player_0": -2.5, "player_1": 0, "player_2": 0, "player_3": 0}
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated and reward == (-2.5 if agent == "player_0" else 0)
        env.step(None)
    assert env.agents == []


@pytest.mark.parametrize("action", ["a", 12, -1, 2.0, True])
def test_a_non_card_is_still_refused_when_illegal_cards_end_the_game(action):
    env = miaui_env.env(illegal_action="terminate")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="is not a card index; actions are the ints 0-11"):
        env.step(action)
    assert not any(env.terminations.values())


def test_illegal_cards_raise_by_default_and_bad_options_are_refused():
    env = miaui_env.env()
    env.reset(seed=0)
    for card in (0, 1, 2, 3):
        env.step(card)
    with pytest.raises(IllegalActionError, match="not in"):
        env.step(0)
    with pytest.raises(InvalidConfigError, match="illegal_action='end' is not allowed; use one of 'raise', 'terminate'"):
        miaui_env.env(illegal_action="end")
    with pytest.raises(InvalidConfigError, match="illegal_reward=nan is not allowed"):
        miaui_env.env(illegal_action="terminate", illegal_reward=float("nan"))


def info_shapes(info: dict) -> dict[str, tuple[type, tuple[int, ...]]]:
    """What an array library makes of each info value: its type and numpy shape."""
    return {key: (type(value), np.asarray(value).shape) for key, value in info.items()}


@pytest.mark.parametrize(("n", "open_baskets", "no_fighting"), TABLES[::3])
def test_infos_have_the_same_keys_and_shapes_at_every_step(n, open_baskets, no_fighting):
    settings = dict(num_players=n, open_baskets=open_baskets, no_fighting=no_fighting)
    expected = {"round_results": (RoundResults, ()), "score": (int, ()), "winner": (bool, ())}
    rng = np.random.default_rng(n)

    aec = miaui_env.env(**settings)
    aec.reset(seed=n)
    assert all(info == {} for info in aec.infos.values())  # reset's infos are empty (TorchRL builds its specs from them)
    seen = []
    for _ in aec.agent_iter():
        observation, _, terminated, _, info = aec.last()
        if aec.unwrapped.game.round > 1:  # from the first reveal on: the same keys and shapes every step
            assert info_shapes(info) == expected
            seen.append(info)
        aec.step(None if terminated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    # as Tianshou's Batch stacks them: one array per key, one entry per step
    assert all(np.stack([np.asarray(info[key]) for info in seen]).shape == (len(seen),) for key in expected)
    assert [record.round for record in seen[-1]["round_results"]] == [NUM_ROUNDS - 1, NUM_ROUNDS]

    parallel = miaui_env.parallel_env(**settings)
    observations, infos = parallel.reset(seed=n)
    assert all(info == {} for info in infos.values())
    while parallel.agents:
        actions = {agent: int(rng.choice(np.flatnonzero(seen_["action_mask"]))) for agent, seen_ in observations.items()}
        observations, _, _, _, infos = parallel.step(actions)
        assert all(info_shapes(info) == expected for info in infos.values())
    scores = {agent: info["score"] for agent, info in infos.items()}
    assert [agent for agent, info in infos.items() if info["winner"]] == [a for a, s in scores.items() if s == max(scores.values())]


def test_human_rendering_prints_at_every_deal_and_reveal(capsys):
    env = miaui_env.env(num_players=3, render_mode="human")
    env.reset(seed=0)
    assert capsys.readouterr().out.count("round 1 of 12") == 1  # the deal, without a render() call
    for _ in env.agent_iter():
        observation, _, terminated, _, _ = env.last()
        env.step(None if terminated else int(np.flatnonzero(observation["action_mask"])[0]))
    printed = capsys.readouterr().out
    assert printed.count("round 2 of 12") == 1 and printed.count("round 11 of 12") == 1  # once per reveal, not per agent

    parallel = miaui_env.parallel_env(num_players=3, render_mode="human")
    observations, _ = parallel.reset(seed=0)
    parallel.step({agent: int(np.flatnonzero(seen["action_mask"])[0]) for agent, seen in observations.items()})
    assert capsys.readouterr().out.count("of 12") == 2  # the deal and the first reveal


def test_gymnasium_vector_env_masks_are_valid_at_every_step_and_in_the_info():
    envs = gymnasium.make_vec("miaui_env/Miaui-v0", num_envs=3, vectorization_mode="sync", num_players=4)
    _, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(3 * NUM_ROUNDS):  # three games each: 11 decisions, then a step that only resets
        masks = np.stack(envs.call("action_masks"))
        assert masks.any(axis=1).all()  # a card to choose in every sub-env, finished ones included
        np.testing.assert_array_equal(info["action_mask"].astype(bool), masks)
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        _, _, terminated, _, info = envs.step(actions)
        episodes += int(terminated.sum())
    assert episodes == 9


def test_single_agent_info_mask_is_the_hand_until_the_end():
    env = miaui_env.games.miaui.single_agent.MiauiSingleAgentEnv(num_players=3, seat=1)
    observation, info = env.reset(seed=1)
    np.testing.assert_array_equal(info["action_mask"], miaui_env.OBSERVATION_LAYOUT.view(observation, "hand"))
    terminated = False
    while not terminated:
        observation, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if not terminated:
            np.testing.assert_array_equal(info["action_mask"], miaui_env.OBSERVATION_LAYOUT.view(observation, "hand"))
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].all()  # over: every card, for the reset to ignore


def test_mask_in_observation_plays_whole_games_and_its_mask_comes_back_out():
    from miaui_env.integrations.adapters import MaskInObservation, split_mask

    game = MaskInObservation(miaui_env.parallel_env(num_players=4))
    joined, _ = game.reset(seed=1)
    rounds = 0
    while game.agents:  # a whole game, cards chosen from the masks cut back out
        assert all(game.observation_space(agent).contains(seen) for agent, seen in joined.items())
        joined, *_ = game.step({agent: int(np.flatnonzero(split_mask(seen)[1])[0]) for agent, seen in joined.items()})
        rounds += 1
    assert rounds == NUM_ROUNDS - 1
    env = MaskInObservation(miaui_env.parallel_env(num_players=3))
    plain = miaui_env.parallel_env(num_players=3)
    joined, _ = env.reset(seed=2)
    observations, _ = plain.reset(seed=2)
    for agent in plain.agents:
        vector, mask = split_mask(joined[agent])
        np.testing.assert_array_equal(vector, observations[agent]["observation"])
        np.testing.assert_array_equal(mask, observations[agent]["action_mask"].astype(bool))
    with pytest.raises(ValueError, match=r"observations with their mask are \(\.\.\., 632\); got shape \(620,\)"):
        split_mask(observations["player_0"]["observation"])


@pytest.mark.parametrize("copy_env", ["deepcopy", "pickle"])
def test_a_copied_env_observes_what_a_new_one_does(copy_env):
    # SuperSuit's vector envs (and others) copy the env they are given: the copy must stay whole.
    import copy
    import pickle

    original = miaui_env.parallel_env(num_players=4, view="recall")
    original.reset(seed=1)
    copied = copy.deepcopy(original) if copy_env == "deepcopy" else pickle.loads(pickle.dumps(original))
    fresh = miaui_env.parallel_env(num_players=4, view="recall")
    rng = np.random.default_rng(0)
    for seed in (3, 4):
        mine, _ = copied.reset(seed=seed)
        theirs, _ = fresh.reset(seed=seed)
        while fresh.agents:
            for agent in fresh.agents:
                np.testing.assert_array_equal(mine[agent]["observation"], theirs[agent]["observation"], strict=True)
            actions = {agent: int(rng.choice(np.flatnonzero(seen["action_mask"]))) for agent, seen in theirs.items()}
            mine, *_ = copied.step(actions)
            theirs, *_ = fresh.step(actions)


AEC_ENVS = {
    "miaui": lambda: miaui_env.env(num_players=4, view="recall"),
    "miaui-table": lambda: miaui_env.env(num_players=3),
    "octopus": lambda: miaui_env.octopus_env(num_players=3),
    "octopus-recall": lambda: miaui_env.octopus_env(num_players=2, view="recall"),
}


def play_aec(env, rng, decisions=None):
    """Random legal play from where `env` is, for `decisions` steps (None: to the end); what each step showed."""
    seen = []
    for agent in env.agent_iter(max_iter=decisions if decisions is not None else 2**31):
        observation, reward, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        seen.append((agent, observation["observation"].tobytes(), float(reward), terminated, action))
        env.step(action)
    return seen


@pytest.mark.parametrize("copy_env", ["deepcopy", "pickle"])
@pytest.mark.parametrize("moment", ["before reset", "mid-game", "after the end"])
@pytest.mark.parametrize("name", AEC_ENVS)
def test_every_aec_env_copies_and_plays_on_as_the_original(name, moment, copy_env):
    # Search, MCTS and multiprocessing vector envs copy an env at any moment: the copy must play on identically.
    import copy
    import pickle

    original = AEC_ENVS[name]()
    if moment != "before reset":
        original.reset(seed=5)
        play_aec(original, np.random.default_rng(1), decisions=None if moment == "after the end" else 9)
    copied = copy.deepcopy(original) if copy_env == "deepcopy" else pickle.loads(pickle.dumps(original))
    if moment == "mid-game":
        assert play_aec(copied, np.random.default_rng(2)) == play_aec(original, np.random.default_rng(2))
    for env in (original, copied):
        env.reset(seed=11)
    assert play_aec(copied, np.random.default_rng(3)) == play_aec(original, np.random.default_rng(3))


BOTH_GAMES = {"miaui": lambda **kw: miaui_env.env(num_players=3, **kw), "octopus": lambda **kw: miaui_env.octopus_env(num_players=2, **kw)}


@pytest.mark.parametrize("game", BOTH_GAMES)
def test_none_from_an_agent_still_in_the_game_is_refused_when_illegal_actions_end_it(game):
    env = BOTH_GAMES[game](illegal_action="terminate")
    env.reset(seed=1)
    before = (env.agent_selection, dict(env.terminations), env.last()[0]["observation"].tobytes())
    with pytest.raises(IllegalActionError, match=r"action None is not"):
        env.step(None)
    assert (env.agent_selection, dict(env.terminations), env.last()[0]["observation"].tobytes()) == before


@pytest.mark.parametrize("illegal_action", ["raise", "terminate"])
@pytest.mark.parametrize("game", BOTH_GAMES)
def test_an_action_after_every_agent_left_the_game_asks_for_a_reset(game, illegal_action):
    from gymnasium.error import ResetNeeded

    env = BOTH_GAMES[game](illegal_action=illegal_action)
    env.reset(seed=2)
    play_aec(env, np.random.default_rng(0))
    assert env.agents == []
    with pytest.raises(ResetNeeded, match="after the game ended and every agent left it: call reset"):
        env.step(0)
    env.reset(seed=2)
    assert env.agents and not any(env.terminations.values())


@pytest.mark.parametrize("game", BOTH_GAMES)
def test_a_time_span_is_no_action_and_the_message_says_so_plainly(game):
    env = BOTH_GAMES[game]()
    env.reset(seed=1)
    with pytest.raises(IllegalActionError) as refused:
        env.step(np.timedelta64(3))
    assert "time units" not in str(refused.value) and "(actions are 0-" in str(refused.value)
