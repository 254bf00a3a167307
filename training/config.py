"""Run configs: one frozen, typed object per run, read from YAML with `--set key=value` overrides.

    config = load_config("configs/smoke.yaml", ["ppo.learning_rate=1e-4", "seed=3"])
    config.kickstart.learning_rate, config.tables[0].num_games, config.ppo["n_steps"]

`SelfPlayConfig` is a self-play PPO run (`python -m training.selfplay`), `RLlibConfig` an RLlib run
(`python -m training.rllib_selfplay`): dataclasses with a docstring per field, as CleanRL's `Args`.
The YAML stays the interface: configs/default.yaml (configs/rllib.yaml for RLlib) holds and
documents every default; a config file, then each `--set`, merges onto it, and the result is checked
and converted into the dataclasses. Sections merge key by key; lists (`tables`, `baselines`) and
`opponents.weights` are replaced whole, so that leaving an opponent out leaves it out. The resolved
config is saved beside the checkpoint as config.yaml (`to_yaml`), which `--resume` reads back.

What is refused, as a `ConfigError`: an unknown key at any depth (table entries included), naming
the known ones; a value of the wrong type or out of range, with its dotted key, the value and what
is allowed (a bool is not a number). Sections passed to another library as keyword arguments
(`ppo`: sb3-contrib's MaskablePPO; RLlib's `env_runners`, `learners`, `training`, `model`) take
any key, spelled as that library takes it, and are passed through untouched.

YAML is read as PyYAML's YAML 1.1 but with YAML 1.2's floats, so `1e-4` is a number (1.1 wants
`1.0e-4`), in files and in `--set`. A `--set` value is read by the type of the key it sets:
`--set run_name=nan` is the string "nan", `--set kickstart.learning_rate=1e-4` a float; a dotted key
reaches into any section (`--set ppo.policy_kwargs.activation_fn=ReLU`).

Seeds: every random stream of a run comes from one `numpy.random.SeedSequence(config.seed)`, one
named child per stream (`RunSeeds`, `config.seeds`).
"""

from __future__ import annotations

import copy
import dataclasses
import re
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, Self

import numpy as np
import yaml

from miaui_env.agents.loading import PLAY_MODES
from miaui_env.game.rules import MAX_PLAYERS, MIN_PLAYERS, REWARDS
from miaui_env.game.seeding import seed_int
from miaui_env.observe.observation import VIEWS

ROOT = Path(__file__).resolve().parent.parent  # the repository: configs/ and checkpoints/ live here
CONFIG_DIR = ROOT / "configs"
DEFAULT_CONFIG = CONFIG_DIR / "default.yaml"
RLLIB_CONFIG = CONFIG_DIR / "rllib.yaml"
SELF_PLAY_MODES = ("latest", "mixture", "league")


class ConfigError(ValueError):
    """A config file or override that does not fit the schema of the run config."""


# -- YAML ---------------------------------------------------------------------------------------
class YamlLoader(yaml.SafeLoader):
    """PyYAML's safe loader (YAML 1.1) reading numbers and booleans as YAML 1.2 does: `1e-4` is a
    float, `010` is ten (not octal eight), `1:30` is text (not ninety), `yes`/`on` are text (only
    `true`/`false` are booleans); a key given twice in one mapping is refused, not silently replaced."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """A mapping, refusing a key that appears twice."""
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise ConfigError(f"key {key!r} appears twice in one mapping (line {key_node.start_mark.line + 1})")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_YAML_1_2 = {"tag:yaml.org,2002:float", "tag:yaml.org,2002:int", "tag:yaml.org,2002:bool"}
YamlLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag not in _YAML_1_2]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
YamlLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
YamlLoader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9](?:_?[0-9])*$"), list("-+0123456789"))


def _decimal_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    return int(str(loader.construct_scalar(node)))  # decimal, never YAML 1.1's octal


YamlLoader.add_constructor("tag:yaml.org,2002:int", _decimal_int)
YamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?: [-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?
               | [-+]?[0-9][0-9_]*[eE][-+]?[0-9]+
               | [-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?
               | [-+]?\.(?:inf|Inf|INF)
               | \.(?:nan|NaN|NAN) )$""",
        re.VERBOSE,
    ),
    list("-+0123456789."),
)


