"""Miaui's page in the browser app (`/miaui`, and `/` from before the second game), without the web
framework: the opponents a page may choose, a table a request asks for, a person's game against
agents, a game of agents alone, and replays turned into the frames the watch page steps through.
`MiauiWeb` gathers them as the registry's `web` part (`miaui_env.core.web.GameWeb`). The tables the
page is sent are read from a seat's observation (`miaui_env.games.miaui.display.page`). The app's
routes, sessions and replay shelf are `miaui_env.apps.web`, written once for every game.

Everything a request names is checked here and refused with `WebError` (a ValueError carrying the
HTTP status) naming the value and what is allowed; a refused request changes nothing.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.core.agents import Agent, checked_actions
from miaui_env.core.loading import SHIPPED_POLICIES, shipped_policy_names
from miaui_env.core.seeding import seed_generator
from miaui_env.core.web import (
    HUMAN,
    AgentChoice,
    GameWeb,
    WebError,
    checked_agents,
    checked_bool,
    checked_int,
    checked_object,
    checked_seat,
    checked_seed,
    missing_agents,
    offered_agents,
    save_web_replay,
    seated_opponents,
)
from miaui_env.games.miaui.agents import as_seen, views_at_table
from miaui_env.games.miaui.agents.loading import SEARCH_PREFIX, load_agents
from miaui_env.games.miaui.agents.styles import STYLE_AGENTS
from miaui_env.games.miaui.display.page import reveal_steps, seat_table, spectator_table
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.observation import VIEWS
from miaui_env.games.miaui.replay import (
    Replay,
    dealt_deck,
    record_replay,
    replay_from_json,
    replay_states,
    replay_to_json,
    save_replay,
)
from miaui_env.games.miaui.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    GameState,
    new_game,
    play_round,
    scores,
    winners,
)
from miaui_env.games.miaui.spec import TableSpec

GAME = "miaui"  # this page's game: its shipped policies, its replays
MAX_SEED = 2**64  # fresh seeds are 64 random bits: too many to find one from the cards it dealt

_BUILTIN_ABOUT = {
    "random": "plays a random card",
    "greedy": "the card with the best expected catch",
    "counter": "greedy, counting every card revealed, keeping its extremes",
    "search": "regret-matching search over sampled worlds (about 25 ms a card)",
    **{style.name: style.about for style in STYLE_AGENTS},
}


def agent_menu(policies: Path = SHIPPED_POLICIES) -> tuple[AgentChoice, ...]:
    """The opponents a page may choose: the built-in agents and, where torch and sb3-contrib are
    installed, every shipped policy (most likely card, mixed strategy, and as the search's prior).
    A request can only name these: never a path or a module:callable."""
    builtin = [AgentChoice(name, about) for name, about in _BUILTIN_ABOUT.items()]
    return offered_agents(builtin, lambda: policy_choices(policies))


def policy_choices(policies: Path = SHIPPED_POLICIES) -> list[AgentChoice]:
    """Every shipped policy's three opponents (most likely card, mixed strategy, search's prior),
    installed or not: the page names those the training extra would bring."""
    choices = []
    for policy in shipped_policy_names(GAME, policies):  # an octopus policy plays the octopus page's games
        choices += [
            AgentChoice(policy, f"the shipped policy {policy}: its most likely card", True),
            AgentChoice(f"{policy}@sample", f"the shipped policy {policy}: a card drawn from its mixed strategy", True),
            AgentChoice(f"{SEARCH_PREFIX}{policy}", f"search warm-started by {policy}", True),
        ]
    return choices


@dataclass(frozen=True)
class TableChoice:
    """A table from the page: its `spec` (size, variants and the person's view), the agents by
    seat (None: the person's seat), and the deal's seed (None: a fresh one)."""

    spec: TableSpec
    agents: tuple[str | None, ...]
    seed: int | None = None

    PERSON_FIELDS = ("players", "seat", "opponents", "open_baskets", "no_fighting", "view", "seed")
    AGENTS_FIELDS = ("players", "agents", "open_baskets", "no_fighting", "seed")

    @classmethod
    def parse(cls, body: Any, menu: Sequence[AgentChoice], person: bool) -> TableChoice:
        """The table a request body asks for: with `person`, `seat` and `opponents` (one agent for
        each other seat, clockwise from the person's left); without, `agents` (one for each seat)."""
        what, fields = ("a new game", cls.PERSON_FIELDS) if person else ("a game of agents", cls.AGENTS_FIELDS)
        body = checked_object(body, fields, what)
        n = checked_int(body.get("players", 4), "players", MIN_PLAYERS, MAX_PLAYERS)
        agents = seated_opponents(body, n, None, menu) if person else tuple(checked_agents(body.get("agents"), "agents", n, menu, "seat"))
        view = body.get("view", "table")
        if view not in VIEWS:
            raise WebError(f"view={view!r:.40} is not allowed: {' or '.join(VIEWS)}")
        seed = body.get("seed")
        spec = TableSpec(
            num_players=n,
            open_baskets=checked_bool(body.get("open_baskets", False), "open_baskets"),
            no_fighting=checked_bool(body.get("no_fighting", False), "no_fighting"),
            view=view,
        )
        return cls(spec, agents, checked_seed(seed, MAX_SEED - 1))

    def deal(self) -> tuple[GameState, int]:
        """A new game dealt as `reset(seed=...)` deals it (a fresh seed when none was chosen), and its seed."""
        seed = self.seed if self.seed is not None else secrets.randbelow(MAX_SEED)
        return new_game(self.spec.game, seed_generator(seed)), seed


# -- a person's game ----------------------------------------------------------------------------
class HumanGame:
    """One person's game against agents on the rules engine. The person's page shows exactly
    what their seat's observation holds, in the view they chose (`page`); the agents act on their
    own observations."""

    def __init__(self, state: GameState, agents: Mapping[int, Agent], view: str = "table", seed: int | None = None):
        n = state.num_players
        if state.history or len(agents) != n - 1 or not all(0 <= s < n for s in agents):
            raise ValueError(f"a HumanGame starts before round 1 with agents in all seats but one; got {sorted(agents)} at {n}")
        self.id = secrets.token_urlsafe(12)
        self.state, self.agents, self.view, self.seed = state, dict(agents), view, seed
        self.seat = next(s for s in range(n) if s not in agents)
        self.players = tuple(HUMAN if s == self.seat else self.agents[s].name for s in range(n))
        agent_views, self.dealt = views_at_table(list(self.agents.values()), view)
        self.agent_views = dict(zip(self.agents, agent_views, strict=True))
        self.deck = dealt_deck(state)  # the deal, for the replay of a game dealt without a seed
        self.encoder = Encoder(state.config, self.dealt)
        self.encoder.refresh(state)
        self.plays: list[tuple[int, ...]] = []
        self.last_reveal: list[dict[str, Any]] = []
        self.replay: Replay | None = None
        self.replay_path: Path | None = None
        self.replay_error: str | None = None
        self.lock = threading.Lock()  # one card at a time: a double click is refused as a card already played

    @property
    def over(self) -> bool:
        """Whether round 12 has been played."""
        return bool(self.state.is_over)

    def observation(self, seat: int, view: str) -> np.ndarray:
        """`seat`'s observation, as a player of `view` sees it."""
        return np.asarray(as_seen(self.encoder.observe(seat)[None], view, self.dealt)[0])

    def decide(self, body: Any, replays: Path | None = None) -> None:
        """The person's play as a request body gives it, `{"card": 1-12, "round": the round it is for}` (`play`)."""
        if not isinstance(body, dict) or set(body) != {"card", "round"}:
            raise WebError(f"a play is a JSON object {{'card': a diver card 1-12, 'round': the round it is for}}; got {body!r:.60}")
        self.play(body["card"], body["round"], replays)

    def play(self, card: Any, round_number: Any, replays: Path | None = None) -> None:
        """The person's diver card (1-12) for round `round_number` with the agents' cards; WebError,
        nothing changed, if it cannot be played (409 if the game is past that round). The finished
        game is saved as a replay in the folder `replays` (if given)."""
        with self.lock:
            if self.over:
                raise WebError("this game is over: deal a new one", 409)
            checked_int(card, "card", 1, NUM_DIVER_CARDS)
            checked_int(round_number, "round", 1, NUM_ROUNDS)
            # Two plays sent at once for one round: the first is played, the second refused here.
            if round_number != self.state.round:
                raise WebError(f"round={round_number} is not the round being played: the game is at round {self.state.round}", 409)
            if not self.state.hands[self.seat, card - 1]:
                held = self.state.legal_cards(self.seat)
                raise WebError(f"card {card} is not in your hand: you have already played it; your cards are {held}")
            plays = [card] * self.state.num_players
            for seat, agent in self.agents.items():
                shown = self.observation(seat, self.agent_views[seat])
                plays[seat] = int(checked_actions(agent, shown[None], self.state.hands[seat][None])[0]) + 1
            records = play_round(self.state, plays)
            self.plays.append(tuple(plays))
            self.encoder.refresh(self.state)
            self.last_reveal = [reveal_steps(record) for record in records]
            if self.over:
                deal = {"seed": self.seed} if self.seed is not None else {"deck": self.deck}
                self.replay = record_replay(self.state.config, self.plays, players=self.players, **deal)
                self.replay_path, self.replay_error = save_web_replay(save_replay, self.replay, replays, self.id)

    def page(self) -> dict[str, Any]:
        """What the person's page shows: their seat's table from its observation, the last reveal,
        their cards, and at the end the final scores."""
        with self.lock:
            n = self.state.num_players
            final = None
            if self.over:  # every pile is counted in the open at the end (R10)
                final = {"scores": list(scores(self.state)), "winners": list(winners(self.state))}
            return {
                "id": self.id,
                "seat": self.seat,
                "players": list(self.players),
                "view": self.view,
                "table": seat_table(self.observation(self.seat, self.view), self.seat, n),
                "reveal": self.last_reveal,
                # every earlier round's reveal: the recall view remembers it all (R11); the table view shows the last only
                "log": [reveal_steps(record) for record in self.state.history] if self.view == "recall" else None,
                "hand": self.state.legal_cards(self.seat),
                "over": self.over,
                "final": final,
                "replay": None if self.replay_path is None else str(self.replay_path),
                "replay_error": self.replay_error,
            }


def start_game(choice: TableChoice) -> HumanGame:
    """The person's game for a parsed table choice, dealt and waiting for their first card."""
    state, seed = choice.deal()
    seats = [s for s, name in enumerate(choice.agents) if name is not None]
    loaded = load_agents([name for name in choice.agents if name is not None], seed)
    return HumanGame(state, dict(zip(seats, loaded, strict=True)), choice.spec.view, seed)


def frames_of(replay: Replay, seat: Any = None) -> list[dict[str, Any]]:
    """The replay as the watch page steps through it: the table after the deal and after each
    reveal (the spectator's, or `seat`'s view from its observations), with that step's reveal."""
    n = replay.config.num_players
    seat = checked_seat(seat, n)
    states = replay_states(replay)
    encoder = Encoder(replay.config, "table")
    frames = []
    for step, state in enumerate(states):
        if seat is None:
            table = spectator_table(state)
        else:
            encoder.refresh(state)
            table = seat_table(encoder.observe(seat), seat, n)
        previous = len(states[step - 1].history) if step else 0
        frames.append({"step": step, "table": table, "reveal": [reveal_steps(record) for record in state.history[previous:]]})
    return frames


def agents_game(choice: TableChoice) -> Replay:
    """A whole game played by agents alone (every seat as `choice.agents` says), as a replay."""
    names = [name for name in choice.agents if name is not None]
    if len(names) != choice.spec.num_players:
        raise WebError(f"a game of agents needs an agent in every seat; got {list(choice.agents)}")
    state, seed = choice.deal()
    agents = load_agents(names, seed)
    views, dealt = views_at_table(agents, "table")
    encoder = Encoder(choice.spec.game, dealt)
    plays = []
    for _ in range(NUM_ROUNDS - 1):  # round 12's cards are forced (R6)
        encoder.refresh(state)
        cards = [
            int(checked_actions(agent, as_seen(encoder.observe(s)[None], view, dealt), state.hands[s][None])[0]) + 1
            for s, (agent, view) in enumerate(zip(agents, views, strict=True))
        ]
        play_round(state, cards)
        plays.append(cards)
    return record_replay(choice.spec, plays, seed=seed, players=[agent.name for agent in agents])


@dataclass(frozen=True)
class AgentsTable:
    """A game of agents alone, asked for and checked, played by `play`."""

    choice: TableChoice

    @property
    def num_players(self) -> int:
        """Its table size."""
        return self.choice.spec.num_players

    def play(self) -> Replay:
        """The whole game (`agents_game`), as a replay."""
        return agents_game(self.choice)


class MiauiWeb:
    """Miaui in the browser app: the registry's `web` part (`miaui_env.core.web.GameWeb`)."""

    page = "index.html"
    static_folder: Path | None = None
    replays_folder = ""  # web-<time>-<id>.json in the replays folder itself, as before the second game
    plays_agents_alone = True

    def menu(self) -> tuple[AgentChoice, ...]:
        """The opponents offered (`agent_menu`)."""
        return agent_menu()

    def missing_opponents(self, menu: Sequence[AgentChoice]) -> list[str]:
        """The shipped policies' opponents the training extra would bring."""
        return missing_agents(menu, policy_choices())

    def new_game(self, body: Any, menu: Sequence[AgentChoice]) -> TableChoice:
        """A person's table (`TableChoice.parse`)."""
        return TableChoice.parse(body, menu, person=True)

    def start(self, choice: TableChoice) -> HumanGame:
        """The person's game (`start_game`)."""
        return start_game(choice)

    def agents_game(self, body: Any, menu: Sequence[AgentChoice]) -> AgentsTable:
        """A table of agents alone (`TableChoice.parse`)."""
        return AgentsTable(TableChoice.parse(body, menu, person=False))

    def replay_from_json(self, text: str) -> Replay:
        """A Miaui replay (`miaui_env.games.miaui.replay`)."""
        return replay_from_json(text)

    def replay_to_json(self, replay: Replay) -> str:
        """A Miaui replay's file text."""
        return replay_to_json(replay)

    def frames(self, replay: Replay, seat: Any) -> dict[str, Any]:
        """The players, and the table after the deal and after each round (`frames_of`; None: the spectator's)."""
        return {"players": list(replay.players), "frames": frames_of(replay, seat)}


def game_web() -> GameWeb:
    """Miaui's page in the browser app (the registry's `web` part)."""
    return MiauiWeb()
