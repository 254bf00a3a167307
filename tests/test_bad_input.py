"""Every public surface refuses bad input with a specific error naming the value, and changes nothing.

Each table row is one careless call: the error type it must raise, a piece of the message (the
bad value, or what is allowed), and for stateful objects a check that nothing moved: observations,
`state()`, generator states and a clean game from the same seed afterwards.
"""

from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from helpers import RecordingAgent

import miaui_env
from miaui_env import DeckError, GameConfig, IllegalActionError, InvalidConfigError
from miaui_env.core.arena import gauntlet_significance
from miaui_env.core.checkpoint import CheckpointError
from miaui_env.core.errors import final_rewards
from miaui_env.core.seeding import SeedError
from miaui_env.games.miaui.agents import AgentError, RandomAgent
from miaui_env.games.miaui.display.text import describe_observation
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.env import ResetOptionError, ResetOptionWarning, UnknownAgentError
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.rules import kiti_seat, new_game, play_round, score
from miaui_env.games.miaui.single_agent import MiauiSingleAgentEnv
from miaui_env.games.miaui.vector import VectorMiaui

ROOT = Path(__file__).parent.parent
DECK = [str(card) for card in miaui_env.DEFAULT_DECK]  # a whole deck in its printed order


def aec_snapshot(env) -> bytes:
    """Everything a careless call could change in an AEC or parallel env, as bytes."""
    raw = env.unwrapped
    game = None if raw._played is None else raw.game  # the reference state, and below the compiled engine's
    parts = [pickle.dumps(raw.np_random.bit_generator.state)]
    if game is not None:
        parts += [pickle.dumps(game), raw.state().tobytes(), pickle.dumps(raw.engine.snapshot())]
        parts += [raw._observe(seat)["observation"].tobytes() for seat in range(len(raw.possible_agents))]
    for name in ("agent_selection", "_pending", "agents", "_has_reset"):
        parts.append(pickle.dumps(getattr(env, name, None)))
    return b"".join(parts)


AEC_CALLS = [
    ("observe an unknown agent", lambda env: env.observe("player_9"), UnknownAgentError, "player_9"),
    ("observe by seat number", lambda env: env.observe(0), UnknownAgentError, "agents are"),
    ("negative seed", lambda env: env.reset(seed=-1), SeedError, "seed=-1"),
    ("float seed", lambda env: env.reset(seed=1.5), SeedError, "1.5"),
    ("string seed", lambda env: env.reset(seed="7"), SeedError, "'7'"),
    ("bool seed", lambda env: env.reset(seed=True), SeedError, "True"),
    ("options not a dict", lambda env: env.reset(options=["deck"]), ResetOptionError, "must be a dict"),
    ("deck as one string", lambda env: env.reset(options={"deck": "kittenfish:1"}), DeckError, "sequence of 37"),
    ("deck missing a card", lambda env: env.reset(options={"deck": DECK[:-1]}), DeckError, "missing"),
    ("good seed, bad deck", lambda env: env.reset(seed=3, options={"deck": DECK[:5]}), DeckError, "exactly once"),
    ("action out of range", lambda env: env.step(12), IllegalActionError, "action 12"),
    ("action as a string", lambda env: env.step("3"), IllegalActionError, "'3'"),
    ("action as a float", lambda env: env.step(2.0), IllegalActionError, "2.0"),
    ("action as a numpy time span", lambda env: env.step(np.timedelta64(3)), IllegalActionError, "timedelta64"),
    ("action as a time span array", lambda env: env.step(np.array(3, "m8[s]")), IllegalActionError, "timedelta"),
]


@pytest.mark.parametrize(("call", "error", "message"), [row[1:] for row in AEC_CALLS], ids=[row[0] for row in AEC_CALLS])
def test_the_aec_env_refuses_and_changes_nothing(call, error, message):
    env = miaui_env.env(num_players=4)
    env.reset(seed=11)
    env.step(3)  # a pending choice, to see it survive the refused call
    before = aec_snapshot(env)
    with pytest.raises(error, match=message):
        call(env)
    assert aec_snapshot(env) == before


def test_an_unknown_reset_option_is_named_in_a_warning():
    # PettingZoo's API test passes made-up options and expects them ignored, so a typo warns, naming
    # what the env knows, rather than raising.
    env = miaui_env.env(num_players=3)
    with pytest.warns(ResetOptionWarning, match="dek ignored; options are deck"):
        env.reset(seed=1, options={"dek": DECK})
    fresh = miaui_env.env(num_players=3)
    fresh.reset(seed=1)
    assert np.array_equal(env.unwrapped.state(), fresh.unwrapped.state())  # the seed was still used


def test_a_refused_first_reset_leaves_the_env_not_reset():
    env = miaui_env.env()
    with pytest.raises(SeedError):
        env.reset(seed=-5)
    with pytest.raises(ResetNeeded, match="reset"):
        env.step(0)
    env.reset(seed=5)
    assert env.agent_selection == "player_0"


BAD_ENV_SETTINGS = [
    ({"illegal_reward": 10**400}, "illegal_reward=1000"),
    ({"illegal_reward": np.float64("inf")}, "illegal_reward=np.float64.inf"),
    ({"illegal_reward": np.bool_(True)}, "finite real number"),
    ({"illegal_reward": np.timedelta64(1)}, "finite real number"),
    ({"illegal_action": np.array(["raise", "x"])}, "use one of 'raise', 'terminate'"),
    ({"illegal_action": ["terminate"]}, r"illegal_action=\['terminate'\]"),
]


