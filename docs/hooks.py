"""MkDocs hooks: pages written from the code itself, so that they cannot drift from it.

A page asks for generated text with a line of its own, `<!-- generate: NAME [ARGUMENT] -->`; the
hook puts the text in its place before the page is rendered. Generators (`GENERATORS`):

- `docstring MODULE`: a module's docstring, as the env cards are (PettingZoo's docs do the same;
  the Miaui and octopus env docstrings hold their observation layout tables, which tests check
  against the layouts themselves);
- `config-keys selfplay|rllib|octopus`: every key of a run config, its default (configs/default.yaml,
  rllib.yaml, octopus.yaml), what it allows and its docstring, read off the typed config's JSON schema;
- `policy-evaluations NAME`: a shipped policy's last arena evaluation and its exploitability, read
  off `checkpoints/NAME/metadata.json`.

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
        raise GenerateError("docstring needs a module name: <!-- generate: docstring miaui_env.games.miaui.env -->")
    text = inspect.getdoc(importlib.import_module(module))
    if not text:
        raise GenerateError(f"{module} has no docstring to show")
    return text


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
    bounds = [
        f"{sign} {field[name]:,}" if isinstance(field[name], int) else f"{sign} {field[name]}" for name, sign in limits if name in field
    ]
    words = {"array": "list", "object": "mapping (any keys)", "boolean": "bool"}
    return " ".join([words.get(kind, kind) if isinstance(kind, str) else "any", *bounds])


def _default(config: Any, key: str) -> str:
    """The shipped default of a dotted key, as YAML would write it."""
    from training.config_files import thaw

    value = thaw(config)
    for part in key.split("."):
        value = value[part]
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return f"{len(value)} table(s), see the config file"
    text = repr(value) if not isinstance(value, str) else value
    return f"`{text}`".replace("|", "\\|")


def config_keys(kind: str | None) -> str:
    """Every key of a run config (`selfplay` or `rllib`): key, default, allowed, meaning."""
    from training.config import MiauiRLlibConfig, MiauiSelfPlayConfig, OctopusSelfPlayConfig, json_schema

    classes = {"selfplay": (MiauiSelfPlayConfig, None), "rllib": (MiauiRLlibConfig, None), "octopus": (OctopusSelfPlayConfig, "octopus")}
    if kind not in classes:
        raise GenerateError(f"config-keys takes selfplay, rllib or octopus, got {kind!r}")
    config_class, game = classes[kind]
    schema = json_schema(config_class)
    defaults = config_class.load(game=game)  # None: the class's own game (Miaui)
    rows = ["| key | default | allowed | meaning |", "|---|---|---|---|"]
    for key, field in _keys(schema, schema, ""):
        meaning = " ".join(field.get("description", "").split()).replace("|", "\\|")
        rows.append(f"| `{key}` | {_default(defaults, key)} | {_allowed(field)} | {meaning} |")
    return "\n".join(rows)


def policy_evaluations(name: str | None) -> str:
    """A shipped policy's last evaluation rows (baseline, variant, win share ± CI) and its probe."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "checkpoints" / (name or "") / "metadata.json"
    if not name or not path.is_file():
        raise GenerateError(f"policy-evaluations needs a shipped policy with a metadata.json, got {name!r}")
    metadata = json.loads(path.read_text())
    evaluations = metadata.get("evaluations") or []
    if not evaluations:
        raise GenerateError(f"{path} holds no evaluations")
    step = max(row["step"] for row in evaluations)
    rows = [
        f"At its last evaluation, after {step:,} learner steps (`metadata.json`, `evaluations`):",
        "",
        "| baseline | variant | win share ± 95% CI | games |",
        "|---|---|---|---|",
    ]
    for row in (row for row in evaluations if row["step"] == step):
        share = f"{row['win_share']:.3f} ± {row['win_share_ci']:.3f}"
        rows.append(f"| `{row['baseline']}` | {row.get('variant', 'base')} | {share} | {row['games']:,} |")
    probe = metadata.get("exploitability")
    if probe:
        rows += [
            "",
            f"Exploitability (`metadata.json`, `exploitability`): a best response trained {probe['steps']:,} steps at "
            f"{probe['players']} players wins {probe['win_share']:.3f} ± {probe['win_share_ci']:.3f} over {probe['games']:,} games, "
            f"a gain of {probe['gain']:+.3f} ± {probe['gain_ci']:.3f} over the fair share.",
        ]
    return "\n".join(rows)


GENERATORS: dict[str, Callable[[str | None], str]] = {
    "docstring": docstring,
    "config-keys": config_keys,
    "policy-evaluations": policy_evaluations,
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
