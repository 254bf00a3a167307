"""The browser app's web side: a Flask app (its JSON API and the pages), served by waitress.

Every route is written once for every registered game: `<game>` is a registry name
(`miaui_env.games.get_game`), and the game is served through its `web` part (a
`miaui_env.core.web.GameWeb`): Miaui's and the octopus game's their own, any other game's the
generic page (`miaui_env.apps.web.any_game`: its AEC env, put in words by its `words` part). An
unknown name is a 404 naming the registered games; a game with neither a `web` part nor words is a
404 saying so.

    GET    /games                             every registered game, each with a link to its page
    GET    /<game>                            the game's page (Miaui's templates/index.html, the octopus game's
                                              octopus.html, any other game's templates/game.html)
    GET    /<game>/static/<file>              a file of a page a game ships in a folder of its own
    GET    /api/<game>/agents                 the opponents offered, what the training extra adds, the game's
                                              tables (players, views, default opponents), the server's limits
    POST   /api/<game>/games                  a new game, played on to the person's first decision (201); the
                                              body is the game's: Miaui {players, seat, opponents, open_baskets,
                                              no_fighting, view, seed}, octopus and any other game {num_players,
                                              seat, opponents, view, seed}
    GET    /api/<game>/games/<id>             the game as the person's seat sees it
    POST   /api/<game>/games/<id>/actions     the person's decision, then the agents' until the next one: Miaui
                                              {card, round} (409 once past it), octopus {action, step}, any
                                              other game {action, step} (409 for a stale step)
    DELETE /api/<game>/games/<id>             leave the game (it is dropped at once)
    GET    /api/<game>/games/<id>/replay      the finished game's replay file, in the game's format (409 before)
    GET    /api/<game>/replays                the game's replays saved on this machine (see `ReplayShelf`)
    POST   /api/<game>/watch                  {replay: JSON text, or file: a listed name; seat}: the frames to step through
    POST   /api/<game>/watch/agents           a game of agents alone, as frames: Miaui's {players, agents,
                                              open_baskets, no_fighting, seed; seat}; 404 for a game without one

Miaui's URLs from before the second game are the legacy game's aliases of the same routes
(`routes.LEGACY_ROUTES`):

    GET    /                                  Miaui's page
    GET    /api/agents, POST /api/games, GET /api/games/<id>, DELETE /api/games/<id>,
    POST   /api/games/<id>/play ({card, round}), GET /api/games/<id>/replay, GET /api/replays,
    POST   /api/watch, POST /api/watch/agents

The octopus game's URLs (`/octopus`, `/api/octopus/...`) are the generic ones.

The routes are module-level view functions of one blueprint (`routes`); each app made here has
its own games, opponents and replay shelves (`routes.Site`, in `app.extensions`). A browser
session is a random token in an HttpOnly, SameSite=Strict cookie, opened only by a new game or a
game of agents (never by reading); a session reaches only its own games, every game's held in one
store under its game's name. Games of agents play a few at once (429 or 503 with Retry-After
beyond: see GameStore.watching). Errors are JSON `{"error": message}` with a 4xx status (5xx only
for the server's own faults), and one request's failure never stops the others being served.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miaui_env.apps.web.games import MAX_BODY, GameStore
from miaui_env.apps.web.memory import limit_arenas

if TYPE_CHECKING:
    from flask import Flask

STATIC = Path(__file__).parent / "static"
TEMPLATES = Path(__file__).parent / "templates"  # the pages: Jinja templates of one layout (base.html)
LOOPBACK = ("127.0.0.1", "localhost", "::1")
EXTRA = 'pip install "miaui-rl[web]"'


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
    from flask import Flask

    from miaui_env.apps.web import routes

    app = Flask(__name__, static_folder=str(STATIC), static_url_path="/static", template_folder=str(TEMPLATES))
    # The Host check is the app's own (routes.check_host): werkzeug's cannot match an IPv6 address.
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY, MIAUI_TRUSTED_HOSTS=trusted_hosts)
    routes.install(app, store if store is not None else GameStore(), replays, tuple(library))
    return app


def main(argv: list[str] | None = None) -> None:
    """Serve the app until Ctrl-C."""
    import miaui_env.apps.web
    from miaui_env.core.cli import check_writable, port_number, positive_int, run_command

    parser = argparse.ArgumentParser(
        allow_abbrev=False, description=miaui_env.apps.web.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on; 0.0.0.0 opens it to your network (on purpose only)")
    parser.add_argument("--port", type=port_number, default=8000, help="0 picks a free port")
    parser.add_argument("--max-games", type=positive_int, default=64, help="games live at once; a new game beyond is refused")
    parser.add_argument(
        "--games-per-address",
        type=positive_int,
        default=16,
        help="live games from one client address (behind a proxy every client shares one: raise it)",
    )
    parser.add_argument("--watch-games", type=positive_int, default=2, help="games of agents played at once, one per session; more get 503")
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
    for folder in args.library:
        if folder.exists() and not folder.is_dir():
            parser.error(f"--library {folder} is not a folder; it names folders whose replays/ the watch page lists")

    def serve() -> None:
        check_writable(args.replays)  # where finished games go: a file, or a folder that cannot be made, is refused now
        _require("waitress")
        from miaui_env.apps.web.serving import web_server

        # Before waitress starts its threads: each would otherwise get allocator arenas of its own.
        limit_arenas()
        store = GameStore(
            max_games=args.max_games,
            per_address=args.games_per_address,
            idle_ttl=args.idle_minutes * 60.0,
            max_watch_games=args.watch_games,
        )
        # On loopback only the page's own host names are answered (a DNS-rebinding page cannot
        # reach it); opened with --host, any name the network uses for this machine is.
        trusted = list(LOOPBACK) if args.host in LOOPBACK else None
        app = create_app(store, replays=args.replays, library=args.library, trusted_hosts=trusted)
        # waitress buffers a whole body before the app sees it: a body over MAX_BODY is refused
        # there instead, with the same JSON 413 the app would give.
        try:
            server: Any = web_server(app, host=args.host, port=args.port)
        except (OSError, ValueError) as error:  # waitress says only "Invalid host/port specified."
            raise OSError(
                f"cannot listen on --host {args.host!r} --port {args.port}: {error} "
                "(--host is an address of this machine: 127.0.0.1, ::1 or 0.0.0.0 for every interface)"
            ) from None
        host = f"[{args.host}]" if ":" in args.host else args.host
        print(f"Miaui in the browser: http://{host}:{server.effective_port}/  (Ctrl-C stops it; every game: /games)", flush=True)
        if args.host not in LOOPBACK:
            print(f"  listening on {args.host}: anyone who can reach this machine can play here", file=sys.stderr, flush=True)
        server.run()

    run_command(parser.prog, serve, interrupted="stopped")
