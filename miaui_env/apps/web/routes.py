"""The browser app's routes: one Flask blueprint of module-level view functions (see `app` for the
API they serve). Each reaches the app's games, opponents and replays through `site()`, the `Site`
that `create_app` installs, so one process can serve several apps (the tests make many).

This module imports Flask; `create_app` imports it only when an app is made, so importing
`miaui_env.apps.web` needs no Flask.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from flask import Blueprint, Flask, Response, current_app, g, jsonify, request, send_from_directory
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from miaui_env.apps.web.games import MAX_BODY, TRAINING_INSTALL, BusyError, GameStore, NotJSONError, ReplayShelf, parse_json
from miaui_env.core.replays import ReplayError
from miaui_env.core.web import AgentChoice, WebError, checked_seat
from miaui_env.games.miaui.replay import Replay, replay_from_json, replay_to_json
from miaui_env.games.miaui.web import TableChoice, agent_menu, agents_game, frames_of, policy_choices, start_game
from miaui_env.games.octopus import replay as octopus_replay
from miaui_env.games.octopus.web import ACTION_FIELDS, OctopusChoice, OctopusHumanGame, octopus_frames, octopus_menu, start_octopus_game

SESSION_COOKIE = "miaui_session"
_SESSION_TOKEN = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16)
# The page loads nothing from elsewhere and runs no inline script: a replay's player names, which
# anyone can write, are shown as text and can never run as code.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
SITE = "miaui"  # the app.extensions key of the app's Site
GAMES = "miaui_games"  # the app.extensions key of its GameStore alone (what tests and monitoring read)

routes = Blueprint("miaui", __name__)


@dataclass(frozen=True)
class Site:
    """What one app serves: the live games, the opponents a page may choose, the saved replays it
    lists, and the folder finished games are saved in (None: not saved)."""

    games: GameStore
    menu: tuple[AgentChoice, ...]
    shelf: ReplayShelf
    replays: Path | None
    octopus_menu: tuple[AgentChoice, ...]
    octopus_shelf: ReplayShelf


def install(app: Flask, games: GameStore, replays: Path | None, library: tuple[Path, ...]) -> None:
    """Serve the routes on `app`, with its own Site."""
    site = Site(
        games,
        agent_menu(),
        ReplayShelf(library),
        replays,
        octopus_menu(),
        ReplayShelf(library, game=octopus_replay.GAME, listing="GET /api/octopus/replays"),
    )
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


def watched_replay(text: str) -> Replay:
    """The replay in `text`, parsed at the edge first (a replay's depth and integers are bounded
    like a request's); WebError or ReplayError (400) if it is not one the page can show."""
    try:
        data = parse_json(text, "the replay")
    except NotJSONError:  # the library's own message says what a replay file is
        data = None
    # The library writes any name as text; a page shows what the file says, so it must say text.
    names = data.get("players") if isinstance(data, dict) else None
    for name in names if isinstance(names, list) else ():
        if not isinstance(name, str):
            raise WebError(f"the replay's player name {name!r:.40} is not allowed: player names are strings")
    return replay_from_json(text)


def frames_reply(replay: Replay, seat: Any) -> ResponseReturnValue:
    """A replay as the watch page steps through it: the players, the frames, the replay file's text."""
    return jsonify(players=list(replay.players), frames=frames_of(replay, seat), replay=replay_to_json(replay))


def watch_request(shelf: ReplayShelf, what: str) -> tuple[str, Any]:
    """The replay text a watch request sends, or names on `shelf`, and the seat it asks for; WebError
    (400) naming `what` (the replay's kind, as in "a replay's JSON text") if the body is not one."""
    data = json_body()
    if not isinstance(data, dict) or set(data) - {"replay", "file", "seat"} or ("replay" in data) == ("file" in data):
        raise WebError(f"send {{'replay': {what} JSON text}} or {{'file': a saved replay's name}}, and 'seat': null or a seat")
    text = data["replay"] if "replay" in data else shelf.read(data["file"])
    if not isinstance(text, str):
        raise WebError(f"replay: the replay file's text, as a string; got {type(text).__name__}")
    return text, data.get("seat")


def shelf_reply(shelf: ReplayShelf) -> ResponseReturnValue:
    """The folders a replay shelf looks in, and the replays it lists."""
    return jsonify(roots=[str(root) for root in shelf.roots], replays=shelf.list())


def replay_download(text: str, filename: str) -> ResponseReturnValue:
    """A replay file's text, as a download named `filename`."""
    response = current_app.response_class(text, mimetype="application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def agents_reply(menu: tuple[AgentChoice, ...], **more: Any) -> ResponseReturnValue:
    """The opponents a page may choose from `menu`, with `more` fields beside them."""
    agents = [{"name": c.name, "about": c.about, "needs_training_extra": c.needs_training_extra} for c in menu]
    return jsonify(agents=agents, **more)


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


# -- the page and the API ----------------------------------------------------------------------
@routes.get("/")
def page() -> ResponseReturnValue:
    """The page."""
    return send_from_directory(cast(str, current_app.static_folder), "index.html")


@routes.get("/octopus")
def octopus_page() -> ResponseReturnValue:
    """The octopus game's page."""
    return send_from_directory(cast(str, current_app.static_folder), "octopus.html")


@routes.get("/favicon.ico")
def favicon() -> ResponseReturnValue:
    """The icon, for browsers that ask for it before reading the page's link (the pages link /static/favicon.svg)."""
    return send_from_directory(cast(str, current_app.static_folder), "favicon.svg", mimetype="image/svg+xml")


@routes.get("/api/agents")
def agent_list() -> ResponseReturnValue:
    """The opponents offered, and the server's limits."""
    games = site().games
    limits = {
        "max_games": games.max_games,
        "per_session": games.per_session,
        "idle_minutes": games.idle_ttl / 60,
        "finished_minutes": games.finished_ttl / 60,
        "max_body_kb": MAX_BODY // 1024,
    }
    menu = site().menu
    offered = {choice.name for choice in menu}
    # The shipped policies this server cannot load without torch and sb3-contrib, and how to get them.
    missing = [choice.name for choice in policy_choices() if choice.name not in offered]
    training = {"missing": missing, "install": TRAINING_INSTALL}
    return agents_reply(menu, limits=limits, training_extra=training)


@routes.post("/api/games")
def new_game() -> ResponseReturnValue:
    """A new game for this session."""
    choice, address = TableChoice.parse(json_body(), site().menu, person=True), request.remote_addr or ""
    site().games.admit(g.session, address)  # before the deal and the agents' loading, which cost a refused client nothing
    game = start_game(choice)
    site().games.add(session(), game, address)
    return jsonify(game.page()), 201


@routes.get("/api/games/<game_id>")
def show_game(game_id: str) -> ResponseReturnValue:
    """The game as the person's seat sees it."""
    return jsonify(site().games.get(g.session, game_id).page())


@routes.post("/api/games/<game_id>/play")
def play_card(game_id: str) -> ResponseReturnValue:
    """The person's card, the agents' cards, the reveal."""
    game = site().games.get(g.session, game_id)
    data = json_body()
    if not isinstance(data, dict) or set(data) != {"card", "round"}:
        raise WebError(f"a play is a JSON object {{'card': a diver card 1-12, 'round': the round it is for}}; got {data!r:.60}")
    game.play(data["card"], data["round"], site().replays)
    site().games.touch(game)
    return jsonify(game.page())


@routes.delete("/api/games/<game_id>")
def leave_game(game_id: str) -> ResponseReturnValue:
    """Drop the game at once."""
    site().games.drop(g.session, game_id)
    return "", 204


@routes.get("/api/games/<game_id>/replay")
def replay_file(game_id: str) -> ResponseReturnValue:
    """The finished game's replay file."""
    game = site().games.get(g.session, game_id)
    if game.replay is None:
        raise WebError("the game is not over yet: its replay is written after round 12", 409)
    return replay_download(replay_to_json(game.replay), f"miaui-{game.id[:6]}.json")


@routes.get("/api/replays")
def replay_list() -> ResponseReturnValue:
    """The replays saved on this machine."""
    return shelf_reply(site().shelf)


@routes.post("/api/watch")
def watch() -> ResponseReturnValue:
    """A replay sent or named, as frames to step through."""
    text, seat = watch_request(site().shelf, "a replay's")
    return frames_reply(watched_replay(text), seat)


@routes.post("/api/watch/agents")
def watch_agents() -> ResponseReturnValue:
    """A fresh game of agents alone, as frames to step through."""
    data = json_body()
    seat = data.pop("seat", None) if isinstance(data, dict) else None
    choice = TableChoice.parse(data, site().menu, person=False)
    checked_seat(seat, choice.spec.num_players)  # before the game is played
    # A whole game of agents takes seconds (search: ~13 s): a few at once, so that the server's
    # other threads stay free for everyone else's requests.
    with site().games.watching(session(), request.remote_addr or ""):
        replay = agents_game(choice)
    return frames_reply(replay, seat)


@routes.app_errorhandler(BusyError)
def busy(error: BusyError) -> ResponseReturnValue:
    """A request refused for now (429 or 503), with when to try again."""
    return jsonify(error=str(error)), error.status, {"Retry-After": str(error.retry_after)}


# -- the octopus game (O1-O12) ---------------------------------------------------------------------
@routes.get("/api/octopus/agents")
def octopus_agent_list() -> ResponseReturnValue:
    """The octopus opponents offered."""
    return agents_reply(site().octopus_menu)


@routes.post("/api/octopus/games")
def new_octopus_game() -> ResponseReturnValue:
    """A new octopus game for this session, played on to the person's first decision."""
    choice, address = OctopusChoice.parse(json_body(), site().octopus_menu), request.remote_addr or ""
    site().games.admit(g.session, address)  # before the deal and the agents' loading, as for Miaui
    game = start_octopus_game(choice)
    site().games.add(session(), game, address)
    return jsonify(game.page()), 201


@routes.get("/api/octopus/games/<game_id>")
def show_octopus_game(game_id: str) -> ResponseReturnValue:
    """The octopus game as the person's seat sees it."""
    return jsonify(site().games.find(g.session, game_id, OctopusHumanGame).page())


@routes.post("/api/octopus/games/<game_id>/actions")
def octopus_action(game_id: str) -> ResponseReturnValue:
    """The person's decision, then the agents' until the person decides again."""
    game = site().games.find(g.session, game_id, OctopusHumanGame)
    data = json_body()
    if not isinstance(data, dict) or "action" not in data or set(data) - set(ACTION_FIELDS):
        shape = "{'action': an action index 0-11, 'step': optional, the decisions made so far}"
        raise WebError(f"a decision is a JSON object {shape}; got {data!r:.60}")
    game.play(data["action"], data.get("step"), site().replays)
    site().games.touch(game)
    return jsonify(game.page())


@routes.delete("/api/octopus/games/<game_id>")
def leave_octopus_game(game_id: str) -> ResponseReturnValue:
    """Drop the octopus game at once."""
    site().games.drop(g.session, game_id, OctopusHumanGame)
    return "", 204


@routes.get("/api/octopus/replays")
def octopus_replay_list() -> ResponseReturnValue:
    """The octopus replays saved on this machine."""
    return shelf_reply(site().octopus_shelf)


@routes.post("/api/octopus/watch")
def watch_octopus() -> ResponseReturnValue:
    """An octopus replay sent or named, as frames to step through."""
    text, seat = watch_request(site().octopus_shelf, "an octopus replay's")
    parse_json(text, "the replay")  # bounded like a request (depth, integers) before the library reads it
    replay = octopus_replay.replay_from_json(text)
    return jsonify(**octopus_frames(replay, seat), replay=octopus_replay.replay_to_json(replay))


@routes.get("/api/octopus/games/<game_id>/replay")
def octopus_replay_file(game_id: str) -> ResponseReturnValue:
    """The finished octopus game's replay file (miaui_env.games.octopus.replay)."""
    game = site().games.find(g.session, game_id, OctopusHumanGame)
    if game.replay is None:
        raise WebError("the octopus game is not over yet: its replay is written when it ends", 409)
    return replay_download(octopus_replay.replay_to_json(game.replay), f"octopus-{game.id[:6]}.json")
