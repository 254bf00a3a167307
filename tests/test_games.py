"""Every game of the registry (miaui_env.games), through its registry entry alone: PettingZoo's
conformance tests at every table size, no seat seeing a simultaneous round's earlier choices, every
built-in agent playing whole games legally, a fair arena, terminal play. A game registered before
collection gets all of it (tests/conftest.py registers the test-only games of tests/games/)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from helpers import aec_decisions, environment_with_test_games, pettingzoos_own_warnings_only
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

from miaui_env.games import game_names, get_game

TABLES = [(name, n) for name in game_names() for n in get_game(name).players]


@pytest.fixture(autouse=True)
def _no_warnings_but_pettingzoos_own():
    with pettingzoos_own_warnings_only():
        yield


@pytest.mark.oracle  # every game's API conformance
@pytest.mark.parametrize(("name", "n"), TABLES, ids=[f"{name}-{n}p" for name, n in TABLES])
def test_pettingzoo_conformance_at_every_table_size(name, n, capsys):
    game = get_game(name)
    view = game.views[n % len(game.views)]  # the views take turns over the table sizes

    def make(**kwargs):
        return game.env(num_players=n, view=view, **kwargs)

    api_test(make(), num_cycles=200)
    seed_test(make, num_cycles=200)
    render_test(make)
    if "parallel_env" in game.parts:

        def make_parallel(**kwargs):
            return game.parallel_env(num_players=n, view=view, **kwargs)

        parallel_api_test(make_parallel(), num_cycles=200)
        parallel_seed_test(make_parallel)
    capsys.readouterr()  # render_test's human mode prints


SIMULTANEOUS = [(name, n) for name, n in TABLES if "parallel_env" in get_game(name).parts]


def _legal(observation, rng) -> int:
    return int(rng.choice(np.flatnonzero(observation["action_mask"])))


@pytest.mark.oracle  # the leak property of every game of simultaneous moves
@pytest.mark.parametrize(("name", "n"), SIMULTANEOUS, ids=[f"{name}-{n}p" for name, n in SIMULTANEOUS])
def test_a_seat_sees_nothing_of_what_the_seats_before_it_chose_in_its_round(name, n):
    # A game with a Parallel env is one of simultaneous moves: a round's choices are hidden until all
    # are made. The AEC env asks the seats one after the other, so at each seat's turn its
    # observation and mask must be the same whichever legal actions the seats before it chose.
    game = get_game(name)
    rng = np.random.default_rng(n)
    compared = 0
    for trial in range(8):
        seed, rounds_before = int(rng.integers(2**31)), trial % 3
        tables = [game.env(num_players=n, view=view) for view in game.views for _ in range(2)]
        for env in tables:
            env.reset(seed=seed)
        shared = np.random.default_rng(seed)
        for _ in range(rounds_before * n):  # the same rounds at both tables of a view
            choice = _legal(tables[0].observe(tables[0].agent_selection), shared)
            for env in tables:
                env.step(choice)
        if any(env.terminations[env.agent_selection] for env in tables):
            continue
        own = [np.random.default_rng([seed, t]) for t in range(len(tables))]  # then each table its own choices
        for _ in range(n):
            for first, second in zip(tables[::2], tables[1::2], strict=True):
                assert first.agent_selection == second.agent_selection
                seen, also = first.observe(first.agent_selection), second.observe(second.agent_selection)
                assert np.array_equal(seen["observation"], also["observation"]), f"{first.agent_selection} sees a choice of its round"
                assert np.array_equal(seen["action_mask"], also["action_mask"])
                compared += 1
            for env, choices in zip(tables, own, strict=True):
                env.step(_legal(env.observe(env.agent_selection), choices))
    assert compared >= 8 * n


def play_whole_game(game, agent_name: str, n: int, seed: int) -> int:
    """One game at `n` seats, each seat its own `agent_name` agent, through the game's AEC env; the decisions taken."""
    agents = [game.load_agent(agent_name, seed=seed * 10 + seat) for seat in range(n)]
    env = game.env(num_players=n, view=getattr(agents[0], "view", game.views[0]))
    env.reset(seed=seed)
    decisions = 0
    for name, observation in aec_decisions(env):
        mask = np.asarray(observation["action_mask"], dtype=bool)
        agent = agents[env.possible_agents.index(name)]
        action = int(np.asarray(agent.act(observation["observation"][None], mask[None]))[0])
        assert mask[action], f"{agent_name} chose {action}, not one of {np.flatnonzero(mask)}"
        env.step(action)
        decisions += 1
    return decisions


