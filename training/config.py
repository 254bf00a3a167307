"""Run configs: one frozen, typed object per run, read from YAML with `--set key=value` overrides.

    config = load_config("configs/smoke.yaml", ["ppo.learning_rate=1e-4", "seed=3"])
    config.kickstart.learning_rate, config.tables[0].num_games, config.ppo["n_steps"]
    config.table_specs[0]     # a table as miaui_env.games.miaui.spec.TableSpec: players, variant, view, reward

`SelfPlayConfig` (`python -m training.selfplay`) and `RLlibConfig` (`python -m
training.rllib_selfplay`) are frozen pydantic dataclasses with a docstring per field, as CleanRL's
`Args`. The YAML stays the interface: default.yaml (rllib.yaml) holds and documents every default;
a config file, then each `--set`, merges onto it, and pydantic checks the result. Sections merge key
by key; lists (`tables`, `baselines`) and `opponents.weights` are replaced whole, so that leaving an
opponent out leaves it out. The resolved config is saved beside the checkpoint as config.yaml
(`to_yaml`), which `--resume` reads back.

Refused, as a `ConfigError`: an unknown key at any depth, naming the known ones; a value of the
wrong type or out of range, with its dotted key, the value and what is allowed (a bool is not a
number). Sections passed to another library as keyword arguments (`ppo`: MaskablePPO's; RLlib's
`env_runners`, `learners`, `training`, `model`) take any key and pass through untouched. The
messages are read off the JSON schema, which the docs render: `json_schema(SelfPlayConfig)` or
`python -m training.config --schema [selfplay|rllib]` (each field's docstring its description).

The table is named as `miaui_env.games.miaui.spec.TableSpec` names it: `num_players`, `open_baskets`,
`no_fighting`, `view`, `reward` (0.1's `evaluation.players` and `probe.players` are `num_players`
since 0.2, and refused as unknown keys since 0.3).

YAML 1.2 (ruamel.yaml), in files and in `--set`: `1e-4` is a number, `010` is ten, `yes` is text,
and a key given twice in one mapping is refused. A `--set` value is read by the type of its key:
`--set run_name=nan` is the string "nan", `--set kickstart.learning_rate=1e-4` a float; a dotted
key reaches into any section (`--set ppo.policy_kwargs.activation_fn=ReLU`). config.yaml is written
so that YAML 1.1 readers (PyYAML) read the same values.

The configs are found in `CONFIG_DIR`: the installed package's copy (training/configs/, which a
wheel carries), else the checkout's configs/; a config file that does not exist is looked up there
by name (`--config smoke.yaml`). New runs go to `ROOT`/checkpoints/<run_name>: the checkout, or,
installed from a wheel, the current directory. Seeds: every random stream of a run is a named child
of one `numpy.random.SeedSequence(config.seed)` (`RunSeeds`, `config.seeds`).

Three modules by concept: the files (training/config_files.py: finding, reading and writing YAML),
the schema (training/config_schema.py: value types, sections, merging and messages) and, here, the
run configs themselves.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, Self

import numpy as np
from pydantic import AfterValidator
from pydantic.dataclasses import dataclass

from miaui_env.core.registry import LEGACY_GAME, game_names, get_game
from miaui_env.core.seeding import seed_child, seed_int
from miaui_env.games.miaui.spec import TableSpec
from training.config_files import (
    CONFIG_DIR,
    DEFAULT_CONFIG,
    RLLIB_CONFIG,
    config_file,
    read_config_text,
    read_yaml,
    thaw,
    write_yaml,
)
from training.config_files import (
    ConfigError as ConfigError,  # the error of every config, where users import it (docs/errors.md)
)
from training.config_schema import (
    SECTION_CONFIG,
    Count,
    Device,
    Flag,
    FreeSection,
    GameName,
    PlayerCount,
    PlayMode,
    Positive,
    Rate,
    Reward,
    Section,
    Share,
    Text,
    View,
    frozen_copy,
    registered_game,
    schema_of,
)

SelfPlayMode = Literal["latest", "mixture", "league"]
SELF_PLAY_MODES: tuple[str, ...] = typing.get_args(SelfPlayMode)


# -- seeds --------------------------------------------------------------------------------------
Stream = Literal["tables", "baselines", "opponents", "cloning", "guidance", "evaluation", "ppo", "exploiters"]
STREAMS: tuple[Stream, ...] = typing.get_args(Stream)  # spawn order: append new streams, never reorder


@dataclasses.dataclass(frozen=True)
class RunSeeds:
    """The seed tree of a run: every random stream is a named child of `SeedSequence(seed)`.

    The children, in spawn order (`STREAMS`):

    - tables: the deals; child i seeds table i, whose games each get their own seed from it
      (`MultiTableVecEnv.seed`).
    - baselines: child i seeds the i-th baseline agent of the opponent mixture.
    - opponents: every refresh of the opponents spawns one child per table, the generator that deals
      that table's opponent seats among the agents.
    - cloning: the kickstart cloning (the teacher agent, the DAgger mix, minibatch order).
    - guidance: the teacher's guidance during PPO (the teacher agent, the sample of each rollout).
    - evaluation: child (i, 0) deals the arena games against the i-th evaluation baseline, child
      (i, 1) seeds that baseline; the same at every evaluation, so evaluations compare over training.
    - ppo: the learner's own seed: MaskablePPO's (network initialisation, SB3's global seeding,
      sampling of actions) or RLlib's.
    - exploiters: child i is the seed of the run's i-th exploiter (its training and its arena games).
    """

    seed: int
    """The run's seed, the root of the tree."""

    def sequence(self, stream: Stream, *path: int) -> np.random.SeedSequence:
        """The stream's SeedSequence, or its descendant at `path` (child indices)."""
        return seed_child(self.seed, STREAMS.index(stream), *path)

    def integer(self, stream: Stream, *path: int) -> int:
        """The stream's (or its descendant's) seed as one 32-bit int."""
        return seed_int(self.sequence(stream, *path))


