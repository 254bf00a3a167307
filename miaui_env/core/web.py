"""What every game's page in the browser app shares: the protocol through which the app serves a
game (`GameWeb`, a game's registry part `web`, and the person's game it starts, `WebGame`), the
app's refusal (`WebError`, an HTTP 4xx with its message), the opponents a page offers, and the
checks of a request's numbers.

Miaui's `web` part is `miaui_env.games.miaui.web`, the octopus game's `miaui_env.games.octopus.web`;
a game that gives none gets the generic page (`miaui_env.apps.web.any_game`), built from its AEC env
and its `words`. The app (`miaui_env.apps.web`) serves every game through this protocol, finding
the game by name in the registry. Nothing here loads Flask.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from miaui_env.core.replays import ReplayError

HUMAN = "human"  # the person's seat in a saved replay's `players`
MAX_INT_DIGITS = 20  # 2**64 has 20 digits: every integer the app reads fits
DECISION_FIELDS = ("action", "step")  # a decision's request body, where a game's page decides by action (`decision_request`)


def save_web_replay(save: Callable[[Any, Path], Path], replay: Any, folder: Path | None, game_id: str) -> tuple[Path | None, str | None]:
    """A finished page game's replay written by its game's `save` into `folder` as
    web-<time>-<id>.json: (its path, None), or (None, why it was not saved); (None, None) where
    `folder` is None (the app saves no replays). The game is over all the same, and its page says why."""
    if folder is None:
        return None, None
    path = folder / f"web-{time.strftime('%Y%m%d-%H%M%S')}-{game_id[:6]}.json"
    try:
        return save(replay, path), None
    except ReplayError as error:  # every game's save_replay says so of a path it cannot write (core.replays)
        return None, f"the replay could not be saved: {error}"
    except OSError as error:
        return None, f"the replay could not be saved to {path}: {error.strerror or error}"


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


def offered_agents(builtin: Iterable[AgentChoice], policies: Callable[[], Iterable[AgentChoice]]) -> tuple[AgentChoice, ...]:
    """The opponents a page offers: its `builtin` agents and, where the training extra is installed,
    its shipped policies' (`policies()` lists them, installed or not). A request can name only these."""
    return (*builtin, *policies()) if training_extra_installed() else tuple(builtin)


def missing_agents(menu: Sequence[AgentChoice], policies: Iterable[AgentChoice]) -> list[str]:
    """The shipped policies' opponents (`policies`) that `menu` lacks: what the training extra would bring."""
    offered = {choice.name for choice in menu}
    return [choice.name for choice in policies if choice.name not in offered]


def no_agents_game(title: str, name: str) -> WebError:
    """The refusal (404) of a game of agents alone, of the game `name` whose page offers none."""
    return WebError(f"{title} has no game of agents alone to watch here: watch a saved replay (POST /api/{name}/watch)", 404)


def checked_int(value: Any, name: str, low: int, high: int) -> int:
    """`value` if it is an int from `low` to `high` (a bool is not); WebError naming `name` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise WebError(f"{name}={value!r:.40} is not allowed: an integer from {low} to {high}")
    return value


def checked_agents(chosen: Any, key: str, count: int, menu: Sequence[AgentChoice], each: str, kind: str = "agent") -> list[str]:
    """`chosen`, the request's `key`: a list of `count` names of agents in `menu` (one for `each`
    seat); WebError naming what is wrong otherwise."""
    if not isinstance(chosen, list) or len(chosen) != count:
        raise WebError(f"{key}={chosen!r:.60}: a list of {count} {kind} names, one for each {each}")
    names = [choice.name for choice in menu]
    for name in chosen:
        if not isinstance(name, str) or name not in names:
            raise WebError(f"{kind} {name!r:.60} is not offered here; choose from {', '.join(names)}")
    return list(chosen)


def agents_by_seat(opponents: Sequence[str], seat: int) -> tuple[str | None, ...]:
    """Every seat's agent: None at the person's `seat`, the `opponents` clockwise from the person's left."""
    n = len(opponents) + 1
    return tuple(None if s == seat else opponents[(s - seat - 1) % n] for s in range(n))


def seated_opponents(
    body: Mapping[str, Any], num_players: int, default: list[str] | None, menu: Sequence[AgentChoice], kind: str = "agent"
) -> tuple[str | None, ...]:
    """Every seat's agent in a person's new game, as its request `body` asks (`agents_by_seat`): its
    `opponents`, one agent of `menu` for each other seat clockwise from the person's `seat` (default:
    `default`); WebError naming what is wrong otherwise."""
    seat = checked_int(body.get("seat", 0), "seat", 0, num_players - 1)
    chosen = checked_agents(body.get("opponents", default), "opponents", num_players - 1, menu, "other seat", kind)
    return agents_by_seat(chosen, seat)


def checked_seed(seed: Any, highest: int) -> int | None:
    """The deal's seed a request names: None (a fresh one), or an integer from 0 to `highest`, also
    written as a string of digits (a page's JavaScript numbers round integers above 2**53)."""
    if isinstance(seed, str) and seed.isascii() and seed.isdigit() and len(seed) <= MAX_INT_DIGITS:
        seed = int(seed)
    return None if seed is None else checked_int(seed, "seed", 0, highest)


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


