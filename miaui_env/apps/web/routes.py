"""The browser app's routes: one Flask blueprint of module-level view functions (see `app` for the
API they serve), written once for every registered game. A route finds its game by the name in its
URL in the registry (`get_game`) and serves it through the game's `web` part (a
`miaui_env.core.web.GameWeb`: Miaui's and the octopus game's their own, any other game's the
generic page of `miaui_env.apps.web.any_game`); it never names a game. Miaui's URLs from before the
second game (`/`, `/api/agents`, `/api/games/<id>/play`, ...) are the legacy game's aliases of the
same view functions (`LEGACY_ROUTES`).

Each view reaches the app's games, opponents and replays through `site()`, the `Site` that
`create_app` installs, so one process can serve several apps (the tests make many).

This module imports Flask; `create_app` imports it only when an app is made, so importing
`miaui_env.apps.web` needs no Flask.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote

from flask import Blueprint, Flask, Response, current_app, g, jsonify, render_template, request, send_from_directory
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from miaui_env.apps.web.games import MAX_BODY, TRAINING_INSTALL, BusyError, GameStore, NotJSONError, ReplayShelf, parse_json
from miaui_env.core.registry import LEGACY_GAME, Game, UnknownGameError, game_names, get_game
from miaui_env.core.replays import ReplayError
from miaui_env.core.web import AgentChoice, GameWeb, WebError, WebGame, checked_seat, no_agents_game

SESSION_COOKIE = "miaui_session"
_SESSION_TOKEN = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16)
# The page loads nothing from elsewhere and runs no inline script: a replay's player names, which
# anyone can write, are shown as text and can never run as code.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
# Names the app's own paths take (/games, /static/..., Miaui's /api/games/<id> and /api/watch/agents):
# a game registered under one would be shadowed there, so it gets no page, and says why.
RESERVED_NAMES = frozenset({"games", "static", "watch"})
SITE = "miaui"  # the app.extensions key of the app's Site
GAMES = "miaui_games"  # the app.extensions key of its GameStore alone (what tests and monitoring read)

routes = Blueprint("miaui", __name__)


@dataclass(frozen=True)
class Served:
    """One game as an app serves it: its registry entry, its page (`web` part), the opponents it
    offers and its replay shelf."""

    game: Game
    web: GameWeb
    menu: tuple[AgentChoice, ...]
    shelf: ReplayShelf


@dataclass
class Site:
    """What one app serves: the live games, the folders its replay shelves look in, and the folder
    finished games are saved in (None: not saved); each game's page, opponents and shelf, found
    the first time the game is asked for (`served`)."""

    games: GameStore
    library: tuple[Path, ...]
    replays: Path | None
    _served: dict[str, Served] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def served(self, name: str) -> Served:
        """The registered game `name` as this app serves it; WebError (404) naming the registered
        games if there is none, or saying what it lacks if it has no page (no `words`, no `web`)."""
        try:
            game = get_game(name)
        except UnknownGameError as unknown:
            raise WebError(str(unknown), 404) from None
        if game.name in RESERVED_NAMES:
            raise WebError(reserved_name(game), 404)
        with self._lock:
            known = self._served.get(game.name)
        if known is not None and known.game is game:  # a game registered again under its name is found again
            return known
        web = cast(GameWeb, game.part("web")())
        listing = f"GET /api/{game.name}/replays"
        served = Served(game, web, web.menu(), ReplayShelf(self.library, game=game.name, listing=listing, folder=web.replays_folder))
        with self._lock:
            self._served[game.name] = served
        return served

    def replays_of(self, served: Served) -> Path | None:
        """The folder `served`'s finished games are saved in (None: not saved)."""
        return None if self.replays is None else self.replays / served.web.replays_folder


def install(app: Flask, games: GameStore, replays: Path | None, library: tuple[Path, ...]) -> None:
    """Serve the routes on `app`, with its own Site."""
    site = Site(games, library, replays)
    app.extensions[SITE] = site
    app.extensions[GAMES] = site.games
    app.register_blueprint(routes)


def site() -> Site:
    """The Site of the app serving this request."""
    return cast(Site, current_app.extensions[SITE])


def json_body() -> Any:
    """The request's JSON body; WebError (415, 400) if it is not JSON."""
    if not request.is_json:
        raise WebError(f"the request body must be JSON (Content-Type: application/json), not {request.mimetype or 'nothing'}", 415)
    body = request.get_data(cache=True)  # a body over MAX_CONTENT_LENGTH: werkzeug's 413
    try:
        text = body.decode()
    except UnicodeDecodeError:
        raise WebError("the request body is not valid JSON: it is not UTF-8 text") from None
    return parse_json(text)