@pytest.mark.parametrize(("kwargs", "message"), BAD_ENV_SETTINGS, ids=[repr(k)[:40] for k, _ in BAD_ENV_SETTINGS])
def test_the_aec_env_refuses_bad_illegal_action_settings(kwargs, message):
    with pytest.raises(InvalidConfigError, match=message):
        miaui_env.env(**kwargs)


@pytest.mark.parametrize("reward", [np.float32(-1.5), np.int64(-2), np.float64(-0.5), -3])
def test_a_finite_numpy_illegal_reward_is_taken(reward):
    env = miaui_env.env(num_players=3, illegal_action="terminate", illegal_reward=reward)
    env.reset(seed=0)
    for card in (0, 1, 2):
        env.step(card)
    env.step(0)  # player_0 already played card 1: the game ends
    assert env.rewards["player_0"] == float(reward) and type(env.rewards["player_0"]) is float


@pytest.mark.parametrize("illegal_action", ["raise", "terminate"])
def test_both_illegal_action_modes_take_a_legal_card_as_a_0d_array(illegal_action):
    env = miaui_env.env(num_players=3, illegal_action=illegal_action)
    env.reset(seed=0)
    card = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    env.step(np.array(card))
    assert env.agent_selection == "player_1" and not any(env.terminations.values())
    with pytest.raises(IllegalActionError, match=r"action array\(1\.\)|action 1\.0"):
        env.step(np.array(1.0))  # a 0-d float array names no card in either mode


BEFORE_RESET = {
    "observe": lambda raw: raw.observe("player_0"),
    "state": lambda raw: raw.state(),
    "step": lambda raw: raw.step(0),
    "last": lambda raw: raw.last(),
    "game": lambda raw: raw.game,
    "is_over": lambda raw: raw.is_over,
    "check_action": lambda raw: raw.check_action("player_0", 0),
    "agent_iter": lambda raw: raw.agent_iter(),
}


@pytest.mark.parametrize("call", list(BEFORE_RESET))
def test_before_reset_the_raw_envs_say_reset_is_needed(call):
    raw = miaui_env.raw_env()
    with pytest.raises(ResetNeeded, match="reset"):
        BEFORE_RESET[call](raw)
    parallel = miaui_env.parallel_env()
    with pytest.raises(ResetNeeded, match="reset"):
        parallel.step({})


def play_out(env) -> None:
    for _agent in env.agent_iter():
        obs, _, terminated, _, _ = env.last()
        env.step(None if terminated else int(np.flatnonzero(obs["action_mask"])[0]))


def test_after_the_end_stepping_says_reset_is_needed():
    env = miaui_env.env(num_players=3)
    env.reset(seed=2)
    play_out(env)
    with pytest.raises(ResetNeeded, match="game is over"):
        env.unwrapped.step(0)
    parallel = miaui_env.parallel_env(num_players=3)
    parallel.reset(seed=2)
    while parallel.agents:
        parallel.step({a: int(np.flatnonzero(parallel.game.hands[s])[0]) for s, a in enumerate(parallel.agents)})
    with pytest.raises(ResetNeeded, match="game is over"):
        parallel.step({a: 0 for a in parallel.possible_agents})


PARALLEL_CALLS = [
    ("actions as a list", lambda agents: [0, 1, 2, 3], "dict"),
    ("an agent missing", lambda agents: {a: 0 for a in agents[:-1]}, "one action for each"),
    ("an extra agent", lambda agents: {**{a: 0 for a in agents}, "player_7": 0}, "player_7"),
    ("a numpy float", lambda agents: {a: np.float64(1) for a in agents}, "1.0"),
    ("None for a live agent", lambda agents: {a: None for a in agents}, "None"),
    ("one card not in hand", lambda agents: {a: 3 if a != "player_2" else 0 for a in agents}, "player_2: action 0"),
]


@pytest.mark.parametrize(("actions", "message"), [row[1:] for row in PARALLEL_CALLS], ids=[row[0] for row in PARALLEL_CALLS])
def test_the_parallel_env_refuses_and_changes_nothing(actions, message):
    env = miaui_env.parallel_env(num_players=4)
    env.reset(seed=4)
    env.step({a: 0 for a in env.agents})  # everyone has played diver card 1
    before = aec_snapshot(env)
    with pytest.raises(IllegalActionError, match=message):
        env.step(actions(env.agents))
    assert aec_snapshot(env) == before


# -- Gymnasium ------------------------------------------------------------------------------------
GYM_CONSTRUCTORS = [
    ({"seat": 1.0}, InvalidConfigError, "seat=1.0"),
    ({"seat": True}, InvalidConfigError, "seat=True"),
    ({"seat": 4}, InvalidConfigError, "0-3"),
    ({"opponents": "random"}, AgentError, "load_agent"),
    ({"opponents": [RandomAgent(), RandomAgent()]}, AgentError, "3 other seats"),
    ({"opponents": [RandomAgent(), 7, RandomAgent()]}, AgentError, "7"),
    ({"num_players": 2}, InvalidConfigError, "num_players=2"),
    ({"view": "god"}, InvalidConfigError, "view='god'"),
    ({"reward": "points"}, InvalidConfigError, "reward='points'"),
    ({"render_mode": "rgb"}, InvalidConfigError, "render_mode='rgb'"),
    ({"num_player": 4}, InvalidConfigError, "num_player"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), GYM_CONSTRUCTORS, ids=[str(k) for k, _, _ in GYM_CONSTRUCTORS])
def test_the_gymnasium_env_refuses_bad_settings(kwargs, error, message):
    with pytest.raises(error, match=message):
        MiauiSingleAgentEnv(**kwargs)


