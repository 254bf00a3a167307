"""What every game's page in the browser app shares: the app's refusal (`WebError`, an HTTP 4xx
with its message), the opponents a page offers, and the checks of a request's numbers.

Miaui's page is `miaui_env.games.miaui.web`, the octopus game's `miaui_env.games.octopus.web`; the
app (`miaui_env.apps.web`) serves both. Nothing here loads Flask.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

HUMAN = "human"  # the person's seat in a saved replay's `players`
MAX_INT_DIGITS = 20  # 2**64 has 20 digits: every integer the app reads fits


class WebError(ValueError):
    """A request the app refuses: the message is shown on the page, with an HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class AgentChoice:
    """An opponent the server offers: the agent spec it loads, and a line for the page."""

    name: str
    about: str
    needs_training_extra: bool = False
    """Whether loading it needs torch and sb3-contrib (`TRAINING_INSTALL`): the shipped policies do."""


def training_extra_installed() -> bool:
    """Whether torch and sb3-contrib, which the shipped policies need, can be imported."""
    return all(importlib.util.find_spec(package) is not None for package in ("torch", "sb3_contrib"))


def checked_int(value: Any, name: str, low: int, high: int) -> int:
    """`value` if it is an int from `low` to `high` (a bool is not); WebError naming `name` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise WebError(f"{name}={value!r:.40} is not allowed: an integer from {low} to {high}")
    return value


def checked_seat(seat: Any, num_players: int) -> int | None:
    """A seat to watch from (None: the spectator); WebError naming the seats otherwise."""
    return None if seat is None else checked_int(seat, "seat", 0, num_players - 1)


def checked_bool(value: Any, name: str) -> bool:
    """`value` if it is true or false; WebError naming `name` otherwise."""
    if not isinstance(value, bool):
        raise WebError(f"{name}={value!r:.40} is not allowed: true or false")
    return value


def checked_object(body: Any, fields: Sequence[str], what: str) -> Mapping[str, Any]:
    """`body` if it is a JSON object of `fields` only (any may be missing); WebError naming `what` and the first unknown field otherwise."""
    if not isinstance(body, dict):
        raise WebError(f"{what} is a JSON object with the fields {', '.join(fields)}; got {type(body).__name__}")
    unknown = sorted(set(body) - set(fields))
    if unknown:
        raise WebError(f"{what}: unknown field {unknown[0]!r:.40}; the fields are {', '.join(fields)}")
    return body
