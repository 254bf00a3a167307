"""The games a trainer plays, and what self-play and the exploitability yardstick need of each.

Miaui and the octopus fishing game train with the same PPO, opponent pool, league, evaluations,
checkpoints and probe (training/selfplay.py, training/exploit.py). What differs between them is
here, behind one small interface (`TrainingGame`): how the game's agents load, how its self-play
VecEnv is built and seated with opponents, which tables its evaluations play, and how an arena
gauntlet plays them.

- Miaui (`MiauiGame`): the batched engine's `MiauiSelfPlayVecEnv` (every learner seat of a game a
  row, the games in lockstep), `OpponentMixture`s dealing the opponent seats, the Miaui arena.
- The octopus game (`OctopusGame`): `OctopusSelfPlayVecEnv` (every row a game of its own, since
  turns are sequential), its own per-game seating of the same agents by the same weights, the
  octopus arena (duplicate decks and dice).
- Any other registered game (`AnyGame`, with no hooks of its own): `AECSelfPlayVecEnv` on the
  game's own AEC env (every row a game of its own) and the generic arena (miaui_env.apps.any_game).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from miaui_env.apps.any_game import AnyArenaConfig
from miaui_env.core.agents import Agent, Policy, reset_agent
from miaui_env.core.registry import Game, UnknownGameError, get_game
from miaui_env.core.selfplay import AECSelfPlayVecEnv
from miaui_env.games.miaui.agents import as_seen
from miaui_env.games.miaui.rules import NUM_ROUNDS
from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv
from miaui_env.games.miaui.spec import TableSpec
from miaui_env.games.octopus.arena import OctopusArenaConfig
from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv
from training.config import RLlibConfig, RunSeeds, SelfPlayConfig, run_schema, variant_name
from training.config_files import ConfigError
from training.gauntlet import GauntletResult, any_game_gauntlet, gauntlet, octopus_gauntlet
from training.kickstart import own_part
from training.opponents import OpponentMixture

COMPACT = "uint8"  # Miaui's rows: uint8 codes, copied to the device as such and expanded there (miaui_env.games.miaui.compact)

EvaluationTable = TableSpec | OctopusArenaConfig | AnyArenaConfig
"""Where a gauntlet plays: a Miaui table (players, variant, view, reward), an octopus arena's settings, or another game's generic arena."""

SelfPlayTable = MiauiSelfPlayVecEnv | OctopusSelfPlayVecEnv | AECSelfPlayVecEnv
"""A table of self-play games: Miaui's, the octopus game's or another game's VecEnv."""

TablesConfig = SelfPlayConfig | RLlibConfig
"""A run config that plays tables: the SB3 trainer's or the RLlib trainer's (both build their tables and evaluations by these hooks)."""

WeightSetter = Callable[[Sequence[float]], None]
"""Sets a table's opponent draw weights, one per agent, from its next games on."""


class TrainingGame(Protocol):
    """What a trainer needs of a game."""

    name: str
    """The config's `game`."""

    @property
    def game(self) -> Game:
        """Its entry in the library's registry (miaui_env.games)."""
        ...

    @property
    def observation_version(self) -> int:
        """The observation layout version its checkpoints record."""
        ...

    @property
    def baselines(self) -> tuple[str, ...]:
        """Its built-in agents: the yardstick's default final gauntlets."""
        ...

    @property
    def has_variants(self) -> bool:
        """Whether the game has variants (Miaui's open_baskets, no_fighting)."""
        ...

    @property
    def probe_players(self) -> int:
        """The exploitability yardstick's table size when none is given."""
        ...

    row_dtype: str
    """The rows a new run trains on: Miaui's compact uint8 codes (COMPACT), the octopus game's float32."""
    rows_change_view: bool
    """Whether a row can be shown to an agent as another view (Miaui's `as_seen`); if not, a teacher must read the run's view."""
    yardstick_clones: bool
    """Whether a best response may start from a clone of `kickstart.teacher` (the yardstick's init kickstart)."""

    def load_agent(self, spec: str, seed: int | None = None) -> Agent:
        """The game's agent `spec` names (a built-in, a shipped policy, a checkpoint)."""
        ...

    def tables(self, config: TablesConfig, observation_dtype: str) -> list[SelfPlayTable]:
        """The config's tables as self-play VecEnvs, table i dealt from child i of the `tables` stream."""
        ...

    def best_response_table(
        self, games: int, players: int, target: Agent, view: str, threads: int, variant: tuple[bool, bool], privileged: bool
    ) -> SelfPlayTable:
        """The exploitability yardstick's table: `games` games at `players` seats, the best response
        seeing `view` in the learner seats, `target` (shown its own view) in every other seat."""
        ...

    def probe_table(self, players: int, variant: tuple[bool, bool]) -> EvaluationTable:
        """Where the yardstick's gauntlets play: `players` seats of `variant` (open_baskets, no_fighting)."""
        ...

    def best_response_view(self, target: Agent) -> str:
        """The view the yardstick's best response against `target` plays from."""
        ...

    def seat(self, table: Any, agents: list[Agent | Policy], weights: list[float], seed: np.random.SeedSequence, draw: str) -> WeightSetter:
        """Deal the opponent seats of `table`'s games among `agents` by `weights`; returns what sets new weights."""
        ...

    cloning_chunk: int
    """Steps of play a teacher's cloning collects and learns at a time (training/kickstart.py)."""

    def teacher_rows(self, rows: np.ndarray) -> np.ndarray:
        """What a teacher reads of the trainer's rows."""
        ...

    def evaluation_tables(self, config: TablesConfig) -> list[tuple[str, EvaluationTable]]:
        """The tables the run's evaluations play, each with its variant's name (`variant_name`)."""
        ...

    def gauntlet(
        self,
        learner: Agent | Policy,
        opponent: str,
        table: Any,
        games: int,
        seeds: RunSeeds,
        path: tuple[int, ...],
        replay: Path | None = None,
    ) -> GauntletResult:
        """The learner against n-1 copies of `opponent` at `table`, duplicate-dealt from the seed tree at `path`."""
        ...


