"""The browser app's web side: a Flask app (its JSON API and the page), served by waitress.

    GET    /                          the page (static/index.html, app.js, style.css)
    GET    /api/agents                the opponents offered, and the server's limits
    POST   /api/games                 a new game: {players, seat, opponents, open_baskets, no_fighting, view, seed}
    GET    /api/games/<id>            the game as the person's seat sees it
    POST   /api/games/<id>/play       {card}: play a diver card; the agents play theirs; the reveal
    DELETE /api/games/<id>            leave the game (it is dropped at once)
    GET    /api/games/<id>/replay     the finished game's replay file
    GET    /api/replays               the replays saved on this machine (see `ReplayShelf`)
    POST   /api/watch                 {replay: JSON text, or file: a listed name; seat}: the frames to step through
    POST   /api/watch/agents          {players, agents, open_baskets, no_fighting, seed; seat}: agents play a fresh game

A browser session is a random token in an HttpOnly, SameSite=Strict cookie; a session reaches
only its own games. Errors are JSON `{"error": message}` with a 4xx status (5xx only for the
server's own faults), and one request's failure never stops the others being served.
"""

from __future__ import annotations

import argparse
import re
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miaui_env.apps.replay import ReplayError, replay_from_json, replay_to_json
from miaui_env.apps.web.games import (
    MAX_BODY,
    GameStore,
    ReplayShelf,
    TableChoice,
    WebError,
    agent_menu,
    agents_game,
    checked_seat,
    frames_of,
    start_game,
)

if TYPE_CHECKING:
    from flask import Flask

STATIC = Path(__file__).parent / "static"
SESSION_COOKIE = "miaui_session"
_SESSION_TOKEN = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16)
LOOPBACK = ("127.0.0.1", "localhost", "::1")
EXTRA = 'pip install "miaui-rl[web]"'
# The page loads nothing from elsewhere and runs no inline script: a replay's player names, which
# anyone can write, are shown as text and can never run as code.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class MissingWebExtraError(ImportError):
    """Flask or waitress, which serve the browser app, is not installed."""


def _require(module: str) -> None:
    try:
        __import__(module)
    except ImportError as missing:
        raise MissingWebExtraError(f"the browser app needs {module}, which is not installed: {EXTRA}") from missing


