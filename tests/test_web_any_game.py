"""The browser app's generic page: a plug-in game (the tests' sealed bids, tests/games/sealed_bids.py,
which gives no page of its own) played whole through the routes written once for every game, its
replays downloaded and watched back, every bad request a clear 4xx that changes nothing, a game
without words refused by name, the games index, and Miaui's old URLs as aliases of the same routes."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
import sealed_bids
from helpers import bad_decisions, bad_new_games
from web_helpers import posted, refused

from miaui_env.apps import any_game
from miaui_env.apps.web import app as app_module
from miaui_env.apps.web import create_app
from miaui_env.apps.web.any_game import AnyGameWeb
from miaui_env.apps.web.app import STATIC
from miaui_env.apps.web.games import GameStore
from miaui_env.apps.web.routes import GAMES
from miaui_env.games import get_game, register

GAME = "sealed_bids"
API = f"/api/{GAME}"


def new_game(client, status=201, **choices):
    body = {"num_players": 3, "seat": 1, "opponents": ["match-the-prize", "random"], "seed": 7, **choices}
    return posted(client, f"{API}/games", body, status)


def decide(client, view, action, status=200):
    response = client.post(f"{API}/games/{view['id']}/actions", json={"action": action, "step": view["step"]})
    assert response.status_code == status, response.get_json()
    return response.get_json()


def play_out(client, view):
    """Bid the highest card held until the game ends."""
    while not view["over"]:
        view = decide(client, view, view["legal"][-1]["action"])
    return view


# -- a whole game -----------------------------------------------------------------------------------
def test_a_whole_game_through_the_generic_api_plays_back_from_its_replay(client, tmp_path):
    view = new_game(client)
    # the opponents sit clockwise from the person's left: seat 2, then seat 0
    assert view["players"] == ["random", "human", "match-the-prize"] and view["seat"] == 1 and view["game"] == GAME
    assert view["introduction"] == sealed_bids.WORDS.introduction(3, 1)
    assert [entry["text"] for entry in view["log"]] == ["player_0 (random) decides"]  # played on to the person's decision
    assert [choice["label"] for choice in view["legal"]] == ["bid 1", "bid 2", "bid 3"] and view["step"] == 1
    mine = []
    while not view["over"]:
        assert view["legal"] and view["final"] is None
        mine.append(view["legal"][0]["action"])
        view = decide(client, view, mine[-1])
        assert f"you: bid {mine[-1] + 1}" in [entry["text"] for entry in view["log"]]
    assert view["legal"] == [] and len(mine) == 3 and view["step"] == 9
    refused(client.post(f"{API}/games/{view['id']}/actions", json={"action": 0}), 409, "this sealed bids game is over")

    saved = Path(view["replay"])
    assert saved.parent == tmp_path / "replays" / GAME
    replay = any_game.load_replay(get_game(GAME), saved)
    assert replay["players"] == ["random", "human", "match-the-prize"] and replay["seed"] == 7
    assert replay["decisions"][1::3] == mine  # the person's every decision, as made
    assert view["final"] == {"scores": replay["scores"], "winners": [s for s, won in enumerate(replay["winners"]) if won]}
    # The page's last view is the seat's view of the game its decisions played back to.
    played = any_game.play_back(get_game(GAME), replay)
    assert view["seat_view"] == sealed_bids.WORDS.seat_view(played.env, "player_1")

    download = client.get(f"{API}/games/{view['id']}/replay")
    assert download.status_code == 200 and f'filename="{GAME}-{view["id"][:6]}.json"' in download.headers["Content-Disposition"]
    assert json.loads(download.get_data(as_text=True)) == replay
    watched = posted(client, f"{API}/watch", {"replay": download.get_data(as_text=True), "seat": None}, 200)
    assert json.loads(watched["replay"]) == replay and watched["final"] == view["final"]
    assert len(watched["frames"]) == len(replay["decisions"]) + 1 and watched["frames"][0]["move"] is None
    moves = [frame["move"] for frame in watched["frames"][1:]]
    assert moves[1::3] == [f"player_1 (human) decides: bid {action + 1}" for action in mine]  # the spectator sees every decision


def test_the_agents_face_down_decisions_never_reach_the_page(client):
    # At seat 2 two agents bid before the person each round: different agents, the same deal.
    first = new_game(client, seat=2, opponents=["random", "random"], seed=3)
    second = new_game(client, seat=2, opponents=["match-the-prize", "match-the-prize"], seed=3)
    assert [entry["text"] for entry in first["log"]] == ["player_0 (random) decides", "player_1 (random) decides"]
    for key in ("seat_view", "legal", "introduction", "step"):
        assert first[key] == second[key], key
    assert [entry["seen"] for entry in first["log"]] == [entry["seen"] for entry in second["log"]]
    assert not any("bid" in entry["text"] for entry in first["log"] + second["log"])


def test_a_replay_watched_from_a_seat_tells_only_that_seats_decisions(client):
    view = play_out(client, new_game(client))
    text = client.get(f"{API}/games/{view['id']}/replay").get_data(as_text=True)
    replay = json.loads(text)
    seat = posted(client, f"{API}/watch", {"replay": text, "seat": 0}, 200)
    assert seat["seat"] == 0 and seat["players"] == replay["players"]
    for frame, action in zip(seat["frames"][1:], replay["decisions"], strict=True):
        mover = int(re.match(r"player_(\d)", frame["move"]).group(1))
        assert frame["move"].endswith(f"decides: bid {action + 1}") if mover == 0 else frame["move"].endswith("decides")
    # each frame is seat 0's view in words after that many decisions
    game = get_game(GAME)
    for k in (0, 4, len(replay["decisions"])):
        partial = any_game.Table(game, game.env(num_players=3))
        partial.env.reset(seed=replay["seed"])
        for action in replay["decisions"][:k]:
            partial.env.step(action)
        assert seat["frames"][k]["lines"] == sealed_bids.WORDS.seat_view(partial.env, "player_0")


def test_saved_games_are_on_this_games_shelf_only_and_open_by_name(client, tmp_path):
    view = play_out(client, new_game(client))
    shelf = client.get(f"{API}/replays").get_json()["replays"]
    assert [item["name"] for item in shelf] == [view["replay"]]
    assert shelf[0]["players"] == view["players"] and shelf[0]["winners"] == view["final"]["winners"]
    assert client.get("/api/replays").get_json()["replays"] == [] and client.get("/api/octopus/replays").get_json()["replays"] == []
    opened = posted(client, f"{API}/watch", {"file": view["replay"], "seat": 1}, 200)
    assert opened["final"] == view["final"] and opened["frames"][-1]["lines"] == view["seat_view"]


# -- bad requests -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "message"),
    [
        *bad_new_games("num_players", 2, 4, "random, match-the-prize"),
        ({"opponents": ["random", "/etc/passwd"]}, r"agent '/etc/passwd' is not offered here"),
        ({"view": "recall"}, r"view='recall' is not allowed: table"),
        ({"players": 3}, r"unknown field 'players'; the fields are num_players"),
    ],
)
def test_bad_new_games_are_refused_and_create_nothing(app, client, body, message):
    refused(client.post(f"{API}/games", json={"num_players": 3, "opponents": ["random", "random"], **body}), 400, message)
    assert len(app.extensions[GAMES]) == 0
    new_game(client)  # and the server goes on serving


def test_bad_decisions_are_refused_change_nothing_and_the_server_goes_on(app, client):
    view = new_game(client)
    url = f"{API}/games/{view['id']}/actions"
    legal = r"the legal actions are 0 \(bid 1\); 1 \(bid 2\); 2 \(bid 3\)"
    for body, status, message in [
        ({"action": 3, "step": view["step"]}, 400, rf"action 3 is not legal now: {legal}"),
        ({"action": "1"}, 400, rf"action='1' is not an action: {legal}"),
        ({"card": 1}, 400, r"a decision is a JSON object \{'action': one of your legal actions"),
        ({"action": 1, "round": 1}, 400, r"a decision is a JSON object"),
        *bad_decisions(view["step"]),
    ]:
        refused(client.post(url, json=body), status, message)
        assert client.get(f"{API}/games/{view['id']}").get_json() == view  # unchanged
    refused(client.post(url, data="1", content_type="text/plain"), 415, "must be JSON")
    refused(client.post(url, data="{", content_type="application/json"), 400, "not valid JSON")
    refused(client.get(f"{API}/games/{view['id']}/replay"), 409, "not over yet")
    refused(client.get("/api/chess/agents"), 404, r"unknown game 'chess'; the games are miaui, octopus, sealed_bids")
    refused(client.post("/api/chess/games", json={}), 404, "unknown game 'chess'")
    refused(client.get(f"/api/octopus/games/{view['id']}"), 404, "no game")  # a sealed bids game is no octopus game
    refused(client.get(f"/api/games/{view['id']}"), 404, "no game")  # nor Miaui's
    stranger = app.test_client()
    for response in (
        stranger.get(f"{API}/games/{view['id']}"),
        stranger.post(url, json={"action": 0, "step": view["step"]}),
        stranger.get(f"{API}/games/{view['id']}/replay"),
        stranger.delete(f"{API}/games/{view['id']}"),
    ):
        refused(response, 404, "no game .* in this browser session")
    refused(client.post(f"{API}/watch/agents", json={}), 404, "sealed bids has no game of agents alone to watch")
    assert decide(client, view, 0)["step"] > view["step"]  # still served
    assert client.delete(f"{API}/games/{view['id']}").status_code == 204
    refused(client.get(f"{API}/games/{view['id']}"), 404, "no game")


def test_bad_replays_are_refused_by_the_games_own_reader(client, tmp_path):
    view = play_out(client, new_game(client))
    text = client.get(f"{API}/games/{view['id']}/replay").get_data(as_text=True)
    edited = json.loads(text)
    edited["scores"] = [9, 0, 0]
    octopus = posted(client, "/api/octopus/games", {}, 201)["id"]
    for body, message in [
        ({"replay": json.dumps(edited)}, r"not a replay this app can play back: its decisions come to scores"),
        ({"replay": json.dumps({**json.loads(text), "decisions": [5] * 9})}, r"decision 0 \(player_0: action 5\) is not legal there"),
        ({"replay": json.dumps({**json.loads(text), "game": "octopus"})}, r"a replay of game 'octopus'"),
        ({"replay": "{"}, r"not JSON"),
        ({"replay": json.dumps({**json.loads(text), "players": [1, 2, 3]})}, r"player name 1 is not allowed"),
        ({"replay": text, "seat": 3}, r"seat=3 is not allowed: an integer from 0 to 2"),
        ({"replay": text, "file": view["replay"]}, r"send \{'replay'"),
    ]:
        refused(client.post(f"{API}/watch", json=body), 400, message)
    refused(client.post(f"{API}/watch", json={"file": "nowhere.json"}), 404, f"no saved replay 'nowhere.json' here; GET {API}/replays")
    assert client.get(f"/api/octopus/games/{octopus}").status_code == 200


def test_the_games_share_the_stores_limits(tmp_path):
    app = create_app(GameStore(max_games=1), replays=None, library=[tmp_path])
    owner, stranger = app.test_client(), app.test_client()
    view = new_game(owner)
    refused(stranger.post(f"{API}/games", json={}), 503, "the server is playing 1 games")
    refused(stranger.post("/api/octopus/games", json={}), 503, "the server is playing 1 games")
    view = play_out(owner, view)  # a finished game frees its slot at once
    assert view["replay"] is None and stranger.post("/api/octopus/games", json={}).status_code == 201


# -- pages ------------------------------------------------------------------------------------------
def test_the_generic_page_is_served_for_a_game_with_words_and_links_to_the_index(client):
    page = client.get(f"/{GAME}")
    assert page.status_code == 200 and "default-src 'self'" in page.headers["Content-Security-Policy"]
    text = page.get_data(as_text=True)
    assert re.findall(r'<script src="/static/([\w.]+)"></script>', text) == ["common.js", "game.js"] and "<script>" not in text
    assert 'href="/games"' in text and 'href="/static/style.css"' in text
    assert client.get("/static/game.js").status_code == 200
    agents = client.get(f"{API}/agents").get_json()
    assert [agent["name"] for agent in agents["agents"]] == ["random", "match-the-prize"]
    assert agents["game"] == {
        "name": GAME,
        "title": "sealed bids",
        "min_players": 2,
        "max_players": 4,
        "default_players": 3,
        "views": ["table"],
        "default_opponents": ["match-the-prize"],
        "plays_agents_alone": False,
    }


def test_no_page_script_declares_again_what_the_shared_script_declares():
    def top_level_names(script: str) -> set[str]:
        return set(re.findall(r"^(?:async )?(?:function|const|let) (\$|\w+)", (STATIC / script).read_text(), flags=re.MULTILINE))

    shared = top_level_names("common.js")
    assert {"$", "h", "api", "attempt", "startGame", "fillSeats", "loadShelf", "toggleAutoplay"} <= shared
    assert not shared & top_level_names("game.js")


def test_a_game_without_words_has_no_page_and_says_what_it_lacks(client):
    parts = {part: target for part, target in get_game(GAME).parts.items() if part != "words"}
    register(dataclasses.replace(get_game(GAME), name="wordless", title="wordless bids", parts=parts))
    for response in (client.get("/wordless"), client.get("/api/wordless/agents"), client.post("/api/wordless/games", json={})):
        refused(response, 404, r"wordless bids has no page here: .*its `words` part \(a GameWords")
    index = client.get("/games").get_data(as_text=True)
    assert re.search(r'<li id="game-wordless">wordless bids <span class="hint">\(wordless, 2-4 players\): no page', index)
    assert 'href="/wordless"' not in index


@pytest.mark.parametrize("name", ["games", "static", "watch"])
def test_a_game_named_as_one_of_the_apps_own_paths_has_no_page_and_says_why(client, name):
    # /games is the index, /static/... the files, /api/games/<id> and /api/watch/agents Miaui's old
    # URLs: a game of such a name would be shadowed there, half reachable.
    register(dataclasses.replace(get_game(GAME), name=name, title=f"bids called {name}"))
    shadowed = rf"bids called {name} has no page here: its name '{name}' is one of the app's own paths"
    refused(client.post(f"/api/{name}/games", json={}), 404, shadowed)
    index = client.get("/games").get_data(as_text=True)
    assert re.search(rf'<li id="game-{name}">bids called {name} <span class="hint">\({name}, 2-4 players\): bids called', index)
    assert f'href="/{name}"' not in index


def test_the_games_index_links_every_registered_games_page(client):
    index = client.get("/games")
    assert index.status_code == 200 and index.mimetype == "text/html" and "default-src 'self'" in index.headers["Content-Security-Policy"]
    text = index.get_data(as_text=True)
    links = re.findall(r'<a href="(/\w+)">([^<]+)</a>', text)
    assert links == [("/miaui", "Miaui"), ("/octopus", "the octopus game"), (f"/{GAME}", "sealed bids")]
    assert "<script" not in text
    for path, _ in links:
        page = client.get(path)
        assert page.status_code == 200 and 'href="/games"' in page.get_data(as_text=True), path  # every page links back
    assert client.get("/miaui").get_data() == client.get("/").get_data()


def test_miauis_old_urls_are_aliases_of_the_generic_routes(client):
    assert client.get("/api/agents").get_json() == client.get("/api/miaui/agents").get_json()
    view = posted(client, "/api/miaui/games", {"players": 3, "opponents": ["random", "random"], "seed": 5}, 201)
    assert client.get(f"/api/games/{view['id']}").get_json() == view
    played = client.post(f"/api/miaui/games/{view['id']}/actions", json={"card": 4, "round": 1})
    assert played.status_code == 200 and 4 not in played.get_json()["hand"]
    assert client.get(f"/api/games/{view['id']}").get_json() == played.get_json()
    refused(client.post(f"/api/games/{view['id']}/play", json={"card": 4, "round": 2}), 400, "card 4 is not in your hand")
    assert client.delete(f"/api/games/{view['id']}").status_code == 204
    refused(client.get(f"/api/miaui/games/{view['id']}"), 404, "no game")


# -- a game's own page ------------------------------------------------------------------------------
class OwnPage(AnyGameWeb):
    """Sealed bids with a page of its own, from its own folder (set by the test)."""

    page = "own.html"
    folder: Path | None = None

    @property
    def static_folder(self) -> Path | None:  # type: ignore[override]
        return OwnPage.folder


def own_web() -> OwnPage:
    """The `web` part of the test's copy of sealed bids."""
    return OwnPage(get_game("own_bids"), sealed_bids.WORDS)


