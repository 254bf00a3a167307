"""Bad input across the library's helpers is refused by name, with the library's own error, and changes nothing.

Each row is a call a careless user made in a bad-input attack (issue 46) that was accepted, or that
ended in a bare error from deep inside Python or numpy: files written over devices and pipes, masked
arrays, truthy strings where a flag belongs, classes where an agent belongs, non-finite
observations, another game's agent, replays and states that are not one.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import miaui_env
import miaui_env.integrations.openspiel  # registers python_miaui and python_octopus
from miaui_env.core.layout import VectorShapeError
from miaui_env.core.loading import AgentSpecError
from miaui_env.games.miaui import replay as miaui_replay
from miaui_env.games.miaui import rules, saved_state
from miaui_env.games.miaui.agents import AgentError, RandomAgent
from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.miaui.cards import parse_deck
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv
from miaui_env.games.miaui.vector import VectorMiaui
from miaui_env.games.octopus import observation as octopus_observation
from miaui_env.games.octopus import replay as octopus_replay
from miaui_env.games.octopus import rules as octopus_rules
from miaui_env.games.octopus.agents import load_octopus_agent
from miaui_env.integrations.adapters import MASKED_SIZE, split_mask
from miaui_env.integrations.openspiel import OpenSpielError

ROOT = Path(__file__).parent.parent


def a_state() -> rules.GameState:
    return rules.new_game(rules.GameConfig(num_players=4), np.random.default_rng(1))


def a_replay() -> miaui_replay.Replay:
    return miaui_replay.record_replay(rules.GameConfig(num_players=4), [[r + 1] * 4 for r in range(11)], seed=1)


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


# -- files ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("save", "error"),
    [
        (lambda path: saved_state.save_state(a_state(), path), saved_state.StateFormatError),
        (lambda path: miaui_replay.save_replay(a_replay(), path), miaui_replay.ReplayError),
    ],
    ids=["save_state", "save_replay"],
)
def test_saving_over_a_pipe_or_a_folder_is_refused_and_leaves_it_as_it_was(save, error, fifo, tmp_path):
    with pytest.raises(error, match="it exists and is not a regular file"):
        save(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # the rename would have put a file in its place
    with pytest.raises(error, match=r"not a regular file|it is a folder"):
        save(tmp_path)
    assert tmp_path.is_dir()


def test_save_state_names_what_is_not_a_state_and_a_folder_that_cannot_be_written(tmp_path):
    with pytest.raises(saved_state.StateFormatError, match=r"save_state saves a rules\.GameState, got NoneType"):
        saved_state.save_state(None, tmp_path / "x.json")  # type: ignore[arg-type]
    with pytest.raises(saved_state.StateFormatError, match=r"cannot save a state to .*/missing/x\.json: No such file"):
        saved_state.save_state(a_state(), tmp_path / "missing" / "x.json")


@pytest.mark.parametrize("command", ["miaui_env.apps.replay", "miaui_env.games.octopus.replay"])
def test_reading_a_pipe_as_a_replay_is_refused_at_once(command, fifo):
    done = subprocess.run([sys.executable, "-m", command, str(fifo)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "is not a regular file (a device, a pipe or a socket)" in done.stderr
    assert "Traceback" not in done.stderr


# -- the batched engine and the VecEnvs -----------------------------------------------------------
def test_the_engine_refuses_masked_actions_and_truthy_flags_and_changes_nothing():
    engine = VectorMiaui(2, seed=1)
    before = engine.snapshot()
    cards = engine.action_masks().argmax(axis=2).astype(np.int64)
    masked = np.ma.masked_array(cards, mask=np.eye(2, 4, dtype=bool))
    with pytest.raises(rules.IllegalActionError, match=r"actions hold masked entries \(numpy.ma\) at \[\[0, 0\], \[1, 1\]\]"):
        engine.step(masked)
    with pytest.raises(rules.IllegalActionError, match="trusted must be True or False, got 'yes'"):
        engine.step(cards, trusted="yes")  # type: ignore[arg-type]
    with pytest.raises(rules.InvalidConfigError, match="observe must be True or False, got 'no'"):
        engine.restore(before, observe="no")  # type: ignore[arg-type]
    assert engine.round == 1
    np.testing.assert_array_equal(engine.snapshot().game.hands, before.game.hands)


def test_an_aec_env_names_numpy_s_masked_constant():
    env = miaui_env.raw_env()
    env.reset(seed=0)
    with pytest.raises(rules.IllegalActionError, match="player_0: action masked is not a card in hand"):
        env.step(np.ma.masked)
    assert env.agent_selection == "player_0"


def test_the_vecenv_refuses_a_class_time_spans_unknown_indices_and_fixed_attributes():
    with pytest.raises(AgentError, match=r"opponent=RandomAgent is a class, not an agent; pass an instance, e.g. RandomAgent\(\)"):
        MiauiSelfPlayVecEnv(2, opponent=RandomAgent)  # type: ignore[arg-type]
    venv = MiauiSelfPlayVecEnv(2, seed=1)
    venv.reset()
    with pytest.raises(rules.IllegalActionError, match="actions must be integer card indices 0-11, got dtype timedelta64"):
        venv.step_async(venv.action_masks().argmax(1).astype("m8"))
    with pytest.raises(rules.InvalidConfigError, match=r"indices \[99\] are not env indices; they are 0-7"):
        venv.env_method("reset", indices=[99])
    with pytest.raises(rules.InvalidConfigError, match=r"set_attr\('num_players'\) is refused"):
        venv.set_attr("num_players", 7)
    assert venv.num_players == 4 and len(venv.env_method("action_masks", indices=[7])) == 1


def test_split_mask_refuses_complex_numbers():
    with pytest.raises(ValueError, match=r"observations with their mask are \(..., 632\) numbers; got dtype complex128"):
        split_mask(np.zeros(MASKED_SIZE, complex))


# -- agents ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def batch() -> tuple[np.ndarray, np.ndarray]:
    env = miaui_env.parallel_env(num_players=4)
    observations, _ = env.reset(seed=0)
    return (
        np.stack([observations[a]["observation"] for a in env.agents]),
        np.stack([observations[a]["action_mask"] for a in env.agents]).astype(np.int8),
    )


@pytest.mark.parametrize("masks", ["halves", "twos", "negative"])
def test_the_random_agent_refuses_masks_that_are_not_zeros_and_ones(batch, masks):
    observations, legal = batch
    given = {"halves": legal * 0.5, "twos": legal * 2, "negative": -legal}[masks]
    with pytest.raises(AgentError, match="the random agent takes masks of 0s and 1s"):
        RandomAgent(0).act(observations, given)
    with pytest.raises(AgentError, match=r"takes masks of shape \(rows, 12\), one per observation row; got \(\) for no rows"):
        RandomAgent(0).act(None, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["greedy", "counter", "high", "middle", "search"])
@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_built_in_agents_refuse_observations_that_are_not_finite(batch, name, value):
    observations, legal = batch
    broken = observations.copy()
    broken[2, 40] = value
    with pytest.raises(AgentError, match=f"the {name} agent reads finite observations; row 2 holds NaN or inf"):
        load_agent(name, seed=0).act(broken, legal)


def test_another_game_s_agent_is_not_loaded_as_a_miaui_agent():
    with pytest.raises(AgentSpecError, match=r"is an agent of the octopus game \(--game octopus\); this game needs a Miaui agent"):
        load_agent("miaui_env.games.octopus.agents:CautiousAgent")
    assert load_agent("miaui_env.games.miaui.agents.heuristics:GreedyAgent").act is not None


@pytest.mark.parametrize("load", [load_agent, load_octopus_agent], ids=["miaui", "octopus"])
@pytest.mark.parametrize("spec", ["a" * 5000, "a" * 300 + "@best", "b" * 300 + ".zip"])
def test_a_spec_too_long_for_a_file_name_is_refused_as_a_spec(load, spec):
    with pytest.raises(AgentSpecError, match=r"agent '|checkpoint '"):
        load(spec)


@pytest.mark.parametrize("opponents", ["one", "three"])
def test_the_gymnasium_env_refuses_a_callable_that_is_no_policy(opponents):
    import gymnasium

    given = json.dumps if opponents == "one" else [json.dumps] * 3
    with pytest.raises(AgentError, match=r"=dumps takes \(obj, \*, .*\); a batched policy function takes \(observations, masks\)"):
        gymnasium.make("miaui_env/Miaui-v0", opponents=given)


# -- rules, observations and replays --------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: rules.new_game(None, np.random.default_rng(0)), rules.InvalidConfigError, "config must be a rules.GameConfig"),
        (lambda: rules.new_game({"num_players": 4}, np.random.default_rng(0)), rules.InvalidConfigError, "config must be"),
        (lambda: rules.new_game(rules.GameConfig(), np.random.default_rng(0), np.array(3)), rules.DeckError, "got array\\(3\\)"),
        (
            lambda: rules.new_game(rules.GameConfig(), np.random.default_rng(0), [np.timedelta64(i) for i in range(37)]),
            rules.DeckError,
            "got a value that is not an integer",
        ),
        (lambda: Encoder(None), rules.InvalidConfigError, "an Encoder takes a rules.GameConfig, got None"),
        (lambda: Encoder(rules.GameConfig()).refresh(None), rules.InvalidConfigError, "refreshes 4-player rules.GameStates, got None"),
        (
            lambda: Encoder(rules.GameConfig()).refresh(rules.new_game(rules.GameConfig(num_players=5), np.random.default_rng(0)), True),
            rules.InvalidConfigError,
            "refreshes 4-player rules.GameStates, got a 5-player game",
        ),
        (lambda: OBSERVATION_LAYOUT.view(np.zeros(10), "hand"), VectorShapeError, r"is \(..., 620\); got \(10,\)"),
        (lambda: octopus_rules.fish("cod", 1.0), octopus_rules.InvalidConfigError, "no fish 'cod' of value 1.0"),
        (lambda: octopus_observation.observe(None, 0), octopus_rules.InvalidConfigError, "is a rules.OctopusState"),
        (lambda: octopus_observation.state_vector("x"), octopus_rules.InvalidConfigError, "is a rules.OctopusState"),
        (lambda: miaui_replay.frames(a_replay(), "0"), rules.InvalidConfigError, "seat '0' is not at a table of 4"),
        (lambda: miaui_replay.hand_history(None), miaui_replay.ReplayError, "a Miaui replay is a Replay"),
        (lambda: octopus_replay.record(None, [], seed=1), octopus_replay.OctopusReplayError, "record takes the finished game's"),
        (
            lambda: octopus_replay.play_and_record([RandomAgent(1)], "3", seed=1),
            octopus_replay.OctopusReplayError,
            "num_players='3' is not allowed",
        ),
    ],
    ids=[
        "new_game-None",
        "new_game-dict",
        "new_game-0d-deck",
        "new_game-timedelta-deck",
        "Encoder-None",
        "refresh-None",
        "refresh-5-players",
        "layout-view-width",
        "octopus-fish-float",
        "octopus-observe-None",
        "octopus-state_vector-str",
        "frames-seat-str",
        "hand_history-None",
        "octopus-record-None",
        "octopus-play_and_record-str",
    ],
)
def test_rules_observations_and_replays_refuse_what_is_not_theirs(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), "1", True, 100])
def test_a_gif_frame_time_outside_what_a_gif_holds_is_refused(seconds, tmp_path):
    with pytest.raises(miaui_replay.ReplayError, match=r"a GIF frame shows 0\.001 to 65\.535 seconds"):
        miaui_replay.write_gif(a_replay(), tmp_path / "game.gif", seconds_per_frame=seconds)
    assert not (tmp_path / "game.gif").exists()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["plays"][1].__setitem__(0, 99), "round 2: seat 0's card is 99; diver cards are 1-12"),
        (lambda d: d["plays"][1].__setitem__(0, 1), "round 2: seat 0 plays diver card 1, which it played in an earlier round"),
        (lambda d: d["records"].__setitem__(0, "a"), "round 1's record is 'a', not a round's record"),
    ],
    ids=["card-99", "card-played-before", "record-a-string"],
)
def test_an_edited_replay_is_refused_naming_what_was_edited(edit, message):
    data = json.loads(miaui_replay.replay_to_json(a_replay()))
    edit(data)
    with pytest.raises(miaui_replay.ReplayError, match=message):
        miaui_replay.replay_from_json(json.dumps(data))


# -- OpenSpiel ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["python_miaui", "python_octopus"])
def test_openspiel_states_refuse_a_player_not_at_the_table_and_an_observer_type_that_is_none(name):
    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    assert state.legal_actions(int(pyspiel.PlayerId.CHANCE)) == state.legal_actions()  # chance, at a chance node
    for player in (99, game.num_players(), 1.5):
        with pytest.raises(OpenSpielError, match=f"player {player!r} is not a seat of this {name} table"):
            state.legal_actions(player)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.legal_actions(0)
    with pytest.raises(OpenSpielError, match=f"player 99 is not a seat of this {name} table"):
        state.legal_actions(99)
    with pytest.raises(OpenSpielError, match=r"observer takes a pyspiel.IIGObservationType or None, got \{\}"):
        game.make_py_observer({})


# -- commands -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "70000"], "argument --port: 70000 is not allowed; it must be from 0 to 65535"),
        (["--port", "0", "--replays", "FILE"], "cannot write to FILE: it is a file (or a device), and a folder is needed"),
        (["--port", "0", "--library", "FILE"], "--library FILE is not a folder"),
        (["--port", "0", "--host", "999.1.1.1"], "cannot listen on --host '999.1.1.1' --port 0"),
    ],
    ids=["port", "replays-a-file", "library-a-file", "host"],
)
def test_the_web_command_refuses_bad_places_before_it_serves(args, message, tmp_path):
    pytest.importorskip("waitress")
    file = tmp_path / "a-file"
    file.write_text("x")
    given = [str(file) if arg == "FILE" else arg for arg in args]
    done = subprocess.run([sys.executable, "-m", "miaui_env.apps.web", *given], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and message.replace("FILE", str(file)) in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["miaui_env.apps.arena", "--game", "octopus", "--pool", "random", "cautious", "--games", "2"],
        ["miaui_env.apps.card", "--candidate", "random", "--field", "greedy", "--games", "2"],
    ],
    ids=["octopus-arena", "card"],
)
def test_an_output_folder_that_is_a_file_is_named_as_such(command, tmp_path):
    file = tmp_path / "a-file"
    file.write_text("x")
    done = subprocess.run([sys.executable, "-m", *command, "--out", str(file)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and f"cannot write to {file}: it is a file (or a device), and a folder is needed" in done.stderr
    assert file.read_text() == "x"


# The third attack (4,505 inputs): what it found accepted, or ended in Python's own errors.
ONE_CARD = {"species": 1, "values": (1,), "octopuses": 0, "target": 1}
TIME_SPAN = np.timedelta64(4)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: octopus_rules.Variant(**ONE_CARD), ValueError, "holds one card; a game needs at least two"),
        (lambda: rules.GameConfig(num_players=TIME_SPAN), ValueError, "num_players must be an int"),
        (lambda: miaui_env.env(num_players=TIME_SPAN), ValueError, "num_players"),
        (lambda: miaui_env.octopus_env(num_players=np.timedelta64(3)), ValueError, "num_players"),
        (lambda: miaui_env.octopus_env(max_sessions=np.timedelta64(3)), ValueError, "max_sessions"),
        (lambda: VectorMiaui(np.timedelta64(2)), ValueError, "num_envs must be a positive int"),
        (lambda: rules.score(None, 0), ValueError, "score takes a rules.GameState"),
        (lambda: rules.scores(5), ValueError, "scores takes a rules.GameState"),
        (lambda: rules.winners("x"), ValueError, "scores takes a rules.GameState"),
        (lambda: miaui_env.games.miaui.cards.parse_deck("kittenfish:" + "9" * 5000), ValueError, "a fish is worth -1000 to 1000"),
        (lambda: octopus_replay.describe_event(None), ValueError, "describe_event takes an engine event"),
    ],
)
def test_the_third_attack_s_calls_are_refused_by_name(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_an_octopus_game_that_ends_at_its_deal_puts_every_agent_out_at_reset():
    variant = octopus_rules.Variant(species=1, values=(1,), octopuses=1, target=1)  # its deal can end it (O8)
    ended_at_deal = 0
    for seed in range(8):
        env = miaui_env.octopus_env(num_players=2, variant=variant)
        env.reset(seed=seed)
        over = env.unwrapped.is_over
        ended_at_deal += over
        for _agent in env.agent_iter():  # an AttributeError here before: no agent was selected
            _, _, terminated, truncated, _ = env.last()
            assert not over or terminated or truncated
            env.step(None if terminated or truncated else 1)
        assert env.agents == []
    assert 0 < ended_at_deal < 8  # both kinds of deal were played


@pytest.mark.parametrize("make", [miaui_env.env, miaui_env.octopus_env], ids=["miaui", "octopus"])
@pytest.mark.parametrize("call", ["observe", "state", "render", "agent_iter", "last"])
def test_an_env_asked_for_its_game_before_reset_says_to_reset(make, call):
    from gymnasium.error import ResetNeeded

    env = make()
    arguments = ("player_0",) if call == "observe" else ()
    with pytest.raises(ResetNeeded, match=rf"call reset\(\) before {call}\(\)"):
        getattr(env, call)(*arguments)
    with pytest.raises(AssertionError):  # still what PettingZoo's order enforcing raises
        getattr(env, call)(*arguments)


def test_time_span_arrays_and_masked_values_are_no_actions_and_change_nothing():
    miaui, octopus = miaui_env.env(), miaui_env.octopus_env()
    miaui.reset(seed=3)
    octopus.reset(seed=5)
    for env, action in ((miaui, np.array(np.timedelta64(0))), (octopus, np.ma.array(0, mask=True)), (octopus, np.array(np.timedelta64(0)))):
        before = env.agent_selection, env.observe(env.agent_selection)["observation"].copy()
        with pytest.raises(rules.IllegalActionError):
            env.step(action)
        assert env.agent_selection == before[0] and (env.observe(env.agent_selection)["observation"] == before[1]).all()


def test_the_vecenvs_refuse_masked_actions_and_a_trusted_flag_that_is_no_bool():
    from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv
    from miaui_env.integrations.sb3 import ActionMasksFromObservation

    for venv in (MiauiSelfPlayVecEnv(2, num_players=3, learner_seats=[0], seed=0), OctopusSelfPlayVecEnv(2, num_players=2, seed=0)):
        venv.reset()
        actions = np.array([int(np.flatnonzero(mask)[0]) for mask in venv.action_masks()])
        with pytest.raises(rules.IllegalActionError, match="masked entries"):
            venv.step_async(np.ma.array(actions, mask=[True] + [False] * (len(actions) - 1)))
        with pytest.raises(rules.IllegalActionError, match="trusted must be True or False"):
            venv.step_async(actions.astype(float), trusted="yes")
        venv.step(actions)  # nothing was stored: the next step plays as asked
    with pytest.raises(ValueError, match="wraps an SB3 VecEnv"):
        ActionMasksFromObservation(None)


def test_octopus_heuristics_refuse_masks_that_are_not_flags():
    env = miaui_env.octopus_env()
    env.reset(seed=0)
    seen = env.observe(env.agent_selection)
    for name in ("cautious", "risk-aware", "theft-aware", "rival-aware"):
        with pytest.raises(AgentError, match="masks hold 0 and 1 only"):
            load_octopus_agent(name).act(seen["observation"][None, :], seen["action_mask"][None, :] * 2)


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["miaui_env.apps.demo", "--games", "10" * 12], "at most 1,000,000"),
        (["miaui_env.apps.play", "--replay", "/dev/null"], "it exists and is not a regular file"),
        (["miaui_env.apps.play", "--replay", "x.json", "--no-replay"], "not allowed with argument --replay"),
    ],
)
def test_commands_refuse_a_demo_past_memory_and_a_replay_file_they_could_not_write(command, message, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", *command], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, cwd=tmp_path
    )
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


SHORT_DECK = "emperor_tuna:10*6 jellyfish:-10*4"


@pytest.mark.parametrize("count", [np.uint8(3), np.int8(3), np.int16(5)])
def test_a_numpy_integer_player_count_builds_every_miaui_table(count):
    from miaui_env.games.miaui.spec import TableSpec

    for spec in (TableSpec(num_players=count), TableSpec(num_players=count, rounds=3, deck=SHORT_DECK)):
        assert type(spec.num_players) is int and spec.num_players == int(count)
    assert VectorMiaui(2, num_players=count, rounds=3, deck=SHORT_DECK).num_players == int(count)
    assert miaui_env.env(num_players=count).unwrapped.table_spec.num_players == int(count)
    config = rules.GameConfig(num_players=count)  # its seats kept as an int: uint8 arithmetic would wrap R1's seat orders
    assert type(config.num_players) is int and rules.deep_priority(1, config.num_players) == rules.deep_priority(1, int(count))


@pytest.mark.parametrize(
    ("make", "action"),
    [(miaui_env.env, np.array(np.timedelta64(0))), (miaui_env.octopus_env, np.ma.array(0, mask=True))],
    ids=["miaui-time-span", "octopus-masked"],
)
def test_terminate_mode_refuses_what_names_no_action_as_raise_mode_does(make, action):
    env = make(illegal_action="terminate")
    env.reset(seed=3)
    agent = env.agent_selection
    with pytest.raises(rules.IllegalActionError):
        env.step(action)
    assert env.agent_selection == agent and not any(env.terminations.values())


def test_deck_lists_write_fish_cards_only_and_the_rulebook_deck_written_out_is_the_full_game():
    from miaui_env.core.errors import DeckError
    from miaui_env.games.miaui.arena import ArenaConfig
    from miaui_env.games.miaui.cards import DEFAULT_DECK, deck_list
    from miaui_env.games.miaui.spec import TableSpec

    for bad in ("abc", [1, 2, 3], b"ab", {"a": 1}, [], [DEFAULT_DECK[0], "seagull:0"]):
        with pytest.raises(DeckError, match="deck_list writes a non-empty sequence of FishCards"):
            deck_list(bad)
    written_out = TableSpec(deck=deck_list(DEFAULT_DECK))
    assert written_out.deck is None and not written_out.short and written_out == TableSpec()
    assert ArenaConfig.at_table(written_out, games=4).table_spec == TableSpec()
    with pytest.raises(rules.InvalidConfigError, match="the arena plays the 12-round game"):
        ArenaConfig.at_table(TableSpec(num_players=3, rounds=3, deck=SHORT_DECK), games=4)


def test_a_replay_of_a_short_game_is_refused_in_every_form_of_its_table():
    from miaui_env.games.miaui.spec import TableSpec

    plays = [[1, 1, 1], [2, 2, 2]]
    for table in (
        TableSpec(num_players=3, rounds=3, deck=SHORT_DECK),
        rules.GameConfig(num_players=3, rounds=3, deck=parse_deck(SHORT_DECK)),
    ):
        with pytest.raises(rules.InvalidConfigError, match="records 12-round games of R2's deck; this table plays a short game"):
            miaui_replay.record_replay(table, plays, seed=0)


def test_an_empty_deck_for_training_exact_is_refused_not_read_as_the_default():
    done = subprocess.run(
        [sys.executable, "-m", "training.exact", "--game", "miaui", "--rounds", "3", "--deck", ""],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "names at least one card" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"rounds": 3}, "a short game of 3 rounds needs a deck of its own"),
        ({"rounds": 13, "deck": SHORT_DECK}, "rounds=13 is not allowed; a game has 2-12 rounds"),
        ({"rounds": True, "deck": SHORT_DECK}, "rounds=True is not allowed"),
        ({"rounds": 3, "deck": 3}, "deck must be a deck list"),
        ({"rounds": 3, "deck": "whale:1*10"}, "unknown kind 'whale'"),
        ({"rounds": 2, "deck": SHORT_DECK}, "a deck must hold 7 cards for 2 rounds"),
        ({"rounds": 3, "deck": "seagull:0*8 emperor_tuna:10*2"}, "at least 4 cards that are not Seagulls"),
    ],
)
def test_a_short_table_s_bad_rounds_or_deck_is_refused_by_every_surface_that_takes_one(settings, message):
    from miaui_env.games.miaui.single_agent import MiauiSingleAgentEnv
    from miaui_env.games.miaui.spec import TableSpec

    surfaces = (TableSpec.of, miaui_env.env, miaui_env.parallel_env, MiauiSingleAgentEnv, lambda **kw: VectorMiaui(2, **kw))
    for make in surfaces:
        with pytest.raises(ValueError, match=message):
            make(num_players=3, **settings)