# -- the schema ---------------------------------------------------------------------------------
@dataclass(frozen=True, config=SECTION_CONFIG)
class TableConfig(Section):
    """One table of self-play games: a batch of games of one size (any game's; Miaui's tables name a variant too)."""

    num_players: PlayerCount
    """Seats at each game of the table."""
    num_games: Positive
    """Games played at once at the table."""
    learner_seats: tuple[Count, ...] | None = None
    """The seats the learner plays, rotating one place every episode (null: every seat); the others are opponents."""

    @property
    def variant(self) -> tuple[bool, bool]:
        """The table's variant as (open_baskets, no_fighting): a game without variants plays its one game, (False, False)."""
        return False, False

    @property
    def learner_rows(self) -> int:
        """Learner seats in play at once at the table (its games times its learner seats): a trainer's rows."""
        return self.num_games * len(self.learner_seats or range(self.num_players))

    def spec(self, view: str, reward: str) -> TableSpec:
        """The table as the library's TableSpec, seen through `view` and paid by `reward`."""
        return TableSpec(self.num_players, *self.variant, view, reward)


@dataclass(frozen=True, config=SECTION_CONFIG)
class MiauiTableConfig(TableConfig):
    """One table of Miaui self-play games: a batch of games of one size and variant."""

    open_baskets: Flag = False
    """The Open Baskets variant (every pile and card played is public)."""
    no_fighting: Flag = False
    """The No Fighting variant (tied cards catch nothing)."""

    @property
    def variant(self) -> tuple[bool, bool]:
        """The table's variant as (open_baskets, no_fighting)."""
        return self.open_baskets, self.no_fighting


def variant_name(open_baskets: bool, no_fighting: bool) -> str:
    """A variant's name in evaluation rows, logs and file names: base, open_baskets, no_fighting or open_baskets+no_fighting."""
    return "+".join(name for name, on in (("open_baskets", open_baskets), ("no_fighting", no_fighting)) if on) or "base"


@dataclass(frozen=True, config=SECTION_CONFIG)
class OpponentsConfig(Section):
    """Who plays the opponent seats: each episode the non-learner seats of every game go to one agent
    drawn by weight from snapshots of the learner (the pool) and the baselines."""

    weights: Annotated[Mapping[Text, Rate], AfterValidator(frozen_copy)]
    """Draw weight of each agent: `pool` (the snapshots), or a baseline name (random, greedy, counter, ...)."""
    snapshot_every: Positive
    """Learner steps between snapshots joining the pool."""
    pool_size: Positive
    """Snapshots kept (the latest), saved with the run in pool/."""
    mode: SelfPlayMode = "mixture"
    """How the pool's share is split: latest (the learner itself), mixture (every snapshot alike), league (PFSP)."""
    pfsp_exponent: Rate = 2.0
    """league: snapshot weight (1 - x)^p, x the learner's recent win rate against it (0: every snapshot alike)."""
    draw: Literal["game", "seat"] = "game"
    """game: all opponent seats of a game go to one agent; seat: every opponent seat is drawn on its own."""

    def __post_init__(self) -> None:
        if not any(weight > 0 for weight in self.weights.values()):
            raise ConfigError(
                f"config key 'opponents.weights' is {dict(self.weights)!r}: no agent has a weight above 0; "
                "allowed: the pool and baselines with weights >= 0, at least one above 0"
            )
        if self.mode in ("latest", "league") and self.weights.get("pool", 0) <= 0:
            raise ConfigError(
                f"config key 'opponents.mode' is {self.mode!r} but opponents.weights.pool is 0: "
                f"the mode decides who plays the pool's share, so give the pool a weight > 0"
            )

    @property
    def baseline_names(self) -> tuple[str, ...]:
        """The baselines named in the weights (every name but `pool`)."""
        return tuple(name for name in self.weights if name != "pool")


@dataclass(frozen=True, config=SECTION_CONFIG)
class EvaluationConfig(Section):
    """Arena evaluation: the learner against duplicate-dealt games with each baseline in the other seats, on
    each variant the run's tables play (`SelfPlayConfig.variants`; an RLlib run's own variant)."""

    every: Positive
    """Evaluate (and checkpoint) every this many learner steps (RLlib: training iterations)."""
    num_players: PlayerCount
    """Seats at the evaluation games."""
    games_per_baseline: Positive
    """Games against each baseline (rounded up to whole duplicate sets)."""
    baselines: tuple[Text, ...]
    """The agents filling the other seats, one gauntlet each."""

    def __post_init__(self) -> None:
        if not self.baselines:
            raise ConfigError("config key 'evaluation.baselines' is empty; allowed: at least one agent (e.g. [random, counter])")