class SeenAs:
    """A Miaui agent in the opponent seats of games dealt in `dealt` view rows, shown the view it plays from."""

    def __init__(self, agent: Agent, dealt: str = "recall"):
        self.agent, self.name, self.view, self.dealt = agent, agent.name, getattr(agent, "view", "table"), dealt

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The agent's cards."""
        return self.agent.act(as_seen(observations, self.view, self.dealt), masks)

    def reset(self) -> None:
        """New games: the agent forgets the old ones."""
        reset_agent(self.agent)


class RegisteredGame:
    """What the library's registry (miaui_env.games) says of the game `name`: its agents, its
    observation layout, its variants and its default table, as the trainers read them."""

    name: str

    @property
    def game(self) -> Game:
        """The game's registry entry."""
        return get_game(self.name)

    @property
    def observation_version(self) -> int:
        """The observation layout version its checkpoints record."""
        return self.game.observation_version

    @property
    def baselines(self) -> tuple[str, ...]:
        """Its built-in agents: the yardstick's default final gauntlets."""
        return self.game.baselines

    @property
    def has_variants(self) -> bool:
        """Whether the game has variants (Miaui's open_baskets, no_fighting)."""
        return bool(self.game.variants)

    @property
    def probe_players(self) -> int:
        """The yardstick's table size when none is given: the game's default table."""
        return self.game.default_players

    def load_agent(self, spec: str, seed: int | None = None) -> Agent:
        """The game's agent `spec` names (a built-in, a shipped policy, a checkpoint)."""
        return typing.cast(Agent, self.game.load_agent(spec, seed=seed))

    def best_response_view(self, target: Agent) -> str:
        """The game's richest view (its last: everything ever public); its table shows the target its own."""
        return self.game.views[-1]