def decision_request(body: Any, action: str) -> tuple[Any, Any]:
    """The action and the step a decision's request body names, `{"action": ..., "step": optional,
    the decisions made so far}` (`action` says what the action is); WebError otherwise."""
    if not isinstance(body, dict) or "action" not in body or set(body) - set(DECISION_FIELDS):
        shape = f"{{'action': {action}, 'step': optional, the decisions made so far}}"
        raise WebError(f"a decision is a JSON object {shape}; got {body!r:.60}")
    return body["action"], body.get("step")


def checked_decision(action: Any, step: Any, made: int, legal: Mapping[int, str], actions: int | None = None) -> int:
    """`action` if it is one of the `legal` actions (each with its words) and `step` is None or `made`,
    the decisions made so far; WebError naming what is wrong otherwise (409 for a decision no longer
    asked). With `actions` (how many there are), an integer outside them is no action at all."""
    allowed = "; ".join(f"{choice} ({words})" for choice, words in legal.items())
    if isinstance(action, bool) or not isinstance(action, int) or (actions is not None and not 0 <= action < actions):
        raise WebError(f"action={action!r:.40} is not an action: the legal actions are {allowed}")
    if step is not None and (isinstance(step, bool) or not isinstance(step, int) or step < 0):
        raise WebError(f"step={step!r:.40} is not allowed: the decisions made so far, an integer >= 0 (the game is at step {made})")
    if step is not None and step != made:
        raise WebError(f"step={step!r:.40} is not the decision being asked: the game is at step {made}", 409)
    if action not in legal:
        raise WebError(f"action {action} is not legal now: the legal actions are {allowed}")
    return action


# -- the protocol a game's page follows ------------------------------------------------------------
class WebGame(Protocol):
    """A person's game against agents in the browser app, of any game: what the app keeps (its id,
    its agents, cleared when it ends) and what its routes ask of it."""

    id: str
    agents: dict[int, Any]
    replay: Any
    """The finished game's replay, in the game's own format (its `GameWeb` writes it as JSON); None before the end."""

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        ...

    def page(self) -> dict[str, Any]:
        """What the person's page shows now, as JSON: only what their seat may see."""
        ...

    def decide(self, body: Any, replays: Path | None) -> None:
        """The person's decision, as the request body gives it, then the agents' until the person
        decides again; WebError naming what is wrong (409 for a decision no longer asked), nothing
        changed. The finished game is saved as a replay in the folder `replays` (None: not saved)."""
        ...


class AgentsGame(Protocol):
    """A game of agents alone, asked for and checked, not yet played."""

    @property
    def num_players(self) -> int:
        """Its table size (the seats a watcher may view it from)."""
        ...

    def play(self) -> Any:
        """Play it through (seconds, with a search agent); its replay."""
        ...


class GameWeb(Protocol):
    """How the browser app serves one game (the registry's `web` part gives one): its page, its
    opponents, its new games and decisions, its replays. Every request body a method reads is
    refused with WebError (a 4xx) naming the bad value and what is allowed."""

    page: str
    """The page's HTML file, served at `/<game>`: in `static_folder`, else one of the app's own templates (`templates/`)."""
    static_folder: Path | None
    """A folder of the game's own page files (`/<game>/static/<file>`); None: the page is one of the app's."""
    replays_folder: str
    """The folder under the app's replays folder its finished games are saved in, which its replay
    shelf lists too: its name, or "" for the replays folder itself (Miaui's, from before the second game)."""
    plays_agents_alone: bool
    """Whether it offers a game of agents alone to watch (`agents_game`)."""

    def menu(self) -> tuple[AgentChoice, ...]:
        """The opponents a page may choose (a request can name only these: never a path)."""
        ...

    def missing_opponents(self, menu: Sequence[AgentChoice]) -> list[str]:
        """The opponents it would offer with the training extra installed, which `menu` lacks."""
        ...

    def new_game(self, body: Any, menu: Sequence[AgentChoice]) -> Any:
        """The table a new game's request body asks for, checked (nothing dealt, no agent loaded)."""
        ...

    def start(self, choice: Any) -> WebGame:
        """The person's game for a checked choice, dealt and played on to their first decision."""
        ...

    def agents_game(self, body: Any, menu: Sequence[AgentChoice]) -> AgentsGame:
        """The game of agents alone a request body asks for, checked (only where `plays_agents_alone`)."""
        ...

    def replay_from_json(self, text: str) -> Any:
        """A replay file's text, read and checked (a ReplayError naming what is wrong)."""
        ...

    def replay_to_json(self, replay: Any) -> str:
        """A replay as its file's text."""
        ...

    def frames(self, replay: Any, seat: Any) -> dict[str, Any]:
        """A replay as the page steps through it, seen from `seat` (None: the game's default), as
        JSON: at least its `players` and its `frames`; WebError for a seat not at its table."""
        ...
