"""Play and watch Miaui in the browser: a small Flask app served by waitress (the `web` extra).

    python -m training.web [--host 127.0.0.1] [--port 8000]      # or miaui-web

**Play**: choose the table (size, variants) and the opponents from the server's list (built-in
agents, the shipped policies in both play modes, the search agent, policy + search), then play
one seat. Everything the page shows of your seat comes from your seat's observation (as
`miaui_env.play` does in the terminal), so it shows nothing your seat may not know; each reveal
is shown in words, then the final scores. A finished game is saved as a replay
(`results/replays/web-<game>.json`, `miaui_env.replay`).

**Watch**: load a replay (from the arena, human play or this app) and step through it round by
round, forwards and back, as a spectator or from one seat's view; or let agents play a fresh game.

**Many games at once**: every game has its own id (kept by the page), and a request only ever
reaches its own game. At most `max_games` games live at once (a new one is refused with 503 when
full), and a game untouched for `game_ttl` seconds (default 30 minutes) is dropped, finished or
not. A request body larger than 1 MB is refused with 413; bad input gets a 4xx with a JSON
`{"error": ...}` that the page shows, and the server goes on serving everyone else.

The server binds to 127.0.0.1 unless `--host` opens it on purpose.
"""

from __future__ import annotations

import argparse
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.agents import Agent, as_seen, checked_actions, views_at_table
from miaui_env.agents.loading import load_agents
from miaui_env.env import MiauiParallelEnv, parallel_env
from miaui_env.observation import Encoder
from miaui_env.picture import seat_table, spectator_table, table_as_dict
from miaui_env.render import describe_round, seat_name
from miaui_env.replay import Replay, ReplayError, record_replay, replay_from_json, replay_states, replay_to_json, save_replay
from miaui_env.rules import MAX_PLAYERS, MIN_PLAYERS, NUM_DIVER_CARDS, NUM_ROUNDS, scores, winners

# The opponents a page may ask for: names the server loads itself, never a path or module:callable.
AGENTS = ("random", "greedy", "counter", "miaui-ppo-v0", "miaui-ppo-v0@sample", "search", "search+miaui-ppo-v0")
MAX_BODY = 1 << 20
STATIC = Path(__file__).parent / "static"


class WebInputError(ValueError):
    """A request the app refuses: the message is shown on the page, with its HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class WebGame:
    """One browser game: the table, the person's seat, the agents in the others."""

    env: MiauiParallelEnv
    seat: int
    agents: dict[int, Agent]
    views: dict[int, str]
    dealt: str
    seed: int
    names: list[str]
    observations: dict[str, Any] = field(default_factory=dict)
    plays: list[list[int]] = field(default_factory=list)
    reveal: list[str] = field(default_factory=list)
    replay: str | None = None
    touched: float = field(default_factory=time.monotonic)

    def view(self, game_id: str) -> dict[str, Any]:
        """What the page shows: this seat's view from its observation, the last reveal, the end."""
        me = seat_name(self.seat)
        n = self.env.config.num_players
        observation = self.observations[me]["observation"]
        table = table_as_dict(seat_table(observation, n))
        over = not self.env.agents
        final = None
        if over:
            totals = [int(total) for total in scores(self.env.game)]
            final = {"scores": totals, "winners": sorted(winners(self.env.game)), "names": self.names}
        seats_from_me = [(self.seat + k) % n for k in range(n)]
        for row, seat in zip(table["seats"], seats_from_me, strict=True):
            row["name"] = f"{seat_name(seat)} ({self.names[seat]})"
        for k in range(n - 1, 0, -1):  # the observation names seats from yours; the page names them as the table does
            table["kiti_lines"] = [line.replace(f"{k} to your left", seat_name(seats_from_me[k])) for line in table["kiti_lines"]]
        return {"id": game_id, "table": table, "reveal": self.reveal, "over": over, "final": final, "replay": self.replay,
                "hand": [int(card) for card in np.flatnonzero(self.observations[me]["action_mask"]) + 1] if not over else []}  # fmt: skip


class Games:
    """The live games, by id, behind one lock; untouched games expire."""

    def __init__(self, max_games: int, game_ttl: float, replays: Path | None):
        self.max_games, self.game_ttl, self.replays = max_games, game_ttl, replays
        self._games: dict[str, WebGame] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def add(self, game: WebGame) -> str:
        """Keep a new game; WebInputError (503) when the server holds as many as it may."""
        with self._lock:
            self._expire()
            if len(self._games) >= self.max_games:
                raise WebInputError(f"the server is playing {self.max_games} games, as many as it may; try again later", 503)
            game_id = secrets.token_hex(8)
            self._games[game_id] = game
            return game_id

    def get(self, game_id: str) -> WebGame:
        """The game with this id; WebInputError (404) if there is none (never there, finished long ago, or expired)."""
        with self._lock:
            self._expire()
            game = self._games.get(game_id)
            if game is None:
                raise WebInputError(f"no game {game_id!r} here: it may have expired (after {self.game_ttl:.0f} s untouched)", 404)
            game.touched = time.monotonic()
            return game

    def _expire(self) -> None:
        now = time.monotonic()
        for game_id in [i for i, game in self._games.items() if now - game.touched > self.game_ttl]:
            del self._games[game_id]


