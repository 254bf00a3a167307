"""A trained policy's network described by names, so that loading a checkpoint imports no path it saved.

Stable-Baselines3 saves a model's policy class and keyword arguments by pickling them, with the
module path each class had when the run was trained (a 0.1 run names `miaui_env.privileged`).
A checkpoint's metadata.json holds the same things by name instead:

    "policy": {"class": "PrivilegedCriticPolicy", "kwargs": {"net_arch": {"pi": [256, 256]}, "own_size": 620}}

`policy_spec(model)` writes that description, and `policy_objects(spec)` turns it back into the
class and arguments, which `load_sb3_policy` hands to SB3 (`custom_objects`) in place of the
pickled ones. A name is MaskablePPO's own policy class, a policy class or features extractor that a
registered game gives (each game's `Game.policy_classes` and `Game.features_extractors`, so a game
of one's own adds its networks where it registers), or a torch.nn activation. A description naming anything else is
refused (`PolicySpecError`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from miaui_env.core.registry import game_names, get_game

SB3_POLICY_CLASSES = {"MaskableActorCriticPolicy": "sb3_contrib.common.maskable.policies:MaskableActorCriticPolicy"}
"""The policy classes of the RL libraries themselves that a checkpoint may name (MaskablePPO's MlpPolicy)."""


def policy_classes() -> dict[str, str]:
    """Every policy class a checkpoint may name, "Name": "module:Name": SB3's and every registered game's own."""
    return _with_games(SB3_POLICY_CLASSES, "policy_classes")


def features_extractors() -> dict[str, str]:
    """Every features extractor a config or checkpoint may name, "Name": "module:Name": every registered game's own."""
    return _with_games({}, "features_extractors")


def _with_games(tables: Mapping[str, str], table: str) -> dict[str, str]:
    """`tables` and each registered game's `table` (`register` refuses a game that names a class another's names otherwise)."""
    named = dict(tables)
    for game in (get_game(name) for name in game_names()):
        named.update(getattr(game, table))
    return named


CLASS_KWARGS = ("features_extractor_class", "activation_fn")  # the keyword arguments that hold a class


class PolicySpecError(ValueError):
    """A policy description that names a class this library does not know, or cannot be written as names."""


def _named(tables: Mapping[str, str], name: object, what: str) -> type:
    if not isinstance(name, str) or name not in tables:
        raise PolicySpecError(f"{what}={name!r:.60} is not allowed; allowed: {', '.join(tables)}")
    module, _, attribute = tables[name].partition(":")
    found: type = getattr(importlib.import_module(module), attribute)
    return found


def policy_class(name: object) -> type:
    """The policy class named `name` (SB3's or a registered game's own); PolicySpecError for any other name."""
    return _named(policy_classes(), name, "policy")


def features_extractor(name: object) -> type:
    """The features extractor class named `name` (a registered game's own); PolicySpecError for any other name."""
    return _named(features_extractors(), name, "features_extractor_class")


def activation(name: object) -> type:
    """The torch.nn activation class named `name`; PolicySpecError for any other name."""
    import torch

    activations = torch.nn.modules.activation.__all__  # ReLU, Tanh, ...: torch's activation modules
    if not isinstance(name, str) or name not in activations:
        raise PolicySpecError(f"activation_fn={name!r:.60} is not allowed; it is one of torch.nn's activations (e.g. ReLU, Tanh)")
    found: type = getattr(torch.nn, name)
    return found


def _plain(value: Any, key: str) -> Any:
    """`value` as JSON data (tuples as lists); PolicySpecError for anything JSON cannot hold."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v, key) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, key) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise PolicySpecError(f"policy_kwargs.{key}={value!r:.60} cannot be written as a name or a number")


def policy_spec(policy_class: type, policy_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """A policy class and its keyword arguments as names and numbers (the module docstring's "policy")."""
    classes, extractors = policy_classes(), features_extractors()
    if policy_class.__name__ not in classes:
        raise PolicySpecError(f"policy class {policy_class.__name__!r} is not allowed; allowed: {', '.join(classes)}")
    kwargs: dict[str, Any] = {}
    for key, value in policy_kwargs.items():
        if key in CLASS_KWARGS and isinstance(value, type):
            if key == "features_extractor_class" and value.__name__ not in extractors:
                raise PolicySpecError(f"features extractor {value.__name__!r} is not allowed; allowed: {', '.join(extractors)}")
            if key == "activation_fn":
                activation(value.__name__)  # a run whose checkpoint could not be loaded by name fails here, at its start
            kwargs[key] = value.__name__
        else:
            kwargs[key] = _plain(value, key)
    return {"class": policy_class.__name__, "kwargs": kwargs}


def policy_objects(spec: object) -> dict[str, Any]:
    """SB3's `custom_objects` for a description: the policy class and its keyword arguments, built from names."""
    if not isinstance(spec, Mapping) or set(spec) != {"class", "kwargs"} or not isinstance(spec["kwargs"], Mapping):
        raise PolicySpecError(
            f"policy={spec!r:.80} is not allowed; it is {{'class': a policy class name, 'kwargs': its keyword arguments}}"
        )
    kwargs = dict(spec["kwargs"])
    if "features_extractor_class" in kwargs:
        kwargs["features_extractor_class"] = features_extractor(kwargs["features_extractor_class"])
    if "activation_fn" in kwargs:
        kwargs["activation_fn"] = activation(kwargs["activation_fn"])
    return {"policy_class": _named(policy_classes(), spec["class"], "policy class"), "policy_kwargs": kwargs}
