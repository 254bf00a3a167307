"""MkDocs hooks: pages written from the code itself, so that they cannot drift from it.

A page asks for generated text with a line of its own, `<!-- generate: NAME [ARGUMENT] -->`; the
hook puts the text in its place before the page is rendered. Generators (`GENERATORS`):

- `docstring MODULE`: a module's docstring, as the env cards are (PettingZoo's docs do the same);
- `observation-layout`: Miaui's observation layout tables, read off `OBSERVATION_LAYOUT`;
- `config-keys selfplay|rllib`: every key of a run config, its default (configs/default.yaml,
  rllib.yaml), what it allows and its docstring, read off the typed config's JSON schema.

An unknown generator, or a module without a docstring, stops the build (`mkdocs build --strict`).
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

_MARKER = re.compile(r"^<!-- generate: ([\w-]+)(?: ([\w.|-]+))? -->$", flags=re.MULTILINE)


class GenerateError(ValueError):
    """A page asks for a generator that does not exist or cannot run."""


def docstring(module: str | None) -> str:
    """The docstring of `module`, dedented, as Markdown."""
    if not module:
        raise GenerateError("docstring needs a module name: <!-- generate: docstring miaui_env.envs.miaui -->")
    text = inspect.getdoc(importlib.import_module(module))
    if not text:
        raise GenerateError(f"{module} has no docstring to show")
    return text


def observation_layout(_: str | None = None) -> str:
    """Miaui's observation layout: the vector's pieces, then a seat row's."""
    from miaui_env.observe.observation import layout_tables

    return layout_tables()


def _keys(schema: Mapping[str, Any], node: Mapping[str, Any], prefix: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(dotted key, its schema) for every leaf key of a config section, sections walked into."""
    for name, field in node.get("properties", {}).items():
        key = f"{prefix}{name}"
        target = field
        if "$ref" in field:
            target = schema["$defs"][field["$ref"].rsplit("/", 1)[-1]]
        if target.get("properties"):
            yield from _keys(schema, target, f"{key}.")
        else:
            yield key, {**target, "description": field.get("description", target.get("description", ""))}


def _allowed(field: Mapping[str, Any]) -> str:
    """What a key allows, in a few words."""
    if "enum" in field:
        return " \\| ".join(f"`{value}`" for value in field["enum"])
    kind = field.get("type", "any")
    limits = (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<"))
    bounds = [f"{sign} {field[name]}" for name, sign in limits if name in field]
    words = {"array": "list", "object": "mapping (any keys)", "boolean": "bool"}
    return " ".join([words.get(kind, kind) if isinstance(kind, str) else "any", *bounds])


def _default(config: Any, key: str) -> str:
    """The shipped default of a dotted key, as YAML would write it."""
    from training.config import thaw

    value = thaw(config)
    for part in key.split("."):
        value = value[part]
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return f"{len(value)} table(s), see the config file"
    text = repr(value) if not isinstance(value, str) else value
    return f"`{text}`".replace("|", "\\|")


def config_keys(kind: str | None) -> str:
    """Every key of a run config (`selfplay` or `rllib`): key, default, allowed, meaning."""
    from training.config import RLlibConfig, SelfPlayConfig, json_schema

    classes = {"selfplay": SelfPlayConfig, "rllib": RLlibConfig}
    if kind not in classes:
        raise GenerateError(f"config-keys takes selfplay or rllib, got {kind!r}")
    config_class = classes[kind]
    schema = json_schema(config_class)
    defaults = config_class.load()
    rows = ["| key | default | allowed | meaning |", "|---|---|---|---|"]
    for key, field in _keys(schema, schema, ""):
        meaning = " ".join(field.get("description", "").split()).replace("|", "\\|")
        rows.append(f"| `{key}` | {_default(defaults, key)} | {_allowed(field)} | {meaning} |")
    return "\n".join(rows)


GENERATORS: dict[str, Callable[[str | None], str]] = {
    "docstring": docstring,
    "observation-layout": observation_layout,
    "config-keys": config_keys,
}


def expand(markdown: str, where: str = "a page") -> str:
    """`markdown` with every generate marker replaced by its generator's text."""

    def generated(match: re.Match[str]) -> str:
        name, argument = match.group(1), match.group(2)
        if name not in GENERATORS:
            raise GenerateError(f"{where}: no generator {name!r}; there are {', '.join(GENERATORS)}")
        return GENERATORS[name](argument)

    return _MARKER.sub(generated, markdown)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """MkDocs: fill in a page's generated parts before it is rendered."""
    return expand(markdown, page.file.src_path)