def read_yaml(text: str, source: str = "") -> Any:
    """YAML text as plain data, numbers and booleans as YAML 1.2 reads them; ConfigError (naming
    `source` and the line) for text that is not YAML, or a tag a safe loader does not build."""
    try:
        return yaml.load(text, Loader=YamlLoader)  # a SafeLoader: safe
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        problem = getattr(error, "problem", None) or error
        raise ConfigError(f"{source}not valid YAML{line}: {problem}") from None


# -- seeds --------------------------------------------------------------------------------------
Stream = Literal["tables", "baselines", "opponents", "cloning", "guidance", "evaluation", "ppo"]
STREAMS: tuple[Stream, ...] = typing.get_args(Stream)  # spawn order: append new streams, never reorder


@dataclass(frozen=True)
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
    """

    seed: int
    """The run's seed, the root of the tree."""

    def sequence(self, stream: Stream, *path: int) -> np.random.SeedSequence:
        """The stream's SeedSequence, or its descendant at `path` (child indices)."""
        return np.random.SeedSequence(self.seed, spawn_key=(STREAMS.index(stream), *path))

    def integer(self, stream: Stream, *path: int) -> int:
        """The stream's (or its descendant's) seed as one 32-bit int."""
        return seed_int(self.sequence(stream, *path))


# -- the schema ---------------------------------------------------------------------------------
def _at_least(minimum: float, maximum: float | None = None) -> dict[str, float | None]:
    """Field metadata: the allowed range of a number (of each number, in a list or mapping)."""
    return {"min": minimum, "max": maximum}


class _Section:
    """A config section: a frozen dataclass converted to and from plain YAML data."""

    def to_dict(self) -> dict[str, Any]:
        """The section as plain data (dicts, lists, numbers, strings), as YAML holds it."""
        data = _thaw(self)
        assert isinstance(data, dict)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """The section from plain data, checked: every key known, every value of its type."""
        built = _convert(data, cls, "")
        assert isinstance(built, cls)
        return built


@dataclass(frozen=True)
class TableConfig(_Section):
    """One table of self-play games: a batch of games of one size and variant."""

    num_players: int = field(metadata=_at_least(MIN_PLAYERS, MAX_PLAYERS))
    """Seats at each game of the table."""
    num_games: int = field(metadata=_at_least(1))
    """Games played at once at the table."""
    learner_seats: tuple[int, ...] | None = field(default=None, metadata=_at_least(0))
    """The seats the learner plays, rotating one place every episode (null: every seat); the others are opponents."""
    open_baskets: bool = False
    """The Open Baskets variant (every pile and card played is public)."""
    no_fighting: bool = False
    """The No Fighting variant (tied cards catch nothing)."""

    @property
    def variant(self) -> tuple[bool, bool]:
        """The table's variant as (open_baskets, no_fighting)."""
        return self.open_baskets, self.no_fighting


def variant_name(open_baskets: bool, no_fighting: bool) -> str:
    """A variant's name in evaluation rows, logs and file names: base, open_baskets, no_fighting or open_baskets+no_fighting."""
    return "+".join(name for name, on in (("open_baskets", open_baskets), ("no_fighting", no_fighting)) if on) or "base"


