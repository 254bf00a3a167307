"""The PettingZoo API: conformance, errors, rewards, infos, state, rendering, seeding."""

from __future__ import annotations

import itertools
from functools import partial

import numpy as np
import pytest
from helpers import aec_decisions, pettingzoos_own_warnings_only, stacked_deck
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

import miaui_env
from miaui_env import DeckError, IllegalActionError
from miaui_env.core.errors import final_rewards
from miaui_env.games.miaui.rules import NUM_ROUNDS

CONFIGS = [
    {"num_players": n, "open_baskets": ob, "no_fighting": nf} for n, ob, nf in itertools.product(range(3, 7), (False, True), (False, True))
]


def config_id(config: dict) -> str:
    return f"{config['num_players']}p" + "-open" * config["open_baskets"] + "-nofight" * config["no_fighting"]


@pytest.fixture(autouse=True)
def _no_warnings_but_pettingzoos_own():
    with pettingzoos_own_warnings_only():
        yield


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_pettingzoo_conformance(config, capsys):
    view = "recall" if config["num_players"] % 2 else "table"
    make = partial(miaui_env.env, view=view, **config)
    api_test(make(), num_cycles=100)
    parallel_api_test(miaui_env.parallel_env(view=view, **config), num_cycles=100)
    seed_test(make, num_cycles=100)
    parallel_seed_test(partial(miaui_env.parallel_env, view=view, **config))
    render_test(make)
    capsys.readouterr()  # render_test's human mode prints


