"""The browser app's page of any registered game that gives no `web` part of its own (the registry's
generic `web` part): played through its PettingZoo AEC env, put in words by its `words` part (a
`GameWords`), without the web framework.

The page (`templates/game.html`, `static/game.js`) is plain text: a person's seat view in the game's words
(`GameWords.seat_view`, nothing hidden from the seat), their legal actions as buttons labelled with
each action's words, and a log of the decisions. An agent's decision is logged as who decided and
what the person's view showed change, never as the action itself: the generic page cannot know
which actions the rules show (a sealed bid is face down until the round's bids are turned over).
The person's own decisions, and every decision in a replay watched as the spectator, are told in
words. A finished game is a generic replay (`miaui_env.apps.any_game`: the seed and every decision),
saved under the app's replays folder in `<game>/`.

A game without words gets a 404 saying so: `any_game_web` is where the app learns it.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.apps.any_game import (
    Table,
    load_agents,
    play_back,
    record,
    replay_from_json,
    replay_to_json,
    save_replay,
    table_view,
)
from miaui_env.apps.web.games import MAX_SEED
from miaui_env.core.agents import Agent, agent_name, checked_actions
from miaui_env.core.errors import InvalidConfigError
from miaui_env.core.registry import Game, GameWords
from miaui_env.core.web import (
    HUMAN,
    AgentChoice,
    AgentsGame,
    WebError,
    checked_decision,
    checked_int,
    checked_object,
    checked_seat,
    checked_seed,
    decision_request,
    missing_agents,
    no_agents_game,
    offered_agents,
    save_web_replay,
    seated_opponents,
)

NEW_GAME_FIELDS = ("num_players", "seat", "opponents", "view", "seed")


def any_game_web(game: Game) -> AnyGameWeb:
    """The generic page of `game` (the registry's generic `web` part); WebError (404) if the game
    gives no `words` part, which the page needs to put its table and actions in words."""
    if "words" not in game.parts:
        raise WebError(
            f"{game.title} has no page here: the generic page shows a game in the words of its `words` part "
            "(a GameWords: its rules in short, a seat's view, an action), which it does not give; "
            "give the game a `words` part, or a `web` part of its own (docs/guides/games.md)",
            404,
        )
    return AnyGameWeb(game, game.part("words"))


@dataclass(frozen=True)
class AnyGameChoice:
    """A table of a game from the page: its size, the agents by seat (None: the person's seat), the
    view every seat is dealt (None: the one the agents play from, else the game's first) and the
    deal's seed (None: a fresh one)."""

    num_players: int
    agents: tuple[str | None, ...]
    view: str | None = None
    seed: int | None = None


class AnyGameWeb:
    """A game in the browser app through its AEC env and its words (`miaui_env.core.web.GameWeb`)."""

    page = "game.html"
    static_folder: Path | None = None
    plays_agents_alone = False

    def __init__(self, game: Game, words: GameWords):
        self.game, self.words = game, words
        self.replays_folder = game.name  # a folder of its own under the replays folder: its shelf lists it

    def menu(self) -> tuple[AgentChoice, ...]:
        """Its built-in agents and, where the training extra is installed, its shipped policies."""
        builtin = [AgentChoice(name, f"a built-in agent of {self.game.title}") for name in self.game.agent_names()]
        return offered_agents(builtin, self._policy_choices)

    def _policy_choices(self) -> list[AgentChoice]:
        return [AgentChoice(policy, f"the shipped policy {policy}", True) for policy in self.game.shipped_policies()]

    def missing_opponents(self, menu: Sequence[AgentChoice]) -> list[str]:
        """Its shipped policies the training extra would bring."""
        return missing_agents(menu, self._policy_choices())

    def new_game(self, body: Any, menu: Sequence[AgentChoice]) -> AnyGameChoice:
        """The table a request body asks for: `opponents` lists one agent for each other seat,
        clockwise from the person's left (default: the game's terminal opponents, cycled)."""
        game = self.game
        body = checked_object(body, NEW_GAME_FIELDS, f"a new {game.title} game")
        n = checked_int(body.get("num_players", game.default_players), "num_players", game.min_players, game.max_players)
        default = [game.play_opponents[k % len(game.play_opponents)] for k in range(n - 1)] if game.play_opponents else None
        agents = seated_opponents(body, n, default, menu)
        view = body.get("view")
        if view is not None and view not in game.views:
            raise WebError(f"view={view!r:.40} is not allowed: {' or '.join(game.views)}")
        seed = body.get("seed")
        return AnyGameChoice(n, agents, view, checked_seed(seed, MAX_SEED - 1))

    def start(self, choice: AnyGameChoice) -> AnyHumanGame:
        """The person's game, dealt (a fresh seed when none was chosen) and played on to their first decision."""
        seed = choice.seed if choice.seed is not None else secrets.randbelow(MAX_SEED)
        seats = [s for s, name in enumerate(choice.agents) if name is not None]
        loaded = load_agents(self.game, [name for name in choice.agents if name is not None], seed)
        try:
            view = table_view(self.game, loaded, choice.view)
        except InvalidConfigError as refused:  # an agent that plays from another view than the one asked
            raise WebError(str(refused)) from None
        return AnyHumanGame(self.game, self.words, dict(zip(seats, loaded, strict=True)), view, seed)

    def agents_game(self, body: Any, menu: Sequence[AgentChoice]) -> AgentsGame:
        """None here: the generic page watches replays, not fresh games of agents."""
        raise no_agents_game(self.game.title, self.game.name)

    def replay_from_json(self, text: str) -> dict[str, Any]:
        """A generic replay of the game (`miaui_env.apps.any_game`), its decisions played back."""
        return replay_from_json(self.game, text)

    def replay_to_json(self, replay: dict[str, Any]) -> str:
        """A generic replay's file text."""
        return replay_to_json(replay)

    def frames(self, replay: dict[str, Any], seat: Any) -> dict[str, Any]:
        """The replay as the page steps through it: after the deal and after every decision, the
        spectator's table (`seat` None: the env's `ansi` render, every decision in words) or `seat`'s
        view in words (its own decisions in words, the others' as who decided), and the result."""
        n, players = replay["num_players"], replay["players"]
        chosen = checked_seat(seat, n)
        views: list[list[str]] = []
        moves: list[str] = []

        def seen(env: Any) -> list[str]:
            if chosen is None:
                return str(env.render()).splitlines()
            return [str(line) for line in self.words.seat_view(env, env.possible_agents[chosen])]

        def before(env: Any, agent: str, action: int) -> None:
            views.append(seen(env))
            mover = env.possible_agents.index(agent)
            told = chosen is None or mover == chosen
            moves.append(f"player_{mover} ({players[mover]}) {f'decides: {self.words.action(action)}' if told else 'decides'}")

        views.append(seen(play_back(self.game, replay, before).env))
        frames = [{"step": k, "lines": lines, "move": moves[k - 1] if k else None} for k, lines in enumerate(views)]
        final = {"scores": replay["scores"], "winners": [s for s, won in enumerate(replay["winners"]) if won]}
        return {"seat": chosen, "num_players": n, "players": list(players), "frames": frames, "final": final}


# -- a person's game ------------------------------------------------------------------------------
class AnyHumanGame:
    """One person's game against agents through the game's AEC env: the agents decide on their own
    observations, and the game waits at each of the person's decisions."""

    def __init__(self, game: Game, words: GameWords, agents: Mapping[int, Agent], view: str, seed: int):
        self.id = secrets.token_urlsafe(12)
        self.game, self.words, self.view, self.seed = game, words, view, seed
        self.agents = dict(agents)
        self.table = Table(game, game.env(num_players=len(agents) + 1, view=view))
        env = self.table.env
        n = len(env.possible_agents)
        if not all(0 <= s < n for s in self.agents):
            raise ValueError(f"an AnyHumanGame has agents in all seats but one; got seats {sorted(self.agents)} at a table of {n}")
        self.seat = next(s for s in range(n) if s not in self.agents)
        self.players = tuple(HUMAN if s == self.seat else agent_name(self.agents[s]) for s in range(n))
        env.reset(seed=seed)
        self.decisions: list[int] = []
        self.log: list[dict[str, Any]] = []
        self.result: tuple[list[float], list[bool]] | None = None
        self.replay: dict[str, Any] | None = None
        self.replay_path: Path | None = None
        self.replay_error: str | None = None
        self.lock = threading.Lock()  # one decision at a time: a double click is refused as a stale step
        self._play_agents(None)

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.result is not None

    @property
    def me(self) -> str:
        """The person's agent id in the env."""
        return str(self.table.env.possible_agents[self.seat])

    def _view(self) -> list[str]:
        return [str(line) for line in self.words.seat_view(self.table.env, self.me)]

    def _decide(self, seat: int, action: int) -> None:
        """Step the env with `seat`'s action, and log it as the person may know it."""
        before = self._view()
        self.decisions.append(action)
        self.table.env.step(action)
        after = self._view()
        changed = [line for line in after if line not in before]
        if seat == self.seat:
            self.log.append({"text": f"you: {self.words.action(action)}", "seen": changed})
        else:
            self.log.append({"text": f"player_{seat} ({self.players[seat]}) decides", "seen": changed})

    def _play_agents(self, replays: Path | None) -> None:
        """The agents' decisions, until the person must decide or the game ends (then its replay)."""
        env = self.table.env
        while (agent := self.table.to_decide()) is not None:
            seat = env.possible_agents.index(agent)
            if seat == self.seat:
                return
            shown = env.observe(agent)
            observation = np.asarray(shown["observation"], dtype=np.float32)[None]
            mask = np.asarray(shown["action_mask"], dtype=np.int8)[None]
            self._decide(seat, int(checked_actions(self.agents[seat], observation, mask)[0]))
        self.result = self.table.results()
        self.replay = record(self.game, len(self.players), self.view, self.seed, self.players, self.decisions)
        self.replay_path, self.replay_error = save_web_replay(save_replay, self.replay, replays, self.id)

    def legal(self) -> list[int]:
        """The person's legal actions now; none while the agents decide, or once the game is over."""
        env = self.table.env
        if self.over or env.agent_selection != self.me:
            return []
        return [int(action) for action in np.flatnonzero(np.asarray(env.observe(self.me)["action_mask"]))]

    def decide(self, body: Any, replays: Path | None = None) -> None:
        """The person's decision, `{"action": a legal action, "step": optional, the decisions made so
        far}`, then the agents' until the person decides again; WebError, nothing changed, if it is
        not a legal one (409 if the game is over or past `step`). The finished game is saved in the
        folder `replays` (if given)."""
        with self.lock:
            action, step = decision_request(body, "one of your legal actions")
            if self.over:
                raise WebError(f"this {self.game.title} game is over: deal a new one", 409)
            legal = {choice: self.words.action(choice) for choice in self.legal()}
            self._decide(self.seat, checked_decision(action, step, len(self.decisions), legal))
            self._play_agents(replays)

    def page(self) -> dict[str, Any]:
        """What the person's page shows: the rules in short, their seat's view in words, their legal
        actions, the decisions so far as they may know them, and at the end the scores and winners."""
        with self.lock:
            n = len(self.players)
            final = None
            if self.result is not None:
                scores, won = self.result
                final = {"scores": scores, "winners": [s for s, winner in enumerate(won) if winner]}
            return {
                "id": self.id,
                "game": self.game.name,
                "title": self.game.title,
                "seat": self.seat,
                "num_players": n,
                "players": list(self.players),
                "view": self.view,
                "step": len(self.decisions),
                "introduction": [str(line) for line in self.words.introduction(n, self.seat)],
                "seat_view": self._view(),
                "legal": [{"action": action, "label": self.words.action(action)} for action in self.legal()],
                "log": list(self.log),
                "over": self.over,
                "final": final,
                "replay": None if self.replay_path is None else str(self.replay_path),
                "replay_error": self.replay_error,
            }