def gym_snapshot(env: MiauiSingleAgentEnv) -> bytes:
    return pickle.dumps((env.seat, env.np_random.bit_generator.state)) + aec_snapshot(env._game) + env._own_observation().tobytes()


GYM_CALLS = [
    ("bad deck", lambda env: env.reset(seed=1, options={"deck": DECK[:3]}), DeckError, "exactly once"),
    ("negative seed", lambda env: env.reset(seed=-2), SeedError, "-2"),
    ("illegal card", lambda env: env.step(12), IllegalActionError, "action 12"),
    ("float card", lambda env: env.step(1.0), IllegalActionError, "1.0"),
]


@pytest.mark.parametrize(("call", "error", "message"), [row[1:] for row in GYM_CALLS], ids=[row[0] for row in GYM_CALLS])
def test_the_gymnasium_env_refuses_mid_game_and_changes_nothing(call, error, message):
    env = MiauiSingleAgentEnv(num_players=4)
    env.reset(seed=8)
    env.step(int(env.action_masks().argmax()))
    before = gym_snapshot(env)
    with pytest.raises(error, match=message):
        call(env)
    assert gym_snapshot(env) == before


def test_the_gymnasium_env_says_reset_is_needed():
    env = MiauiSingleAgentEnv(num_players=3)
    with pytest.raises(ResetNeeded):
        env.action_masks()
    with pytest.raises(ResetNeeded):
        env.step(0)
    env.reset(seed=1)
    done = False
    while not done:
        _, _, done, _, _ = env.step(int(env.action_masks().argmax()))
    with pytest.raises(ResetNeeded, match="game is over"):
        env.step(0)


# -- the batched engine and the SB3 VecEnv --------------------------------------------------------
ENGINE_CONSTRUCTORS = [
    ({"num_envs": 10**9}, InvalidConfigError, "GiB"),
    ({"num_envs": 2.0}, InvalidConfigError, "2.0"),
    ({"num_envs": 2, "seed": -1}, SeedError, "seed=-1"),
    ({"num_envs": 2, "seed": "1"}, SeedError, "'1'"),
    ({"num_envs": 2, "num_players": True}, InvalidConfigError, "True"),
    ({"num_envs": 2, "no_fighting": 1}, InvalidConfigError, "no_fighting"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), ENGINE_CONSTRUCTORS, ids=[str(k) for k, _, _ in ENGINE_CONSTRUCTORS])
def test_the_batched_engine_refuses_bad_construction(kwargs, error, message):
    with pytest.raises(error, match=message):
        VectorMiaui(**kwargs)


def test_the_batched_engine_checks_memory_against_the_process_limit_not_only_the_machine(monkeypatch):
    import resource

    from miaui_env.games.miaui.vector import engine

    monkeypatch.setattr(engine, "CGROUP_ROOT", Path("/nonexistent"))
    real = resource.getrlimit
    monkeypatch.setattr(
        resource, "getrlimit", lambda which: (1 << 30, resource.RLIM_INFINITY) if which == resource.RLIMIT_AS else real(which)
    )
    with pytest.raises(InvalidConfigError, match=r"num_envs=150000 .* more than what is left under .*RLIMIT_AS"):
        VectorMiaui(150000)


def test_the_batched_engine_checks_memory_against_the_cgroup_limit(monkeypatch, tmp_path):
    import resource

    from miaui_env.games.miaui.vector import engine

    (tmp_path / "memory.max").write_text(f"{2 << 30}\n")
    (tmp_path / "memory.current").write_text(f"{1 << 30}\n")
    monkeypatch.setattr(engine, "CGROUP_ROOT", tmp_path)
    real = resource.getrlimit
    monkeypatch.setattr(resource, "getrlimit", lambda which: (resource.RLIM_INFINITY,) * 2 if which == resource.RLIMIT_AS else real(which))
    with pytest.raises(InvalidConfigError, match=r"more than what is left under the cgroup's memory.max: 1.0 GiB"):
        VectorMiaui(150000)
    (tmp_path / "memory.max").write_text("max\n")
    assert VectorMiaui(2).num_envs == 2  # no cgroup limit: only the machine's memory bounds it


def engine_snapshot(engine: VectorMiaui) -> bytes:
    generators = pickle.dumps([rng.bit_generator.state for rng in engine._rngs])
    arrays = b"".join(a.tobytes() for a in engine._game if isinstance(a, np.ndarray))
    return generators + arrays + engine._obs.tobytes() + pickle.dumps((engine._pending_decks, engine._deals_left, engine.round))


ENGINE_RESETS = [
    ("a bad seed after good decks", {"decks": [DECK, None], "seeds": [1, -1]}, SeedError, r"seeds\[1\]=-1"),
    ("too few seeds", {"seeds": [1]}, SeedError, "one seed for each"),
    ("seeds as a string", {"seeds": "12"}, SeedError, "'12'"),
    ("float seed", {"seed": 0.5}, SeedError, "0.5"),
    ("decks as one string", {"decks": "ab"}, DeckError, "one deck"),
    ("a deck with a card missing", {"decks": [None, DECK[1:]]}, DeckError, r"decks\[1\]"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), [row[1:] for row in ENGINE_RESETS], ids=[row[0] for row in ENGINE_RESETS])
def test_the_batched_engine_refuses_a_reset_and_changes_nothing(kwargs, error, message):
    engine = VectorMiaui(2, num_players=4, seed=0)
    engine.step(np.ones((2, 4), dtype=np.int64))
    before = engine_snapshot(engine)
    with pytest.raises(error, match=message):
        engine.reset(**kwargs)
    assert engine_snapshot(engine) == before
    # And the next deal is the one a clean engine would make: no deck was left queued.
    clean = VectorMiaui(2, num_players=4, seed=0)
    clean.step(np.ones((2, 4), dtype=np.int64))
    assert np.array_equal(engine.reset()[0], clean.reset()[0])