class MiauiGame(RegisteredGame):
    """Miaui: the batched engine's self-play VecEnv, opponent mixtures, the Miaui arena."""

    name = "miaui"
    row_dtype = COMPACT
    rows_change_view = True
    yardstick_clones = True  # from a clone of the counter (configs/default.yaml's kickstart.teacher)

    gauntlet = staticmethod(gauntlet)  # the Miaui arena's (training/gauntlet.py)
    teacher_rows = staticmethod(own_part)  # a privileged critic's state and compact codes are not the teacher's
    cloning_chunk = NUM_ROUNDS - 1  # one whole episode: every return is known

    def tables(self, config: TablesConfig, observation_dtype: str) -> list[SelfPlayTable]:
        """The tables on `config.threads` engine threads, their rows uint8 codes (COMPACT) or float32 (runs started before compact rows)."""
        children = config.seeds.sequence("tables").spawn(len(config.tables))
        return [
            MiauiSelfPlayVecEnv(
                num_games=table.num_games,
                learner_seats=table.learner_seats,
                seed=child,
                threads=config.threads,
                privileged=config.privileged_critic,
                **spec.replace(observation_dtype=observation_dtype).as_kwargs(),
            )
            for table, spec, child in zip(config.tables, config.table_specs, children, strict=True)
        ]

    def best_response_table(
        self, games: int, players: int, target: Agent, view: str, threads: int, variant: tuple[bool, bool], privileged: bool
    ) -> SelfPlayTable:
        """Seat 0 learns, rotating one place every episode; the rows uint8 codes, expanded on the learner's device
        (with the global state after them when the best response starts from a privileged critic's network)."""
        open_baskets, no_fighting = variant
        return MiauiSelfPlayVecEnv(
            games,
            num_players=players,
            learner_seats=[0],
            rotate_seats=True,
            opponent=SeenAs(target, view),
            view=view,
            reward="win",
            open_baskets=open_baskets,
            no_fighting=no_fighting,
            privileged=privileged,
            threads=threads,
            observation_dtype=COMPACT,
        )

    def probe_table(self, players: int, variant: tuple[bool, bool]) -> EvaluationTable:
        """A Miaui table of `players` seats and `variant`."""
        return TableSpec(num_players=players, open_baskets=variant[0], no_fighting=variant[1])

    def seat(self, table: Any, agents: list[Agent | Policy], weights: list[float], seed: np.random.SeedSequence, draw: str) -> WeightSetter:
        """An OpponentMixture over the table's opponent rows, redrawn every episode."""
        seats = max(table.num_players - len(table.learner_seats), 1)  # all-learner tables never ask
        mixture = OpponentMixture(agents, weights, np.random.default_rng(seed), seats_per_game=seats, draw=draw)
        table.set_opponent(mixture)
        return mixture.set_weights

    def evaluation_tables(self, config: TablesConfig) -> list[tuple[str, EvaluationTable]]:
        """`evaluation.num_players` seats on each variant the run's tables play."""
        return [(variant_name(spec.open_baskets, spec.no_fighting), spec) for spec in config.evaluation_specs]


class GamePerRow(RegisteredGame):
    """A game whose self-play VecEnv gives each row a game of its own, seating each new game's opponents
    itself (`set_opponents`), on float32 rows of the seat's own view: the octopus game, and any game
    trained through its AEC env."""

    row_dtype = "float32"  # the env's own observation: no compact codes
    rows_change_view = False  # a row is the view it was dealt in
    yardstick_clones = False  # kickstart.teacher's default is Miaui's counter: a best response starts from scratch or the target
    cloning_chunk = 64  # games end apart: each chunk's unfinished games teach the policy, not the value

    def teacher_rows(self, rows: np.ndarray) -> np.ndarray:
        """The rows themselves: each is the seat's float32 observation."""
        return rows

    def seat(self, table: Any, agents: list[Agent | Policy], weights: list[float], seed: np.random.SeedSequence, draw: str) -> WeightSetter:
        """Each new game of the table draws its opponents (the VecEnv's `set_opponents`)."""
        table.set_opponents(agents, weights, seed, draw)
        setter: WeightSetter = table.set_opponent_weights
        return setter

    def per_row_table(self, num_games: int, **settings: Any) -> SelfPlayTable:
        """The game's self-play VecEnv of `num_games` games (num_players, learner_seats, opponent, view, reward, seed)."""
        raise NotImplementedError

    def arena_table(self, players: int, view: str | None = None) -> EvaluationTable:
        """Where its gauntlets play: `players` seats, agents that say no view shown `view` (None: the game's first)."""
        raise NotImplementedError

    def tables(self, config: TablesConfig, observation_dtype: str) -> list[SelfPlayTable]:
        """The config's tables, table i dealt from child i of the `tables` stream (float32 rows)."""
        if observation_dtype != "float32":
            raise ConfigError(f"{self.game.title}'s rows are float32, not {observation_dtype}")
        children = config.seeds.sequence("tables").spawn(len(config.tables))
        settings = self.row_settings(config)
        return [
            self.per_row_table(table.num_games, num_players=table.num_players, learner_seats=table.learner_seats, seed=child, **settings)
            for table, child in zip(config.tables, children, strict=True)
        ]

    def row_settings(self, config: TablesConfig) -> dict[str, Any]:
        """What every row of the config's tables is dealt with, besides its table: the run's view and reward."""
        return {"view": config.view, "reward": config.reward}

    def best_response_table(
        self, games: int, players: int, target: Agent, view: str, threads: int, variant: tuple[bool, bool], privileged: bool
    ) -> SelfPlayTable:
        """Every seat learns, each row a game of its own, the target (shown its own view) in every other seat."""
        return self.per_row_table(games, num_players=players, opponent=target, view=view, reward="win")

    def probe_table(self, players: int, variant: tuple[bool, bool]) -> EvaluationTable:
        """Its arena at `players` seats (the game has no variants)."""
        return self.arena_table(players)

    def evaluation_tables(self, config: TablesConfig) -> list[tuple[str, EvaluationTable]]:
        """`evaluation.num_players` seats of the one game (no variants), seen through the run's view."""
        return [("base", self.arena_table(config.evaluation.num_players, config.view))]


