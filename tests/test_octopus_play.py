"""Octopus replays (bit for bit, tampering refused) and octopus human play in the terminal."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miaui_env.core.replays import ReplayError
from miaui_env.games.octopus import replay as octopus_replay
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.play import steal_odds, table
from miaui_env.games.octopus.replay import (
    OctopusReplayError,
    load_replay,
    record,
    replay_from_json,
    replay_states,
    replay_to_json,
    save_replay,
)

ROOT = Path(__file__).parent.parent


def random_game(num_players: int, seed: int, decisions_seed: int) -> tuple[list[rules.OctopusState], list[int]]:
    """A game of random legal decisions: its state after the deal and after every decision, and the actions."""
    rng = np.random.default_rng(decisions_seed)
    state = rules.new_game(num_players, seed=seed)
    states, actions = [state.clone()], []
    while not state.is_over:
        action = int(rng.choice(np.flatnonzero(rules.action_mask(state))))
        actions.append(action)
        rules.step(state, rules.decision_of(state, action))
        states.append(state.clone())
    return states, actions


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 4), st.integers(0, 2**64 - 1), st.integers(0, 2**32), st.sampled_from(["table", "recall"]))
def test_a_replay_plays_back_every_state_bit_for_bit(num_players, seed, decisions_seed, view):
    states, actions = random_game(num_players, seed, decisions_seed)
    replay = record(states[-1], actions, seed=seed, view=view, players=[f"p{s}" for s in range(num_players)])
    again = replay_from_json(replay_to_json(replay))
    assert again == replay
    played = replay_states(again)
    assert len(played) == len(states)
    for mine, theirs in zip(played, states, strict=True):
        assert mine.events == theirs.events and mine.totals == theirs.totals and mine.collections == theirs.collections
        assert mine.deck == theirs.deck and mine.phase == theirs.phase and mine.active == theirs.active
    assert again.totals == tuple(states[-1].totals) and again.winners == rules.winners(states[-1])


@pytest.fixture(scope="module")
def good() -> dict:
    states, actions = random_game(3, 11, 5)
    return json.loads(replay_to_json(record(states[-1], actions, seed=11)))


def _first_action_not(data: dict, action: int) -> int:
    return next(i for i, a in enumerate(data["actions"]) if a != action)


# (what is done to a good file, the words its error must hold)
TAMPERED = [
    ("version 2", lambda d: d.update(version=2), "version: replay format 2"),
    ("version true", lambda d: d.update(version=True), "version: replay format True"),
    ("version 1.0", lambda d: d.update(version=1.0), "version: replay format 1.0"),
    ("a Miaui replay", lambda d: d.update(game="miaui"), "game: 'miaui' is not an octopus replay"),
    ("no winners", lambda d: d.pop("winners"), "missing ['winners']"),
    ("an unknown key", lambda d: d.update(extra=1), "unknown ['extra']"),
    ("5 players", lambda d: d.update(num_players=5), "num_players: an integer 2-4"),
    ("players true", lambda d: d.update(num_players=True), "num_players: an integer 2-4"),
    ("a huge seed", lambda d: d.update(seed=10**30), "seed: an integer 0-18446744073709551615"),
    ("a negative seed", lambda d: d.update(seed=-1), "seed: an integer"),
    ("a float seed", lambda d: d.update(seed=11.0), "seed: an integer"),
    ("a null seed", lambda d: d.update(seed=None), "seed: an integer"),
    ("an unknown view", lambda d: d.update(view="x-ray"), "view: one of table, recall"),
    ("a cap of 0", lambda d: d.update(max_sessions=0), "max_sessions: an integer 1-1000"),
    ("a seat unnamed", lambda d: d["players"].pop(), "players: 3 names"),
    ("a name that is no string", lambda d: d["players"].__setitem__(1, 7), "players[1]: a name"),
    ("an empty name", lambda d: d["players"].__setitem__(2, ""), "players[2]: a name"),
    ("actions a string", lambda d: d.update(actions="0,1"), "actions: a list of integers"),
    ("an action past 11", lambda d: d["actions"].__setitem__(3, 12), "actions[3]: an integer 0-11"),
    ("an action true", lambda d: d["actions"].__setitem__(_first_action_not(d, 1), True), "an integer 0-11; got True"),
    ("an action as a list", lambda d: d["actions"].__setitem__(0, [1]), "actions[0]: an integer 0-11"),
    ("an illegal action", lambda d: d["actions"].__setitem__(0, 2), "actions[0]: action 2 is not legal for player_0"),
    ("the last action gone", lambda d: d["actions"].pop(), "the game is not over after"),
    ("an action too many", lambda d: d["actions"].append(0), "the game ended after"),
    (
        "a session score edited",
        lambda d: d["session_scores"][0].__setitem__(1, d["session_scores"][0][1] + 1),
        "session_scores[0]: session 1 scored",
    ),
    ("a session too many", lambda d: d["session_scores"].append([0, 0, 0]), "session_scores: the game has"),
    ("a session score past 40", lambda d: d["session_scores"][0].__setitem__(0, 41), "session_scores[0][0]: an integer 0-40"),
    ("no sessions", lambda d: d.update(session_scores=[]), "session_scores: a list of 1-1000"),
    ("a total edited", lambda d: d["totals"].__setitem__(1, d["totals"][1] + 1), "totals[1]: player_1 ends on"),
    ("a total short", lambda d: d["totals"].pop(), "totals: 3 entries"),
    ("a huge total", lambda d: d["totals"].__setitem__(0, 10**40), "totals[0]: an integer"),
    ("everyone a winner", lambda d: d.update(winners=[0, 1, 2]), "winners: the game's are"),
    ("no winner", lambda d: d.update(winners=[]), "winners: the winning seats, at least one"),
    ("a winner twice", lambda d: d.update(winners=[0, 0]), "winners: the winning seats"),
    ("a winner not seated", lambda d: d.update(winners=[3]), "winners[0]: an integer 0-2"),
]


@pytest.mark.parametrize(("change", "words"), [(c, w) for _, c, w in TAMPERED], ids=[name for name, _, _ in TAMPERED])
def test_a_tampered_replay_is_refused_naming_what_is_wrong(good, change, words, tmp_path):
    data = json.loads(json.dumps(good))
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(OctopusReplayError) as refused:
        load_replay(path)
    assert words in str(refused.value) and str(path) in str(refused.value)
    assert isinstance(refused.value, ReplayError) and isinstance(refused.value, ValueError)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{", "a replay is JSON; this is not"),
        ("[]", "a JSON object"),
        ("[" * 100_000 + "]" * 100_000, "nested too deep"),
        ('{"version": 1, "seed": ' + "9" * 5000 + "}", "a replay is JSON; this is not"),
        ('{"version": 1, "seed": NaN}', "no NaN"),
        ('{"version": 1, "seed": Infinity}', "no Infinity"),
    ],
    ids=["truncated", "not an object", "deep", "thousands of digits", "NaN", "Infinity"],
)
def test_what_is_not_a_replay_file_is_refused(text, words):
    with pytest.raises(OctopusReplayError) as refused:
        replay_from_json(text)
    assert words in str(refused.value)


def test_a_file_load_refuses_is_never_written(good, tmp_path):
    states, actions = random_game(2, 3, 4)
    replay = record(states[-1], actions, seed=3)
    for broken in (
        octopus_replay.OctopusReplay(**{**replay.__dict__, "players": ("a",)}),
        octopus_replay.OctopusReplay(**{**replay.__dict__, "totals": (0, 0)}),
        octopus_replay.OctopusReplay(**{**replay.__dict__, "seed": True}),
    ):
        with pytest.raises(OctopusReplayError):
            save_replay(broken, tmp_path / "never.json")
    assert not (tmp_path / "never.json").exists()
    with pytest.raises(OctopusReplayError, match="still being played"):
        record(rules.new_game(2, seed=1), [], seed=1)
    path = save_replay(replay, tmp_path / "deep" / "ok.json")
    assert load_replay(path) == replay and "Final totals" in octopus_replay.hand_history(replay)


def test_the_die_odds_and_the_table_a_seat_sees():
    assert [steal_odds(k) for k in (1, 2, 3)] == [Fraction(5, 6), Fraction(1, 2), Fraction(1, 3)]
    states, _ = random_game(3, 8, 8)
    middle = next(s for s in states if s.session == 1 and any(s.collections[1:]) and s.discard)
    seen = "\n".join(table(middle, middle.active, "table"))
    recalled = "\n".join(table(middle, middle.active, "recall"))
    assert f"deck {len(middle.deck)} card" in seen and "Discard pile" not in seen and "Discard pile" in recalled


# -- the command line --------------------------------------------------------------------------------

# At the stop-or-flip prompt "0" is refused and "s" taken; at a theft prompt "s" is refused and "0"
# (no theft) taken: so alternating lines play any game, and bad input is asked again on the way.
STOP_OR_NO_THEFT = ["0", "s"] * 3000


def run_play(lines: list[str], *args: str, script: str | None = None) -> subprocess.CompletedProcess:
    command = ["-c", script] if script else ["-m", "miaui_env.apps.play"]
    return subprocess.run(
        [sys.executable, *command, *args], cwd=ROOT, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_whole_game_at_every_table_size_and_its_replay(players, tmp_path):
    path = tmp_path / "replays" / "game.json"
    seat = players - 1
    done = run_play(
        STOP_OR_NO_THEFT, "--game", "octopus", "--players", str(players), "--seat", str(seat), "--seed", "5", "--replay", str(path)
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"You are player_{seat} at a table of {players}" in out and "s / stop" in out and "f / flip" in out
    assert "P(roll >= 2) = 1/2" in out and "'0' is not a choice: type s to stop or f to flip." in out
    assert "Final totals:" in out and ("You win!" in out) != ("Better luck next time." in out)
    assert "Session 1 scores (O7)" in out and "turns up" in out
    replay = load_replay(path)
    assert replay.num_players == players and replay.seed == 5 and replay.players[seat] == "you"
    for other_seat, total in enumerate(replay.totals):
        assert f"player_{other_seat} ({replay.players[other_seat]}): {total}" in out
    assert f"python -m miaui_env.apps.replay {path}" in out
    printed = subprocess.run(
        [sys.executable, "-m", "miaui_env.games.octopus.replay", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert printed.returncode == 0 and "Final totals" in printed.stdout


def test_bad_input_is_asked_again_and_q_leaves():
    done = run_play(["hello", "9" * 5000, "f", "q"], "--game", "octopus", "--players", "2", "--seed", "1", "--no-replay")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "'hello' is not a choice: type s to stop or f to flip." in done.stdout
    assert f"'{'9' * 20}...' is not a choice" in done.stdout and "Game abandoned." in done.stdout
    closed = run_play([], "--game", "octopus", "--seed", "1", "--no-replay")
    assert closed.returncode == 0 and "Game abandoned." in closed.stdout


def test_a_theft_choice_out_of_range_is_asked_again():
    # seed 3 at 3 players: the human's third turn ends on an octopus with player_2 holding cards
    done = run_play(["f", "s", "f", "4", "abc", "²", "0", "q"], "--game", "octopus", "--players", "3", "--seed", "3", "--no-replay")
    out = done.stdout
    assert "  3: steal 3 from player_2 (3 cards): P(roll >= 3) = 1/3" in out
    for bad in ("'4'", "'abc'", "'²'"):
        assert f"{bad} is not a choice: type a number from 0 to 3." in out
    assert "you steal nothing (O5)" in out


def test_ctrl_c_ends_with_status_130_in_one_line():
    interrupt_at_the_prompt = textwrap.dedent("""
        import builtins, sys
        def interrupted(prompt=""):
            print(prompt, end="")
            raise KeyboardInterrupt
        builtins.input = interrupted
        sys.argv = ["play.py", "--game", "octopus", "--seed", "1", "--no-replay"]
        from miaui_env.apps.play import main
        main()
    """)
    done = run_play([], script=interrupt_at_the_prompt)
    assert done.returncode == 130 and done.stderr.strip() == "play.py: game abandoned", done.stderr
    assert "Stop (s) or flip (f)" in done.stdout


def test_any_octopus_agent_spec_sits_at_the_table_the_shipped_policy_too():
    # The model card's command: the arena and the browser load the shipped policy, and so does the terminal.
    done = run_play(["q"], "--game", "octopus", "--seed", "1", "--opponents", "octopus-ppo-v1@sample", "rival-aware", "--no-replay")
    assert done.returncode == 0, done.stderr
    assert "player_1: octopus-ppo-v1@sample" in done.stdout and "player_2: rival-aware" in done.stdout
    refused = run_play([], "--game", "octopus", "--seed", "1", "--opponents", "random", "counter", "--no-replay")
    assert refused.returncode == 2 and "unknown octopus agent 'counter'" in refused.stderr and "You are player_" not in refused.stdout


def test_miaui_only_options_and_bad_tables_are_refused_before_the_game(tmp_path):
    for args, words in [
        (["--no-fighting"], "--no-fighting: not a variant of the octopus game, which has none"),
        (["--open-baskets"], "--open-baskets: not a variant of the octopus game, which has none"),
        (["--players", "5"], "invalid choice: 5"),
        (["--seat", "3"], "--seat 3 is not a seat at a 3-player table"),
        (["--opponents", "nobody"], "unknown octopus agent 'nobody'"),
        (["--replay", str(tmp_path)], "it is a folder"),
    ]:
        done = run_play(["s"] * 10, "--game", "octopus", "--seed", "1", *args)
        assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)
        assert "You are player_" not in done.stdout
    unknown = run_play([], "--game", "chess")
    assert unknown.returncode == 2 and "invalid choice: 'chess'" in unknown.stderr
    miaui = run_play(["q"], "--game", "miaui", "--players", "3", "--seed", "1", "--opponents", "random", "--no-replay")
    assert miaui.returncode == 0 and "Round 1 of 12" in miaui.stdout