@dataclass(frozen=True, config=SECTION_CONFIG)
class KickstartConfig(Section):
    """Kickstarting from a teacher agent (training/kickstart.py): cloning before PPO, guidance during it."""

    teacher: Text
    """The agent cloned and kept as a guide (an agent spec, e.g. counter)."""
    decisions: Count
    """Learner decisions of cloning before PPO (0: PPO from scratch)."""
    batch_size: Positive
    """Minibatch size of cloning and of guidance."""
    learning_rate: Rate
    """Adam's learning rate while cloning."""
    epochs: Positive
    """Passes over each chunk of cloned play (a chunk is played once and learned this many times)."""
    teacher_share_end: Share
    """The teacher's share of the cards played at the end of cloning (from 1 at its start)."""
    guidance_steps: Count
    """Minibatches of cross-entropy toward the teacher's cards after every PPO update (0: no guidance)."""
    guidance_learning_rate: Rate
    """Adam's learning rate of the guidance."""


@dataclass(frozen=True, config=SECTION_CONFIG)
class ProbeConfig(Section):
    """An exploitability probe at the end of a run (training/exploit.py): a best response trained
    against the final policy, and how far it rises above the fair share."""

    steps: Count
    """Best-response PPO steps (0: no probe)."""
    num_players: PlayerCount
    """Seats at the probe's games (one best response, the final policy in every other seat)."""
    games: Positive
    """Arena games of each of the probe's evaluations."""

    def in_metadata(self) -> dict[str, int]:
        """The settings as metadata.json's `exploitability` records them (the file keeps the key `players`)."""
        return {"steps": self.steps, "players": self.num_players, "games": self.games}


@dataclass(frozen=True, config=SECTION_CONFIG)
class MagnetConfig(Section):
    """Magnetic Mirror Descent's magnet (training/magnet.py): `coef * KL(pi || magnet)` in PPO's loss."""

    coef: Rate = 0.0
    """MMD's alpha: the weight of the reverse KL toward the magnet (0: no magnet)."""
    policy: Literal["uniform", "average"] = "average"
    """uniform (every legal card alike: an entropy bonus) or average (a moving average of the policy's weights)."""
    rate: Share = 0.01
    """average: the share of the way the magnet moves toward the policy after every PPO update."""


@dataclass(frozen=True, config=SECTION_CONFIG)
class ExploitersConfig(Section):
    """Exploiters inside the run (PSRO's best responses, AlphaStar's main exploiters; training/exploiters.py)."""

    every: Count = 0
    """Learner steps between exploiters: each trains a best response to the policy as it is then (0: none)."""
    steps: Positive = 1_000_000
    """PPO steps each exploiter trains."""
    num_players: tuple[PlayerCount, ...] | None = None
    """Table sizes the exploiters train at, one per exploiter in turn (null: the sizes the run's tables play)."""
    keep: Positive = 4
    """The latest exploiters kept in the opponent pool (older ones leave it, their figures stay in the curve)."""
    games: Positive = 1000
    """Arena games measuring each exploiter's gain over the fair share."""

    def __post_init__(self) -> None:
        if self.num_players is not None and not self.num_players:
            raise ConfigError("config key 'exploiters.num_players' is empty; allowed: table sizes (e.g. [4, 3, 6]) or null")


@dataclass(frozen=True, config=SECTION_CONFIG)
class RunConfig(Section):
    """What every run config has: a name, a seed, and loading from YAML with overrides."""

    DEFAULTS: ClassVar[Path]
    """The YAML file holding (and documenting) every default."""
    KEYED_ON_GAME: ClassVar[bool] = False
    """Whether `load` reads the config's game first, then that game's schema (`schema_for`)."""

    run_name: Text
    """checkpoints/<run_name>/ holds the run."""
    seed: Count
    """The root of the run's seed tree (`seeds`): same config and seed, same run (on the same machine)."""
    threads: Positive = dataclasses.field(default=1, kw_only=True)  # kw_only: a default before the subclasses' required keys
    """CPU threads for torch and the batched engine, taking turns (training/hardware.py; see the self-play guide's "Threads and GPUs")."""

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", self.run_name) or self.run_name in (".", ".."):
            raise ConfigError(
                f"config key 'run_name' is {self.run_name!r:.80}; allowed: a folder name of 1-100 letters, digits, '-', '_' and '.'"
            )

    @classmethod
    def load(
        cls,
        path: Path | str | None = None,
        overrides: Sequence[str] = (),
        defaults: Path | Mapping[str, Any] | None = None,
        game: str | None = None,
    ) -> Self:
        """The config at `path` (None: the defaults alone) merged onto the defaults (`defaults`, else the
        class's `DEFAULTS`; a Path, or the data itself), then each `--set` override. `game`, when given,
        is the run's game whatever the file says (`load_config` decided it from the file and the overrides).
        A config keyed on its game, given no `defaults`, is read in its game's schema (`load_keyed`),
        which must be this class's (ConfigError otherwise)."""
        if defaults is None and cls.KEYED_ON_GAME:
            with_game = [*overrides, f"game={game}"] if game is not None else overrides  # `game` over the file's and the overrides'
            config = load_keyed(cls.schema_for, path, with_game)
            if not isinstance(config, cls):
                named = getattr(config, "game", None)
                raise ConfigError(f"the config names game {named!r}, whose runs are {type(config).__name__}s, not {cls.__name__}s")
            return config
        _check_load_arguments(path, overrides)
        defaults = cls.DEFAULTS if defaults is None else defaults
        schema = schema_of(cls)
        given_defaults = read_yaml(read_config_text(defaults), f"{defaults}: ") if isinstance(defaults, Path) else defaults
        data = schema.merged(None, copy.deepcopy(dict(given_defaults)))
        schema.validated(data, f"{defaults}: " if isinstance(defaults, Path) else "the game's defaults: ")
        given = _config_data(path)
        if given is not None:
            data = schema.merged(data, given)
        if game is not None:
            data["game"] = game
        if given is not None:
            swapped = game is not None and given.get("game", LEGACY_GAME) != game
            schema.validated(data, f"{path} (read as game {game!r}, as --set game= says): " if swapped else f"{path}: ")
        return cls.from_dict(data).override(*overrides)

    @classmethod
    def schema_for(cls, game: str) -> tuple[type[RunConfig], Path | dict[str, Any]]:
        """The schema of this kind of run of `game`, and every default of it (a config keyed on its game says)."""
        raise NotImplementedError(f"{cls.__name__} is not keyed on a game")

    def override(self, *overrides: str) -> Self:
        """A copy with `--set`-style overrides (`"ppo.learning_rate=1e-4"`) applied."""
        schema, data = schema_of(type(self)), self.to_dict()
        for override in overrides:
            data = schema.overridden(data, override)
            schema.validated(data, f"--set {override:.100}: ")
        return typing.cast(Self, schema.validated(data)) if overrides else self

    def to_yaml(self) -> str:
        """The resolved config as YAML (what config.yaml beside a checkpoint holds)."""
        return write_yaml(self.to_dict())

    @property
    def seeds(self) -> RunSeeds:
        """The run's seed tree."""
        return RunSeeds(self.seed)