@dataclass(frozen=True)
class OpponentsConfig(_Section):
    """Who plays the opponent seats: each episode the non-learner seats of every game go to one agent
    drawn by weight from snapshots of the learner (the pool) and the baselines."""

    weights: Mapping[str, float] = field(metadata=_at_least(0))
    """Draw weight of each agent: `pool` (the snapshots), or a baseline name (random, greedy, counter, ...)."""
    snapshot_every: int = field(metadata=_at_least(1))
    """Learner steps between snapshots joining the pool."""
    pool_size: int = field(metadata=_at_least(1))
    """Snapshots kept (the latest), saved with the run in pool/."""
    mode: str = field(default="mixture", metadata={"choices": SELF_PLAY_MODES})
    """How the pool's share is split: latest (the learner itself), mixture (every snapshot alike), league (PFSP)."""
    pfsp_exponent: float = field(default=2.0, metadata=_at_least(0))
    """league: snapshot weight (1 - x)^p, x the learner's recent win rate against it (0: every snapshot alike)."""
    draw: str = field(default="game", metadata={"choices": ("game", "seat")})
    """game: all opponent seats of a game go to one agent; seat: every opponent seat is drawn on its own."""

    def __post_init__(self) -> None:
        if self.mode in ("latest", "league") and self.weights.get("pool", 0) <= 0:
            raise ConfigError(f"config key 'opponents.mode' is {self.mode!r} but opponents.weights.pool is 0: "
                              f"the mode decides who plays the pool's share, so give the pool a weight > 0")  # fmt: skip

    @property
    def baseline_names(self) -> tuple[str, ...]:
        """The baselines named in the weights (every name but `pool`)."""
        return tuple(name for name in self.weights if name != "pool")


@dataclass(frozen=True)
class EvaluationConfig(_Section):
    """Arena evaluation: the learner against duplicate-dealt games with each baseline in the other seats, on
    each variant the run's tables play (`SelfPlayConfig.variants`; an RLlib run's own variant)."""

    every: int = field(metadata=_at_least(1))
    """Evaluate (and checkpoint) every this many learner steps (RLlib: training iterations)."""
    players: int = field(metadata=_at_least(MIN_PLAYERS, MAX_PLAYERS))
    """Seats at the evaluation games."""
    games_per_baseline: int = field(metadata=_at_least(1))
    """Games against each baseline (rounded up to whole duplicate sets)."""
    baselines: tuple[str, ...]
    """The agents filling the other seats, one gauntlet each."""

    def __post_init__(self) -> None:
        if not self.baselines:
            raise ConfigError("config key 'evaluation.baselines' is empty; allowed: at least one agent (e.g. [random, counter])")


@dataclass(frozen=True)
class KickstartConfig(_Section):
    """Kickstarting from a teacher agent (training/kickstart.py): cloning before PPO, guidance during it."""

    teacher: str
    """The agent cloned and kept as a guide (an agent spec, e.g. counter)."""
    decisions: int = field(metadata=_at_least(0))
    """Learner decisions of cloning before PPO (0: PPO from scratch)."""
    batch_size: int = field(metadata=_at_least(1))
    """Minibatch size of cloning and of guidance."""
    learning_rate: float = field(metadata=_at_least(0))
    """Adam's learning rate while cloning."""
    teacher_share_end: float = field(metadata=_at_least(0, 1))
    """The teacher's share of the cards played at the end of cloning (from 1 at its start)."""
    guidance_steps: int = field(metadata=_at_least(0))
    """Minibatches of cross-entropy toward the teacher's cards after every PPO update (0: no guidance)."""
    guidance_learning_rate: float = field(metadata=_at_least(0))
    """Adam's learning rate of the guidance."""


@dataclass(frozen=True)
class ProbeConfig(_Section):
    """An exploitability probe at the end of a run (training/exploit.py): a best response trained
    against the final policy, and how far it rises above the fair share."""

    steps: int = field(metadata=_at_least(0))
    """Best-response PPO steps (0: no probe)."""
    players: int = field(metadata=_at_least(MIN_PLAYERS, MAX_PLAYERS))
    """Seats at the probe's games (one best response, the final policy in every other seat)."""
    games: int = field(metadata=_at_least(1))
    """Arena games of each of the probe's evaluations."""