def create_app(
    store: GameStore | None = None,
    replays: Path | None = Path("results/replays"),
    library: Sequence[Path] = (Path("results"), Path("checkpoints")),
    trusted_hosts: list[str] | None = None,
) -> Flask:
    """The Flask app. `store` holds the live games (its limits: see GameStore); finished games
    are saved as replays in `replays` (None: not saved); the watch page lists the replays under
    the folders `library` (see ReplayShelf); `trusted_hosts` (None: any) are the Host names a request may name."""
    _require("flask")
    from flask import Flask, Response, g, jsonify, request, send_from_directory
    from werkzeug.exceptions import HTTPException

    app = Flask(__name__, static_folder=str(STATIC), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.config["TRUSTED_HOSTS"] = trusted_hosts
    games = store if store is not None else GameStore()
    menu = agent_menu()
    shelf = ReplayShelf(tuple(library))
    app.extensions["miaui_games"] = games

    @app.before_request
    def session() -> None:
        token = request.cookies.get(SESSION_COOKIE, "")
        g.new_session = not _SESSION_TOKEN.fullmatch(token)
        g.session = secrets.token_urlsafe(16) if g.new_session else token

    @app.after_request
    def headers(response: Response) -> Response:
        if getattr(g, "new_session", False):
            response.set_cookie(SESSION_COOKIE, g.session, httponly=True, samesite="Strict")
        response.headers.update(SECURITY_HEADERS)
        if request.path.startswith("/api/"):
            response.headers["Cache-Control"] = "no-store"
        return response

    def body() -> Any:
        if not request.is_json:
            raise WebError(f"the request body must be JSON (Content-Type: application/json), not {request.mimetype or 'nothing'}", 415)
        try:
            return request.get_json()
        except HTTPException as error:  # werkzeug refuses JSON it cannot parse
            if error.code == 413:
                raise
            raise WebError("the request body is not valid JSON") from None

    @app.errorhandler(WebError)
    def refused(error: WebError) -> Any:
        return jsonify(error=str(error)), error.status

    @app.errorhandler(ReplayError)
    def bad_replay(error: ReplayError) -> Any:
        return jsonify(error=f"not a replay this app can play back: {error}"), 400

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        messages = {413: f"the request is larger than {MAX_BODY // 1024} kB", 404: f"nothing at {request.path}"}
        return jsonify(error=messages.get(error.code or 0, error.description or error.name)), error.code

    @app.errorhandler(Exception)
    def fault(error: Exception) -> Any:  # a fault of ours (an agent that failed, a bug): this request only
        app.logger.exception("request %s %s failed", request.method, request.path)
        return jsonify(error=f"the server failed on this request ({type(error).__name__}: {error}); other games go on"), 500

    @app.get("/")
    def page() -> Any:
        return send_from_directory(STATIC, "index.html")

    @app.get("/api/agents")
    def agent_list() -> Any:
        limits = {"max_games": games.max_games, "per_session": games.per_session, "idle_minutes": games.idle_ttl / 60,
                  "finished_minutes": games.finished_ttl / 60, "max_body_kb": MAX_BODY // 1024}  # fmt: skip
        return jsonify(agents=[{"name": choice.name, "about": choice.about} for choice in menu], limits=limits)

    @app.post("/api/games")
    def new() -> Any:
        game = start_game(TableChoice.parse(body(), menu, person=True))
        games.add(g.session, game)
        return jsonify(game.view()), 201

    @app.get("/api/games/<game_id>")
    def show(game_id: str) -> Any:
        return jsonify(games.get(g.session, game_id).view())

    @app.post("/api/games/<game_id>/play")
    def play(game_id: str) -> Any:
        game = games.get(g.session, game_id)
        data = body()
        if not isinstance(data, dict) or set(data) != {"card"}:
            raise WebError(f"a play is a JSON object {{'card': a diver card 1-12}}; got {data!r:.60}")
        game.play(data["card"], replays)
        games.touch(game)
        return jsonify(game.view())

    @app.delete("/api/games/<game_id>")
    def leave(game_id: str) -> Any:
        games.drop(g.session, game_id)
        return "", 204

    @app.get("/api/games/<game_id>/replay")
    def replay_file(game_id: str) -> Any:
        game = games.get(g.session, game_id)
        if game.replay is None:
            raise WebError("the game is not over yet: its replay is written after round 12", 409)
        response = app.response_class(replay_to_json(game.replay), mimetype="application/json")
        response.headers["Content-Disposition"] = f'attachment; filename="miaui-{game.id[:6]}.json"'
        return response

    @app.get("/api/replays")
    def replay_list() -> Any:
        return jsonify(roots=[str(root) for root in shelf.roots], replays=shelf.list())

    @app.post("/api/watch")
    def watch() -> Any:
        data = body()
        if not isinstance(data, dict) or set(data) - {"replay", "file", "seat"} or ("replay" in data) == ("file" in data):
            raise WebError("send {'replay': a replay's JSON text} or {'file': a saved replay's name}, and 'seat': null or a seat")
        text = data["replay"] if "replay" in data else shelf.read(data["file"])
        if not isinstance(text, str):
            raise WebError(f"replay: the replay file's text, as a string; got {type(text).__name__}")
        replay = replay_from_json(text)
        return jsonify(players=list(replay.players), frames=frames_of(replay, data.get("seat")), replay=replay_to_json(replay))

    @app.post("/api/watch/agents")
    def watch_agents() -> Any:
        data = body()
        seat = data.pop("seat", None) if isinstance(data, dict) else None
        choice = TableChoice.parse(data, menu, person=False)
        checked_seat(seat, choice.num_players)  # before the game is played
        replay = agents_game(choice)
        return jsonify(players=list(replay.players), frames=frames_of(replay, seat), replay=replay_to_json(replay))

    return app


def main(argv: list[str] | None = None) -> None:
    """Serve the app until Ctrl-C."""
    import miaui_env.apps.web
    from miaui_env.apps.cli import non_negative_int, positive_int, run_command

    parser = argparse.ArgumentParser(description=miaui_env.apps.web.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on; 0.0.0.0 opens it to your network (on purpose only)")
    parser.add_argument("--port", type=non_negative_int, default=8000, help="0 picks a free port")
    parser.add_argument("--max-games", type=positive_int, default=64, help="games live at once; a new game beyond is refused")
    parser.add_argument("--idle-minutes", type=positive_int, default=30, help="an untouched game is dropped after this long")
    parser.add_argument("--replays", type=Path, default=Path("results/replays"), help="where finished games are saved")
    parser.add_argument(
        "--library",
        type=Path,
        nargs="+",
        default=[Path("results"), Path("checkpoints")],
        help="the watch page lists the replays/ folders under these (the arena's, human play's, self-play evaluations')",
    )
    args = parser.parse_args(argv)

    def serve() -> None:
        _require("waitress")
        from waitress import create_server

        store = GameStore(max_games=args.max_games, idle_ttl=args.idle_minutes * 60.0)
        # On loopback only the page's own host names are answered (a DNS-rebinding page cannot
        # reach it); opened with --host, any name the network uses for this machine is.
        trusted = list(LOOPBACK) if args.host in LOOPBACK else None
        app = create_app(store, replays=args.replays, library=args.library, trusted_hosts=trusted)
        # waitress buffers a whole body before the app sees it: its own cap stops a flood early,
        # the app's (MAX_BODY) answers anything between with a JSON 413 the page can show.
        server: Any = create_server(app, host=args.host, port=args.port, threads=8, max_request_body_size=4 * MAX_BODY)
        host = f"[{args.host}]" if ":" in args.host else args.host
        print(f"Miaui in the browser: http://{host}:{server.effective_port}/  (Ctrl-C stops it)", flush=True)
        if args.host not in LOOPBACK:
            print(f"  listening on {args.host}: anyone who can reach this machine can play here", file=sys.stderr, flush=True)
        server.run()

    run_command(parser.prog, serve, interrupted="stopped")