class _PlaysTables:
    """What a trainer's config that plays `tables` (and is evaluated on their variants) can say of them."""

    game: str
    tables: tuple[TableConfig, ...]
    view: str
    reward: str
    evaluation: EvaluationConfig

    def check_game(self) -> None:
        """Refuse (ConfigError) a view the run's game does not have. Checked when the run starts, not
        per --set: `game` and `view` are often set one after the other."""
        game = get_game(self.game)
        if self.view not in game.views:
            views = ", ".join(game.views)
            raise ConfigError(
                f"config key 'view' is {self.view!r}, which {game.title} (game: {self.game}) does not have; its views: {views}"
            )

    def check_tables(self, game: str) -> None:
        """Refuse (ConfigError naming the key) no tables, or a table size `game` does not have: the
        tables', the evaluation's and the probe's (the schema allows any game's sizes, 2-6)."""
        if not self.tables:
            raise ConfigError("config key 'tables' is empty; allowed: at least one table (e.g. [{num_players: 4, num_games: 64}])")
        low, high = get_game(game).min_players, get_game(game).max_players
        probe = getattr(self, "probe", None)
        sizes = [(f"tables[{i}].num_players", table.num_players) for i, table in enumerate(self.tables)]
        sizes += [("evaluation.num_players", self.evaluation.num_players)]
        sizes += [("probe.num_players", probe.num_players)] if probe is not None else []
        for key, size in sizes:
            if not low <= size <= high:
                others = ", ".join(
                    f"{get_game(name).title} {get_game(name).min_players}-{get_game(name).max_players}"
                    for name in game_names()
                    if name != game
                )
                raise ConfigError(
                    f"config key '{key}' is {size}; allowed: an integer from {low} to {high} (game: {game}; other games' sizes: {others})"
                )

    @property
    def variants(self) -> tuple[tuple[bool, bool], ...]:
        """Every variant the run's tables play, as (open_baskets, no_fighting), base game first: each
        is evaluated on its own (training/selfplay.py's `Run.evaluate`)."""
        return tuple(sorted({table.variant for table in self.tables}))

    @property
    def main_variant(self) -> tuple[bool, bool]:
        """The variant the run trains most on (the most learner seats in play at once), as (open_baskets,
        no_fighting), the base game first among equals: the one its probe and exploiters play."""
        seats = dict.fromkeys(self.variants, 0)
        for table in self.tables:
            seats[table.variant] += table.learner_rows
        return max(self.variants, key=seats.__getitem__)

    @property
    def table_specs(self) -> tuple[TableSpec, ...]:
        """Each table (`tables`) as a TableSpec: its players and variant, the run's view and reward."""
        return tuple(table.spec(self.view, self.reward) for table in self.tables)

    @property
    def evaluation_specs(self) -> tuple[TableSpec, ...]:
        """The evaluation's tables: `evaluation.num_players` seats on each of the run's `variants`, the run's view and reward."""
        return tuple(TableSpec(self.evaluation.num_players, *variant, self.view, self.reward) for variant in self.variants)


class _KeyedOnItsGame:
    """What a run config keyed on its `game` adds to `RunConfig`: its game's schema (`schema_for`, which
    `RunConfig.load` reads it in when given no defaults), and the Miaui-only keys read as off."""

    game: str

    KEYED_ON_GAME: ClassVar[bool] = True

    @property
    def privileged_critic(self) -> bool:
        """Whether the value network also reads the global state: a key of Miaui's runs only, off elsewhere."""
        return False

    @property
    def reward_shaping(self) -> float:
        """The weight of potential-based reward shaping: a key of the octopus game's self-play runs only, none elsewhere."""
        return 0.0