@dataclass(frozen=True)
class RunConfig(_Section):
    """What every run config has: a name, a seed, and loading from YAML with overrides."""

    DEFAULTS: ClassVar[Path]
    """The YAML file holding (and documenting) every default."""

    run_name: str
    """checkpoints/<run_name>/ holds the run."""
    seed: int = field(metadata=_at_least(0))
    """The root of the run's seed tree (`seeds`): same config and seed, same run (on the same machine)."""

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", self.run_name) or self.run_name in (".", ".."):
            raise ConfigError(f"config key 'run_name' is {self.run_name!r}; allowed: a folder name of letters, digits, '-', '_' and '.'")

    @classmethod
    def load(cls, path: Path | str | None = None, overrides: Sequence[str] = ()) -> Self:
        """The config at `path` (None: the defaults alone) merged onto the defaults, then each `--set` override."""
        data = read_yaml(cls.DEFAULTS.read_text())
        _check(cls, data, f"{cls.DEFAULTS}: ")
        if path is not None:
            given = read_yaml(Path(path).read_text(), f"{path}: ")
            if given is not None and not isinstance(given, dict):
                raise ConfigError(f"{path}: a config file is a mapping of keys to values, not {given!r}")
            data = _merged(cls, data, given or {})
            _check(cls, data, f"{path}: ")
        for override in overrides:
            data = _override(cls, data, override)
            _check(cls, data, f"--set {override}: ")
        return cls.from_dict(data)

    def override(self, *overrides: str) -> Self:
        """A copy with `--set`-style overrides (`"ppo.learning_rate=1e-4"`) applied."""
        data = self.to_dict()
        for override in overrides:
            data = _override(type(self), data, override)
            _check(type(self), data, f"--set {override}: ")
        return self.from_dict(data)

    def to_yaml(self) -> str:
        """The resolved config as YAML (what config.yaml beside a checkpoint holds)."""
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    @property
    def seeds(self) -> RunSeeds:
        """The run's seed tree."""
        return RunSeeds(self.seed)


@dataclass(frozen=True)
class SelfPlayConfig(RunConfig):
    """A self-play PPO run (training/selfplay.py); configs/default.yaml documents each key."""

    DEFAULTS = DEFAULT_CONFIG

    total_timesteps: int = field(metadata=_at_least(0))
    """PPO learner decisions (one per learner seat per round)."""
    view: str = field(metadata={"choices": VIEWS})
    """What the learner observes: table, or recall (every reveal remembered)."""
    reward: str = field(metadata={"choices": REWARDS})
    """The end-of-game reward: win (tied winners share 1), score or margin."""
    tables: tuple[TableConfig, ...]
    """The tables the one network plays, all at once."""
    opponents: OpponentsConfig
    """The opponent pool and the mixture of opponents."""
    evaluation: EvaluationConfig
    """Arena evaluations (and checkpoints) during training."""
    ppo: Mapping[str, Any]
    """sb3-contrib MaskablePPO keyword arguments, spelled as MaskablePPO takes them (any key)."""
    kickstart: KickstartConfig
    """Kickstarting from a teacher agent."""
    probe: ProbeConfig
    """The exploitability probe at the end of the run."""
    privileged_critic: bool = False
    """The value network also reads the global state (miaui_env.integrations.privileged); the policy never does."""
    play: str = field(default="best", metadata={"choices": tuple(PLAY_MODES)})
    """How the run's policy plays once loaded (arena, play, browser, the probe): best (its most likely card) or sample."""
    init: str | None = None
    """A trained MaskablePPO policy (agent spec) whose weights and network shape PPO starts from (null: new weights)."""

    @property
    def variants(self) -> tuple[tuple[bool, bool], ...]:
        """Every variant the run's tables play, as (open_baskets, no_fighting), base game first: each
        is evaluated on its own (training/selfplay.py's `Run.evaluate`)."""
        return tuple(sorted({table.variant for table in self.tables}))


@dataclass(frozen=True)
class RLlibConfig(RunConfig):
    """An RLlib PPO self-play run (training/rllib_selfplay.py); configs/rllib.yaml documents each key."""

    DEFAULTS = RLLIB_CONFIG

    iterations: int = field(metadata=_at_least(0))
    """RLlib training iterations (each samples, then updates)."""
    num_players: int = field(metadata=_at_least(MIN_PLAYERS, MAX_PLAYERS))
    """Seats at the training games (one policy plays them all)."""
    open_baskets: bool
    """The Open Baskets variant."""
    no_fighting: bool
    """The No Fighting variant."""
    view: str = field(metadata={"choices": VIEWS})
    """What each seat observes: table or recall."""
    reward: str = field(metadata={"choices": REWARDS})
    """The end-of-game reward: win, score or margin."""
    env_runners: Mapping[str, Any]
    """PPOConfig.env_runners() keyword arguments (any key)."""
    learners: Mapping[str, Any]
    """PPOConfig.learners() keyword arguments (any key)."""
    training: Mapping[str, Any]
    """PPOConfig.training() keyword arguments (any key)."""
    model: Mapping[str, Any]
    """The RL module's model_config (any key)."""
    evaluation: EvaluationConfig
    """Arena evaluations and checkpoints, every `every` iterations (and after the last)."""


