"""Run configs: YAML files whose keys are the library's own, with `--set key=value` overrides.

Every setting of a self-play run lives in the YAML (see configs/default.yaml, which documents each
key). The `ppo` section is passed to sb3-contrib's MaskablePPO as keyword arguments, spelled as it
takes them. A `--set` override uses dotted keys (`ppo.learning_rate=1e-4`) and YAML values.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent  # the repository: configs/ and checkpoints/ live here
CONFIG_DIR = ROOT / "configs"
DEFAULT_CONFIG = CONFIG_DIR / "default.yaml"


class ConfigError(ValueError):
    """A config file or override that does not fit the schema of configs/default.yaml."""


# Sections whose keys are another library's keyword arguments: any key is allowed there.
SB3_KWARG_SECTIONS = ("ppo",)


def load_config(
    path: Path | str | None = None,
    overrides: list[str] | None = None,
    defaults_file: Path = DEFAULT_CONFIG,
    kwarg_sections: tuple[str, ...] = SB3_KWARG_SECTIONS,
) -> dict[str, Any]:
    """The config at `path` merged onto `defaults_file`'s keys, then the `--set` overrides.

    Unknown keys are refused, listing the known ones, except inside `kwarg_sections` (passed to a
    library as keyword arguments). Sections merge key by key; a `weights` mapping is replaced
    whole, so that leaving an opponent out leaves it out.
    """
    defaults = yaml.safe_load(defaults_file.read_text())
    config = copy.deepcopy(defaults)
    if path is not None:
        _merge(config, yaml.safe_load(Path(path).read_text()) or {}, defaults, [], kwarg_sections)
    for override in overrides or []:
        key, sep, text = override.partition("=")
        if not sep:
            raise ConfigError(f"--set {override!r} is not key=value (e.g. --set ppo.learning_rate=1e-4)")
        *parents, last = key.split(".")
        target, allowed = config, defaults
        for part in parents:
            if not isinstance(allowed, dict) or part not in allowed:
                raise ConfigError(f"--set {key}: no such section {part!r}")
            target, allowed = target[part], allowed[part]
        if last not in allowed and not _free(parents, kwarg_sections):
            raise ConfigError(f"--set {key}: unknown key {last!r}; known keys here: {', '.join(sorted(allowed))}")
        target[last] = _parse_value(text)
    return config


def _parse_value(text: str) -> Any:
    """A YAML value; numbers YAML 1.1 leaves as strings (`1e-4`) are read as numbers."""
    value = yaml.safe_load(text)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def _free(path: list[str], kwarg_sections: tuple[str, ...]) -> bool:
    """Whether any key is allowed in the section at `path` (a kwargs section, or opponent weights)."""
    return path[:1] in [[name] for name in kwarg_sections] or path[-1:] == ["weights"]


def _merge(config: dict, given: dict, defaults: dict, path: list[str], kwarg_sections: tuple[str, ...]) -> None:
    for key, value in given.items():
        if key not in defaults and not _free(path, kwarg_sections):
            raise ConfigError(f"unknown config key {'.'.join([*path, key])!r}; known keys: {', '.join(sorted(defaults))}")
        if isinstance(value, dict) and isinstance(defaults.get(key), dict) and key != "weights":
            _merge(config[key], value, defaults[key], [*path, key], kwarg_sections)
        else:
            config[key] = value


def dump_config(config: dict[str, Any]) -> str:
    """The resolved config as YAML text."""
    return yaml.safe_dump(config, sort_keys=False)
