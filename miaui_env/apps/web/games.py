"""The browser app's games, without the web framework: what a page may ask for, a person's game
against agents, the live games of every browser session, replays turned into frames, and the
replays saved on this machine.

Everything a request names is checked here and refused with `WebError` (a ValueError carrying the
HTTP status) naming the value and what is allowed; a refused request changes nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from miaui_env.apps.web.memory import release_memory
from miaui_env.apps.web.tables import reveal_steps, seat_table, spectator_table
from miaui_env.core.agents import Agent, checked_actions
from miaui_env.core.loading import SHIPPED_POLICIES, shipped_policy_names
from miaui_env.core.registry import game_of
from miaui_env.core.seeding import seed_generator
from miaui_env.core.web import HUMAN, MAX_INT_DIGITS, AgentChoice, WebError, checked_int, checked_seat, training_extra_installed
from miaui_env.games.miaui.agents import as_seen, views_at_table
from miaui_env.games.miaui.agents.loading import SEARCH_PREFIX, load_agents
from miaui_env.games.miaui.agents.styles import STYLE_AGENTS
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.observation import VIEWS
from miaui_env.games.miaui.replay import Replay, dealt_deck, record_replay, replay_states, save_replay
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

GAME = "miaui"  # the game this page plays (the octopus game's page is miaui_env/games/octopus/web.py)

MAX_BODY = 1 << 20  # bytes: a replay is about 20 kB, every other request far less
MAX_SEED = 2**64  # fresh seeds are 64 random bits: too many to find one from the cards it dealt
MAX_DEPTH = 32  # JSON nesting: a replay nests 4 deep, every request less
MAX_NAME = 1024  # characters in a replay's name: far longer than any path the shelf lists


# -- JSON at the edge ----------------------------------------------------------------------------------
class NotJSONError(WebError):
    """Text that is not JSON at all (rather than JSON beyond the edge's limits)."""


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]")


def _json_depth(text: str) -> int:
    """How deep `text`'s arrays and objects nest, counted without parsing (which would recurse)."""
    depth = deepest = 0
    for bracket in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
    return deepest


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise WebError(f"an integer of {len(digits.lstrip('-'))} digits ({digits[:12]}...) is not allowed: at most {MAX_INT_DIGITS} digits")
    return int(digits)


def _no_constant(name: str) -> Any:
    raise WebError(f"{name} is not allowed: JSON numbers are finite")


def parse_json(text: str, what: str = "the request body") -> Any:
    """`text` parsed as JSON, nesting at most MAX_DEPTH deep with integers of at most
    MAX_INT_DIGITS digits; WebError (400) naming what is wrong otherwise."""
    depth = _json_depth(text)
    if depth > MAX_DEPTH:
        raise WebError(f"{what} nests more than {MAX_DEPTH} levels deep: at most {MAX_DEPTH} are allowed")
    try:
        return json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise NotJSONError(f"{what} is not valid JSON: {error}") from None
    except RecursionError:  # the depth count above makes this unreachable; a 400 all the same
        raise WebError(f"{what} nests too deep: at most {MAX_DEPTH} levels are allowed") from None


# The README's install line for the trained policies: torch first, pinned, then the extras.
TRAINING_INSTALL = 'pip install torch --index-url https://download.pytorch.org/whl/cpu && pip install -e ".[web,train]"'

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
    menu = [AgentChoice(name, about) for name, about in _BUILTIN_ABOUT.items()]
    if training_extra_installed():
        menu += policy_choices(policies)
    return tuple(menu)


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


def _checked_bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise WebError(f"{name}={value!r:.40} is not allowed: true or false")
    return value


