"""The games the library plays, by name: one `Game` description each, and the registry that finds it.

Every app and trainer that serves more than one game (the arena, the card, terminal play, replays,
self-play, the exploitability yardstick, checkpoints) finds the game a command line, a config or a
file names with `get_game(name)` and asks it for what it needs; none of them compares a game's name.

A `Game` is data: the game's name and title, its table sizes and variants, its default opponents,
and its **parts**, each written `"module:attribute"` as Gymnasium's `entry_point` is. A part is
imported the first time it is asked for (`Game.part`), so the registry loads no game, no RL library
and no compiler, and sits in the core, below every game and every other room of the library
(`miaui_env.games` names it for users). The parts every game gives are
`PARTS`; the built-in games are Miaui (`miaui_env.games.miaui`) and the octopus fishing game
(`miaui_env.games.octopus`).

A game of your own needs only `PARTS`: a PettingZoo AEC env and its agents. The arena, terminal
play, replays (`GENERIC_PARTS`, `miaui_env.apps.any_game`) and the self-play trainer
(`training.games.AnyGame`) then play it through that env, if the env
- takes the keyword arguments `num_players`, `view` (one of the game's `views`; the first is the
  default), `reward` ("win": the winners share 1) and `render_mode` ("ansi" among them: a
  spectator's text);
- shows every agent `{"observation": float32 vector, "action_mask": int8 vector}`, the mask of
  the agent to act holding its legal actions;
- deals the same game from the same `reset(seed=...)` and the same actions;
- puts `"score"` (a number) and `"winner"` (bool) in an agent's info once it is out: at the game's
  end, or earlier for an agent out before it (which then steps None, PettingZoo's convention).
Terminal play and replays put the game in words through its `words` part (a `GameWords`).
The tests' own third game, `tests/games/sealed_bids.py`, is an example of a hundred-odd lines.

A game joins with `register(Game(...))`; from an installed package, through the `miaui_rl.games`
entry-point group (each entry point a `Game`); or, for a module on the import path that is not
installed, through the environment variable `MIAUI_RL_GAMES` ("module:attribute" names). The
registry reads both once, at its first lookup:

    # pyproject.toml of your package
    [project.entry-points."miaui_rl.games"]
    bids = "my_package.bids:GAME"

    MIAUI_RL_GAMES=my_bids:GAME python -m miaui_env.apps.play --game bids   # my_bids.py on the import path
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np

PARTS: Mapping[str, str] = MappingProxyType(
    {
        "env": "the PettingZoo AEC env constructor (keyword arguments only), wrapped as the game's users get it",
        "load_agent": "load_agent(spec, seed=None): the agent an agent spec names (a built-in, a shipped policy, a run folder)",
        "agent_names": "agent_names(): the built-in agents' names",
        "shipped_policies": "shipped_policies(): the names of the trained policies shipped for the game",
        "observation_version": "the int version of the observation layout its checkpoints record",
    }
)
"""Every part a game gives, and what it is."""

GENERIC_PARTS: Mapping[str, str] = MappingProxyType(
    {
        "gauntlet": "miaui_env.apps.any_game:gauntlet",
        "arena": "miaui_env.apps.any_game:arena_main",
        "play": "miaui_env.apps.any_game:play",
        "replay": "miaui_env.apps.any_game:replay_main",
        "web": "miaui_env.apps.web.any_game:any_game_web",
    }
)
"""The parts a game may leave to the library: each plays the game through its AEC env alone
(`miaui_env.apps.any_game`; the browser app's page, `miaui_env.apps.web.any_game`, through its
words too), handed the game as its first argument. Miaui and the octopus game give their own
(stacked decks and dice, batched engines, richer replays and pages)."""

OPTIONAL_PARTS: Mapping[str, str] = MappingProxyType(
    {
        "parallel_env": "the PettingZoo Parallel env constructor, for a game of simultaneous moves",
        "words": "a GameWords: the game in words for the generic terminal play and replays (its rules, a seat's view, an action)",
        "gauntlet": "gauntlet(names, num_players, games, seed, show_progress): one arena gauntlet, an ArenaResult",
        "arena": "main(argv): the game's arena command, `python -m miaui_env.apps.arena --game NAME`",
        "play": "play(args): a person's game in the terminal, from `python -m miaui_env.apps.play`'s parsed arguments",
        "replay": "main(argv): the game's replay command, `python -m miaui_env.apps.replay` on its replays",
        "web": "web(): its page in the browser app, a miaui_env.core.web.GameWeb (the generic one needs its words)",
    }
)
"""Parts only some games give (the generic ones of GENERIC_PARTS stand in for the last five)."""

LEGACY_GAME = "miaui"
"""The game of a file that names none: run folders, arena results and replays written before the
library had a second game are Miaui's."""

