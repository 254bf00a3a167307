"""The schema behind run configs: strict value types, config sections, and one walk of the JSON schema
that merges files key by key, reads a `--set` value by its key's type and words every refusal.

A section is a frozen pydantic dataclass (`Section`) with a docstring per field; `schema_of(kind)` is
its JSON schema, walked by key (`_Schema`): what a key holds decides how files merge (sections and
free mappings key by key, lists and `opponents.weights` whole), how a `--set` text is read, and what
a `ConfigError` says is allowed. Types are strict: a bool is not a number, 1.5 is not an integer.
"""

from __future__ import annotations

import copy
import functools
import types
import typing
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self, TypeAlias

from pydantic import AfterValidator, ConfigDict, Field, Strict, TypeAdapter, ValidationError, WithJsonSchema
from pydantic_core import ErrorDetails

from miaui_env.core.errors import REWARDS
from miaui_env.core.loading import PLAY_MODES
from miaui_env.core.registry import game_names, get_game
from miaui_env.games.miaui.observation import VIEWS
from training.config_files import ConfigError, read_yaml, thaw


# -- value types: strict (a bool is not a number, 1.5 is not an integer), ranges in the JSON schema
def frozen_copy(value: Any) -> Any:
    """Read-only copies of YAML data: mappings as MappingProxyType, lists as tuples."""
    if isinstance(value, Mapping):
        return types.MappingProxyType({key: frozen_copy(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(frozen_copy(item) for item in value)
    return value


Flag = Annotated[bool, Strict()]
Text = Annotated[str, Strict()]
MOST = 10**15
"""The largest count a config may give (steps, games, seeds): past any run, and safe in numpy's int64."""
Count = Annotated[int, Strict(), Field(ge=0, le=MOST)]
Positive = Annotated[int, Strict(), Field(ge=1, le=MOST)]
_FEWEST = min(get_game(name).min_players for name in game_names())
_MOST = max(get_game(name).max_players for name in game_names())
PlayerCount = Annotated[int, Strict(), Field(ge=_FEWEST, le=_MOST)]
"""A table size some game of the registry has; each game's own range is checked with the whole config (`check_tables`)."""
Rate = Annotated[float, Strict(), Field(ge=0, allow_inf_nan=False)]
Share = Annotated[float, Strict(), Field(ge=0, le=1, allow_inf_nan=False)]
DEVICE_PATTERN = r"auto|cpu|cuda(:[0-9]+)?"
"""The device names a config or `--device` may give (training/hardware.py)."""
Device = Annotated[str, Strict(), Field(pattern=f"^({DEVICE_PATTERN})$")]
FreeSection = Annotated[Mapping[Text, Any], AfterValidator(frozen_copy)]
"""Another library's keyword arguments: any key, any value, read-only."""
if TYPE_CHECKING:
    View: TypeAlias = str
    Reward: TypeAlias = str
    PlayMode: TypeAlias = str
else:  # the names the library allows, as Literals: pydantic refuses any other, the JSON schema lists them
    View, Reward, PlayMode = Literal[VIEWS], Literal[REWARDS], Literal[tuple(PLAY_MODES)]


def registered_game(name: Any) -> str:
    if not isinstance(name, str) or name not in game_names():
        raise ConfigError(f"config key 'game' is {name!r}; allowed: one of {', '.join(map(repr, game_names()))}")
    return name


GameName = Annotated[Any, AfterValidator(registered_game), WithJsonSchema({"type": "string", "enum": list(game_names())})]
"""A game of the registry (miaui_env.games), checked when the config is read (a game registered later, too)."""


def _inherited_descriptions(schema: dict[str, Any], kind: type[Any]) -> None:
    """Pydantic reads the docstrings of a class's own fields only: an inherited field gets its base's."""
    for name, field in schema.get("properties", {}).items():
        inherited = [getattr(base, "__pydantic_fields__", {}).get(name) for base in kind.__mro__[1:]]
        descriptions = [info.description for info in inherited if info is not None and info.description]
        if "description" not in field and descriptions:
            field["description"] = descriptions[0]


SECTION_CONFIG = ConfigDict(extra="forbid", use_attribute_docstrings=True, json_schema_extra=_inherited_descriptions)


class Section:
    """A config section: a frozen pydantic dataclass converted to and from plain YAML data."""

    def to_dict(self) -> dict[str, Any]:
        """The section as plain data (dicts, lists, numbers, strings), as YAML holds it."""
        data = thaw(self)
        assert isinstance(data, dict)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """The section from plain data, checked: every key known, every value of its type."""
        schema = schema_of(cls)
        return typing.cast(Self, schema.validated(schema.merged(None, dict(data))))


# -- merging, overrides and messages, read off the JSON schema ------------------------------------
_ANY: dict[str, Any] = {}  # the schema of a value inside a free section: anything, merged key by key
_TYPE_WORDS = {"boolean": "a bool (true or false)", "integer": "an integer", "number": "a number", "string": "a string"}


class _Schema:
    """A config class's JSON schema, walked by key: what each key holds decides how files merge, how a
    `--set` value is read, and what an error message says is allowed."""

    def __init__(self, kind: type[Section]):
        self.adapter = TypeAdapter(kind)
        self.root = self.adapter.json_schema()

    def resolved(self, node: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
        """`node` with its $ref followed and `X | None` unwrapped to X, and whether it may be null."""
        if "$ref" in node:
            return self.resolved(self.root["$defs"][node["$ref"].rpartition("/")[2]])
        options = [option for option in node.get("anyOf", ()) if option.get("type") != "null"]
        if len(options) == 1:
            return self.resolved(options[0])[0], True
        return node, False

    def is_free(self, node: Mapping[str, Any]) -> bool:
        """Whether `node` holds another library's mapping (any key; merged key by key, all the way down)."""
        node = self.resolved(node)[0]
        return node is _ANY or (node.get("type") == "object" and node.get("additionalProperties", True) in (True, {}))

    def child(self, node: Mapping[str, Any], key: str | int) -> Mapping[str, Any] | None:
        """The schema of `key` inside `node` (None where `node` has no such key)."""
        node = self.resolved(node)[0]
        if "properties" in node:
            return typing.cast(Mapping[str, Any] | None, node["properties"].get(key))
        if self.is_free(node):
            return _ANY
        if node.get("type") == "object":
            return typing.cast(Mapping[str, Any], node["additionalProperties"])
        return typing.cast(Mapping[str, Any], node["items"]) if node.get("type") == "array" else None

    def at(self, location: Sequence[str | int]) -> Mapping[str, Any]:
        """The schema at a key path (anything, past a key the schema does not know)."""
        return functools.reduce(lambda node, key: self.child(node, key) or _ANY, location, typing.cast(Mapping[str, Any], self.root))

    def describe(self, node: Mapping[str, Any]) -> str:
        """What a value of `node` may be, in words."""
        node, nullable = self.resolved(node)
        kind = node.get("type")
        if "enum" in node:
            text = "one of " + ", ".join(repr(choice) for choice in node["enum"])
        elif "properties" in node:
            text = "a mapping with keys " + ", ".join(node["properties"])
        elif kind == "array":
            text = f"a list, each {self.describe(node['items'])}"
        elif kind == "object":
            text = "a mapping" if self.is_free(node) else f"a mapping of names, each to {self.describe(node['additionalProperties'])}"
        else:
            text = _TYPE_WORDS.get(str(kind), "a value")
            low, high = node.get("minimum"), node.get("maximum")
            if low is not None:
                text += f" from {low:g} to {high:g}" if high is not None else f" >= {low:g}"
            if "pattern" in node:
                text += f" matching {node['pattern']}"
        return text + " or null" if nullable else text

    def merged(self, base: Any, given: Any, node: Mapping[str, Any] | None = None, key: str = "") -> Any:
        """`given` merged onto `base` (plain data): a section or a free mapping merges key by key (a free
        mapping all the way down); anything else, lists and `opponents.weights` included, is replaced
        whole. An unknown key is kept, for the check to refuse."""
        node = self.resolved(self.root if node is None else node)[0]
        if isinstance(given, list) and node.get("type") == "array":
            return [self.merged(None, item, node["items"], f"{key}[{i}]") for i, item in enumerate(given)]
        if not isinstance(given, dict) or not ("properties" in node or self.is_free(node)):
            return copy.deepcopy(given)
        merged = dict(base) if isinstance(base, dict) else {}
        for name, value in given.items():
            child = self.child(node, name)
            merged[name] = copy.deepcopy(value) if child is None else self.merged(merged.get(name), value, child, _join(key, name))
        return merged

    def overridden(self, data: dict[str, Any], override: str) -> dict[str, Any]:
        """`data` with a `--set key=value` override applied. The value is read by the key's type (a
        string key takes the text as it is; anything else is read as YAML) and set as a file would set
        it; a dotted key reaches into any mapping, so `opponents.weights.pool=0` changes one weight."""
        key, sep, text = override.partition("=")
        if not sep:
            raise ConfigError(f"--set {override!r} is not key=value (e.g. --set ppo.learning_rate=1e-4)")
        parts, node = key.split("."), typing.cast(Mapping[str, Any], self.root)
        for depth, part in enumerate(parts):
            resolved = self.resolved(node)[0]
            child = self.child(node, part) if resolved.get("type") != "array" else None
            if child is None:
                if "properties" in resolved:
                    known = ", ".join(sorted(resolved["properties"]))
                    raise ConfigError(f"--set {override}: unknown key {'.'.join(parts[: depth + 1])!r}; known keys here: {known}")
                whole = ".".join(parts[:depth])
                raise ConfigError(f"--set {override}: {whole!r} has no keys; set it whole (--set {whole}=...)")
            node = child
        value = text if self.resolved(node)[0].get("type") == "string" else read_yaml(text, f"--set {override:.100}: ")

        def setting(held: Any, depth: int) -> Any:
            if depth == len(parts):
                return self.merged(held, value, node, key)
            held = dict(held) if isinstance(held, dict) else {}
            held[parts[depth]] = setting(held.get(parts[depth]), depth + 1)
            return held

        return typing.cast(dict[str, Any], setting(data, 0))

    def validated(self, data: Any, source: str = "") -> Any:
        """The config object `data` describes; ConfigError (prefixed by `source`) naming the first problem."""
        try:
            return self.adapter.validate_python(data)
        except ValidationError as error:
            raise ConfigError(f"{source}{self.problem(error.errors()[0], data)}") from None

    def problem(self, error: ErrorDetails, data: Any) -> str:
        """One of pydantic's errors as our message: the dotted key, the value, and what is allowed."""
        location, value = list(error["loc"]), error["input"]
        if "[key]" in location:  # a mapping's key that is not a name: the mapping is what is wrong
            location = location[: location.index("[key]") - 1]
            value = functools.reduce(lambda node, key: node[key], location, data)
        if error["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
            known = ", ".join(sorted(self.resolved(self.at(location[:-1]))[0].get("properties", {})))
            return f"unknown config key {_dotted(location)!r}; known keys here: {known}"
        if error["type"] in ("missing", "missing_argument"):
            return f"config key {_dotted(location)!r} is missing"
        cause = error.get("ctx", {}).get("error")
        if isinstance(cause, ConfigError):
            return str(cause)
        return f"config key {_dotted(location)!r} is {value!r:.80}; allowed: {self.describe(self.at(location))}"


_SCHEMAS: dict[type[Section], _Schema] = {}


def schema_of(kind: type[Section]) -> _Schema:
    """The config class's schema (built once)."""
    if kind not in _SCHEMAS:
        _SCHEMAS[kind] = _Schema(kind)
    return _SCHEMAS[kind]


def _join(key: str, name: object) -> str:
    return f"{key}.{name}" if key else str(name)


def _dotted(location: Sequence[str | int]) -> str:
    """A key path as the message names it: `tables[0].num_players`."""
    return "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in location).lstrip(".")