def _checked_object(body: Any, fields: Sequence[str], what: str) -> Mapping[str, Any]:
    if not isinstance(body, dict):
        raise WebError(f"{what} is a JSON object with the fields {', '.join(fields)}; got {type(body).__name__}")
    unknown = sorted(set(body) - set(fields))
    if unknown:
        raise WebError(f"{what}: unknown field {unknown[0]!r:.40}; the fields are {', '.join(fields)}")
    return body


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
        body = _checked_object(body, fields, what)
        n = checked_int(body.get("players", 4), "players", MIN_PLAYERS, MAX_PLAYERS)
        key, count = ("opponents", n - 1) if person else ("agents", n)
        chosen = body.get(key)
        if not isinstance(chosen, list) or len(chosen) != count:
            raise WebError(f"{key}={chosen!r:.60}: a list of {count} agent names, one for each {'other ' if person else ''}seat")
        names = [choice.name for choice in menu]
        for name in chosen:
            if not isinstance(name, str) or name not in names:
                raise WebError(f"agent {name!r:.60} is not offered here; choose from {', '.join(names)}")
        agents: list[str | None] = list(chosen)
        if person:
            seat = checked_int(body.get("seat", 0), "seat", 0, n - 1)
            agents = [None if s == seat else chosen[(s - seat - 1) % n] for s in range(n)]
        view = body.get("view", "table")
        if view not in VIEWS:
            raise WebError(f"view={view!r:.40} is not allowed: {' or '.join(VIEWS)}")
        seed = body.get("seed")
        spec = TableSpec(
            num_players=n,
            open_baskets=_checked_bool(body.get("open_baskets", False), "open_baskets"),
            no_fighting=_checked_bool(body.get("no_fighting", False), "no_fighting"),
            view=view,
        )
        # A seed may come as a string of digits: a page's JavaScript numbers round integers above 2**53.
        if isinstance(seed, str) and seed.isascii() and seed.isdigit() and len(seed) <= MAX_INT_DIGITS:
            seed = int(seed)
        return cls(spec, tuple(agents), None if seed is None else checked_int(seed, "seed", 0, MAX_SEED - 1))

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
                if replays is not None:
                    self._save(replays)

    def _save(self, replays: Path) -> None:
        assert self.replay is not None
        path = replays / f"web-{time.strftime('%Y%m%d-%H%M%S')}-{self.id[:6]}.json"
        try:
            self.replay_path = save_replay(self.replay, path)
        except OSError as error:  # the game is over all the same: the page says why it was not saved
            self.replay_error = f"the replay could not be saved to {path}: {error.strerror or error}"

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


# -- every session's games ------------------------------------------------------------------------
class BusyError(WebError):
    """A request refused for now, not for what it asks: 429 (this session's share is in use) or
    503 (the server's), with the seconds after which to try again (the Retry-After header)."""

    def __init__(self, message: str, status: int, retry_after: int):
        super().__init__(message, status)
        self.retry_after = retry_after


class LiveGame(Protocol):
    """What the store keeps of a game, of either game: its id, whether it is over, its agents
    (cleared when it finishes: only its page and replay are kept)."""

    id: str
    agents: dict[int, Any]

    @property
    def over(self) -> bool:
        """Whether the game has ended."""


Game = TypeVar("Game")


@dataclass
class _Held:
    game: LiveGame
    session: str
    touched: float
    address: str = ""