ENTRY_POINT_GROUP = "miaui_rl.games"
"""Installed packages add games here; each entry point names a `Game`."""

GAMES_VARIABLE = "MIAUI_RL_GAMES"
"""An environment variable of "module:attribute" names, space-separated, each a `Game` on the import
path: games of modules that are not installed packages (a game of one's own tests, for example)."""

_BUILT_IN = ("miaui_env.games.miaui:GAME", "miaui_env.games.octopus:GAME")


class UnknownGameError(ValueError):
    """A game name that no registered game has."""


class GamePartError(ImportError):
    """A game's part that cannot be imported (its module or attribute is missing, or an extra is not installed)."""


class GameWords(Protocol):
    """A game in words, for the generic terminal play and replays (a game's `words` part)."""

    def introduction(self, num_players: int, seat: int) -> list[str]:
        """What a new player needs before the first decision: who they are and the rules in short."""
        ...

    def seat_view(self, env: Any, agent: str) -> list[str]:
        """What `agent` may see now at the env's table (nothing hidden from it shown)."""
        ...

    def action(self, action: int) -> str:
        """An action in words ("bid 3")."""
        ...


@dataclass(frozen=True)
class Game:
    """What the library knows of a game: its name, its tables, its default opponents, and where each of its parts lives."""

    name: str
    """The registry's key: `--game NAME`, a config's `game`, and the `game` field of the files it writes."""
    title: str
    """How a sentence names it ("Miaui", "the octopus game")."""
    min_players: int
    max_players: int
    default_players: int
    """The arena's and terminal play's table size when none is given."""
    variants: tuple[str, ...]
    """The rulebook's variants, each a boolean table option (`--open-baskets` for "open_baskets"); () for none."""
    views: tuple[str, ...]
    """What a seat may observe: "table" (what the rules show) first, then richer views."""
    baselines: tuple[str, ...]
    """Built-in agents, weakest first: the card's default field (the trainers' yardstick may play more, `training.games`)."""
    card_players: tuple[int, ...]
    """The table sizes a policy's card measures by default."""
    play_opponents: tuple[str, ...]
    """Terminal play's opponents when none are named."""
    parts: Mapping[str, str] = field(repr=False)
    """Each of `PARTS` as "module:attribute"."""
    policy_classes: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The SB3 policy classes of its own that a checkpoint's metadata may name, each "Name": "module:Name"
    (`miaui_env.core.policy_spec`: a checkpoint loads by names, never by a pickled module path)."""
    features_extractors: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The SB3 features extractors of its own that a config or checkpoint may name, each "Name": "module:Name"."""

    def __post_init__(self) -> None:
        for name in ("name", "title"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"game {name}={getattr(self, name)!r:.60}: a string")
        for name in ("min_players", "max_players", "default_players"):
            value = getattr(self, name)
            if isinstance(value, bool | np.timedelta64) or not isinstance(value, int | np.integer):
                raise ValueError(f"game {self.name!r}: {name}={value!r:.40} is not an integer")
            object.__setattr__(self, name, int(value))
        for name in ("variants", "views", "baselines", "play_opponents", "card_players"):
            value = getattr(self, name)
            if isinstance(value, list):  # a list is taken as the tuple it spells
                value = tuple(int(v) if isinstance(v, np.integer) else v for v in value)
                object.__setattr__(self, name, value)
            kind = int if name == "card_players" else str
            if not isinstance(value, tuple) or not all(isinstance(item, kind) and not isinstance(item, bool) for item in value):
                raise ValueError(f"game {self.name!r}: {name}={value!r:.60} is not a tuple of {kind.__name__}s")
        if not isinstance(self.parts, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in self.parts.items()):
            raise ValueError(f"game {self.name!r}: parts={self.parts!r:.60} is not a mapping of part names to 'module:attribute'")
        if not self.views:
            raise ValueError(f"game {self.name!r}: views is empty; a game has at least the table view")
        if not self.name.isidentifier() or self.name != self.name.lower():
            raise ValueError(f"game name {self.name!r}: a lower-case identifier (it is a command-line value and a file field)")
        if not 2 <= self.min_players <= self.default_players <= self.max_players:
            players = f"{self.min_players} <= {self.default_players} <= {self.max_players}"
            raise ValueError(f"game {self.name!r}: players {players} must hold, from 2 up")
        if not set(self.card_players) <= set(self.players):
            sizes = f"{self.min_players}-{self.max_players}"
            raise ValueError(f"game {self.name!r}: card_players {self.card_players} are not all table sizes {sizes}")
        missing = [part for part in PARTS if part not in self.parts]
        unknown = [part for part in self.parts if part not in PARTS and part not in OPTIONAL_PARTS]
        if missing or unknown:
            raise ValueError(f"game {self.name!r}: parts missing {missing}, unknown {unknown}; every game gives {', '.join(PARTS)}")
        for part, target in self.parts.items():
            module, _, attribute = target.partition(":")
            if not module or not attribute:
                raise ValueError(f"game {self.name!r}: part {part!r} is {target!r}, not 'module:attribute'")
        object.__setattr__(self, "parts", MappingProxyType(dict(self.parts)))
        for table in ("policy_classes", "features_extractors"):
            named = getattr(self, table)
            if not isinstance(named, Mapping) or not all(
                isinstance(name, str) and isinstance(target, str) and target.partition(":")[2] == name and target.partition(":")[0]
                for name, target in named.items()
            ):
                raise ValueError(f"game {self.name!r}: {table}={named!r:.80} is not a mapping of class names to 'module:ClassName'")
            object.__setattr__(self, table, MappingProxyType(dict(named)))

    @property
    def players(self) -> range:
        """Its table sizes."""
        return range(self.min_players, self.max_players + 1)

    def part(self, name: str) -> Any:
        """The part `name` (one of `PARTS` or `OPTIONAL_PARTS`), imported on first use: the game's own,
        else the library's generic one bound to this game (GENERIC_PARTS); GamePartError if there is none."""
        if name not in PARTS and name not in OPTIONAL_PARTS:
            raise ValueError(f"{name!r} is not a game part; parts: {', '.join([*PARTS, *OPTIONAL_PARTS])}")
        if name not in self.parts:
            if name in GENERIC_PARTS:
                return functools.partial(_imported(GENERIC_PARTS[name], f"the generic {name}"), self)
            raise GamePartError(f"{self.title} has no {name}: {OPTIONAL_PARTS[name]}")
        return _imported(self.parts[name], f"{self.title}'s {name}")

    def env(self, **kwargs: Any) -> Any:
        """The game's AEC env."""
        return self.part("env")(**kwargs)

    def parallel_env(self, **kwargs: Any) -> Any:
        """The game's Parallel env (GamePartError for a game of turns, which has none)."""
        return self.part("parallel_env")(**kwargs)

    def load_agent(self, spec: str, seed: int | None = None) -> Any:
        """The agent `spec` names in this game."""
        return self.part("load_agent")(spec, seed=seed)

    def agent_names(self) -> list[str]:
        """Its built-in agents' names."""
        return list(self.part("agent_names")())

    def shipped_policies(self) -> list[str]:
        """The trained policies shipped for it."""
        return list(self.part("shipped_policies")())

    @property
    def observation_version(self) -> int:
        """The observation layout version its checkpoints record."""
        return int(self.part("observation_version"))