@dataclass(frozen=True, config=SECTION_CONFIG)
class SelfPlayConfig(_KeyedOnItsGame, RunConfig, _PlaysTables):
    """A self-play PPO run of any game (training/selfplay.py); each game's defaults file documents each key
    (configs/default.yaml for Miaui, whose runs are `MiauiSelfPlayConfig`s; configs/octopus.yaml).

    A config is keyed on its `game`: `load_config` reads the game first, then that game's schema and
    defaults (`run_schema`), so a run of a game holds no other game's keys."""

    game: GameName = dataclasses.field(default=LEGACY_GAME, kw_only=True)
    """The game the run trains on: a game of the registry (miaui, octopus, or one a plug-in adds)."""
    total_timesteps: Count
    """PPO learner decisions (one per learner seat per round)."""
    view: View
    """What the learner observes: table, or recall (every reveal remembered)."""
    reward: Reward
    """The end-of-game reward: win (tied winners share 1), score or margin."""
    tables: tuple[TableConfig, ...]
    """The tables the one network plays, all at once."""
    opponents: OpponentsConfig
    """The opponent pool and the mixture of opponents."""
    evaluation: EvaluationConfig
    """Arena evaluations (and checkpoints) during training."""
    ppo: FreeSection
    """sb3-contrib MaskablePPO keyword arguments, spelled as MaskablePPO takes them (any key); `policy`, the network's
    class, by a name SB3 or a game gives (the octopus game's OctopusActionOddsPolicy; left out, the trainer's own)."""
    kickstart: KickstartConfig
    """Kickstarting from a teacher agent."""
    probe: ProbeConfig
    """The exploitability probe at the end of the run."""
    device: Device = "auto"
    """Where the network computes: auto (CUDA when torch sees a GPU), cpu, cuda or cuda:<index> (training/hardware.py)."""
    play: PlayMode = "best"
    """How the run's policy plays once loaded (arena, play, browser, the probe): best (its most likely card) or sample."""
    init: Text | None = None
    """A trained MaskablePPO policy (agent spec) whose weights and network shape PPO starts from (null: new weights)."""
    magnet: MagnetConfig = MagnetConfig()
    """Magnetic Mirror Descent's pull toward a magnet policy (training/magnet.py)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_net_arch(self.ppo)
        self.check_tables(self.game)

    @classmethod
    def schema_for(cls, game: str) -> tuple[type[RunConfig], Path | dict[str, Any]]:
        """The schema of `game`'s self-play runs and their defaults (`run_schema`)."""
        return run_schema(game)

    @property
    def exploiters(self) -> ExploitersConfig:
        """Best responses trained against the learner during the run: a key of Miaui's runs only, none elsewhere."""
        return ExploitersConfig()

    def check_exploiters(self) -> None:
        """Refuse exploiters the run cannot seat (ConfigError); a game without in-run exploiters has none to refuse."""

    @property
    def exploiter_sizes(self) -> tuple[int, ...]:
        """The table sizes the exploiters train at, in turn: `exploiters.num_players`, or the tables' sizes."""
        return self.exploiters.num_players or tuple(sorted({table.num_players for table in self.tables}))


