"""Play and watch Miaui in the browser: a small Flask app served by waitress (the `web` extra).

    python -m miaui_env.apps.web [--host 127.0.0.1] [--port 8000]     # or miaui-web

**Play**: choose the table (size, variants, your seat and view) and an opponent for every other
seat from the server's own list (the built-in agents, the shipped policies in both play modes, the
search agent, policy + search), then click your diver cards. The page shows exactly what your
seat's observation holds, as the terminal play does, and each reveal step by step: the cards,
each depth's catch, each Seagull theft and Jellyfish triple, then the final scores. A finished
game is saved as a replay (`results/replays/web-<time>-<id>.json`, `miaui_env.apps.replay`).

**Watch**: open a replay (saved on this machine under `results/`: the arena's, human play's, this
app's; or any replay file) and step through it round by round, forwards and back, as a spectator
or from one seat's view; or let agents play a fresh game and step through that.

**Many games at once**: each browser session (a cookie) reaches only its own games; the limits are
`GameStore`'s (64 live games, 4 a session, 30 minutes untouched, 10 minutes after the last card).
Bad input gets a 4xx with a JSON error the page shows; a request body over 1 MB is refused (413).

**Every game**: `/games` lists every registered game with a link to its page: Miaui's at `/` (and
`/miaui`), the octopus game's at `/octopus`, and a plug-in game's at `/<its name>`, the generic page
built from its env and its words (`any_game`), unless it gives a page of its own (its `web` part).

Modules: `games` (the store of every game's live games, sessions, watching, the replay shelf; no
web framework), `any_game` (the generic page's games, through a game's AEC env and words),
`routes` (the Flask blueprint, written once for every game), `app` (`create_app` and `main`),
`templates/` (the pages: Jinja templates of one layout) and `static/` (their CSS and JavaScript,
no build step). Each game's own page is its registry part `web` (`miaui_env.core.web.GameWeb`).
"""

from miaui_env.apps.web.app import create_app, main

__all__ = ["create_app", "main"]