@dataclass
class GameStore:
    """The live games of every browser session, and the games of agents being played, behind one lock.

    A game belongs to the session that started it, and any other session asking for it is told
    there is no such game. At most `max_games` live at once (a new one beyond is refused, 503)
    and `per_session` per session (a session's new game beyond that ends its least recently
    used one), and at most `per_address` from one client address (429 beyond: a client that
    opens a new session for each game cannot hold every slot and lock other machines out). A game
    untouched for `idle_ttl` seconds is abandoned. A finished game frees its
    slot at its last card: it is kept (for its page and replay, without its agents) `finished_ttl`
    seconds, at most `max_games` finished games at once, the oldest let go first. Games of agents
    alone (`watching`) play at most `max_watch_games` at once, one per session. `clock` is the
    time in seconds (replaceable in tests)."""

    max_games: int = 64
    per_session: int = 4
    per_address: int = 16
    idle_ttl: float = 1800.0
    finished_ttl: float = 600.0
    max_watch_games: int = 2
    clock: Callable[[], float] = time.monotonic
    _held: dict[str, _Held] = field(default_factory=dict)
    _finished: dict[str, _Held] = field(default_factory=dict)
    _watching: dict[str, str] = field(default_factory=dict)  # session -> its client address
    _lock: threading.Lock = field(default_factory=threading.Lock)

    WATCH_RETRY_S = 10  # about one search game's length: when a watch slot is likely free again
    ADDRESS_RETRY_S = 60  # about a game's length: when one of the address's games has likely ended

    def __len__(self) -> int:
        return len(self._held)

    def admit(self, session: str, address: str = "") -> None:
        """Refuse now, before its deal and its agents cost anything, a new game `add` would refuse."""
        with self._lock:
            self._sweep()
            self._room_for_one_more(session, address)

    def add(self, session: str, game: LiveGame, address: str = "") -> None:
        """Keep a new game for `session`, asked from client `address`; BusyError (429) when that
        address holds `per_address` games, WebError (503) when the server holds as many as it may;
        nothing changes when refused."""
        with self._lock:
            self._sweep()
            for game_id in self._room_for_one_more(session, address):
                del self._held[game_id]
            self._held[game.id] = _Held(game, session, self.clock(), address)

    def _room_for_one_more(self, session: str, address: str) -> list[str]:
        """The session's games a new one would end (its least recently used beyond `per_session`);
        BusyError or WebError if even then there is no room for it."""
        mine = sorted((game_id for game_id, held in self._held.items() if held.session == session), key=lambda i: self._held[i].touched)
        ended = mine[: max(len(mine) - self.per_session + 1, 0)]
        theirs = sum(held.address == address for held in self._held.values() if held.session != session) if address else 0
        if theirs + len(mine) - len(ended) >= self.per_address:
            raise BusyError(
                f"{address} holds {self.per_address} live games, as many as one client address may; finish or leave one",
                429,
                self.ADDRESS_RETRY_S,
            )
        if len(self._held) - len(ended) >= self.max_games:
            raise WebError(f"the server is playing {self.max_games} games, as many as it may; try again in a few minutes", 503)
        return ended

    def get(self, session: str, game_id: str) -> HumanGame:
        """The session's Miaui game `game_id`; WebError (404) if it has none of that id (never had, or dropped)."""
        return self.find(session, game_id, HumanGame)

    def find(self, session: str, game_id: str, kind: type[Game]) -> Game:
        """The session's game `game_id` of the class `kind`; WebError (404) if it has none of that
        id and kind (never had, dropped, or the other game's)."""
        with self._lock:
            self._sweep()
            held = self._held.get(game_id) or self._finished.get(game_id)
            if held is None or held.session != session or not isinstance(held.game, kind):
                raise WebError(
                    f"no game {game_id!r:.40} in this browser session: it may have ended (games are kept "
                    f"{_duration(self.idle_ttl)} untouched, {_duration(self.finished_ttl)} after the last card)",
                    404,
                )
            if game_id in self._held:
                held.touched = self.clock()
            return held.game

    def touch(self, game: LiveGame) -> None:
        """Start a game's time to live again (after a card that may have taken a while); a finished
        game leaves the live games, freeing its slot."""
        with self._lock:
            if game.id in self._held:
                self._held[game.id].touched = self.clock()
            self._sweep()
        if game.over:
            release_memory()  # its search agents' worlds leave their threads' arenas holding free memory

    def drop(self, session: str, game_id: str, kind: type[Any] = HumanGame) -> None:
        """End the session's game `game_id` of the class `kind` now (the page left it); WebError (404) if there is none."""
        self.find(session, game_id, kind)
        with self._lock:
            self._held.pop(game_id, None)
            self._finished.pop(game_id, None)

    @contextlib.contextmanager
    def watching(self, session: str, address: str = "") -> Iterator[None]:
        """Hold one of the server's watch-game slots for `session`, asked from client `address`,
        while a game of agents is played; BusyError 429 if the session or the address is already
        watching one (a client that sends no cookie is a new session each time), 503 if every slot
        is taken."""
        with self._lock:
            if session in self._watching or (address and address in self._watching.values()):
                who = "this browser session" if session in self._watching else address
                raise BusyError(f"{who} is already watching a game of agents: one at a time", 429, self.WATCH_RETRY_S)
            if len(self._watching) >= self.max_watch_games:
                raise BusyError(
                    f"the server is playing {self.max_watch_games} games of agents, as many as it may at once; try again shortly",
                    503,
                    self.WATCH_RETRY_S,
                )
            self._watching[session] = address
        try:
            yield
        finally:
            with self._lock:
                self._watching.pop(session, None)
            release_memory()  # a search agent's worlds leave its thread's arenas holding free memory

    def _sweep(self) -> None:
        now = self.clock()
        for game_id in [i for i, held in self._held.items() if held.game.over]:
            held = self._finished[game_id] = self._held.pop(game_id)
            held.touched = now
            held.game.agents.clear()  # only its page and replay are kept
        for game_id in [i for i, held in self._held.items() if now - held.touched > self.idle_ttl]:
            del self._held[game_id]
        for game_id in [i for i, held in self._finished.items() if now - held.touched > self.finished_ttl]:
            del self._finished[game_id]
        for game_id in list(self._finished)[: max(len(self._finished) - self.max_games, 0)]:
            del self._finished[game_id]


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} minutes" if seconds >= 60 else f"{seconds:g} seconds"


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