def _checked_table(body: Any) -> dict[str, Any]:
    """The new game's settings from a request body, refused with a clear message if wrong."""
    if not isinstance(body, dict):
        raise WebInputError("a new game is a JSON object: players, opponents, seat, open_baskets, no_fighting")
    players = body.get("players", 4)
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise WebInputError(f"players={players!r}: a table seats {MIN_PLAYERS}-{MAX_PLAYERS}")
    seat = body.get("seat", 0)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise WebInputError(f"seat={seat!r}: seats are 0-{players - 1}")
    opponents = body.get("opponents", ["counter"])
    if isinstance(opponents, str):
        opponents = [opponents]
    if not isinstance(opponents, list) or not opponents or any(name not in AGENTS for name in opponents):
        raise WebInputError(f"opponents={opponents!r}: choose from {', '.join(AGENTS)}")
    flags = {key: body.get(key, False) for key in ("open_baskets", "no_fighting")}
    if any(not isinstance(flag, bool) for flag in flags.values()):
        raise WebInputError(f"open_baskets and no_fighting are true or false, got {flags}")
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise WebInputError(f"seed={seed!r}: a seed is an integer >= 0")
    return {"players": players, "seat": seat, "opponents": opponents, "seed": seed, **flags}


def new_game(body: Any) -> WebGame:
    """A game from the page's choices, dealt and waiting for the person's first card."""
    table = _checked_table(body)
    n, seat = table["players"], table["seat"]
    seed = table["seed"] if table["seed"] is not None else int(np.random.default_rng().integers(2**31))
    others = [(seat + k) % n for k in range(1, n)]
    loaded = load_agents([table["opponents"][i % len(table["opponents"])] for i in range(len(others))], seed)
    agents = dict(zip(others, loaded, strict=True))
    agent_views, dealt = views_at_table(loaded, "table")
    env = parallel_env(num_players=n, open_baskets=table["open_baskets"], no_fighting=table["no_fighting"], view=dealt)
    names = ["you" if s == seat else agents[s].name for s in range(n)]
    game = WebGame(env, seat, agents, dict(zip(others, agent_views, strict=True)), dealt, seed, names)
    game.observations, _ = env.reset(seed=seed)
    return game


def play_card(game: WebGame, card: Any, replays: Path | None, game_id: str) -> None:
    """The person's card (1-12), the agents' cards, the reveal; WebInputError, nothing changed, if the card cannot be played."""
    if not game.env.agents:
        raise WebInputError("this game is over: start a new one", 409)
    if isinstance(card, bool) or not isinstance(card, int) or not 1 <= card <= NUM_DIVER_CARDS:
        raise WebInputError(f"card={card!r}: a diver card is a number 1-{NUM_DIVER_CARDS}")
    me = seat_name(game.seat)
    if not game.observations[me]["action_mask"][card - 1]:
        held = (np.flatnonzero(game.observations[me]["action_mask"]) + 1).tolist()
        raise WebInputError(f"you have already played {card}; your hand is {held}")
    actions = {me: card - 1}
    for seat, agent in game.agents.items():
        seen = game.observations[seat_name(seat)]
        shown = as_seen(seen["observation"][None], game.views[seat], game.dealt)
        actions[seat_name(seat)] = int(checked_actions(agent, shown, seen["action_mask"][None])[0])
    n = game.env.config.num_players
    game.plays.append([actions[seat_name(s)] + 1 for s in range(n)])
    game.observations, _, _, _, infos = game.env.step(actions)
    game.reveal = [line for record in infos[me]["round_results"] for line in describe_round(record)]
    if not game.env.agents and replays is not None:
        table = {"num_players": n, "open_baskets": game.env.config.open_baskets, "no_fighting": game.env.config.no_fighting}
        replay = record_replay(table, game.plays, seed=game.seed, players=game.names)
        game.replay = str(save_replay(replay, replays / f"web-{game_id}.json"))


def frames_of(replay: Replay, seat: int | None) -> list[dict[str, Any]]:
    """Every step of a replay as the page draws it: the spectator's table, or one seat's view from its observations."""
    states = replay_states(replay)
    n = replay.config.num_players
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
        raise WebInputError(f"seat={seat!r}: seats are 0-{n - 1}, or none for the spectator")
    encoder = Encoder(replay.config, "table")
    frames = []
    for index, state in enumerate(states):
        if seat is None:
            table = table_as_dict(spectator_table(state))
        else:
            encoder.refresh(state)
            table = table_as_dict(seat_table(encoder.observe(seat), n))
        reveal = [line for record in state.history[-1:] for line in describe_round(record)] if index else []
        if index == len(states) - 1 and len(state.history) == NUM_ROUNDS:  # the last step reveals rounds 11 and 12
            reveal = [line for record in state.history[-2:] for line in describe_round(record)]
        frames.append({"table": table, "reveal": reveal, "step": index})
    return frames


