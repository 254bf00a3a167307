"""The browser app's games, without the web framework: what a request body may be, the live games
of every browser session (every game's, each held under its game's name), and the replays saved on
this machine. Each game's own page (what it may ask for, a person's game, replays as frames) is its
registry part `web` (`miaui_env.core.web.GameWeb`): Miaui's and the octopus game's are their
packages' `web` modules, any other game's the generic `miaui_env.apps.web.any_game`.

Everything a request names is checked here and refused with `WebError` (a ValueError carrying the
HTTP status) naming the value and what is allowed; a refused request changes nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar, overload

from miaui_env.apps.web.memory import release_memory
from miaui_env.core.registry import LEGACY_GAME, game_of
from miaui_env.core.web import MAX_INT_DIGITS, WebError

# The README's install line for the trained policies: torch first, pinned, then the extras.
TRAINING_INSTALL = 'pip install torch --index-url https://download.pytorch.org/whl/cpu && pip install -e ".[web,train]"'

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


# -- every session's games ------------------------------------------------------------------------
class BusyError(WebError):
    """A request refused for now, not for what it asks: 429 (this session's share is in use) or
    503 (the server's), with the seconds after which to try again (the Retry-After header)."""

    def __init__(self, message: str, status: int, retry_after: int):
        super().__init__(message, status)
        self.retry_after = retry_after


class LiveGame(Protocol):
    """What the store keeps of a game, of any game: its id, whether it is over, its agents
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
    name: str = LEGACY_GAME  # its game's registry name


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

    def add(self, session: str, game: LiveGame, address: str = "", name: str = LEGACY_GAME) -> None:
        """Keep a new game of the game `name` (a registry name) for `session`, asked from client
        `address`; BusyError (429) when that address holds `per_address` games, WebError (503) when
        the server holds as many as it may; nothing changes when refused."""
        with self._lock:
            self._sweep()
            for game_id in self._room_for_one_more(session, address):
                del self._held[game_id]
            self._held[game.id] = _Held(game, session, self.clock(), address, name)

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

    @overload
    def find(self, session: str, game_id: str, kind: type[Game]) -> Game: ...

    @overload
    def find(self, session: str, game_id: str, kind: str) -> LiveGame: ...

    def find(self, session: str, game_id: str, kind: type[Game] | str) -> Game | LiveGame:
        """The session's game `game_id` of `kind`: a class, or the registry name of its game;
        WebError (404) if it has none of that id and kind (never had, dropped, or another game's)."""
        with self._lock:
            self._sweep()
            held = self._held.get(game_id) or self._finished.get(game_id)
            if held is None or held.session != session or not _is_of(held, kind):
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

    def drop(self, session: str, game_id: str, kind: type[Any] | str) -> None:
        """End the session's game `game_id` of `kind` (a class, or its game's name) now (the page
        left it); WebError (404) if there is none."""
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


def _is_of(held: _Held, kind: type[Any] | str) -> bool:
    return held.name == kind if isinstance(kind, str) else isinstance(held.game, kind)


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} minutes" if seconds >= 60 else f"{seconds:g} seconds"


def _shelf_summary(path: Path, game: str = LEGACY_GAME) -> dict[str, Any]:
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
    if isinstance(winners, list) and len(winners) == len(players) and all(type(won) is bool for won in winners):
        winners = [seat for seat, won in enumerate(winners) if won]  # a generic replay's winners: a bool per seat
    if not (isinstance(winners, list) and all(type(seat) is int and 0 <= seat < len(players) for seat in winners)):
        winners = []
    shelf_width = 60  # characters of a player's name on one line of the shelf; the file holds the rest
    return {"players": [name[:shelf_width] for name in players], "winners": winners}


@dataclass(frozen=True)
class ReplayShelf:
    """One game's replays saved under the folders `roots`: every `*.json` in a folder named `replays`
    (human play's and this app's `results/replays/`, the arena's `<out>/replays/`, a self-play
    run's `checkpoints/<run>/replays/`) or in its game's own folder in it, `folder` (where this app
    saves every game's but Miaui's: `replays/octopus/`) that is `game`'s, newest first, at most
    `limit`. A replay is named by its path as the root spells it (`results/replays/web-....json`);
    only listed names can be opened."""

    roots: tuple[Path, ...]
    limit: int = 500
    game: str = LEGACY_GAME
    listing: str = "GET /api/replays"  # the route that lists this shelf, for the errors to name
    folder: str | None = None  # the game's own folder in a replays folder; None: the game's name, "": none

    @property
    def own_folder(self) -> str:
        """The game's own folder in a replays folder ("": none)."""
        return self.game if self.folder is None else self.folder

    def list(self) -> list[dict[str, Any]]:
        """The replays' names, when they were written, their players and winners' seats, newest first."""
        found = []
        for root in self.roots:
            own = root.glob(f"**/replays/{self.own_folder}/*.json") if self.own_folder else ()
            for path in itertools.chain(root.glob("**/replays/*.json"), own):
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
            own = bool(self.own_folder) and path.parent.name == self.own_folder and path.parent.parent.name == "replays"
            in_replays = path.parent.name == "replays" or own
            if not (listed and path.suffix == ".json" and in_replays and path.is_file()):
                raise missing
            if path.stat().st_size > MAX_BODY:
                raise WebError(f"{name!r:.80} is larger than {MAX_BODY // 1024} kB: not a replay this app reads", 413)
            return path.read_text()
        except (OSError, ValueError) as error:  # too long a name, removed while we looked, not text
            if isinstance(error, WebError):
                raise
            raise WebError(f"{name!r:.80} cannot be read: {getattr(error, 'strerror', None) or type(error).__name__}", 404) from None