VECENV_CONSTRUCTORS = [
    ({"learner_seats": ["0"]}, InvalidConfigError, "'0'"),
    ({"learner_seats": [0.9]}, InvalidConfigError, "0.9"),
    ({"learner_seats": [True]}, InvalidConfigError, "True"),
    ({"learner_seats": [0, 0]}, InvalidConfigError, "distinct"),
    ({"learner_seats": []}, InvalidConfigError, "non-empty"),
    ({"learner_seats": "01"}, InvalidConfigError, "'01'"),
    ({"opponent": "counter"}, AgentError, "load_agent"),
    ({"opponent": 3}, AgentError, "3"),
    ({"seed": -4}, SeedError, "-4"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), VECENV_CONSTRUCTORS, ids=[str(k) for k, _, _ in VECENV_CONSTRUCTORS])
def test_the_sb3_vecenv_refuses_bad_construction(kwargs, error, message):
    from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv

    with pytest.raises(error, match=message):
        MiauiSelfPlayVecEnv(2, num_players=4, **kwargs)


VECENV_STEPS = [
    ("float actions", np.zeros(4), "dtype float64"),
    ("numeric strings", np.array(["1"] * 4), "dtype <U1"),
    ("too few actions", np.zeros(3, dtype=np.int64), r"shape \(4,\)"),
    ("a card already played", np.zeros(4, dtype=np.int64), r"env index 0 \(game 0, player_.\): action 0"),
    ("out of range", np.full(4, 12), "action 12"),
]


@pytest.mark.parametrize(("actions", "message"), [row[1:] for row in VECENV_STEPS], ids=[row[0] for row in VECENV_STEPS])
def test_the_sb3_vecenv_refuses_actions_before_any_opponent_moves(actions, message):
    from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv

    venv = MiauiSelfPlayVecEnv(4, num_players=4, learner_seats=[0], seed=3)
    venv.reset()
    venv.step(np.zeros(4, dtype=np.int64))  # diver card 1 played everywhere
    opponent_state = pickle.dumps(venv.opponent.rng.bit_generator.state)
    before = engine_snapshot(venv.engine)
    with pytest.raises(IllegalActionError, match=message):
        venv.step(actions)
    assert pickle.dumps(venv.opponent.rng.bit_generator.state) == opponent_state
    assert engine_snapshot(venv.engine) == before


# -- the arena's statistics at the edges ------------------------------------------------------
def test_a_losing_candidate_with_no_spread_is_never_called_significant():
    players, sets = 4, 3
    seats = np.tile(np.arange(players), (sets * players, 1))  # agent 0 in seat 0 of every game
    winners = np.zeros((sets * players, players), dtype=bool)
    winners[:, 1] = True  # the candidate never wins: zero spread across sets
    verdict = gauntlet_significance(seats, winners, players, "random")
    assert "win share 0.000" in verdict and "not significantly above" in verdict
    assert "inf" not in verdict


def test_few_or_unvarying_sets_give_no_false_precision():
    from miaui_env.core.arena import summarize

    players, sets = 4, 3
    seats = np.tile(np.arange(players), (sets * players, 1))
    winners = np.zeros((sets * players, players), dtype=bool)
    winners[:, 1] = True
    scores = np.where(winners, 50, 10)
    loser, winner = summarize(["a", "b", "c", "d"], seats, scores, winners, players)[:2]
    assert loser.win_share == 0.0 and np.isnan(loser.win_share_ci)  # not "0.000 +- 0.000" from 3 sets
    assert winner.win_share == 1.0 and np.isnan(winner.win_share_ci)
    rng = np.random.default_rng(1)
    varied = np.eye(players, dtype=bool)[rng.integers(0, players, sets * players)]
    (few,) = summarize(["a", "b", "c", "d"], seats, np.where(varied, 50, 10), varied, players)[:1]
    per_set = varied[:, 0].reshape(sets, players).mean(axis=1)
    assert few.win_share_ci == pytest.approx(4.303 * per_set.std(ddof=1) / np.sqrt(sets))  # Student's t, 2 d.o.f.


def test_a_few_winning_sets_are_not_enough_for_significance():
    players, sets = 3, 4
    seats = np.tile(np.arange(players), (sets * players, 1))
    winners = np.zeros((sets * players, players), dtype=bool)
    winners[:, 0] = True  # always wins, but 4 sets of 3 games: a sign test gives p = 1/16
    verdict = gauntlet_significance(seats, winners, players, "lucky")
    assert "sign test, 4 of 4 sets" in verdict and "p = 0.062" in verdict and "not significantly above" in verdict


def test_an_agent_against_copies_of_itself_is_exactly_at_fair_share_not_above_it():
    # Every deal's outcome comes back to the candidate once in each seat, ties included: each set is
    # exactly 1/3 in fractions, but 1/2 + 1/2 and 1/3 + 1/3 + 1/3 differ in the last bits of a float.
    players, rng = 3, np.random.default_rng(0)
    outcomes = [np.array(row, dtype=bool) for row in ([1, 1, 0], [1, 1, 1], [0, 1, 0], [0, 1, 1])]
    seats, winners = [], []
    for _ in range(667):
        outcome = outcomes[rng.integers(len(outcomes))]
        for rotation in range(players):
            seats.append(np.roll(np.arange(players), rotation))  # the candidate (agent 0) at seat `rotation`
            winners.append(outcome)
    verdict = gauntlet_significance(np.array(seats), np.array(winners), players, "itself")
    assert "win share 0.333 vs fair share 0.333" in verdict and "not significantly above" in verdict, verdict