def _imported(target: str, what: str) -> Any:
    """The attribute "module:attribute" names; GamePartError naming `what` if it cannot be imported."""
    module, _, attribute = target.partition(":")
    try:
        return getattr(importlib.import_module(module), attribute)
    except ImportError as error:
        raise GamePartError(f"{what} ({target}) cannot be imported: {error}") from error
    except AttributeError:
        raise GamePartError(f"{what}: module {module} has no {attribute!r}") from None


_registry: dict[str, Game] = {}
_discovered = False


def register(game: Game, *, replace: bool = False) -> Game:
    """Add `game` to the registry (ValueError if its name is taken, unless `replace`); returns it."""
    if not isinstance(game, Game):
        raise TypeError(f"register takes a Game, not {type(game).__name__}")
    _discover()
    if game.name in _registry and not replace and _registry[game.name] is not game:
        raise ValueError(f"a game named {game.name!r} is registered already; pass replace=True to replace it")
    for other in _registry.values():  # a checkpoint names a network class only: one name, one class, in every game
        for table in ("policy_classes", "features_extractors"):
            clashes = [n for n, target in getattr(game, table).items() if getattr(other, table).get(n, target) != target]
            if other.name != game.name and clashes:
                raise ValueError(f"game {game.name!r}: {table} {clashes} name other classes in {other.title}'s; choose other names")
    _registry[game.name] = game
    return game