@pytest.mark.parametrize("name", game_names())
def test_every_built_in_agent_plays_whole_games_legally(name):
    game = get_game(name)
    for agent_name in game.agent_names():
        for seed, n in enumerate((game.min_players, game.max_players)):
            assert play_whole_game(game, agent_name, n, seed) > 0


@pytest.mark.oracle  # the arena's duplicate dealing, for every game
@pytest.mark.parametrize("name", game_names())
def test_a_deterministic_agent_against_copies_of_itself_wins_exactly_the_fair_share(name):
    # Duplicate dealing plays each deal once with the candidate in every seat; with every seat the
    # same deterministic player, each rotation is the same game, so the candidate wins each deal's
    # one share exactly once.
    game = get_game(name)
    n = game.default_players
    strongest = game.baselines[-1]
    result = game.part("gauntlet")([strongest, strongest], n, 6 * n, 11, False)
    candidate = result.agents[0]
    assert result.duplicate_sets == 6 and candidate.games == 6 * n
    assert candidate.win_share == pytest.approx(1 / n)


@pytest.mark.parametrize("name", game_names())
def test_terminal_play_starts_and_quits_cleanly(name, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "miaui_env.apps.play", "--game", name, "--seed", "1", "--no-replay"],
        input="q\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env=environment_with_test_games(),
    )
    assert done.returncode == 0 and "You are player_0" in done.stdout and "abandoned" in done.stdout, done.stderr
    assert "Traceback" not in done.stderr


# -- bad input, the same for every game --------------------------------------------------------------
def _refused(call, *words: str) -> ValueError:
    with pytest.raises(ValueError) as caught:
        call()
    assert all(word in str(caught.value) for word in words), str(caught.value)
    return caught.value


@pytest.mark.parametrize("name", game_names())
def test_every_game_refuses_a_bad_table_naming_what_is_wrong(name):
    game = get_game(name)
    for settings, words in [
        ({"num_players": game.max_players + 1}, [str(game.max_players + 1)]),
        ({"num_players": game.min_players - 1}, [str(game.min_players - 1)]),
        ({"num_players": "3"}, ["'3'"]),
        ({"num_players": None}, ["None"]),
        ({"view": "everything"}, ["'everything'", *game.views]),
        ({"reward": "money"}, ["'money'", "win"]),
        ({"render_mode": "hologram"}, ["'hologram'", "ansi"]),
        ({"table_size": 4}, ["table_size", "num_players"]),
    ]:
        _refused(lambda settings=settings: game.env(**settings), *words)


@pytest.mark.parametrize("name", game_names())
def test_every_game_refuses_a_bad_action_and_changes_nothing(name):
    game = get_game(name)
    env = game.env(num_players=game.default_players)
    env.reset(seed=3)
    before, *_ = env.last()
    agent = env.agent_selection
    for action in (99, -1, "a", 1.5, None, True, np.int64(99), np.timedelta64(1)):
        _refused(lambda action=action: env.step(action), agent, repr(action) if not isinstance(action, np.generic) else "")
        after, *_ = env.last()
        assert env.agent_selection == agent
        assert np.array_equal(before["observation"], after["observation"]) and np.array_equal(before["action_mask"], after["action_mask"])


@pytest.mark.parametrize("name", game_names())
def test_every_game_refuses_bad_seeds_and_agent_specs_by_name(name):
    game = get_game(name)
    env = game.env()
    for seed in (-1, "x", 1.5, True, np.timedelta64(1)):
        _refused(lambda seed=seed: env.reset(seed=seed), "seed")
    for spec in ("nobody", "", 3, None, "no_such_module:make"):
        _refused(lambda spec=spec: game.load_agent(spec, seed=0))
