"""Config files: where the shipped configs are, and YAML 1.2 read and written safely.

Run configs (training/config.py) are read from YAML: `read_yaml` refuses text that is not YAML, a key
given twice in one mapping, a tag a safe loader does not build and nesting deeper than
MAX_CONFIG_DEPTH; `write_yaml` writes YAML 1.2 that YAML 1.1 readers (PyYAML) read the same. The
configs are found in `CONFIG_DIR`: the installed package's copy (training/configs/, which a wheel
carries), else the checkout's configs/ (`config_file` looks a name up there). New runs go to
`ROOT`/checkpoints/<run_name>: the checkout, or, installed from a wheel, the current directory.
"""

from __future__ import annotations

import dataclasses
import io
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.representer import SafeRepresenter
from ruamel.yaml.resolver import VersionedResolver

from miaui_env.core.files import read_bounded

CHECKOUT = Path(__file__).resolve().parent.parent  # the repository, or site-packages when installed
ROOT = CHECKOUT if (CHECKOUT / "pyproject.toml").is_file() else Path.cwd()  # its checkpoints/ holds new runs


def _shipped_configs() -> Path:
    """The installed package's configs (a wheel carries configs/ as training/configs/), else the checkout's."""
    packaged = resources.files("training") / "configs"
    return packaged if isinstance(packaged, Path) and packaged.is_dir() else CHECKOUT / "configs"


CONFIG_DIR = _shipped_configs()
DEFAULT_CONFIG = CONFIG_DIR / "default.yaml"
RLLIB_CONFIG = CONFIG_DIR / "rllib.yaml"


class ConfigError(ValueError):
    """A config file or override that does not fit the schema of the run config."""


# -- YAML ---------------------------------------------------------------------------------------
_YAML_1_1 = VersionedResolver(version=(1, 1))


class _Representer(SafeRepresenter):
    """Writes YAML 1.2 that YAML 1.1 readers (PyYAML) read the same: a float with a dot (`3.0e-05`; 1.1
    reads `3e-05` as text), and a string that 1.1 reads otherwise (`yes`, `on`) quoted."""

    def represent_str(self, data: str) -> ScalarNode:
        """A string, quoted where YAML 1.1 would read something else."""
        plain = _YAML_1_1.resolve(ScalarNode, data, (True, False)) == "tag:yaml.org,2002:str"
        return self.represent_scalar("tag:yaml.org,2002:str", data, style=None if plain else "'")

    def represent_float(self, data: float) -> ScalarNode:
        """A float with a dot in its mantissa."""
        node = super().represent_float(data)
        node.value = re.sub(r"^([-+]?[0-9]+)e", r"\1.0e", node.value)
        return node


_Representer.add_representer(str, _Representer.represent_str)
_Representer.add_representer(float, _Representer.represent_float)


def _yaml() -> YAML:
    """A safe YAML 1.2 reader and writer (block style; duplicate keys refused)."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Representer = _Representer
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]  # keys in the schema's order
    return yaml


MAX_CONFIG_BYTES = 1 << 20  # a config is a few kilobytes
MAX_CONFIG_DEPTH = 16  # the deepest a config nests: ppo.policy_kwargs.net_arch.pi is 4 levels


def read_config_text(path: Path) -> str:
    """The text of the config file at `path`, at most MAX_CONFIG_BYTES of UTF-8 (ConfigError otherwise)."""
    data = read_bounded(path, MAX_CONFIG_BYTES, ConfigError, "a config")
    try:
        return data.decode()
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not a YAML text file (not UTF-8: {error.reason} at byte {error.start})") from None


def read_yaml(text: str, source: str = "") -> Any:
    """YAML 1.2 text as plain data; ConfigError (naming `source` and the line) for text that is not
    YAML, a key given twice in one mapping, a tag a safe loader does not build, or nesting deeper
    than MAX_CONFIG_DEPTH."""
    try:
        data = _yaml().load(text)
    except YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        raise ConfigError(f"{source}not valid YAML{line}: {getattr(error, 'problem', None) or error}") from None
    except RecursionError:
        raise ConfigError(f"{source}nests deeper than a config can (at most {MAX_CONFIG_DEPTH} levels)") from None
    except ValueError as error:  # Python's own limit on the digits of an integer literal
        raise ConfigError(f"{source}not a config: {error}") from None
    if _depth(data) > MAX_CONFIG_DEPTH:
        raise ConfigError(f"{source}nests deeper than a config can (at most {MAX_CONFIG_DEPTH} levels)")
    return data


def _depth(data: Any, limit: int = MAX_CONFIG_DEPTH + 1) -> int:
    """How deep `data` nests (a scalar: 0), counted no further than `limit`."""
    if limit == 0 or not isinstance(data, dict | list):
        return 0
    items = data.values() if isinstance(data, dict) else data
    return 1 + max((_depth(item, limit - 1) for item in items), default=0)


def write_yaml(data: Any) -> str:
    """Plain data as YAML 1.2 that YAML 1.1 readers read the same."""
    text = io.StringIO()
    _yaml().dump(data, text)
    return text.getvalue()


def config_file(path: Path | str) -> Path:
    """`path` if it is a file, else the shipped config of that name (`smoke.yaml` or `smoke`, in `CONFIG_DIR`)."""
    given = Path(path)
    if given.is_file():
        return given
    if given.is_dir():
        raise ConfigError(f"config file {str(path)!r} is a folder; a config is a YAML file")
    if given.exists():  # /dev/null, a pipe, a device
        raise ConfigError(f"config file {str(path)!r} is not a regular file (a device, a pipe or a socket); a config is a YAML file")
    shipped = CONFIG_DIR / (given.name if given.suffix == ".yaml" else f"{given.name}.yaml")
    if given.parent == Path() and shipped.is_file():
        return shipped
    names = ", ".join(sorted(file.stem for file in CONFIG_DIR.glob("*.yaml")))
    raise ConfigError(f"config file {str(path)!r} does not exist (the shipped configs, by name: {names})")


def thaw(value: Any) -> Any:
    """Plain, mutable data from config values (sections and read-only mappings to dicts, tuples to
    lists), e.g. to pass a free section to a library as keyword arguments."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: thaw(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(item) for item in value]
    return value