@dataclass(frozen=True, config=SECTION_CONFIG)
class MiauiSelfPlayConfig(SelfPlayConfig):
    """A self-play PPO run of Miaui (training/selfplay.py); configs/default.yaml documents each key. Its
    tables name a variant, and it may train a privileged critic and exploiters inside the run."""

    DEFAULTS = DEFAULT_CONFIG

    tables: tuple[MiauiTableConfig, ...]
    """The tables the one network plays, all at once, each of a size and a variant."""
    privileged_critic: Flag = False  # a key here; off (a property) in other games' runs
    """The value network also reads the global state (miaui_env.games.miaui.privileged); the policy never does."""
    exploiters: ExploitersConfig = ExploitersConfig()  # as privileged_critic
    """Best responses trained against the learner during the run, joining its opponents (training/exploiters.py)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.exploiters.num_players is not None:
            low, high = get_game(self.game).min_players, get_game(self.game).max_players
            for size in self.exploiters.num_players:
                if not low <= size <= high:
                    raise ConfigError(
                        f"config key 'exploiters.num_players' holds {size}; allowed: integers from {low} to {high} ({self.game})"
                    )

    def check_exploiters(self) -> None:
        """Refuse exploiters the run cannot seat (ConfigError): a table view, or a pool with no share.
        Checked when the run starts, not per --set: the keys are often set one after the other."""
        if self.exploiters.every > 0 and self.view != "recall":
            raise ConfigError(
                f"config key 'exploiters.every' is {self.exploiters.every} but view is {self.view!r}: an exploiter sees "
                "the recall view, which a table-view run cannot deal it; set view=recall or exploiters.every=0"
            )
        if self.exploiters.every > 0 and self.opponents.weights.get("pool", 0) <= 0:
            raise ConfigError(
                "config key 'exploiters.every' is set but opponents.weights.pool is 0: exploiters join the pool's "
                "share, so give the pool a weight > 0"
            )


@dataclass(frozen=True, config=SECTION_CONFIG)
class OctopusSelfPlayConfig(SelfPlayConfig):
    """A self-play PPO run of the octopus game (training/selfplay.py); configs/octopus.yaml documents each key.
    Its learner may be paid for the points it gains as they come (`reward_shaping`)."""

    reward_shaping: Rate = 0.0  # a key here; none (a property) in other games' runs
    """Potential-based shaping's weight (miaui_env.games.octopus.selfplay): each learner step adds it times the
    change in (own points - best opponent's) / 77, discounted by ppo.gamma; 0: the end-of-game reward alone."""


def _check_net_arch(ppo: Mapping[str, Any]) -> None:
    """Refuse `ppo.policy_kwargs.net_arch` layers of no width (ConfigError): SB3 builds a 0-unit layer, so the
    policy cannot read its observation and trains anyway, and a negative size is a torch traceback."""
    policy_kwargs = ppo.get("policy_kwargs")
    if not isinstance(policy_kwargs, Mapping) or "net_arch" not in policy_kwargs:
        return
    net_arch = policy_kwargs["net_arch"]
    allowed = "a list of layer sizes of at least 1 (e.g. [64, 64]), or {pi: [...], vf: [...]} with such lists"
    arms = {f".{arm}": sizes for arm, sizes in net_arch.items()} if isinstance(net_arch, Mapping) else {"": net_arch}
    for arm, sizes in arms.items():
        key = f"ppo.policy_kwargs.net_arch{arm}"
        if arm not in ("", ".pi", ".vf") or not isinstance(sizes, tuple | list):
            raise ConfigError(f"config key '{key}' is {thaw(sizes)!r}; allowed: {allowed}")
        for size in sizes:
            if isinstance(size, bool) or not isinstance(size, int) or size < 1:
                raise ConfigError(f"config key '{key}' is {thaw(sizes)!r}: layer size {size!r} is not allowed; allowed: {allowed}")


@dataclass(frozen=True, config=SECTION_CONFIG)
class RLlibConfig(_KeyedOnItsGame, RunConfig, _PlaysTables):
    """An RLlib PPO self-play run of any game (training/rllib_selfplay.py); configs/rllib.yaml documents
    each key. Its tables, opponents, evaluation and probe are spelled as the self-play config's.

    Keyed on its `game` as the self-play config is: `load_rllib_config` reads the game first, then
    that game's schema and defaults (`rllib_schema`): Miaui's runs are `MiauiRLlibConfig`s, on
    configs/rllib.yaml; another game's hold its own self-play defaults' tables, opponents and
    evaluation, with configs/rllib.yaml's RLlib sections (`rllib_defaults_made_of`)."""

    DEFAULTS = RLLIB_CONFIG
    VECTOR_KEYS: ClassVar[tuple[str, ...]] = ("num_envs_per_env_runner", "gym_env_vectorize_mode")
    """env_runners keys the trainer sets itself (every env runner steps the `tables` as one vector env)."""

    game: GameName = dataclasses.field(default=LEGACY_GAME, kw_only=True)
    """The game the run trains on: a game of the registry (miaui, octopus, or one a plug-in adds)."""
    iterations: Count
    """RLlib training iterations (each samples, then updates)."""
    view: View
    """What each learner seat observes: one of the game's views (Miaui: table or recall)."""
    reward: Reward
    """The end-of-game reward: win, score or margin."""
    tables: tuple[TableConfig, ...]
    """The tables every env runner plays, all at once, each learner seat a row of one vector env."""
    opponents: OpponentsConfig
    """The opponent pool and the mixture of opponents (as the self-play config's)."""
    env_runners: FreeSection
    """PPOConfig.env_runners() keyword arguments (any key but `VECTOR_KEYS`)."""
    learners: FreeSection
    """PPOConfig.learners() keyword arguments (any key)."""
    training: FreeSection
    """PPOConfig.training() keyword arguments (any key)."""
    model: FreeSection
    """The RL module's model_config (any key)."""
    evaluation: EvaluationConfig
    """Arena evaluations and checkpoints, every `every` iterations (and after the last)."""
    probe: ProbeConfig
    """The exploitability probe at the end of the run."""

    @classmethod
    def schema_for(cls, game: str) -> tuple[type[RunConfig], Path | dict[str, Any]]:
        """The schema of `game`'s RLlib runs and their defaults (`rllib_schema`)."""
        return rllib_schema(game)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.check_tables(self.game)
        for key in self.VECTOR_KEYS:
            if key in self.env_runners:
                raise ConfigError(
                    f"config key 'env_runners.{key}' is set to {self.env_runners[key]!r}; the trainer sets it "
                    "(every env runner steps all the `tables` as one vector env): leave it out"
                )

    @property
    def rows(self) -> int:
        """Learner seats in play at once on one env runner: the rows of its vector env."""
        return sum(table.learner_rows for table in self.tables)


@dataclass(frozen=True, config=SECTION_CONFIG)
class MiauiRLlibConfig(RLlibConfig):
    """An RLlib PPO self-play run of Miaui; configs/rllib.yaml documents each key. Its tables name a
    variant, and it may train a privileged critic."""

    tables: tuple[MiauiTableConfig, ...]
    """The tables every env runner plays, all at once, on the batched engine, each of a size and a variant."""
    privileged_critic: Flag = False  # a key here; off (a property) in other games' runs
    """The value network also reads the global state (miaui_env.games.miaui.privileged); the policy never does."""


RLLIB_KEYS = ("iterations", "seed", "threads", "env_runners", "learners", "training", "model")
"""What a game without RLlib defaults of its own takes from configs/rllib.yaml: the run's length and RLlib's sections."""


_RLLIB_SCHEMAS: dict[str, tuple[type[RLlibConfig], Path]] = {}


def register_rllib_schema(game: str, kind: type[RLlibConfig], defaults: Path) -> None:
    """Give the registered game `game` an RLlib run schema and defaults file of its own (a game without
    one gets `RLlibConfig` on `rllib_defaults_made_of` it)."""
    _check_schema("register_rllib_schema", game, kind, RLlibConfig, defaults)
    _RLLIB_SCHEMAS[game] = (kind, defaults)


def rllib_schema(game: str) -> tuple[type[RLlibConfig], Path | dict[str, Any]]:
    """The schema of the RLlib runs of `game` and every default of them (a documented YAML file, or the data itself)."""
    return _RLLIB_SCHEMAS.get(game) or (RLlibConfig, rllib_defaults_made_of(game))


def rllib_defaults_made_of(game: str) -> dict[str, Any]:
    """The RLlib defaults of a game other than Miaui: its self-play defaults' view, reward, tables,
    opponents and evaluation (evaluated every configs/rllib.yaml's `evaluation.every` iterations), no
    probe, and configs/rllib.yaml's run length and RLlib sections."""
    selfplay = run_schema(game)[1]
    own = read_yaml(read_config_text(selfplay), f"{selfplay}: ") if isinstance(selfplay, Path) else selfplay
    rllib = read_yaml(read_config_text(RLLIB_CONFIG), f"{RLLIB_CONFIG}: ")
    return {
        "game": game,
        "run_name": f"{game}-rllib",
        **{key: rllib[key] for key in RLLIB_KEYS},
        **{key: own[key] for key in ("view", "reward", "tables", "opponents")},
        "evaluation": {**own["evaluation"], "every": rllib["evaluation"]["every"]},
        "probe": {**own["probe"], "steps": 0},
    }


def load_rllib_config(path: Path | str | None = None, overrides: Sequence[str] = ()) -> RLlibConfig:
    """An RLlib run's config, read as `load_config` reads a self-play run's, in its game's RLlib schema (`rllib_schema`)."""
    return typing.cast(RLlibConfig, load_keyed(rllib_schema, path, overrides))


_RUN_SCHEMAS: dict[str, tuple[type[SelfPlayConfig], Path]] = {}


def register_run_schema(game: str, kind: type[SelfPlayConfig], defaults: Path) -> None:
    """Give the registered game `game` its own run schema and defaults file (a game without one gets
    `SelfPlayConfig` on `defaults_made_of` it)."""
    _check_schema("register_run_schema", game, kind, SelfPlayConfig, defaults)
    _RUN_SCHEMAS[game] = (kind, defaults)


def _check_schema(call: str, game: str, kind: object, base: type[RunConfig], defaults: object) -> None:
    """ConfigError naming `call` unless `game` is registered, `kind` is `base` or a subclass and `defaults` a file."""
    get_game(game)  # UnknownGameError: the game itself is registered first (miaui_env.games.register)
    if not (isinstance(kind, type) and issubclass(kind, base)):
        raise ConfigError(f"{call}({game!r}): kind={kind!r:.60} is not allowed; allowed: {base.__name__} or a subclass")
    if not isinstance(defaults, Path) or not defaults.is_file():
        raise ConfigError(f"{call}({game!r}): defaults={str(defaults)!r:.80} is not a YAML file of every default")


def run_schema(game: str) -> tuple[type[SelfPlayConfig], Path | dict[str, Any]]:
    """The schema of the runs of `game` and every default of them (a documented YAML file, or the data itself)."""
    return _RUN_SCHEMAS.get(game) or (SelfPlayConfig, defaults_made_of(game))


def defaults_made_of(name: str) -> dict[str, Any]:
    """The defaults of a game with no defaults file of its own: a small run from new weights, a table of
    64 games at each size, the pool and every built-in agent as opponents and evaluation baselines, the
    game's first view, PPO as configs/octopus-v2.yaml trains a game of turns."""
    game = get_game(name)
    built_in = [agent for agent in game.agent_names() if agent != "random"]
    sizes = range(game.min_players, game.max_players + 1)
    return {
        "game": name,
        "run_name": f"{name}-ppo",
        "seed": 0,
        "total_timesteps": 1_000_000,
        "view": game.views[0],
        "reward": "win",
        "threads": 1,
        "device": "auto",
        "tables": [{"num_players": size, "num_games": 64} for size in sizes],
        "opponents": {
            "weights": {"pool": 0.5, "random": 0.5 / (1 + len(built_in)), **dict.fromkeys(built_in, 0.5 / (1 + len(built_in)))},
            "snapshot_every": 100_000,
            "pool_size": 8,
            "mode": "league",
            "pfsp_exponent": 2.0,
            "draw": "game",
        },
        "evaluation": {
            "every": 100_000,
            "num_players": game.default_players,
            "games_per_baseline": 400,
            "baselines": ["random", *built_in],
        },
        "ppo": {
            "learning_rate": 0.0003,
            "n_steps": 64,
            "batch_size": 2048,
            "n_epochs": 4,
            "gamma": 1.0,
            "gae_lambda": 0.95,
            "clip_range": 0.2,
            "ent_coef": 0.01,
            "vf_coef": 0.5,
            "max_grad_norm": 0.5,
            "policy_kwargs": {"net_arch": {"pi": [128, 128], "vf": [128, 128]}},
        },
        "kickstart": {
            "teacher": "random",
            "decisions": 0,
            "batch_size": 2048,
            "learning_rate": 0.001,
            "epochs": 1,
            "teacher_share_end": 0.5,
            "guidance_steps": 0,
            "guidance_learning_rate": 0.00003,
        },
        "probe": {"steps": 0, "num_players": game.default_players, "games": 400},
        "play": "best",
        "init": None,
        "magnet": {"coef": 0.0, "policy": "average", "rate": 0.01},
    }


register_run_schema(LEGACY_GAME, MiauiSelfPlayConfig, DEFAULT_CONFIG)  # its tables name a variant; a privileged critic, exploiters
register_run_schema("octopus", OctopusSelfPlayConfig, CONFIG_DIR / "octopus.yaml")  # the octopus game's documented defaults
register_rllib_schema(LEGACY_GAME, MiauiRLlibConfig, RLLIB_CONFIG)  # its tables name a variant; a privileged critic


def load_config(path: Path | str | None = None, overrides: Sequence[str] = ()) -> SelfPlayConfig:
    """A self-play run's config: its game read first (the last `--set game=...`, else the file's `game`,
    else Miaui), then `path` (None: the game's defaults alone) merged onto that game's defaults in its
    schema (`run_schema`), then `overrides`."""
    return typing.cast(SelfPlayConfig, load_keyed(run_schema, path, overrides))


def load_keyed(
    schema_for: Callable[[str], tuple[type[RunConfig], Path | dict[str, Any]]], path: Path | str | None, overrides: Sequence[str]
) -> RunConfig:
    """A run's config read in its game's schema: the game first (`_game_named`), then that game's
    schema and defaults (`schema_for(game)`), `path` and the other `overrides`."""
    _check_load_arguments(path, overrides)
    game = _game_named(path, overrides)
    kind, defaults = schema_for(game)
    rest = [override for override in overrides if not _sets_game(override)]  # the game is decided: the file is read as its
    return kind.load(path, rest, defaults, game)


def _check_load_arguments(path: object, overrides: object) -> None:
    """ConfigError for a path that is not a str or a Path, or overrides that are not a list of strings."""
    if path is not None and not isinstance(path, str | Path):
        raise ConfigError(f"a config path is a str or a Path, got {type(path).__name__}")
    if isinstance(overrides, str | bytes) or not isinstance(overrides, Sequence) or not all(isinstance(o, str) for o in overrides):
        raise ConfigError(f"overrides are a list of KEY=VALUE strings, got {overrides!r:.60}")


def _config_data(path: Path | str | None) -> dict[str, Any] | None:
    """The mapping the config file at `path` holds (None for no path); ConfigError for a file that sets nothing or is not a mapping."""
    if path is None:
        return None
    path = config_file(path)
    given = read_yaml(read_config_text(path), f"{path}: ")
    if given is None:  # empty, comments only, or `null`: a slip (the wrong file?) rather than a wish for every default
        raise ConfigError(f"{path}: the file sets nothing; leave out --config for the defaults, or give a mapping of keys to values")
    if not isinstance(given, dict):
        raise ConfigError(f"{path}: a config file is a mapping of keys to values, not {given!r:.60}")
    return given


def _game_named(path: Path | str | None, overrides: Sequence[str]) -> str:
    """The game a config names: its last `--set game=...`, else its file's `game`, else Miaui (as 0.1's
    configs, which name none); ConfigError, naming where it was given, for a game the registry lacks."""
    for override in reversed(overrides):
        if _sets_game(override):
            return _named_where(override.partition("=")[2], f"--set {override:.100}: ")
    given = _config_data(path)
    return LEGACY_GAME if given is None or "game" not in given else _named_where(given["game"], f"{path}: ")


def _sets_game(override: str) -> bool:
    """Whether a `--set` override is `game=...` (spelled as `overridden` reads a key: no spaces)."""
    key, sep, _ = override.partition("=")
    return bool(sep) and key == "game"


def _named_where(name: object, source: str) -> str:
    try:
        return registered_game(name)
    except ConfigError as error:
        raise ConfigError(f"{source}{error}") from None


def json_schema(kind: type[RunConfig] = MiauiSelfPlayConfig) -> dict[str, Any]:
    """The JSON schema of a run config (each field's docstring its description), for the docs."""
    return copy.deepcopy(schema_of(kind).root)


def main(argv: list[str] | None = None) -> None:
    """Print a run config's JSON schema."""
    parser = argparse.ArgumentParser(
        allow_abbrev=False, description="The run configs' JSON schema (each field's docstring its description)."
    )
    kinds = {
        "selfplay": MiauiSelfPlayConfig,
        "selfplay-any-game": SelfPlayConfig,
        "rllib": MiauiRLlibConfig,
        "rllib-any-game": RLlibConfig,
    }
    parser.add_argument(
        "--schema",
        choices=kinds,
        default="selfplay",
        help="which run's config: selfplay (Miaui's, the default), selfplay-any-game (the octopus game's and a plug-in's), "
        "rllib (Miaui's), rllib-any-game",
    )
    args = parser.parse_args(argv)
    print(json.dumps(json_schema(kinds[args.schema]), indent=2))


if __name__ == "__main__":
    main()