def load_config(path: Path | str | None = None, overrides: Sequence[str] = ()) -> SelfPlayConfig:
    """A self-play run's config: `path` (None: configs/default.yaml alone) merged onto the defaults, then `overrides`."""
    return SelfPlayConfig.load(path, overrides)


def thaw(value: Any) -> Any:
    """Plain, mutable data from config values (read-only mappings to dicts, tuples to lists), e.g. to
    pass a free section to a library as keyword arguments."""
    return _thaw(value)


# -- conversion ---------------------------------------------------------------------------------
def _thaw(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _thaw(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {key: _thaw(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_thaw(item) for item in value]
    return value


def _freeze(value: Any) -> Any:
    """Read-only copies of YAML data: mappings as MappingProxyType, lists as tuples."""
    if isinstance(value, Mapping):
        return types.MappingProxyType({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_freeze(item) for item in value)
    return value


def _optional(kind: Any) -> tuple[Any, bool]:
    """`X | None` as (X, True); any other type as (itself, False)."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        args = typing.get_args(kind)
        if type(None) in args:
            rest = [arg for arg in args if arg is not type(None)]
            return (rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]), True  # noqa: UP007
    return kind, False


def _is_free(kind: Any) -> bool:
    """Whether `kind` is a free mapping (any key, any value: another library's keyword arguments)."""
    return typing.get_origin(kind) is Mapping and typing.get_args(kind)[1] is Any


def _section(kind: Any) -> type | None:
    """`kind` if it is a section (a dataclass type), else None."""
    return kind if isinstance(kind, type) and dataclasses.is_dataclass(kind) else None


def _fields(kind: type) -> dict[str, tuple[Any, dataclasses.Field[Any]]]:
    """A section's fields by name, each with its (resolved) type."""
    hints = typing.get_type_hints(kind)
    return {f.name: (hints[f.name], f) for f in dataclasses.fields(kind)}


def _join(key: str, name: object) -> str:
    return f"{key}.{name}" if key else str(name)


def _describe(kind: Any, checks: Mapping[str, Any]) -> str:
    """What a value of `kind` may be, in words."""
    kind, optional = _optional(kind)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if checks.get("choices") is not None:
        text = "one of " + ", ".join(repr(choice) for choice in checks["choices"])
    elif _section(kind):
        text = "a mapping with keys " + ", ".join(_fields(kind))
    elif origin is tuple:
        text = f"a list, each {_describe(args[0], checks)}"
    elif _is_free(kind):
        text = "a mapping"
    elif origin is Mapping:
        text = f"a mapping of names, each to {_describe(args[1], checks)}"
    else:
        text = {bool: "a bool (true or false)", int: "an integer", float: "a number", str: "a string"}[kind]
        low, high = checks.get("min"), checks.get("max")
        if kind in (int, float) and low is not None:
            text += f" from {low} to {high}" if high is not None else f" >= {low}"
    return text + " or null" if optional else text


def _convert(value: Any, kind: Any, key: str, checks: Mapping[str, Any] | None = None) -> Any:
    """`value` (plain YAML data) as the type `kind`, checked; `key` is its dotted key, for errors."""
    checks, given = checks or {}, value

    def wrong() -> ConfigError:
        return ConfigError(f"config key {key!r} is {given!r}; allowed: {_describe(kind, checks)}")

    base, optional = _optional(kind)
    if value is None and optional:
        return None
    origin, args = typing.get_origin(base), typing.get_args(base)
    section = _section(base)
    if section is not None:
        if not isinstance(value, Mapping):
            raise wrong()
        fields = _fields(section)
        for name in value:
            if name not in fields:
                raise ConfigError(f"unknown config key {_join(key, name)!r}; known keys here: {', '.join(sorted(fields))}")
        missing = [n for n, (_, f) in fields.items() if n not in value and f.default is dataclasses.MISSING]
        if missing:
            raise ConfigError(f"config key {_join(key, missing[0])!r} is missing")
        converted = {n: _convert(value[n], hint, _join(key, n), f.metadata) for n, (hint, f) in fields.items() if n in value}
        return section(**converted)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise wrong()
        return tuple(_convert(item, args[0], f"{key}[{i}]", checks) for i, item in enumerate(value))
    if origin is Mapping:
        if not isinstance(value, Mapping) or not all(isinstance(name, str) for name in value):
            raise wrong()
        if args[1] is Any:
            return _freeze(value)
        return types.MappingProxyType({name: _convert(item, args[1], _join(key, name), checks) for name, item in value.items()})
    if base is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if base is bool and not isinstance(value, bool):
        raise wrong()
    if base in (int, float, str) and (isinstance(value, bool) or not isinstance(value, base)):
        raise wrong()
    low, high, choices = checks.get("min"), checks.get("max"), checks.get("choices")
    if base in (int, float) and not ((low is None or value >= low) and (high is None or value <= high)):
        raise wrong()
    if choices is not None and value not in choices:
        raise wrong()
    return value


def _check(kind: type[RunConfig], data: dict[str, Any], source: str) -> None:
    """Refuse `data` if it is not a valid config, the error prefixed by where it came from."""
    try:
        kind.from_dict(data)
    except ConfigError as error:
        raise ConfigError(f"{source}{error}") from None


def _merged(kind: Any, base: Any, given: Any) -> Any:
    """`given` merged onto `base` (plain data) as the schema `kind` says: a section or a free mapping
    merges key by key (a free mapping all the way down); anything else, lists and
    `opponents.weights` included, is replaced whole. Unknown keys are kept, for the check to refuse."""
    kind, _ = _optional(kind)
    if not isinstance(base, dict) or not isinstance(given, dict):
        return copy.deepcopy(given)
    section = _section(kind)
    if section is not None:
        fields = _fields(section)
        return {**base, **{name: _merged(fields[name][0] if name in fields else None, base.get(name), v) for name, v in given.items()}}
    if kind is Any or _is_free(kind):
        return {**base, **{name: _merged(Any, base.get(name), v) for name, v in given.items()}}
    return copy.deepcopy(given)


def _override(kind: type[RunConfig], data: dict[str, Any], override: str) -> dict[str, Any]:
    """`data` with a `--set key=value` override applied. The value is read by the key's type (a string
    key takes the text as it is; anything else is read as YAML) and set as a file would set it
    (merged into a section, replacing anything else); a dotted key reaches into any mapping, so
    `opponents.weights.pool=0` changes one weight."""
    key, sep, text = override.partition("=")
    if not sep:
        raise ConfigError(f"--set {override!r} is not key=value (e.g. --set ppo.learning_rate=1e-4)")
    parts = key.split(".")
    kinds: list[Any] = [kind]  # the type at each depth of the key
    for depth, part in enumerate(parts):
        target, _ = _optional(kinds[-1])
        section = _section(target)
        if section is not None:
            fields = _fields(section)
            if part not in fields:
                known = ", ".join(sorted(fields))
                raise ConfigError(f"--set {override}: unknown key {'.'.join(parts[: depth + 1])!r}; known keys here: {known}")
            kinds.append(fields[part][0])
        elif target is Any or _is_free(target):
            kinds.append(Any)
        elif typing.get_origin(target) is Mapping:
            kinds.append(typing.get_args(target)[1])
        else:
            whole = ".".join(parts[:depth])
            raise ConfigError(f"--set {override}: {whole!r} has no keys; set it whole (--set {whole}=...)")
    value = text if _optional(kinds[-1])[0] is str else read_yaml(text, f"--set {override}: ")

    def setting(node: Any, depth: int) -> Any:
        if depth == len(parts):
            return _merged(kinds[depth], node, value)
        node = dict(node) if isinstance(node, dict) else {}
        node[parts[depth]] = setting(node.get(parts[depth]), depth + 1)
        return node

    result = setting(data, 0)
    assert isinstance(result, dict)
    return result