def test_many_varying_sets_still_use_the_z_test():
    rng = np.random.default_rng(0)
    players, sets = 4, 400
    seats = np.tile(np.arange(players), (sets * players, 1))
    winners = np.eye(players, dtype=bool)[np.where(rng.random(sets * players) < 0.6, 0, rng.integers(1, players, sets * players))]
    verdict = gauntlet_significance(seats, winners, players, "strong")
    assert "z = " in verdict and "(above fair share at the 1% level)" in verdict


# -- command lines: one line, no traceback --------------------------------------------------------
def command(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=300)


def broken_checkpoint(root: Path, kind: str) -> Path:
    run = root / kind
    run.mkdir()
    if kind == "bad-json":
        (run / "model.zip").write_bytes(b"PK")
        (run / "metadata.json").write_text("{not json")
    elif kind == "no-data":  # a zip, but without SB3's `data` member
        with zipfile.ZipFile(run / "model.zip", "w") as archive:
            archive.writestr("x", "y")
    else:
        (run / "model.zip").write_bytes(b"not a zip file")
        (run / "metadata.json").write_text(json.dumps({"observation_version": 1}))
    return run


CLI_CALLS = [
    ("arena, no games", ("miaui_env.apps.arena", "--candidate", "random", "--games", "0"), "0 is not allowed"),
    ("arena, negative seed", ("miaui_env.apps.arena", "--candidate", "random", "--seed", "-1"), "-1 is not allowed"),
    ("arena, unknown agent", ("miaui_env.apps.arena", "--candidate", "no_such_bot", "--games", "8"), "no_such_bot"),
    ("arena, unwritable out", ("miaui_env.apps.arena", "--candidate", "random", "--games", "8", "--out", "/proc/arena"), "cannot write"),
    ("play, seat past the table", ("miaui_env.apps.play", "--players", "3", "--seat", "3"), "--seat 3"),
    ("play, unwritable replay", ("miaui_env.apps.play", "--seed", "1", "--replay", "/proc/nope.json"), "cannot write to /proc"),
    ("play, unknown opponent", ("miaui_env.apps.play", "--opponents", "nobody", "--seed", "1"), "nobody"),
    ("demo, no games", ("miaui_env.apps.demo", "--games", "0"), "0 is not allowed"),
    ("demo, out is a folder", ("miaui_env.apps.demo", "--games", "5", "--out", "tests"), "it is a folder"),
    ("arena, an empty agent name", ("miaui_env.apps.arena", "--candidate", "", "--games", "8"), "non-empty string"),
    ("arena, a relative module", ("miaui_env.apps.arena", "--candidate", ".bots:make", "--games", "8"), "absolute module"),
    ("arena, a value, not a callable", ("miaui_env.apps.arena", "--candidate", "math:pi", "--games", "8"), "math:pi is 3.14"),
    ("arena, a callable that is no policy", ("miaui_env.apps.arena", "--candidate", "json:dumps", "--games", "8"), "json:dumps takes (obj"),
    ("arena, too many games", ("miaui_env.apps.arena", "--candidate", "random", "--games", "99999999999999"), "GiB of results"),
    ("selfplay, YAML that does not parse", ("training.selfplay", "--set", "ppo.learning_rate=["), "not valid YAML"),
    ("selfplay, a run name that is a path", ("training.selfplay", "--set", "run_name=/tmp/elsewhere"), "a folder name"),
    ("selfplay, no evaluation baselines", ("training.selfplay", "--set", "evaluation.baselines=[]"), "at least one agent"),
    ("rllib, unknown baseline", ("training.rllib_selfplay", "--set", "evaluation.baselines=[nobody]"), "nobody"),
    ("selfplay, policy_kwargs not a mapping", ("training.selfplay", "--set", "ppo.policy_kwargs=5"), "ppo.policy_kwargs=5"),
    ("selfplay, an infinite learning rate", ("training.selfplay", "--set", "ppo.learning_rate=.inf"), "ppo.learning_rate=inf"),
    ("selfplay, a seed that is text", ("training.selfplay", "--set", "seed=abc"), "'abc'"),
    (
        "selfplay, a table key misspelt",
        ("training.selfplay", "--set", "tables=[{num_players: 4, num_games: 8, no_fightin: true}]"),
        "no_fightin",
    ),
    ("selfplay, evaluation every 0", ("training.selfplay", "--set", "evaluation.every=0"), "evaluation.every"),
    ("selfplay, ppo n_steps 0", ("training.selfplay", "--set", "ppo.n_steps=0"), "ppo.n_steps=0"),
    ("selfplay, ppo key misspelt", ("training.selfplay", "--set", "ppo.n_step=22"), "ppo.n_step is not a MaskablePPO argument"),
    ("rllib, a seed that is text", ("training.rllib_selfplay", "--set", "seed=abc"), "'abc'"),
    ("rllib, nothing to resume", ("training.rllib_selfplay", "--resume", "no/such/run"), "no RLlib checkpoint"),
    ("selfplay, unknown baseline", ("training.selfplay", "--set", "evaluation.baselines=[nobody]"), "nobody"),
    ("selfplay, missing config", ("training.selfplay", "--config", "no/such.yaml"), "no/such.yaml"),
    ("selfplay, nothing to resume", ("training.selfplay", "--resume", "no/such/run"), "no checkpoint"),
    ("selfplay, resume with a config", ("training.selfplay", "--resume", "x", "--config", "y.yaml"), "do not apply"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("args", "message"), [row[1:] for row in CLI_CALLS], ids=[row[0] for row in CLI_CALLS])
def test_commands_end_user_errors_with_one_line(args, message, tmp_path):
    if args[0].startswith("training.") and "--resume" not in args:
        args = (*args, "--out", str(tmp_path / "run"))  # never a run of the user's in checkpoints/
    done = command(*args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["bad-json", "bad-zip", "no-data"])
def test_a_damaged_checkpoint_is_named_not_a_traceback(tmp_path, kind):
    run = broken_checkpoint(tmp_path, kind)
    done = command("miaui_env.apps.arena", "--candidate", str(run), "--games", "8", "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert str(run) in done.stderr and ("not valid JSON" in done.stderr or "not a loadable" in done.stderr)
    if kind == "no-data":
        assert "no 'data' member" in done.stderr
        played = command("miaui_env.apps.play", "--players", "3", "--seed", "1", "--opponents", str(run), stdin="q\n")
        assert played.returncode == 2 and "Traceback" not in played.stderr and "no 'data' member" in played.stderr
    with pytest.raises(CheckpointError, match=r"damaged|not a loadable"):
        from miaui_env.games.miaui.agents.loading import load_agent

        load_agent(str(run))


def test_human_play_asks_again_for_a_unicode_digit():
    done = command("miaui_env.apps.play", "--players", "3", "--seed", "2", "--opponents", "random", stdin="²\nq\n")
    assert done.returncode == 0, done.stderr
    assert "'²' is not a diver card" in done.stdout and "Game abandoned." in done.stdout


# -- agents' answers ----------------------------------------------------------------------------
def float_cards(observations, masks):
    return np.argmax(masks, axis=1).astype(np.float64)  # the right cards, as floats


def too_few_cards(observations, masks):
    return np.argmax(masks, axis=1)[:-1]


def illegal_cards(observations, masks):
    return np.argmin(masks, axis=1)  # a card not in hand, once one has been played


@pytest.mark.parametrize(
    ("policy", "message"),
    [(float_cards, "dtype float64"), (too_few_cards, "integer action indices"), (illegal_cards, "played action index")],
    ids=["floats", "too few", "illegal"],
)
def test_an_agents_malformed_answer_is_named_wherever_it_plays(policy, message):
    from miaui_env.games.miaui.arena import ArenaConfig, play
    from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv

    with pytest.raises(AgentError, match=f"'{policy.__name__}'.*{message}"):
        play([policy, RandomAgent(0)], "gauntlet", ArenaConfig(num_players=3, games=6))
    venv = MiauiSelfPlayVecEnv(2, num_players=3, learner_seats=[0], opponent=policy, seed=0)
    venv.reset()
    with pytest.raises(AgentError, match=message):
        for _ in range(2):
            venv.step(np.argmax(venv.action_masks(), axis=1))
    env = MiauiSingleAgentEnv(num_players=3, opponents=policy, seat=0)
    env.reset(seed=0)
    with pytest.raises(AgentError, match=message):
        for _ in range(2):
            env.step(int(env.action_masks().argmax()))


def test_one_agent_given_for_every_seat_is_asked_once_with_a_row_a_seat():
    recorder = RecordingAgent()
    env = MiauiSingleAgentEnv(num_players=4, opponents=recorder, seat=0)
    env.reset(seed=0)
    env.step(5)
    env.step(6)
    # One call a round with the three opponent seats as rows, in the same order every round (so an
    # agent with memory, such as the counter, follows each seat by its row).
    assert [batch.shape for batch in recorder.masks] == [(4 - 1, 12), (4 - 1, 12)]
    assert (recorder.masks[1].sum(axis=1) == 11).all() and not recorder.masks[1][:, 0].any()


BAD_ARENA_CONFIGS = [
    ({"games": 0}, "games=0"),
    ({"games": 2.5}, "games=2.5"),
    ({"batch_games": -1}, "batch_games=-1"),
    ({"num_players": 4.0}, "4.0"),
    ({"view": "x"}, "view='x'"),
    ({"seed": -1}, "seed=-1"),
]


@pytest.mark.parametrize(("kwargs", "message"), BAD_ARENA_CONFIGS, ids=[str(k) for k, _ in BAD_ARENA_CONFIGS])
def test_the_arena_config_refuses_bad_values(kwargs, message):
    from miaui_env.games.miaui.arena import ArenaConfig

    with pytest.raises(ValueError, match=message):
        ArenaConfig(**kwargs)


RULES_CALLS = [
    ("deck order of floats", lambda: new_game(GameConfig(), np.random.default_rng(0), [i + 0.5 for i in range(37)]), "not an integer"),
    ("deck order of bools", lambda: new_game(GameConfig(), np.random.default_rng(0), [True] * 37), "not an integer"),
    ("deck order as a number", lambda: new_game(GameConfig(), np.random.default_rng(0), 5), "permutation"),
    ("a seed for a generator", lambda: new_game(GameConfig(), 0), "numpy.random.Generator"),
    ("a deck of strings", lambda: GameConfig(deck=tuple(DECK)), "not a FishCard"),
    ("plays as a number", lambda: play_round(new_game(GameConfig(), np.random.default_rng(0)), 5), "sequence of one diver card"),
    ("plays as a dict", lambda: play_round(new_game(GameConfig(), np.random.default_rng(0)), {0: 1}), "sequence of one diver card"),
    ("the score of seat 4 of 4", lambda: score(new_game(GameConfig(), np.random.default_rng(0)), 4), "seat=4 is not at a 4-player table"),
    ("the score of seat -1", lambda: score(new_game(GameConfig(), np.random.default_rng(0)), -1), "seats are 0-3"),
    ("legal cards of seat 9", lambda: new_game(GameConfig(), np.random.default_rng(0)).legal_cards(9), "seat=9"),
    ("card 37 of a 37-card deck", lambda: new_game(GameConfig(), np.random.default_rng(0)).card(37), "indices are 0-36"),
    ("rewards of no scores", lambda: final_rewards([], "win"), "whole final scores"),
    ("rewards of a NaN score", lambda: final_rewards([np.nan, 1], "win"), "whole final scores"),
    ("rewards of text", lambda: final_rewards(["a"], "win"), "as numbers"),
    ("an unknown reward", lambda: final_rewards([1, 2], "points"), "reward='points' is not allowed"),
    ("Kiti at 0 players", lambda: kiti_seat(1, 0), "num_players=0"),
    ("Kiti in round 0", lambda: kiti_seat(0, 4), "round 0 is no round"),
    ("the encoder for seat 4 of 4", lambda: Encoder(GameConfig()).observe(4), "seat=4 is not at this 4-player table"),
    ("words for a NaN observation", lambda: describe_observation(np.full(620, np.nan), 0, 4), "values no env writes"),
    ("words for seat 9", lambda: describe_observation(np.zeros(620), 9, 4), "seat=9"),
    ("a piece the layout lacks", lambda: OBSERVATION_LAYOUT.view(np.zeros(620), "nope"), "no piece 'nope'"),
]


@pytest.mark.parametrize(("call", "message"), [row[1:] for row in RULES_CALLS], ids=[row[0] for row in RULES_CALLS])
def test_the_rules_api_refuses_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_batched_engine_refuses_ragged_actions_and_both_seed_forms():
    engine = VectorMiaui(2, num_players=3, seed=0)
    with pytest.raises(IllegalActionError, match="shape"):
        engine.step([[0, 1, 2], [0, 1]])
    with pytest.raises(SeedError, match="not both"):
        engine.reset(seed=1, seeds=[5, 6])


def test_a_multi_table_vecenv_refuses_what_is_not_a_list_of_distinct_tables():
    from miaui_env.core.vec import MultiTableVecEnv
    from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv

    table = MiauiSelfPlayVecEnv(2, num_players=3, seed=0)
    for tables, message in (([], "non-empty"), ([table, table], "same table twice"), ([table, "x"], "'x'")):
        with pytest.raises(InvalidConfigError, match=message):
            MultiTableVecEnv(tables)
    with pytest.raises(InvalidConfigError, match="rotate_seats"):
        MiauiSelfPlayVecEnv(2, num_players=3, rotate_seats="no")


# -- without Ray: one line naming the [rllib] extra -----------------------------------------------
@pytest.fixture
def without_ray(monkeypatch):
    """`import ray` (and any ray.* submodule already imported) fails, as where the extra is not installed."""
    for name in [name for name in sys.modules if name == "ray" or name.startswith("ray.")] + ["ray"]:
        monkeypatch.setitem(sys.modules, name, None)


def test_without_ray_the_rllib_trainer_names_the_extra(without_ray, tmp_path, capsys):
    from training import rllib_selfplay

    with pytest.raises(SystemExit) as stopped:
        rllib_selfplay.main(["--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "[rllib]" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def test_without_ray_an_rllib_run_is_refused_naming_the_extra(without_ray, tmp_path):
    from miaui_env.games.miaui.agents.loading import load_agent

    run = tmp_path / "rllib-run"
    (run / "policy").mkdir(parents=True)
    (run / "policy" / "class_and_ctor_args.pkl").write_bytes(b"")
    with pytest.raises(CheckpointError, match=r"RLlib policy, and reading it needs Ray.*\[rllib\]"):
        load_agent(str(run))


@pytest.mark.parametrize("version", [True, 1.0, "1"])
def test_a_checkpoint_version_that_only_equals_one_is_refused(tmp_path, version):
    from miaui_env.core.checkpoint import CheckpointVersionError, read_metadata

    metadata = tmp_path / "metadata.json"
    metadata.write_text(json.dumps({"observation_version": version}))
    with pytest.raises(CheckpointVersionError, match=f"version {version!r}"):
        read_metadata(metadata)


def test_a_checkpoint_s_game_is_checked_before_that_game_s_layout_version(tmp_path):
    from miaui_env.core.checkpoint import CheckpointError, CheckpointSpaceError, CheckpointVersionError, read_metadata
    from miaui_env.core.policy import load_sb3_policy
    from training.checkpoint import open_checkpoint, saved_game
    from training.config import ConfigError

    metadata = tmp_path / "metadata.json"
    metadata.write_text(json.dumps({"game": "octopus", "observation_version": 7}))
    (tmp_path / "model.zip").write_bytes(b"")
    # An octopus policy of a later layout is refused for its game, not for Miaui's version number.
    with pytest.raises(CheckpointSpaceError, match="'octopus' game, not Miaui"):
        load_sb3_policy(tmp_path)
    assert read_metadata(metadata, "octopus", 7)["observation_version"] == 7
    assert open_checkpoint(tmp_path, ["model.zip"], "checkpoint", "octopus", 7)["game"] == "octopus"
    with pytest.raises(ConfigError, match="is a run of the 'octopus' game, but its config says game='miaui'"):
        open_checkpoint(tmp_path, ["model.zip"], "checkpoint")
    assert (saved_game(tmp_path), saved_game(tmp_path / "no-run")) == ("octopus", "miaui")
    with pytest.raises(CheckpointVersionError, match="the octopus game's observation layout version 7, but this library builds version 8"):
        read_metadata(metadata, "octopus", 8)
    unmarked = tmp_path / "unmarked.json"
    unmarked.write_text(json.dumps({"observation_version": 7}))
    with pytest.raises(CheckpointSpaceError, match="'miaui' game, not the octopus game"):  # no game: Miaui's
        read_metadata(unmarked, "octopus", 7)
    assert read_metadata(tmp_path / "missing.json") == {}  # Miaui's first runs had no metadata; an octopus run always has
    with pytest.raises(CheckpointError, match=r"missing\.json is missing"):
        read_metadata(tmp_path / "missing.json", "octopus", 7)


def test_a_policy_of_another_game_is_refused_at_load_naming_both_spaces(tmp_path):
    import gymnasium
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    from miaui_env.core.checkpoint import CheckpointSpaceError
    from miaui_env.games.miaui.agents.loading import load_agent

    cartpole = ActionMasker(gymnasium.make("CartPole-v1"), lambda env: np.ones(2, bool))
    MaskablePPO("MlpPolicy", cartpole, n_steps=16, batch_size=16).save(tmp_path / "model.zip")
    with pytest.raises(CheckpointSpaceError, match=r"Box\(4,\) of float32 and actions Discrete\(2\).*Box\(620,\).*Discrete\(12\)"):
        load_agent(str(tmp_path), seed=0)


@pytest.mark.parametrize("weight", [np.float32(2.5), np.int64(3), np.float64(0.0), np.uint8(7)])
def test_search_takes_a_numpy_scalar_prior_weight(weight):
    from miaui_env.games.miaui.agents.search import RegretMatchingSearchAgent

    assert RegretMatchingSearchAgent(0, prior_weight=weight).prior_weight == float(weight)


@pytest.mark.parametrize(
    "weight", [True, np.bool_(True), np.float32("nan"), np.float64("inf"), np.int64(-1), 10**400, "3", np.timedelta64(3)]
)
def test_search_refuses_a_prior_weight_that_is_no_finite_number(weight):
    from miaui_env.games.miaui.agents.search import RegretMatchingSearchAgent

    with pytest.raises(InvalidConfigError, match=re.escape(f"prior_weight={weight!r} is not allowed; it must be a finite number >= 0")):
        RegretMatchingSearchAgent(0, prior_weight=weight)


@pytest.mark.parametrize(
    ("given", "message"),
    [(None, "got None"), ([[0.0] * 632, [0.0]], "ragged list"), (["1"] * 632, "dtype <U1")],
    ids=["None", "ragged", "strings"],
)
def test_split_mask_refuses_what_is_no_batch_of_observations(given, message):
    from miaui_env.integrations.adapters import MaskedObservationError, split_mask

    with pytest.raises(MaskedObservationError, match=rf"\(\.\.\., 632\).*{message}"):
        split_mask(given)


def test_the_octopus_raw_env_says_reset_is_needed_before_agent_iter():
    from miaui_env.games.octopus.env import raw_env

    with pytest.raises(ResetNeeded, match=r"reset\(\) before agent_iter\(\)"):
        raw_env().agent_iter()


def test_a_0d_array_plays_the_diver_card_it_holds():
    # A numpy scalar array is its number, a card 1-12 as a plain int is: not a card index.
    played = play_round(new_game(GameConfig(), np.random.default_rng(0)), [np.array(1), np.array(5), 12, np.int64(7)])
    assert played[0].plays == (1, 5, 12, 7)


def test_the_gymnasium_env_takes_a_numpy_integer_seed_as_the_same_game():
    one, two = MiauiSingleAgentEnv(), MiauiSingleAgentEnv()
    np.testing.assert_array_equal(one.reset(seed=np.int32(4))[0], two.reset(seed=4)[0])
    assert one.seat == two.seat


BAD_BATCHES = [
    (np.zeros((3, 620), np.uint8), np.ones((3, 12), np.int8), r"reads float observations of shape \(rows, 620\), got dtype uint8"),
    (np.zeros((3, 619)), np.ones((3, 12), np.int8), r"shape \(3, 619\)"),
    (np.zeros(620), np.ones(12, np.int8), r"shape \(620,\)"),
    (np.zeros((4, 620)), np.ones((3, 12), np.int8), r"masks of shape \(4, 12\), one per row; got dtype int8 shape \(3, 12\)"),
    (np.zeros((3, 620)), np.ones((3, 11), np.int8), r"got dtype int8 shape \(3, 11\)"),
    (np.zeros((3, 620)), np.full((3, 12), 0.5), r"masks of 0s and 1s; got \[0.5\]"),
    (np.zeros((3, 620)), np.full((3, 12), 2), r"masks of 0s and 1s; got \[2\]"),
    (np.zeros((3, 620)), np.array([["1"] * 12] * 3), r"numeric masks"),
    (None, None, r"got dtype object shape \(\)"),
]


@pytest.mark.parametrize("name", ["greedy", "counter", "high", "low", "middle", "extremes", "noisy-counter", "search"])
@pytest.mark.parametrize(("observations", "masks", "message"), BAD_BATCHES)
def test_every_built_in_agent_refuses_a_batch_it_cannot_read(name, observations, masks, message):
    from miaui_env.games.miaui.agents.loading import load_agent

    agent = load_agent(name, seed=0)
    with pytest.raises(AgentError, match=f"the {name} agent .*{message}"):
        agent.act(observations, masks)
    assert load_agent(name, seed=0).act(np.zeros((3, 620), np.float32), np.ones((3, 12), bool)).shape == (3,)  # bool masks are fine