class OctopusGame(GamePerRow):
    """The octopus fishing game: `OctopusSelfPlayVecEnv` on its rules engine, the octopus arena."""

    name = "octopus"

    @property
    def baselines(self) -> tuple[str, ...]:
        """Every built-in octopus agent: five cheap heuristics, all in the yardstick's final gauntlets."""
        return tuple(self.game.agent_names())

    gauntlet = staticmethod(octopus_gauntlet)  # the octopus arena's (training/gauntlet.py)

    def per_row_table(self, num_games: int, **settings: Any) -> SelfPlayTable:
        """An `OctopusSelfPlayVecEnv` on the rules engine."""
        return OctopusSelfPlayVecEnv(num_games, **settings)

    def row_settings(self, config: TablesConfig) -> dict[str, Any]:
        """The run's view and reward, and its reward shaping, discounted as PPO discounts (SB3's default gamma 0.99)."""
        settings = super().row_settings(config)
        if isinstance(config, SelfPlayConfig) and config.reward_shaping:  # RLlib's runs have no shaping
            settings |= {"shaping": config.reward_shaping, "discount": config.ppo.get("gamma", 0.99)}
        return settings

    def arena_table(self, players: int, view: str | None = None) -> EvaluationTable:
        """The octopus arena (duplicate decks and dice) at `players` seats."""
        return OctopusArenaConfig(num_players=players, view=view or self.game.views[0])


class AnyGame(GamePerRow):
    """A registered game without trainer hooks of its own, trained through its AEC env (`AECSelfPlayVecEnv`)
    and measured in the generic arena (miaui_env.apps.any_game)."""

    gauntlet = staticmethod(any_game_gauntlet)

    def __init__(self, name: str):
        self.name = name

    def per_row_table(self, num_games: int, **settings: Any) -> SelfPlayTable:
        """An `AECSelfPlayVecEnv` on the game's AEC env."""
        return AECSelfPlayVecEnv(self.name, num_games, **settings)

    def arena_table(self, players: int, view: str | None = None) -> EvaluationTable:
        """The generic arena at `players` seats (None: the view its agents play from)."""
        return AnyArenaConfig(self.name, players, view=view)

    def best_response_view(self, target: Agent) -> str:
        """The view the target plays from (its env deals one view to every seat), else the game's first."""
        return str(getattr(target, "view", self.game.views[0]))


_TRAINING_GAMES: dict[str, TrainingGame] = {}


def register_training_game(game: TrainingGame) -> TrainingGame:
    """Give the registered game `game.name` its trainer hooks (self-play and the yardstick then train it); returns `game`."""
    get_game(game.name)  # UnknownGameError: the game itself is registered first (miaui_env.games.register)
    _TRAINING_GAMES[game.name] = game
    return game


register_training_game(MiauiGame())
register_training_game(OctopusGame())


def training_game(name: str) -> TrainingGame:
    """The trainer hooks of the game a config's `game` names: its own, else the generic ones (`AnyGame`); ConfigError for no such game."""
    try:
        get_game(name)
    except UnknownGameError as error:
        raise ConfigError(f"game={name!r:.60} is not allowed: {error}") from None
    return _TRAINING_GAMES.get(name) or AnyGame(name)


def check_config(config: SelfPlayConfig) -> None:
    """Refuse (ConfigError) a config that is not its game's schema (a run's own config is, when `load_config`
    read it), or a view the game lacks. Checked when the run starts, not per --set: `game` and `view`
    are often set one after the other."""
    kind = run_schema(config.game)[0]
    if type(config) is not kind:
        raise ConfigError(
            f"a {type(config).__name__} cannot train game {config.game!r}, whose runs are {kind.__name__}s: "
            "read the config with training.config.load_config, which reads its game first"
        )
    config.check_game()


__all__ = [
    "AnyGame",
    "GamePerRow",
    "MiauiGame",
    "OctopusGame",
    "RegisteredGame",
    "SeenAs",
    "TrainingGame",
    "check_config",
    "register_training_game",
    "training_game",
]