def watched_replay(web: GameWeb, text: str) -> Any:
    """The replay in `text`, parsed at the edge first (a replay's depth and integers are bounded
    like a request's), then by the game's own reader; WebError or ReplayError (400) if it is not
    one the page can show."""
    try:
        data = parse_json(text, "the replay")
    except NotJSONError:  # the game's own reader says what a replay file is
        data = None
    # The library writes any name as text; a page shows what the file says, so it must say text.
    names = data.get("players") if isinstance(data, dict) else None
    for name in names if isinstance(names, list) else ():
        if not isinstance(name, str):
            raise WebError(f"the replay's player name {name!r:.40} is not allowed: player names are strings")
    return web.replay_from_json(text)


def frames_reply(web: GameWeb, replay: Any, seat: Any) -> ResponseReturnValue:
    """A replay as the watch page steps through it: the game's frames (its players, its frames,
    whatever else its page reads), and the replay file's text."""
    return jsonify({**web.frames(replay, seat), "replay": web.replay_to_json(replay)})


def watch_request(shelf: ReplayShelf) -> tuple[str, Any]:
    """The replay text a watch request sends, or names on `shelf`, and the seat it asks for; WebError (400) if the body is not one."""
    data = json_body()
    if not isinstance(data, dict) or set(data) - {"replay", "file", "seat"} or ("replay" in data) == ("file" in data):
        raise WebError("send {'replay': a replay's JSON text} or {'file': a saved replay's name}, and 'seat': null or a seat")
    text = data["replay"] if "replay" in data else shelf.read(data["file"])
    if not isinstance(text, str):
        raise WebError(f"replay: the replay file's text, as a string; got {type(text).__name__}")
    return text, data.get("seat")