def unregister(name: str) -> None:
    """Remove the game `name` (a test's own game, for example); UnknownGameError if there is none."""
    get_game(name)
    del _registry[name]


def get_game(name: str) -> Game:
    """The game registered as `name`; UnknownGameError naming the registered ones otherwise."""
    _discover()
    if not isinstance(name, str) or name not in _registry:
        raise UnknownGameError(f"unknown game {name!r:.60}; the games are {', '.join(_registry)}")
    return _registry[name]


def game_names() -> tuple[str, ...]:
    """Every registered game's name, the built-in ones first."""
    _discover()
    return tuple(_registry)


def game_of_agents_module(module: str) -> Game | None:
    """The game whose agent loader lives in `module` (its agents' module), None if no game's does."""
    _discover()
    return next((game for game in _registry.values() if game.parts["load_agent"].partition(":")[0] == module), None)


def game_of(data: Mapping[str, Any] | Any) -> str:
    """The game a file's JSON object names in its `game` field (LEGACY_GAME where it names none)."""
    named = data.get("game", LEGACY_GAME) if isinstance(data, Mapping) else LEGACY_GAME
    return named if isinstance(named, str) else LEGACY_GAME


def _load(target: str) -> Game:
    module, _, attribute = target.partition(":")
    game = getattr(importlib.import_module(module), attribute)
    if not isinstance(game, Game):
        raise TypeError(f"{target} is {type(game).__name__}, not a miaui_env.games.Game")
    return game


def _discover() -> None:
    """Register the built-in games, then those of installed packages' entry points (once)."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    for target in _BUILT_IN:
        game = _load(target)
        _registry[game.name] = game
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        game = entry.load()
        if not isinstance(game, Game):
            raise TypeError(f"entry point {entry.name} = {entry.value} in {ENTRY_POINT_GROUP!r} is {type(game).__name__}, not a Game")
        if game.name in _registry:  # a built-in game keeps its name: the package's game is left out, and says so
            warnings.warn(
                f"entry point {entry.name} = {entry.value} names the game {game.name!r}, which is taken; it is left out", stacklevel=2
            )
            continue
        _registry[game.name] = game
    for target in os.environ.get(GAMES_VARIABLE, "").split():
        if ":" not in target:
            warnings.warn(f"{GAMES_VARIABLE}: {target!r} is left out: name a game as module:attribute", stacklevel=4)
            continue
        try:
            game = _load(target)
        except (Exception, SystemExit) as error:  # a stale or broken module must not stop every command, Miaui's too
            warnings.warn(f"{GAMES_VARIABLE}: {target} is left out: {type(error).__name__}: {error}", stacklevel=4)
            continue
        if game.name in _registry:
            warnings.warn(f"{GAMES_VARIABLE}: {target} names the game {game.name!r}, which is taken; it is left out", stacklevel=4)
            continue
        _registry[game.name] = game
