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

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
DEFAULT_CONFIG = CONFIG_DIR / "default.yaml"


class ConfigError(ValueError):
    """A config file or override that does not fit the schema of configs/default.yaml."""


def load_config(path: Path | str | None = None, overrides: list[str] | None = None) -> dict[str, Any]:
    """The config at `path` (default.yaml if None), on top of default.yaml's keys, with overrides."""
    defaults = yaml.safe_load(DEFAULT_CONFIG.read_text())
    config = copy.deepcopy(defaults)
    if path is not None:
        given = yaml.safe_load(Path(path).read_text()) or {}
        _merge(config, given, defaults, "")
    for override in overrides or []:
        key, sep, text = override.partition("=")
        if not sep:
            raise ConfigError(f"--set {override!r} is not key=value (e.g. --set ppo.learning_rate=1e-4)")
        value = _parse_value(text)
        target, allowed = config, defaults
        *parents, last = key.split(".")
        for part in parents:
            if not isinstance(allowed, dict) or part not in allowed:
                raise ConfigError(f"--set {key}: no such section {part!r}")
            target, allowed = target[part], allowed[part]
        if last not in allowed and not _open_section(parents):
            raise ConfigError(f"--set {key}: unknown key {last!r}; known keys here: {', '.join(sorted(allowed))}")
        target[last] = value
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


def _open_section(path: list[str]) -> bool:
    """Sections whose keys are free: MaskablePPO's kwargs and the opponent weights."""
    return bool(path) and path[0] in ("ppo", "opponents") and (path[0] == "ppo" or path[-1] == "weights")


def _merge(config: dict, given: dict, defaults: dict, where: str) -> None:
    for key, value in given.items():
        if key not in defaults and not _open_section(where.split(".")[1:] if where else []):
            raise ConfigError(f"unknown config key {where + key!r}; known keys: {', '.join(sorted(defaults))}")
        # Sections merge key by key (so a partial `ppo:` keeps the other defaults); opponent weights
        # are replaced whole, so that leaving an opponent out leaves it out.
        if isinstance(value, dict) and isinstance(defaults.get(key), dict) and key != "weights":
            _merge(config[key], value, defaults[key], f"{where}{key}.")
        else:
            config[key] = value


def dump_config(config: dict[str, Any]) -> str:
    """The resolved config as YAML text."""
    return yaml.safe_dump(config, sort_keys=False)