def replay_download(text: str, filename: str) -> ResponseReturnValue:
    """A replay file's text, as a download named `filename`."""
    response = current_app.response_class(text, mimetype="application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def held(served: Served, game_id: str) -> WebGame:
    """This session's game `game_id` of the served game; WebError (404) if it has none (or it is another game's)."""
    return cast(WebGame, site().games.find(g.session, game_id, served.game.name))


# -- every request: the host, the session cookie, the headers -------------------------------------
def host_name(host: str) -> str:
    """The name in a Host header, without its port: `[::1]:8011` is `::1`, `localhost:80` is `localhost`."""
    if host.startswith("["):  # an IPv6 address, bracketed because it holds colons
        return host[1:].partition("]")[0].lower()
    return host.partition(":")[0].lower()


@routes.before_app_request
def check_host() -> None:
    """Refuse a Host the app does not answer to (a DNS-rebinding page names its own), 400."""
    trusted = current_app.config.get("MIAUI_TRUSTED_HOSTS")
    if trusted is not None and host_name(request.host) not in trusted:
        raise WebError(f"Host {request.host!r:.80} is not trusted: this server answers to {', '.join(trusted)}")


@routes.before_app_request
def open_session() -> None:
    """Find the browser session's token in its cookie ("": none). Only a new game or a watch opens
    one (`session`): reading the page or the API never does, so it never costs a slot."""
    token = request.cookies.get(SESSION_COOKIE, "")
    g.session = token if _SESSION_TOKEN.fullmatch(token) else ""
    g.new_session = False


def session() -> str:
    """This request's browser session, opened (its cookie set on the answer) if it has none."""
    if not g.session:
        g.session, g.new_session = secrets.token_urlsafe(16), True
    return cast(str, g.session)


@routes.after_app_request
def add_headers(response: Response) -> Response:
    """Set a new session's cookie, the security headers, and no caching of the API."""
    if getattr(g, "new_session", False):
        response.set_cookie(SESSION_COOKIE, g.session, httponly=True, samesite="Strict")
    response.headers.update(SECURITY_HEADERS)
    if request.path.startswith("/api/"):
        response.headers["Cache-Control"] = "no-store"
    return response


# -- errors: JSON {"error": message} -----------------------------------------------------------
@routes.app_errorhandler(WebError)
def refused(error: WebError) -> ResponseReturnValue:
    """A request the app refuses, with its own status."""
    return jsonify(error=str(error)), error.status


@routes.app_errorhandler(ReplayError)
def bad_replay(error: ReplayError) -> ResponseReturnValue:
    """A replay that cannot be played back."""
    return jsonify(error=f"not a replay this app can play back: {error}"), 400


@routes.app_errorhandler(HTTPException)
def http_error(error: HTTPException) -> ResponseReturnValue:
    """What the web framework refuses (no such page, a method not allowed, a body too large)."""
    messages = {413: f"the request is larger than {MAX_BODY // 1024} kB", 404: f"nothing at {request.path}"}
    return jsonify(error=messages.get(error.code or 0, error.description or error.name)), error.code or 500


@routes.app_errorhandler(Exception)
def fault(error: Exception) -> ResponseReturnValue:
    """A fault of ours (an agent that failed, a bug): this request fails, every other goes on."""
    current_app.logger.exception("request %s %s failed", request.method, request.path)
    return jsonify(error=f"the server failed on this request ({type(error).__name__}: {error}); other games go on"), 500


# -- the pages ------------------------------------------------------------------------------------
@routes.get("/favicon.ico")
def favicon() -> ResponseReturnValue:
    """The icon, for browsers that ask for it before reading the page's link (the pages link /static/favicon.svg)."""
    return send_from_directory(cast(str, current_app.static_folder), "favicon.svg", mimetype="image/svg+xml")


@routes.get("/<game>")
def game_page(game: str) -> ResponseReturnValue:
    """The game's page: its own file, or one of the app's templates (the generic one, `templates/game.html`,
    reads the game's name from the URL)."""
    web = site().served(game).web
    if web.static_folder is not None:
        return send_from_directory(web.static_folder, web.page)
    return render_template(web.page)


@routes.get("/<game>/static/<path:filename>")
def game_file(game: str, filename: str) -> ResponseReturnValue:
    """A file of a game's own page (its script, its pictures), where its `web` part gives a folder of them."""
    served = site().served(game)
    if served.web.static_folder is None:
        raise WebError(f"{served.game.title}'s page is one of the app's own: its files are under /static/", 404)
    return send_from_directory(served.web.static_folder, filename)


def reserved_name(game: Game) -> str:
    """Why a game named as one of the app's own paths has no page."""
    return f"{game.title} has no page here: its name {game.name!r} is one of the app's own paths ({', '.join(sorted(RESERVED_NAMES))})"


def index_entry(game: Game) -> dict[str, str | None]:
    """One game's line in the games index (`templates/games.html`): a link to its page (None: it has
    none), and what page it is, or what it lacks for one."""
    link = None
    if game.name in RESERVED_NAMES:
        note = reserved_name(game)
    elif "web" not in game.parts and "words" not in game.parts:
        note = "no page: it gives neither a web part nor words"
    else:
        note = "its own page" if "web" in game.parts else "the generic page, in its words"
        link = f"/{quote(game.name)}"
    players = f"{game.min_players}-{game.max_players} players"
    return {"name": game.name, "title": game.title, "players": players, "link": link, "note": note}


@routes.get("/games")
def games_index() -> ResponseReturnValue:
    """Every registered game, each with a link to its page (no script: it is read as it is sent)."""
    return render_template("games.html", games=[index_entry(get_game(name)) for name in game_names()])


# -- the API: every game's, by its name -----------------------------------------------------------
@routes.get("/api/<game>/agents")
def agent_list(game: str) -> ResponseReturnValue:
    """The opponents offered, what the training extra would add, the game's tables, and the server's limits."""
    served, store = site().served(game), site().games
    limits = {
        "max_games": store.max_games,
        "per_session": store.per_session,
        "idle_minutes": store.idle_ttl / 60,
        "finished_minutes": store.finished_ttl / 60,
        "max_body_kb": MAX_BODY // 1024,
    }
    agents = [{"name": c.name, "about": c.about, "needs_training_extra": c.needs_training_extra} for c in served.menu]
    # The shipped policies this server cannot load without torch and sb3-contrib, and how to get them.
    training = {"missing": served.web.missing_opponents(served.menu), "install": TRAINING_INSTALL}
    about = served.game
    tables = {
        "name": about.name,
        "title": about.title,
        "min_players": about.min_players,
        "max_players": about.max_players,
        "default_players": about.default_players,
        "views": list(about.views),
        "default_opponents": list(about.play_opponents),
        "plays_agents_alone": served.web.plays_agents_alone,
    }
    return jsonify(agents=agents, limits=limits, training_extra=training, game=tables)


@routes.post("/api/<game>/games")
def new_game(game: str) -> ResponseReturnValue:
    """A new game for this session, played on to the person's first decision."""
    served = site().served(game)
    choice, address = served.web.new_game(json_body(), served.menu), request.remote_addr or ""
    site().games.admit(g.session, address)  # before the deal and the agents' loading, which cost a refused client nothing
    started = served.web.start(choice)
    site().games.add(session(), started, address, served.game.name)
    return jsonify(started.page()), 201


@routes.get("/api/<game>/games/<game_id>")
def show_game(game: str, game_id: str) -> ResponseReturnValue:
    """The game as the person's seat sees it."""
    return jsonify(held(site().served(game), game_id).page())


@routes.post("/api/<game>/games/<game_id>/actions")
def decide(game: str, game_id: str) -> ResponseReturnValue:
    """The person's decision (the body the game reads), then the agents' until the person decides again."""
    served = site().served(game)
    person = held(served, game_id)
    person.decide(json_body(), site().replays_of(served))
    site().games.touch(person)
    return jsonify(person.page())


@routes.delete("/api/<game>/games/<game_id>")
def leave_game(game: str, game_id: str) -> ResponseReturnValue:
    """Drop the game at once."""
    site().games.drop(g.session, game_id, site().served(game).game.name)
    return "", 204


@routes.get("/api/<game>/games/<game_id>/replay")
def replay_file(game: str, game_id: str) -> ResponseReturnValue:
    """The finished game's replay file, in its game's own format."""
    served = site().served(game)
    person = held(served, game_id)
    if person.replay is None:
        raise WebError(f"this {served.game.title} game is not over yet: its replay is written when it ends", 409)
    return replay_download(served.web.replay_to_json(person.replay), f"{served.game.name}-{person.id[:6]}.json")


@routes.get("/api/<game>/replays")
def replay_list(game: str) -> ResponseReturnValue:
    """The game's replays saved on this machine (see `ReplayShelf`)."""
    shelf = site().served(game).shelf
    return jsonify(roots=[str(root) for root in shelf.roots], replays=shelf.list())


@routes.post("/api/<game>/watch")
def watch(game: str) -> ResponseReturnValue:
    """A replay of the game sent or named, as frames to step through."""
    served = site().served(game)
    text, seat = watch_request(served.shelf)
    return frames_reply(served.web, watched_replay(served.web, text), seat)


@routes.post("/api/<game>/watch/agents")
def watch_agents(game: str) -> ResponseReturnValue:
    """A fresh game of agents alone, as frames to step through (only a game that offers one)."""
    served = site().served(game)
    if not served.web.plays_agents_alone:
        raise no_agents_game(served.game.title, served.game.name)
    data = json_body()
    seat = data.pop("seat", None) if isinstance(data, dict) else None
    planned = served.web.agents_game(data, served.menu)
    checked_seat(seat, planned.num_players)  # before the game is played
    # A whole game of agents takes seconds (search: ~13 s): a few at once, so that the server's
    # other threads stay free for everyone else's requests.
    with site().games.watching(session(), request.remote_addr or ""):
        replay = planned.play()
    return frames_reply(served.web, replay, seat)


# -- Miaui's URLs from before the second game: the legacy game's aliases of the routes above ---------
LEGACY_ROUTES: tuple[tuple[str, str, Callable[..., ResponseReturnValue]], ...] = (
    ("/", "GET", game_page),
    ("/api/agents", "GET", agent_list),
    ("/api/games", "POST", new_game),
    ("/api/games/<game_id>", "GET", show_game),
    ("/api/games/<game_id>/play", "POST", decide),
    ("/api/games/<game_id>", "DELETE", leave_game),
    ("/api/games/<game_id>/replay", "GET", replay_file),
    ("/api/replays", "GET", replay_list),
    ("/api/watch", "POST", watch),
    ("/api/watch/agents", "POST", watch_agents),
)
"""Each (rule, method, view): the view serves the rule as the legacy game's (`LEGACY_GAME`)."""

for rule, method, view in LEGACY_ROUTES:
    # An endpoint of its own: werkzeug would otherwise redirect /api/miaui/... to the alias with the same defaults.
    routes.add_url_rule(rule, f"legacy_{view.__name__}", view, methods=[method], defaults={"game": LEGACY_GAME})


@routes.app_errorhandler(BusyError)
def busy(error: BusyError) -> ResponseReturnValue:
    """A request refused for now (429 or 503), with when to try again."""
    return jsonify(error=str(error)), error.status, {"Retry-After": str(error.retry_after)}