def play_random(env, seed: int) -> None:
    """One random legal game through the AEC loop."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_an_agent_that_must_act_always_has_a_legal_card():
    for config in CONFIGS:
        env = miaui_env.env(**config)
        rng = np.random.default_rng(0)
        for game in range(20):
            env.reset(seed=game)
            decisions = 0
            for agent, obs in aec_decisions(env):
                mask = obs["action_mask"]
                assert mask.dtype == np.int8 and mask.any()
                np.testing.assert_array_equal(mask, env.unwrapped.game.hands[int(agent.split("_")[1])])
                env.step(int(rng.choice(np.flatnonzero(mask))))
                decisions += 1
            assert decisions == config["num_players"] * (NUM_ROUNDS - 1)


@pytest.mark.parametrize("bad", [2, 7, 0, 4.0, "4", True])
def test_bad_player_count_is_refused(bad):
    with pytest.raises(ValueError, match="num_players"):
        miaui_env.env(num_players=bad)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"view": "god"}, "view='god'.*'table', 'recall'"),
        ({"reward": "points"}, "reward='points'.*'win', 'score', 'margin'"),
        ({"render_mode": "rgb"}, "render_mode='rgb' is not allowed; use None, 'human', 'ansi', 'rgb_array'"),
    ],
)
def test_bad_arguments_name_the_allowed_values(kwargs, message):
    for make in (miaui_env.env, miaui_env.parallel_env):
        with pytest.raises(ValueError, match=message):
            make(**kwargs)


def snapshot(env) -> tuple:
    """Everything an action could change, to check that a refused one changed nothing."""
    game = env.game
    return (
        game.hands.tobytes(),
        [list(p) for p in game.piles],
        game.round,
        env.agent_selection,
        list(env._pending),
        [env.observe(a)["observation"].tobytes() for a in env.agents],
    )


@pytest.mark.parametrize("action", [12, -1, 3.5, "3", None, np.int64(99)])
def test_raw_env_refuses_non_cards(action):
    env = miaui_env.raw_env()
    env.reset(seed=0)
    env.step(3)
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match=r"player_1: action .* legal actions: \[0, 1,"):
        env.step(action)
    assert snapshot(env) == before


def test_raw_env_refuses_a_card_already_played_and_names_the_legal_ones():
    env = miaui_env.raw_env(num_players=3)
    env.reset(seed=0)
    for _ in range(3):
        env.step(4)  # everyone plays diver card 5
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match=r"player_0: action 4 \(diver card 5\) is not in hand.*\[0, 1, 2, 3, 5, 6"):
        env.step(4)
    assert snapshot(env) == before
    env.step(np.int64(5))  # numpy integers are fine
    assert env.agent_selection == "player_1"


def test_parallel_env_refuses_a_bad_joint_action_and_changes_nothing():
    env = miaui_env.parallel_env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="player_2"):
        env.step({"player_0": 0, "player_1": 1, "player_2": 12})
    with pytest.raises(IllegalActionError, match="one action for each"):
        env.step({"player_0": 0, "player_1": 1})
    assert env.game.round == 1 and env.game.hands.all()
    _, _, terminations, _, infos = env.step({"player_0": 0, "player_1": 1, "player_2": 2})
    assert env.game.round == 2 and not any(terminations.values())
    assert infos["player_0"]["round_results"].records[0].plays == (1, 2, 3)


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        (["kittenfish:1"] * 37, "missing"),
        (stacked_deck([])[:36], "got 36 cards"),
        (["whale:9", *stacked_deck([])[1:]], "unknown kind 'whale'"),
        (["tigerfish:x", *stacked_deck([])[1:]], "not an integer"),
    ],
)
def test_a_deck_that_is_not_a_permutation_is_refused_and_the_game_kept(deck, message):
    env = miaui_env.raw_env()
    env.reset(seed=0)
    env.step(0)
    before = snapshot(env)
    with pytest.raises(DeckError, match=message):
        env.reset(options={"deck": deck})
    assert snapshot(env) == before


def test_stacked_deck_is_dealt_as_given():
    deck = stacked_deck([("tigerfish:7", "emperor_tuna:15", "kittenfish:1")], put_back="jellyfish:-15")
    env = miaui_env.parallel_env()
    env.reset(options={"deck": deck})
    assert [str(env.game.card(space[0].card)) for space in env.game.lagoon] == ["tigerfish:7", "emperor_tuna:15", "kittenfish:1"]
    assert str(env.game.card(env.game.put_back)) == "jellyfish:-15"


def test_final_rewards_for_each_mode():
    totals = (30, 30, 12, -5)  # seats 0 and 1 win together (R10)
    assert final_rewards(totals, "win").tolist() == [0.5, 0.5, 0.0, 0.0]
    assert final_rewards(totals, "score").tolist() == [30.0, 30.0, 12.0, -5.0]
    assert final_rewards(totals, "margin").tolist() == [0.0, 0.0, -18.0, -35.0]
    assert final_rewards((9, 3, 1), "margin").tolist() == [6.0, -6.0, -8.0]
    # One function for one game and for a batch: each row as on its own.
    batch = np.array([[30, 30, 12, -5], [1, 9, 3, 3]])
    for reward in ("win", "score", "margin"):
        assert final_rewards(batch, reward).tolist() == [final_rewards(row, reward).tolist() for row in batch]


@pytest.mark.parametrize("reward", ["win", "score", "margin"])
def test_rewards_arrive_at_the_end_with_score_and_winner_infos(reward):
    env = miaui_env.env(num_players=5, reward=reward)
    rng = np.random.default_rng(1)
    env.reset(seed=7)
    totals: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, rew, terminated, _, info = env.last()
        totals[agent] += rew
        if not terminated:
            assert rew == 0.0
            if env.unwrapped.game.round > 1:
                assert info["round_results"].records[-1].round == env.unwrapped.game.round - 1
        env.step(None if terminated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game = env.unwrapped.game
    scores = [sum(game.card(c).value for c in pile) for pile in game.piles]
    best = max(scores)
    expected = {
        "win": [1 / scores.count(best) if s == best else 0.0 for s in scores],
        "score": scores,
        "margin": [s - max(o for j, o in enumerate(scores) if j != i) for i, s in enumerate(scores)],
    }[reward]
    assert [totals[a] for a in env.possible_agents] == pytest.approx(expected)


def test_parallel_env_ends_with_scores_winners_and_both_last_rounds():
    env = miaui_env.parallel_env(num_players=4)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(NUM_ROUNDS - 1):
        actions = {agent: int(rng.choice(np.flatnonzero(seen["action_mask"]))) for agent, seen in obs.items()}
        obs, rewards, terminations, _, infos = env.step(actions)
    assert all(terminations.values()) and env.agents == []
    assert [r.round for r in infos["player_0"]["round_results"]] == [11, 12]
    winners = [a for a in infos if infos[a]["winner"]]
    best = max(infos[a]["score"] for a in infos)
    assert winners == [a for a in infos if infos[a]["score"] == best]
    assert sum(rewards.values()) == pytest.approx(1.0)


def test_state_is_in_its_space_and_shows_what_observations_hide():
    env = miaui_env.raw_env(num_players=4)
    env.reset(seed=0)
    state = env.state()
    assert env.state_space.contains(state)
    assert state.shape == env.state_space.shape
    hands = miaui_env.STATE_LAYOUT.view(state, "hand")
    assert hands[:4].all() and not hands[4:].any()
    put_back = miaui_env.STATE_LAYOUT.view(state, "put_back")
    assert put_back.any()


def test_ansi_render_shows_the_table():
    env = miaui_env.env(num_players=3, render_mode="ansi")
    env.reset(options={"deck": stacked_deck([("tigerfish:7", "emperor_tuna:15", "kittenfish:1")])})
    for action in (11, 10, 0):
        env.step(action)
    text = env.render()
    assert "round 2 of 12" in text
    assert "bottom: player_0 with 12 catches tigerfish:7" in text
    assert "top: player_2 with 1 catches kittenfish:1" in text
    assert "Kiti sits between player_1 and player_2" in text


def test_human_render_prints(capsys):
    env = miaui_env.env(num_players=3, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "round 1 of 12" in capsys.readouterr().out


def test_same_seed_same_game_different_seed_different_game():
    def trajectory(seed: int) -> list[bytes]:
        env = miaui_env.raw_env(num_players=4, open_baskets=True)
        play_random(env, seed)
        return [r.plays.__repr__().encode() + repr(r.depths).encode() for r in env.game.history]

    assert trajectory(5) == trajectory(5)
    assert trajectory(5) != trajectory(6)


def test_reset_without_seed_continues_the_seeded_stream():
    a, b = miaui_env.raw_env(), miaui_env.raw_env()
    a.reset(seed=11)
    b.reset(seed=11)
    a.reset()
    b.reset()
    assert a.game.deck == b.game.deck
    a.reset()
    assert a.game.deck != b.game.deck


def test_metadata():
    env = miaui_env.raw_env()
    assert env.metadata["name"] == "miaui_v0" and env.metadata["is_parallelizable"]
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert env.action_space("player_2").n == 12
