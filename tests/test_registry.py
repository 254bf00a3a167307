"""The game registry (miaui_env.games): every game found by name, its parts importable, a new game
joining without code elsewhere changing, and no app or trainer comparing a game's name."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import environment_with_test_games

from miaui_env.apps.arena import main as arena_main
from miaui_env.apps.card import play_card
from miaui_env.games import (
    GAMES_VARIABLE,
    GENERIC_PARTS,
    LEGACY_GAME,
    OPTIONAL_PARTS,
    Game,
    GamePartError,
    UnknownGameError,
    game_names,
    game_of,
    get_game,
    register,
    unregister,
)

ROOT = Path(__file__).resolve().parent.parent
BUILT_IN = ("miaui", "octopus")


def test_the_built_in_games_are_registered_miaui_first():
    assert game_names()[: len(BUILT_IN)] == BUILT_IN
    assert get_game("miaui").title == "Miaui" and get_game("octopus").players == range(2, 5)


@pytest.mark.parametrize("name", ["chess", "", "Miaui", None, 3])
def test_an_unknown_game_is_refused_naming_the_games(name):
    with pytest.raises(UnknownGameError, match="the games are miaui, octopus") as caught:
        get_game(name)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_part_of_a_built_in_game_imports_and_works(name):
    game = get_game(name)
    for part in game.parts:
        assert game.part(part) is not None
    assert isinstance(game.observation_version, int)
    assert set(game.baselines) <= set(game.agent_names()) and set(game.play_opponents) <= set(game.agent_names())
    assert set(game.card_players) <= set(game.players) and game.default_players in game.players
    env = game.env(num_players=game.default_players, view=game.views[-1])
    env.reset(seed=1)
    observation, *_ = env.last()
    agent = game.load_agent(game.baselines[0], seed=0)
    action = np.asarray(agent.act(observation["observation"][None], observation["action_mask"][None].astype(bool)))
    assert observation["action_mask"][int(action[0])] == 1  # the game's own agent plays a legal action in its own env


def test_a_game_of_turns_has_no_parallel_env_and_says_so():
    with pytest.raises(GamePartError, match="the octopus game has no parallel_env"):
        get_game("octopus").parallel_env()
    assert "parallel_env" in OPTIONAL_PARTS and len(get_game("miaui").parallel_env(num_players=3).possible_agents) == 3


def _parts(**changed: str) -> dict[str, str]:
    return {**get_game("octopus").parts, **changed}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "Bids"}, "lower-case identifier"),
        ({"min_players": 1}, "must hold, from 2 up"),
        ({"default_players": 9}, "must hold"),
        ({"card_players": (2, 7)}, "not all table sizes"),
        ({"parts": {key: value for key, value in _parts().items() if key != "load_agent"}}, r"parts missing \['load_agent'\]"),
        ({"parts": _parts(gif="x:y")}, r"unknown \['gif'\]"),
        ({"parts": _parts(env="miaui_env.games.octopus.env.env")}, "not 'module:attribute'"),
    ],
)
def test_a_game_description_is_checked_when_made(fields, message):
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(get_game("octopus"), **{"name": "bids", **fields})


def test_a_game_without_its_own_apps_gets_the_generic_ones_bound_to_it():
    game = get_game("sealed_bids")  # tests/games/sealed_bids.py: its env and agents, nothing more
    assert not set(GENERIC_PARTS) & set(game.parts)
    for part, target in GENERIC_PARTS.items():
        bound = game.part(part)
        assert bound.args == (game,) and f"{bound.func.__module__}:{bound.func.__name__}" == target
    assert get_game("miaui").part("arena").__module__ == "miaui_env.games.miaui.arena"  # a game's own part comes first
    wordless = dataclasses.replace(get_game("octopus"), name="wordless")
    with pytest.raises(GamePartError, match="the octopus game has no words"):
        wordless.part("words")


def test_games_named_in_the_environment_variable_join_and_a_broken_name_is_left_out_with_a_warning(tmp_path):
    (tmp_path / "my_bids.py").write_text("import dataclasses, sealed_bids\nGAME = dataclasses.replace(sealed_bids.GAME, name='my_bids')\n")
    script = "import miaui_env.games as g; print(' '.join(g.game_names()))"
    environment = environment_with_test_games()
    environment["PYTHONPATH"] += os.pathsep + str(tmp_path)
    (tmp_path / "broken_game.py").write_text("GAME = (\n")  # a module that does not even parse
    (tmp_path / "exiting_game.py").write_text("import sys\nsys.exit('bye')\n")  # one that ends the process at import
    environment[GAMES_VARIABLE] = "my_bids:GAME no_such_module:GAME broken_game:GAME exiting_game:GAME colonless sealed_bids:GAME"
    done = subprocess.run([sys.executable, "-W", "default", "-c", script], capture_output=True, text=True, env=environment, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["miaui", "octopus", "my_bids", "sealed_bids"]
    assert "no_such_module:GAME is left out: ModuleNotFoundError: No module named 'no_such_module'" in done.stderr
    assert (
        "broken_game:GAME is left out: SyntaxError" in done.stderr
        and "'colonless' is left out: name a game as module:attribute" in done.stderr
    )


def test_a_part_that_is_no_part_is_refused_naming_the_parts():
    with pytest.raises(ValueError, match="'gif' is not a game part; parts: env, load_agent"):
        get_game("miaui").part("gif")


def test_a_part_that_cannot_be_imported_is_named():
    broken = dataclasses.replace(get_game("octopus"), name="broken", parts=_parts(env="miaui_env.no_such_module:env"))
    with pytest.raises(GamePartError, match=r"env \(miaui_env.no_such_module:env\) cannot be imported"):
        broken.env()
    missing = dataclasses.replace(broken, parts=_parts(env="miaui_env.games.octopus.env:no_such_env"))
    with pytest.raises(GamePartError, match="has no 'no_such_env'"):
        missing.env()


@pytest.fixture
def copy_of_the_octopus_game():
    """The octopus game registered a second time, under its own name: a game the apps were never told of."""
    game = register(dataclasses.replace(get_game("octopus"), name="octopus_copy", title="the copied game"))
    yield game
    unregister(game.name)


def test_a_registered_game_joins_every_app_by_name(copy_of_the_octopus_game, tmp_path):
    assert "octopus_copy" in game_names()
    cells = play_card("risk-aware", ["random"], [2], [20], seed=0, show_progress=False, game="octopus_copy")
    assert [(cell.num_players, cell.opponent, cell.games) for cell in cells] == [(2, "random", 20)]
    with pytest.raises(SystemExit) as done:  # a command's end
        arena_main(["--game", "octopus_copy", "--candidate", "risk-aware", "--field", "random", "--games", "6", "--out", str(tmp_path)])
    assert done.value.code == 0
    assert json.loads((tmp_path / "arena.json").read_text())["config"]["games"] == 6
    with pytest.raises(ValueError, match="is registered already"):
        register(dataclasses.replace(copy_of_the_octopus_game, title="another"))


def test_a_registered_game_without_trainer_hooks_trains_through_the_generic_ones(copy_of_the_octopus_game):
    from training.config import ConfigError
    from training.games import AnyGame, OctopusGame, register_training_game, training_game

    generic = training_game("octopus_copy")
    assert isinstance(generic, AnyGame) and generic.game is copy_of_the_octopus_game
    assert type(training_game("octopus")) is OctopusGame  # a game's own hooks come first
    with pytest.raises(ConfigError, match="game='chess' is not allowed: unknown game 'chess'"):
        training_game("chess")

    class Chess(OctopusGame):
        name = "chess"

    with pytest.raises(UnknownGameError, match="unknown game 'chess'"):
        register_training_game(Chess())


class _EntryPoint:
    def __init__(self, name: str, loaded: object):
        self.name, self.value, self.loaded = name, f"pkg:{name}", loaded

    def load(self) -> object:
        return self.loaded


def test_installed_packages_add_games_through_entry_points_and_cannot_take_a_built_in_name(monkeypatch):
    import miaui_env.core.registry as registry

    octopus = get_game("octopus")
    points = [
        _EntryPoint("bids", dataclasses.replace(octopus, name="bids")),
        _EntryPoint("miaui", dataclasses.replace(octopus, name="miaui")),
    ]
    monkeypatch.setattr(registry.importlib.metadata, "entry_points", lambda group: points if group == registry.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(registry, "_discovered", False)
    registry._registry.clear()
    with pytest.warns(UserWarning, match="names the game 'miaui', which is taken; it is left out"):
        assert game_names() == ("miaui", "octopus", "bids")
    assert get_game("miaui").title == "Miaui" and get_game("bids").players == octopus.players
    monkeypatch.setattr(registry, "_discovered", False)
    registry._registry.clear()
    points[:] = [_EntryPoint("broken", {"name": "broken"})]
    with pytest.raises(TypeError, match=r"entry point broken = pkg:broken in 'miaui_rl\.games' is dict, not a Game"):
        game_names()


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"name": 123}, "game name=123: a string"),
        ({"title": None}, "game title=None: a string"),
        ({"min_players": "2"}, "min_players='2' is not an integer"),
        ({"default_players": None}, "default_players=None is not an integer"),
        ({"variants": "open_baskets"}, "variants='open_baskets' is not a tuple of strs"),
        ({"views": None}, "views=None is not a tuple of strs"),
        ({"views": ()}, "views is empty"),
        ({"baselines": [1]}, r"baselines=\(1,\) is not a tuple of strs"),
        ({"card_players": None}, "card_players=None is not a tuple of ints"),
        ({"parts": None}, "parts=None is not a mapping"),
        ({"parts": {"env": 123}}, "is not a mapping of part names"),
    ],
)
def test_a_description_with_a_wrongly_typed_field_is_refused_by_name(changes, named):
    """(A list is taken as the tuple it spells: `test_a_description_given_lists_and_numpy_integers_is_taken`.)"""
    fields = {f.name: getattr(get_game("octopus"), f.name) for f in dataclasses.fields(Game)}
    with pytest.raises(ValueError, match=named):
        Game(**{**fields, "parts": dict(fields["parts"]), **changes})


def test_the_registry_refuses_what_is_not_a_game():
    with pytest.raises(TypeError, match="register takes a Game, not dict"):
        register({"name": "bids"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("data", "game"),
    [({"game": "octopus"}, "octopus"), ({}, LEGACY_GAME), ({"game": 3}, LEGACY_GAME), ([1, 2], LEGACY_GAME), ({"game": "chess"}, "chess")],
)
def test_a_file_names_its_game_or_is_miauis(data, game):
    assert game_of(data) == game


def test_the_replay_command_shows_each_games_replay_in_its_own_words(tmp_path):
    from miaui_env.games.octopus.agents import load_octopus_agent
    from miaui_env.games.octopus.replay import play_and_record, save_replay

    path = save_replay(play_and_record([load_octopus_agent("random", seed=1)], 3, seed=5), tmp_path / "octopus.json")
    command = [sys.executable, "-m", "miaui_env.apps.replay"]
    shown = subprocess.run([*command, str(path)], capture_output=True, text=True, check=True)
    assert shown.stdout.startswith("The octopus game, 3 players, seed 5")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**json.loads(path.read_text()), "game": "chess"}))
    refused = subprocess.run([*command, str(other)], capture_output=True, text=True)
    assert refused.returncode == 2 and "a replay of another game: unknown game 'chess'" in refused.stderr


# -- no name switches: apps and trainers ask the registry --------------------------------------------
# The games' own modules may name their game; everything else looks it up.
OWN_MODULES = (
    "miaui_env/games/",
    "training/games.py",  # each game's trainer hooks, registered by name
)


def name_comparisons(source: str) -> list[int]:
    """Lines where a game's name is compared with something (==, !=, in, not in), or is a key of a dict literal."""
    names = set(BUILT_IN)

    def is_name(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in names
        return isinstance(node, ast.Tuple | ast.List | ast.Set) and any(is_name(element) for element in node.elts)

    def is_switch(node: ast.AST) -> bool:
        if isinstance(node, ast.Compare):
            return any(map(is_name, [node.left, *node.comparators]))
        return isinstance(node, ast.Dict) and any(key is not None and is_name(key) for key in node.keys)

    return [node.lineno for node in ast.walk(ast.parse(source)) if is_switch(node)]


def test_no_app_or_trainer_compares_a_games_name():
    found = {}
    for path in sorted([*ROOT.glob("miaui_env/**/*.py"), *ROOT.glob("training/*.py")]):
        relative = path.relative_to(ROOT).as_posix()
        if not relative.startswith(OWN_MODULES):
            lines = name_comparisons(path.read_text())
            if lines:
                found[relative] = lines
    assert found == {}, f"compare names through miaui_env.games instead: {found}"


@pytest.mark.parametrize(
    "switch",
    ['if game == "octopus":\n    pass', 'x = game != "miaui"', 'ok = name in ("miaui", "octopus")', 'SIZES = {"octopus": (2, 4)}'],
)
def test_the_name_switch_check_sees_each_kind_of_switch(switch):
    assert name_comparisons(switch) == [1]


def test_a_description_given_lists_and_numpy_integers_is_taken():
    fields = {f.name: getattr(get_game("octopus"), f.name) for f in dataclasses.fields(Game)}
    game = Game(
        **{
            **fields,
            "parts": dict(fields["parts"]),
            "views": ["table", "recall"],
            "card_players": [np.int64(2)],
            "max_players": np.int64(4),
        }
    )
    assert game.views == ("table", "recall") and game.card_players == (2,) and type(game.max_players) is int