def test_a_game_with_a_web_part_serves_its_own_page_and_files(client, tmp_path, monkeypatch):
    folder = tmp_path / "page"
    folder.mkdir()
    (folder / "own.html").write_text("<!doctype html><title>own bids</title>")
    (folder / "own.js").write_text("'use strict';")
    (tmp_path / "secret.txt").write_text("not a page's file")
    monkeypatch.setattr(OwnPage, "folder", folder)
    parts = {**get_game(GAME).parts, "web": f"{__name__}:own_web"}
    register(dataclasses.replace(get_game(GAME), name="own_bids", title="own bids", parts=parts))
    assert client.get("/own_bids").get_data(as_text=True) == "<!doctype html><title>own bids</title>"
    script = client.get("/own_bids/static/own.js")
    assert script.status_code == 200 and script.get_data(as_text=True) == "'use strict';"
    for outside in ("..%2Fsecret.txt", "%2E%2E%2Fsecret.txt"):
        refused(client.get(f"/own_bids/static/{outside}"), 404, "nothing at")
    assert client.get("/own_bids/static/..%2Fpage%2Fown.js").status_code == 404  # nothing is reached through its parent
    refused(client.get(f"/{GAME}/static/game.js"), 404, "sealed bids's page is one of the app's own")
    assert "its own page" in client.get("/games").get_data(as_text=True).split('id="game-own_bids"')[1].split("</li>")[0]
    view = posted(client, "/api/own_bids/games", {"num_players": 2, "opponents": ["random"]}, 201)
    assert view["game"] == "own_bids" and view["legal"]  # its games are served through its own part


def test_the_routes_table_names_every_route_the_app_serves(app):
    table = " ".join(app_module.__doc__.split())
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static" or rule.rule == "/favicon.ico":
            continue
        path = rule.rule.replace("<game_id>", "<id>").replace("<path:filename>", "<file>")
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            assert re.search(rf"{method}\s+{re.escape(path)}(\s|,|$)", table), (method, path)