def agents_game(body: Any) -> Replay:
    """A fresh game played by agents alone (every seat from the page's opponents), as a replay."""
    table = _checked_table({**(body if isinstance(body, dict) else {}), "seat": 0})
    n = table["players"]
    seed = table["seed"] if table["seed"] is not None else int(np.random.default_rng().integers(2**31))
    agents = load_agents([table["opponents"][s % len(table["opponents"])] for s in range(n)], seed)
    views, dealt = views_at_table(agents, "table")
    env = parallel_env(num_players=n, open_baskets=table["open_baskets"], no_fighting=table["no_fighting"], view=dealt)
    observations, _ = env.reset(seed=seed)
    plays = []
    while env.agents:
        actions = {}
        for s, (agent, view) in enumerate(zip(agents, views, strict=True)):
            seen = observations[seat_name(s)]
            actions[seat_name(s)] = int(
                checked_actions(agent, as_seen(seen["observation"][None], view, dealt), seen["action_mask"][None])[0]
            )
        plays.append([actions[seat_name(s)] + 1 for s in range(n)])
        observations, *_ = env.step(actions)
    settings = {"num_players": n, "open_baskets": table["open_baskets"], "no_fighting": table["no_fighting"]}
    return record_replay(settings, plays, seed=seed, players=[agent.name for agent in agents])


def create_app(max_games: int = 64, game_ttl: float = 1800.0, replays: Path | None = Path("results/replays")) -> Any:
    """The Flask app: the page and its JSON API (see the module docstring)."""
    from flask import Flask, jsonify, request, send_from_directory
    from werkzeug.exceptions import HTTPException

    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    games = Games(max_games, game_ttl, replays)
    app.extensions["miaui_games"] = games

    def body() -> Any:
        data = request.get_json(silent=True)
        if data is None:
            raise WebInputError("the request body must be JSON")
        return data

    @app.errorhandler(WebInputError)
    def refused(error: WebInputError) -> Any:
        return jsonify(error=str(error)), error.status

    @app.errorhandler(ReplayError)
    def bad_replay(error: ReplayError) -> Any:
        return jsonify(error=f"not a replay this app can play back: {error}"), 400

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        message = "the request is larger than 1 MB" if error.code == 413 else (error.description or error.name)
        return jsonify(error=message), error.code

    @app.get("/")
    def page() -> Any:
        return send_from_directory(STATIC, "index.html")

    @app.get("/api/agents")
    def agent_list() -> Any:
        return jsonify(agents=list(AGENTS))

    @app.post("/api/games")
    def start() -> Any:
        game = new_game(body())
        game_id = games.add(game)
        return jsonify(game.view(game_id)), 201

    @app.get("/api/games/<game_id>")
    def show(game_id: str) -> Any:
        return jsonify(games.get(game_id).view(game_id))

    @app.post("/api/games/<game_id>/play")
    def play(game_id: str) -> Any:
        game = games.get(game_id)
        data = body()
        play_card(game, data.get("card") if isinstance(data, dict) else None, games.replays, game_id)
        return jsonify(game.view(game_id))

    @app.post("/api/replays")
    def watch_replay() -> Any:
        data = body()
        if not isinstance(data, dict) or "replay" not in data:
            raise WebInputError("send {'replay': <the replay's JSON>, 'seat': null or a seat}")
        text = data["replay"] if isinstance(data["replay"], str) else _json(data["replay"])
        replay = replay_from_json(text)
        return jsonify(players=list(replay.players), frames=frames_of(replay, data.get("seat")))

    @app.post("/api/watch")
    def watch_agents() -> Any:
        data = body()
        replay = agents_game(data)
        seat = data.get("seat") if isinstance(data, dict) else None
        return jsonify(players=list(replay.players), frames=frames_of(replay, seat), replay=replay_to_json(replay))

    return app


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


def main(argv: list[str] | None = None) -> None:
    """Serve the app until Ctrl-C."""
    from miaui_env.cli import run_command

    parser = argparse.ArgumentParser(
        prog="python -m training.web", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (0.0.0.0 opens it to the network: on purpose only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--max-games", type=int, default=64, help="games held at once")
    parser.add_argument("--replays", type=Path, default=Path("results/replays"), help="where finished games are saved")
    args = parser.parse_args(argv)

    def serve() -> None:
        from waitress import serve as waitress_serve

        print(f"Miaui in the browser: http://{args.host}:{args.port}/  (Ctrl-C stops it)", flush=True)
        waitress_serve(create_app(max_games=args.max_games, replays=args.replays), host=args.host, port=args.port, threads=8)

    run_command(parser.prog, serve, interrupted="stopped")