def _shelf_summary(path: Path, game: str = GAME) -> dict[str, Any]:
    """Who played the replay at `path` and who won, for `game`'s shelf; empty lists where the file
    cannot be read as a replay (opening it then says why), and the file's game where it is another's."""
    try:
        if path.stat().st_size > MAX_BODY:
            return {"players": [], "winners": []}
        data = parse_json(path.read_text(), "a saved replay")
    except (OSError, ValueError):  # removed while we looked, not text, not JSON
        return {"players": [], "winners": []}
    if isinstance(data, dict) and game_of(data) != game:
        return {"players": [], "winners": [], "game": str(data.get("game"))[:20]}  # another game's replay: not on this shelf
    players = data.get("players") if isinstance(data, dict) else None
    winners = data.get("winners") if isinstance(data, dict) else None
    if not (isinstance(players, list) and all(isinstance(name, str) for name in players)):
        return {"players": [], "winners": []}
    if not (isinstance(winners, list) and all(type(seat) is int and 0 <= seat < len(players) for seat in winners)):
        winners = []
    shelf_width = 60  # characters of a player's name on one line of the shelf; the file holds the rest
    return {"players": [name[:shelf_width] for name in players], "winners": winners}


@dataclass(frozen=True)
class ReplayShelf:
    """One game's replays saved under the folders `roots`: every `*.json` in a folder named `replays`
    (human play's and this app's `results/replays/`, the arena's `<out>/replays/`, a self-play
    run's `checkpoints/<run>/replays/`) or in its folder named after the game (where this app saves
    octopus games: `replays/octopus/`) that is `game`'s, newest first, at most `limit`. A replay is named by its path as the
    root spells it (`results/replays/web-....json`); only listed names can be opened."""

    roots: tuple[Path, ...]
    limit: int = 500
    game: str = GAME
    listing: str = "GET /api/replays"  # the route that lists this shelf, for the errors to name

    def list(self) -> list[dict[str, Any]]:
        """The replays' names, when they were written, their players and winners' seats, newest first."""
        found = []
        for root in self.roots:
            for path in itertools.chain(root.glob("**/replays/*.json"), root.glob(f"**/replays/{self.game}/*.json")):
                try:
                    found.append((path.stat().st_mtime, path))
                except OSError:  # removed while we looked
                    continue
        found.sort(reverse=True)
        listed = []
        for mtime, path in found:
            summary = _shelf_summary(path, self.game)
            if "game" in summary:  # another game's replay: its own page's shelf lists it
                continue
            listed.append({"name": path.as_posix(), "modified": time.strftime("%Y-%m-%d %H:%M", time.localtime(mtime)), **summary})
            if len(listed) == self.limit:
                break
        return listed

    def read(self, name: Any) -> str:
        """The text of the replay `name` (a `.json` in a replays folder under a root, as the list names
        them); WebError (404) for any other name."""
        if not isinstance(name, str) or not name or len(name) > MAX_NAME or "\0" in name:
            raise WebError(f"file={name!r:.60}: the name of a saved replay as the list gives it (at most {MAX_NAME} characters, no NUL)")
        missing = WebError(f"no saved replay {name!r:.80} here; {self.listing} lists the names this server opens", 404)
        # The errors name the file as the request did: never the server's own (absolute) path.
        try:
            path = Path(name).resolve()
            listed = any(path.is_relative_to(root.resolve()) for root in self.roots)
            in_replays = path.parent.name == "replays" or (path.parent.name == self.game and path.parent.parent.name == "replays")
            if not (listed and path.suffix == ".json" and in_replays and path.is_file()):
                raise missing
            if path.stat().st_size > MAX_BODY:
                raise WebError(f"{name!r:.80} is larger than {MAX_BODY // 1024} kB: not a replay this app reads", 413)
            return path.read_text()
        except (OSError, ValueError) as error:  # too long a name, removed while we looked, not text
            if isinstance(error, WebError):
                raise
            raise WebError(f"{name!r:.80} cannot be read: {getattr(error, 'strerror', None) or type(error).__name__}", 404) from None
