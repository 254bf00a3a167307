"""The octopus game's surfaces under careless and hostile input (docs/errors.md): each row is a bad
call that must raise a ValueError subclass naming what is wrong, the state unchanged."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from miaui_env.core.errors import DeckError, IllegalActionError, InvalidConfigError
from miaui_env.games.miaui.agents import AgentError
from miaui_env.games.miaui.env import ResetOptionWarning
from miaui_env.games.octopus import agents as octopus_agents
from miaui_env.games.octopus import play as octopus_play
from miaui_env.games.octopus import replay as octopus_replay
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.arena import OctopusArenaConfig
from miaui_env.games.octopus.env import DiceError, env, raw_env
from miaui_env.games.octopus.odds import OddsTables, octopus_odds
from miaui_env.games.octopus.odds import leading_opponents as odds_leading_opponents

ROOT = Path(__file__).resolve().parent.parent
FULL = list(range(rules.NUM_CARDS))

# ---- the engine ---------------------------------------------------------------------------------

ENGINE = [
    ("a deck that is an int", lambda: rules.new_game(2, seed=0, deck=5), "a stacked deck is a permutation"),
    ("a deck that is a set", lambda: rules.new_game(2, seed=0, deck=set(FULL)), "got {0, 1"),
    ("a deck that is a 0-d array", lambda: rules.new_game(2, seed=0, deck=np.array(5)), "array(5)"),
    ("a deck that is a generator", lambda: rules.new_game(2, seed=0, deck=iter(FULL)), "or a list of them"),
    ("a deck that is a string", lambda: rules.new_game(2, seed=0, deck="abc"), "got 'abc'"),
    ("dice that are an int", lambda: rules.new_game(2, seed=0, dice=3), "stacked dice are a list of die faces"),
    ("dice that are a 0-d array", lambda: rules.new_game(2, seed=0, dice=np.array(3)), "array(3)"),
    ("dice that are a dict", lambda: rules.new_game(2, seed=0, dice={1: 1}), "{1: 1}"),
    ("a die face as a time span", lambda: rules.new_game(2, seed=0, dice=[np.timedelta64(1)]), "timedelta64"),
    ("card_name of no card", lambda: rules.card_name(66), "card 66 is no card"),
    ("card_name of -1", lambda: rules.card_name(-1), "card -1 is no card"),
    ("card_name of a float", lambda: rules.card_name(1.5), "card 1.5 is no card"),
    ("card_name of None", lambda: rules.card_name(None), "card None is no card"),
    ("fish of an unknown species", lambda: rules.fish("shark", 1), "no fish 'shark'"),
    ("fish of species True", lambda: rules.fish(True, 1), "no fish True"),
    ("action_of a non-decision", lambda: rules.action_of(rules.new_game(3, seed=1), "x"), "names no action"),
    ("action_of a theft from oneself", lambda: rules.action_of(rules.new_game(3, seed=1), rules.Theft(1, 1)), "names no action"),
    ("decision_of a time span", lambda: rules.decision_of(rules.new_game(3, seed=1), np.timedelta64(1)), "is not an action"),
    ("a seed that is a time span", lambda: rules.new_game(2, seed=np.timedelta64(3)), "a seed (an integer >= 0), got np.timedelta64(3)"),
    ("an rng that is a time span", lambda: rules.new_game(2, rng=np.timedelta64(3)), "got np.timedelta64(3)"),
    ("a deck of time spans", lambda: rules.new_game(2, seed=0, deck=[np.timedelta64(c) for c in FULL]), "not an integer"),
    ("session_score of -1", lambda: rules.session_score([-1]), "session_score: -1 is no card; card ids are the integers 0-65"),
    ("session_score of 66", lambda: rules.session_score([3, 66]), "session_score: 66 is no card"),
    ("session_score of a string", lambda: rules.session_score("abc"), "takes a list of card ids 0-65; got 'abc'"),
]


@pytest.mark.parametrize(("call", "words"), [(c, w) for _, c, w in ENGINE], ids=[n for n, _, _ in ENGINE])
def test_the_engine_refuses_bad_input_by_name(call, words):
    with pytest.raises(rules.OctopusError, match=None) as refused:
        call()
    assert words in str(refused.value)


# ---- what the env and the agents are built on ---------------------------------------------------


def _canvas() -> np.ndarray:
    from miaui_env.games.octopus.observation import canvas

    return canvas(rules.new_game(3, seed=1))


def _helpers() -> list[tuple[str, Any, str]]:
    from miaui_env.games.miaui.agents import RandomAgent
    from miaui_env.games.octopus.agents import success_probability, theft_action
    from miaui_env.games.octopus.env import check_action, render_text, table_picture
    from miaui_env.games.octopus.observation import counts, observe_canvas

    mask = np.ones(rules.NUM_ACTIONS, dtype=np.int8)
    rows = np.zeros((2, 306), dtype=np.float32)
    return [
        ("render_text(None)", lambda: render_text(None), "render_text draws an OctopusState"),
        ("table_picture(None)", lambda: table_picture(None), "table_picture draws an OctopusState"),
        ("check_action on a short mask", lambda: check_action(mask[:3], 7, "player_0"), "a mask of shape (12,); got (3,)"),
        ("observe_canvas at 5 players", lambda: observe_canvas(_canvas(), 5, 0, "table"), "num_players=5 is not allowed"),
        ("observe_canvas at 1 player", lambda: observe_canvas(_canvas(), 1, 0, "table"), "num_players=1 is not allowed"),
        ("observe_canvas for seat -1", lambda: observe_canvas(_canvas(), 3, -1, "table"), "seat=-1 is not at a 3-player table"),
        ("observe_canvas for seat 3 of 3", lambda: observe_canvas(_canvas(), 3, 3, "table"), "seats are 0-2"),
        ("counts of card 66", lambda: counts([66]), "counts: 66 is no card"),
        ("counts of 1.5", lambda: counts([1.5]), "counts: 1.5 is no card"),
        ("counts of a nested list", lambda: counts([[1, 2]]), "counts: [1, 2] is no card"),
        ("success_probability(0)", lambda: success_probability(0), "k (cards asked for, O5) is 0; it is an integer from 1 to 3"),
        ("success_probability(4)", lambda: success_probability(4), "is 4; it is an integer from 1 to 3"),
        ("success_probability(1.5)", lambda: success_probability(1.5), "is 1.5"),
        ("theft_action(0, 1)", lambda: theft_action(0, 1), "offset (seats clockwise to the target) is 0"),
        ("theft_action(4, 1)", lambda: theft_action(4, 1), "offset (seats clockwise to the target) is 4"),
        ("theft_action(1, 4)", lambda: theft_action(1, 4), "k (cards asked for, O5) is 4"),
        ("the random agent, masks of 5", lambda: RandomAgent(0).act(rows, np.ones((2, 5), np.int8)), "masks of shape (rows, 12)"),
        ("the random agent, one mask row", lambda: RandomAgent(0).act(rows, np.ones((1, 12), np.int8)), "got (1, 12) for 2 rows"),
        ("the random agent, nothing legal", lambda: RandomAgent(0).act(rows, np.zeros((2, 12), np.int8)), "where nothing is legal"),
        ("stacked_deck of card 999", lambda: rules.stacked_deck([999]), "stacked_deck's top: 999 is no card"),
        ("stacked_deck naming a card twice", lambda: rules.stacked_deck([0, 0]), "names a card twice"),
        ("stacked_deck of a string", lambda: rules.stacked_deck("ab"), "takes a list of card ids 0-65; got 'ab'"),
        ("stacked_deck of 1.5", lambda: rules.stacked_deck([1.5]), "1.5 is no card"),
    ]


HELPERS = _helpers()


@pytest.mark.parametrize(("call", "words"), [(c, w) for _, c, w in HELPERS], ids=[n for n, _, _ in HELPERS])
def test_the_helpers_refuse_what_they_cannot_read_by_name(call, words):
    with pytest.raises(ValueError) as refused:
        call()
    assert words in str(refused.value)


def test_the_checked_helpers_still_take_numpy_integers():
    from miaui_env.games.octopus.agents import success_probability, theft_action
    from miaui_env.games.octopus.observation import counts, observe_canvas

    assert observe_canvas(_canvas(), np.int64(3), np.int64(2), "table").shape == observe_canvas(_canvas(), 3, 2, "table").shape
    assert counts(np.array([0, 1, 65])).sum() == 2  # the octopus (65) is left out
    assert rules.session_score(np.array([0, 5])) == rules.session_score([0, 5])
    assert success_probability(np.int8(2)) == 0.5 and theft_action(np.int64(2), 3) == theft_action(2, 3)


# ---- the env ------------------------------------------------------------------------------------


def snapshot(game: Any) -> tuple[bytes, str]:
    raw = game.unwrapped
    return raw.state().tobytes(), repr(raw.np_random.bit_generator.state)


RESET = [
    ({"deck": 5}, DeckError, "got 5"),
    ({"deck": set(FULL)}, DeckError, "or a list of them"),
    ({"deck": np.array(5)}, DeckError, "array(5)"),
    ({"deck": (c for c in FULL)}, DeckError, "or a list of them"),
    ({"deck": [FULL, "x" * 66]}, DeckError, "permutation"),
    ({"dice": np.array(3)}, DiceError, "array(3)"),
    ({"dice": [np.timedelta64(1)]}, DiceError, "timedelta64"),
]


@pytest.mark.parametrize(("options", "error", "words"), RESET, ids=[repr(o)[:30] for o, _, _ in RESET])
def test_a_bad_reset_option_is_refused_and_changes_nothing(options, error, words):
    game = raw_env(num_players=3)
    game.reset(seed=4)
    game.step(1)
    before = snapshot(game)
    with pytest.raises(error) as refused:
        game.reset(seed=9, options=options)
    assert words in str(refused.value) and isinstance(refused.value, ValueError)
    assert snapshot(game) == before


ACTIONS = [
    ("a numpy time span", np.timedelta64(1), "timedelta64"),
    ("a 0-d time span array", np.array(1, "m8[s]"), "is not an action"),
]


@pytest.mark.parametrize("mode", ["raise", "terminate"])
@pytest.mark.parametrize(("action", "words"), [(a, w) for _, a, w in ACTIONS], ids=[n for n, _, _ in ACTIONS])
def test_an_action_that_is_no_action_index_is_refused_in_both_modes(action, words, mode):
    game = env(num_players=3, illegal_action=mode)
    game.reset(seed=4)
    before = snapshot(game)
    with pytest.raises(IllegalActionError) as refused:
        game.step(action)
    assert words in str(refused.value)
    assert snapshot(game) == before


def test_a_0d_int_array_is_an_action_in_terminate_mode_as_in_raise_mode():
    for mode in ("raise", "terminate"):
        game = env(num_players=3, illegal_action=mode)
        game.reset(seed=4)
        game.step(np.array(1))  # flip: legal, as raise mode and Miaui's terminate mode take it
        assert not any(game.terminations.values())


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [({"illegal_reward": 10**400}, "finite real number"), ({"illegal_reward": np.timedelta64(1)}, "finite real number")],
)
def test_env_refuses_an_illegal_reward_as_miaui_does(kwargs, words):
    with pytest.raises(InvalidConfigError, match=words):
        env(illegal_action="terminate", **kwargs)


def test_env_takes_a_numpy_float_illegal_reward_as_miaui_does():
    game = env(illegal_action="terminate", illegal_reward=np.float32(-2.0), num_players=2)
    game.reset(seed=0)
    game.step(5)  # a theft now is illegal: the game ends
    assert game.rewards[game.possible_agents[0]] == -2.0 or game.unwrapped.rewards["player_0"] == -2.0


def test_an_unknown_option_is_still_a_warning():
    game = raw_env()
    with pytest.warns(ResetOptionWarning):
        game.reset(seed=0, options={"dek": 1})


# ---- the agents ---------------------------------------------------------------------------------
BASELINES = [octopus_agents.CautiousAgent, octopus_agents.RiskAwareAgent, octopus_agents.TheftAwareAgent, octopus_agents.RivalAwareAgent]


def recall_batch() -> tuple[np.ndarray, np.ndarray]:
    game = raw_env(view="recall")
    game.reset(seed=0)
    seen = game.observe(game.agent_selection)
    return seen["observation"][None], seen["action_mask"][None]


OBS, MASK = recall_batch()
AGENT_INPUT = [
    ("an all-zero mask", lambda: (OBS, np.zeros_like(MASK)), "allows []"),
    ("a mask allowing only a theft, no 'no theft'", lambda: (OBS, np.eye(12, dtype=np.int8)[[5]]), "allows [5]"),
    ("flip without stop", lambda: (OBS, np.eye(12, dtype=np.int8)[[1]]), "allows [1]"),
    ("a single observation", lambda: (OBS[0], MASK), "(batch, 306)"),
    ("a single mask", lambda: (OBS, MASK[0]), "(1, 12)"),
    ("a short observation", lambda: (OBS[:, :10], MASK), "shape (1, 10)"),
    ("a short mask", lambda: (OBS, MASK[:, :5]), "shape (1, 5)"),
    ("more observations than masks", lambda: (np.repeat(OBS, 2, axis=0), MASK), "(2, 12)"),
    ("NaN observations", lambda: (np.full_like(OBS, np.nan), MASK), "not finite numbers"),
    ("huge observations", lambda: (np.full_like(OBS, 1e30), MASK), "not finite numbers"),
    ("None", lambda: (None, None), "got NoneType"),
]


@pytest.mark.parametrize("agent", BASELINES, ids=["cautious", "risk-aware", "theft-aware", "rival-aware"])
@pytest.mark.parametrize(("batch", "words"), [(b, w) for _, b, w in AGENT_INPUT], ids=[n for n, _, _ in AGENT_INPUT])
def test_the_baselines_refuse_malformed_observations_and_masks(agent, batch, words):
    with pytest.raises(AgentError) as refused:
        agent(0).act(*batch())
    assert words in str(refused.value) and agent.name in str(refused.value)


@pytest.mark.parametrize(
    ("helper", "words"),
    [
        (octopus_agents.flip_odds, "flip_odds"),
        (octopus_agents.theft_mask, "theft_mask"),
        (octopus_agents.leading_opponents, "leading_opponents"),
        (lambda row: octopus_agents.RivalAwareAgent(0).theft_values(row, MASK[0]), "rival-aware theft_values"),
    ],
    ids=["flip_odds", "theft_mask", "leading_opponents", "theft_values"],
)
@pytest.mark.parametrize(("row", "got"), [(OBS[0, :5], "shape (5,)"), (OBS, f"shape {OBS.shape}"), (list(OBS[0]), "got list")])
def test_the_one_row_helpers_refuse_anything_but_one_octopus_row(helper, words, row, got):
    with pytest.raises(AgentError, match=rf"{words}: an observation is one octopus row.*{re.escape(got)}"):
        helper(row)


def test_theft_values_refuses_a_mask_of_another_shape():
    with pytest.raises(AgentError, match=r"risk-aware theft_values: a mask is one row of 12 actions; got shape \(2, 12\)"):
        octopus_agents.RiskAwareAgent(0).theft_values(OBS[0], np.ones((2, 12)))


@pytest.mark.parametrize("rows", [torch.zeros(306), torch.zeros(2, 5), np.zeros((2, 306))], ids=["one row", "short rows", "an array"])
def test_the_odds_refuse_anything_but_a_batch_of_octopus_rows(rows):
    for odds in (lambda o: octopus_odds(o, OddsTables()), odds_leading_opponents):
        with pytest.raises(InvalidConfigError, match=r"the octopus odds read a \(batch, 306\) tensor of observations; got "):
            odds(rows)


def test_the_baselines_answer_legal_actions_on_odd_but_well_formed_observations():
    rng = np.random.default_rng(0)
    for agent in (baseline(0) for baseline in BASELINES):
        for _ in range(50):
            observations = rng.uniform(-64, 64, (4, OBS.shape[1])).astype(np.float32)
            masks = np.zeros((4, 12), dtype=np.int8)
            masks[:2, :2] = 1
            masks[2:, 2] = 1
            masks[2:, 3:] = rng.random((2, 9)) < 0.4
            actions = agent.act(observations, masks)
            assert all(masks[row, action] for row, action in enumerate(actions))


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: octopus_agents.CautiousAgent(steal="no"), "steal='no'"),
        (lambda: octopus_agents.load_octopus_agents("random"), "a list of names"),
        (
            lambda: octopus_agents.load_octopus_agents([["random"]]),
            "agent specs are strings (a built-in name, a shipped policy or a run's folder); got [['random']]",
        ),
    ],
    ids=["steal as a string", "one name, not a list", "a nested list"],
)
def test_agent_settings_are_refused_by_name(call, words):
    with pytest.raises(rules.InvalidConfigError) as refused:
        call()
    assert words in str(refused.value)


def test_cautious_takes_a_numpy_int_threshold():
    assert octopus_agents.CautiousAgent(cards=np.int64(2)).cards == 2


@pytest.mark.parametrize(
    ("spec", "words"),
    [("no/such/policy.zip", "checkpoint 'no/such/policy.zip' does not exist"), ("random@sample", "'random' is a built-in agent")],
    ids=["a missing model .zip", "a play mode on a built-in"],
)
def test_both_games_refuse_a_spec_in_the_same_words(spec, words):
    from miaui_env.core.loading import AgentSpecError
    from miaui_env.games.miaui.agents.loading import load_agent
    from miaui_env.games.octopus.agents import load_octopus_agent

    for load in (load_agent, load_octopus_agent):
        with pytest.raises(AgentSpecError, match=words):
            load(spec)


# ---- the arena, replays and play ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [({"games": 10**12}, "GiB of results"), ({"max_sessions": 10**9}, "at most 1000")],
    ids=["a trillion games", "a billion sessions"],
)
def test_the_arena_refuses_runs_too_large_before_playing(kwargs, words):
    with pytest.raises(rules.InvalidConfigError, match=words):
        OctopusArenaConfig(**kwargs)


def test_the_arena_command_refuses_a_huge_run_in_one_line():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "miaui_env.apps.arena",
            "--game",
            "octopus",
            "--pool",
            "random",
            "--games",
            "10" * 10,
            "--out",
            "/nonexistent/x",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "GiB of results" in done.stderr and "Traceback" not in done.stderr


def test_a_replay_refuses_player_names_that_are_not_printable():
    state = rules.new_game(2, seed=5)
    actions = []
    while not state.is_over:
        action = int(np.flatnonzero(rules.action_mask(state))[0])
        actions.append(action)
        rules.step(state, rules.decision_of(state, action))
    good = json.loads(octopus_replay.replay_to_json(octopus_replay.record(state, actions, seed=5)))
    for name in ("\x1b[2Jevil", "a\nFinal totals: you 999"):
        good["players"][0] = name
        with pytest.raises(octopus_replay.OctopusReplayError, match="printable"):
            octopus_replay.replay_from_json(json.dumps(good))


def test_play_refuses_a_seed_no_replay_can_keep_before_the_game(tmp_path):
    args = argparse.Namespace(players=2, seat=0, opponents=["random"], seed=2**64, view="table", replay=tmp_path / "r.json")
    asked: list[str] = []
    with pytest.raises(octopus_replay.OctopusReplayError, match="cannot be saved in a replay"):
        octopus_play.play(args, read=lambda prompt: asked.append(prompt) or "s")
    assert not asked and not (tmp_path / "r.json").exists()


def _finished() -> tuple[Any, Any]:
    from miaui_env.games.miaui.agents import RandomAgent

    replay = octopus_replay.play_and_record([RandomAgent(0)], 3, seed=0)
    return replay, octopus_replay.replay_states(replay)[-1]


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (
            lambda r, s: octopus_replay.record(s, [float(a) for a in r.actions], seed=0),
            "actions[0]: an action index 0-11 (an integer); got 0.0",
        ),
        (lambda r, s: octopus_replay.record(s, [str(a) for a in r.actions], seed=0), "got '0'"),
        (lambda r, s: octopus_replay.record(s, "0101", seed=0), "actions: the game's decisions as a list"),
        (lambda r, s: octopus_replay.record(s, list(r.actions), seed=0, players="abc"), "as a list; got the string 'abc'"),
        (lambda r, s: octopus_replay.save_replay(r, "/proc/no/such/folder.json"), "cannot save a replay to /proc/no/such/folder.json"),
        (lambda r, s: octopus_replay.save_replay(r, ROOT), "it is a folder, and a file name is needed"),
        (lambda r, s: octopus_replay.play_and_record([], 3, seed=0), "seats at least one agent"),
    ],
    ids=["float actions", "string actions", "a string of actions", "players as a string", "an unwritable path", "a folder", "no agents"],
)
def test_replays_refuse_what_they_cannot_record_or_write(call, words):
    replay, state = _finished()
    with pytest.raises(octopus_replay.OctopusReplayError) as refused:
        call(replay, state)
    assert words in str(refused.value) and not list(ROOT.glob(".*.tmp"))


def test_a_policy_whose_metadata_names_no_play_mode_is_refused(tmp_path):
    import shutil

    from miaui_env.core.checkpoint import CheckpointError
    from miaui_env.games.octopus.agents import load_octopus_agent

    run = tmp_path / "run"
    shutil.copytree(ROOT / "checkpoints" / "octopus-ppo-v1", run, ignore=shutil.ignore_patterns("exploit", "*.png"))
    metadata = json.loads((run / "metadata.json").read_text())
    (run / "metadata.json").write_text(json.dumps(metadata | {"play": "random"}))
    with pytest.raises(CheckpointError, match="says play='random'; a policy plays 'best' or 'sample'"):
        load_octopus_agent(str(run))
