"""The browser app without a browser: its JSON API, its sessions and limits, what a seat's page
may show, and every bad request a clear 4xx that changes nothing."""

from __future__ import annotations

import http.cookiejar
import json
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from helpers import SEAT_VIEW_TABLES, bad_new_games, random_game_states, stacked_deck
from waitress import create_server
from web_helpers import posted, refused

import miaui_env
from miaui_env.apps.web import create_app, memory
from miaui_env.apps.web import games as games_module
from miaui_env.apps.web.app import STATIC, TEMPLATES
from miaui_env.apps.web.games import MAX_BODY, GameStore, ReplayShelf
from miaui_env.core import web as core_web
from miaui_env.games.miaui import rules
from miaui_env.games.miaui import web as miaui_page
from miaui_env.games.miaui.cards import parse_deck_order
from miaui_env.games.miaui.display.page import reveal_steps, seat_table, spectator_table
from miaui_env.games.miaui.replay import load_replay, record_replay, replay_from_json, replay_states, replay_to_json, save_replay
from miaui_env.games.miaui.rules import GameConfig, SeagullTheft, play_round
from miaui_env.games.miaui.spec import TableSpec
from miaui_env.games.miaui.web import HumanGame, TableChoice, agent_menu
from miaui_env.games.miaui.web import start_game as start_human_game

ROOT = Path(__file__).parent.parent


def new_game(client, status=201, **choices):
    body = {"players": 3, "seat": 0, "opponents": ["random", "random"], "seed": 5, **choices}
    return posted(client, "/api/games", body, status)


def a_play(view, card):
    """A play of `card` in the round `view` shows."""
    return {"card": card, "round": view["table"]["round"]}


def play_out(client, view, pick=lambda hand: hand[0]):
    while not view["over"]:
        response = client.post(f"/api/games/{view['id']}/play", json=a_play(view, pick(view["hand"])))
        assert response.status_code == 200, response.get_json()
        view = response.get_json()
    return view


# -- whole games ------------------------------------------------------------------------------------
def test_a_whole_game_to_the_final_scores_saved_as_a_replay(client, tmp_path):
    # The person sits at seat 1; the opponents are listed clockwise from their left: seats 2, 3, 0.
    view = new_game(client, players=4, seat=1, opponents=["counter", "greedy", "search"], seed=11)
    assert view["players"] == ["search", "human", "counter", "greedy"] and view["seat"] == 1
    # Dealt as reset(seed=11) deals: the first page is seat 1's first observation from the env.
    observations, _ = miaui_env.parallel_env(num_players=4).reset(seed=11)
    assert view["table"] == seat_table(observations["player_1"]["observation"], 1, 4)
    assert view["table"]["round"] == 1 and view["hand"] == list(range(1, 13)) and view["reveal"] == []

    mine = []
    while not view["over"]:
        mine.append(view["hand"][len(view["hand"]) // 2])
        view = client.post(f"/api/games/{view['id']}/play", json=a_play(view, mine[-1])).get_json()
        assert [reveal["round"] for reveal in view["reveal"]] == ([11, 12] if view["over"] else [len(mine)])
        assert view["reveal"][0]["plays"][1] == mine[-1]
    assert view["table"]["round"] == 13 and view["hand"] == []

    replay = load_replay(view["replay"])
    assert Path(view["replay"]).parent == tmp_path / "replays"
    assert replay.players == ("search", "human", "counter", "greedy") and replay.seed == 11
    assert [cards[1] for cards in replay.plays] == mine
    assert list(replay.scores) == view["final"]["scores"] and list(replay.winners) == view["final"]["winners"]
    best = max(view["final"]["scores"])
    assert view["final"]["winners"] == [s for s, total in enumerate(view["final"]["scores"]) if total == best]
    assert client.get(f"/api/games/{view['id']}/replay").get_data(as_text=True) == replay_to_json(replay)


def test_every_offered_agent_plays(client):
    offered = [choice.name for choice in agent_menu()]
    assert {"random", "greedy", "counter", "search", "miaui-ppo-v0", "miaui-ppo-v0@sample", "search+miaui-ppo-v0"} <= set(offered)
    lineups = [offered[start : start + 4] for start in range(0, len(offered), 4)]
    lineups[-1] += ["random"] * (3 - len(lineups[-1]))  # a table seats 3 to 6
    for lineup in lineups:
        response = client.post("/api/watch/agents", json={"players": len(lineup), "agents": lineup, "seed": 2})
        assert response.status_code == 200, response.get_json()
        assert response.get_json()["players"] == lineup and len(response.get_json()["frames"]) == 12


def test_a_table_choice_is_a_table_spec_with_agents_and_a_seed():
    body = {"players": 4, "seat": 2, "opponents": ["counter", "greedy", "random"], "open_baskets": True, "view": "recall", "seed": 3}
    choice = TableChoice.parse(body, agent_menu(), person=True)
    assert choice.spec == TableSpec(num_players=4, open_baskets=True, view="recall")
    assert choice.agents == ("greedy", "random", None, "counter") and choice.seed == 3  # clockwise from the person's left
    agents = TableChoice.parse({"players": 3, "agents": ["random"] * 3, "no_fighting": True}, agent_menu(), person=False)
    assert agents.spec == TableSpec(num_players=3, no_fighting=True) and agents.agents == ("random",) * 3 and agents.seed is None


def test_each_app_serves_its_own_games(tmp_path):
    first, second = (create_app(GameStore(), replays=None, library=[tmp_path]) for _ in range(2))
    mine, elsewhere = first.test_client(), second.test_client()
    game = new_game(mine)
    elsewhere.set_cookie("miaui_session", mine.get_cookie("miaui_session").value)  # the same browser session, another app
    refused(elsewhere.get(f"/api/games/{game['id']}"), 404, "no game")
    assert len(first.extensions["miaui_games"]) == 1 and len(second.extensions["miaui_games"]) == 0
    assert mine.get(f"/api/games/{game['id']}").status_code == 200


# -- what a seat may see ---------------------------------------------------------------------------
class Script:
    """An agent that plays the cards it is given, in order."""

    name = "script"

    def __init__(self, cards):
        self.cards = iter(cards)

    def act(self, observations, masks):
        return np.array([next(self.cards) - 1])

    def reset(self):
        pass


def seat_page(deck, seat, rounds, **config):
    """The page (as JSON text) of the person at `seat` after scripted rounds, each a card per seat."""
    n = len(rounds[0])
    state = rules.new_game(GameConfig(num_players=n, **config), np.random.default_rng(0), parse_deck_order(deck))
    game = HumanGame(state, {s: Script([cards[s] for cards in rounds]) for s in range(n) if s != seat})
    for cards in rounds:
        game.play(cards[seat], game.state.round)
    view = game.page()
    del view["id"]  # a random name
    return json.dumps(view, sort_keys=True)


LANTERN_FIRST = [["lantern:7", "tigerfish:6", "kittenfish:2"], ["emperor_tuna:15", "tigerfish:9", "kittenfish:4"]]


def test_a_face_down_card_shows_only_to_its_peeker():
    # Round 1: player_0 catches the Lantern at the bottom and peeks at round 2's bottom card.
    deck = stacked_deck(LANTERN_FIRST)
    other = deck.copy()
    i, j = deck.index("emperor_tuna:15"), deck.index("emperor_tuna:14")
    other[i], other[j] = other[j], other[i]  # another face-down card, the rest of the game as dealt
    rounds = [(12, 1, 6, 11)]
    for seat in (1, 2, 3):
        assert seat_page(deck, seat, rounds) == seat_page(other, seat, rounds)
    assert seat_page(deck, 0, rounds) != seat_page(other, 0, rounds)
    peeked = json.loads(seat_page(deck, 0, rounds))["table"]["lagoon"][0]["cards"]
    assert peeked == [{"kind": "emperor_tuna", "value": 15, "face_down": True, "peeker": 0}]
    unseen = json.loads(seat_page(deck, 2, rounds))["table"]["lagoon"][0]["cards"]
    assert unseen == [{"kind": None, "value": None, "face_down": True, "peeker": 0}]


def test_what_the_rules_hide_never_reaches_the_page():
    # Two games that differ in what seat 1 may not know: the card put back unseen, the deck's
    # order, and which card player_2 spent in round 1 (5 or 6: it caught nothing either way, and
    # the table view forgets it after the next reveal).
    deck = stacked_deck(LANTERN_FIRST, put_back="kittenfish:1")
    other = deck.copy()
    other[0], other[-1] = other[-1], other[0]
    other[10:30] = reversed(other[10:30])  # rounds 1-3 are the first 10 cards: round 3's lie in the lagoon after round 2
    first, second = [(12, 1, 5, 11), (3, 10, 9, 2)], [(12, 1, 6, 11), (3, 10, 9, 2)]
    assert seat_page(deck, 1, first) == seat_page(other, 1, second)
    # The check sees a change where the seat may see it: Open Baskets shows every card played.
    assert seat_page(deck, 1, first, open_baskets=True) != seat_page(deck, 1, second, open_baskets=True)


@pytest.mark.parametrize(("n", "open_baskets", "no_fighting", "view"), SEAT_VIEW_TABLES)
def test_a_seat_table_agrees_with_the_whole_table_where_the_seat_may_look(n, open_baskets, no_fighting, view):
    rng = np.random.default_rng(n)
    for state, encoder in random_game_states(GameConfig(n, open_baskets, no_fighting), view, rng, games=4):
        truth = spectator_table(state)
        for seat in range(n):
            seen = seat_table(encoder.observe(seat), seat, n)
            for key in ("round", "kiti", "deep_order", "shallow_order", "num_players", "open_baskets", "no_fighting"):
                assert seen[key] == truth[key], key
            for space, true_space in zip(seen["lagoon"], truth["lagoon"], strict=True):
                assert space["more"] == true_space["more"]
                for card, true_card in zip(space["cards"], true_space["cards"], strict=True):
                    hidden = true_card["face_down"] and true_card["peeker"] != seat
                    assert card == ({**true_card, "kind": None, "value": None} if hidden else true_card) or (
                        # No Fighting keeps a face-down card past the reveal that showed who peeked it
                        no_fighting
                        and true_card["face_down"]
                        and card
                        == {**true_card, **({"kind": None, "value": None} if hidden else {}), "peeker": None}
                        | ({} if hidden else {"face_down": False})
                    )
            rows = {row["seat"]: row for row in seen["seats"]}
            assert [row["seat"] for row in seen["seats"]] == [(seat + k) % n for k in range(n)]
            assert rows[seat] == truth["seats"][seat]  # everything about your own seat
            for other, row in rows.items():
                true_row = truth["seats"][other]
                assert row["height"] == true_row["height"] and row["played"] == true_row["played"]
                assert row["pile"] == true_row["pile"][: len(row["pile"])] and row["score"] in (None, true_row["score"])
                assert all(held in (None, true_held) for held, true_held in zip(row["hand"], true_row["hand"], strict=True))
                if view == "recall":
                    assert row["score"] == true_row["score"]


def test_a_reveal_shows_each_catch_then_what_its_fish_did():
    # Round 1: player_0 catches a tigerfish; round 2 it catches a Seagull, which steals it.
    state = rules.new_game(
        GameConfig(num_players=3),
        np.random.default_rng(0),
        parse_deck_order(stacked_deck([["tigerfish:6", "kittenfish:2", "kittenfish:4"], ["seagull:0", "kittenfish:5", "tigerfish:7"]])),
    )
    play_round(state, [12, 5, 1])
    (record,) = play_round(state, [11, 6, 2])
    steps = reveal_steps(record)
    assert steps["round"] == 2 and steps["plays"] == [11, 6, 2]
    assert [(step["kind"], step["depth"], step["seat"]) for step in steps["steps"]] == [
        ("catch", "bottom", 0),
        ("theft", "bottom", 0),
        ("catch", "middle", 1),
        ("catch", "top", 2),
    ]
    assert steps["steps"][1]["stolen"] == {"kind": "tigerfish", "value": 6, "face_down": False, "peeker": None}


def test_every_fish_event_follows_its_catch_in_the_order_it_happened():
    rng = np.random.default_rng(3)
    seen = set()
    for game in range(150):
        state = rules.new_game(GameConfig(num_players=3 + game % 4, no_fighting=game % 3 == 0), rng)
        while not state.is_over:
            for record in play_round(state, [int(rng.choice(state.legal_cards(s))) for s in range(state.num_players)]):
                steps = reveal_steps(record)["steps"]
                events = [step for step in steps if step["kind"] in ("theft", "triple")]
                assert [(step["kind"] == "theft", step["seat"]) for step in events] == [
                    (isinstance(event, SeagullTheft), event.seat) for event in record.events
                ]
                catcher = None
                for step in steps:
                    if step["kind"] == "catch":
                        catcher = step["seat"]
                    elif step["kind"] in ("theft", "triple"):
                        assert step["seat"] == catcher  # right after its own catch
                    else:
                        catcher = None
                    seen.add(step["kind"])
    assert seen == {"catch", "theft", "triple", "tie", "nobody_left"}


def test_the_recall_view_shows_what_was_ever_public(client):
    table, recall = new_game(client, seed=8), new_game(client, seed=8, view="recall")
    for _ in range(3):
        table = client.post(f"/api/games/{table['id']}/play", json=a_play(table, table["hand"][0])).get_json()
        recall = client.post(f"/api/games/{recall['id']}/play", json=a_play(recall, recall["hand"][0])).get_json()
    assert table["reveal"] == recall["reveal"]  # the same game
    for row in recall["table"]["seats"]:
        assert None not in row["hand"] and sum(row["hand"]) == 9 and row["score"] is not None
    assert any(None in row["hand"] for row in table["table"]["seats"][1:])


def test_an_agent_that_fails_fails_its_own_request_only(app, monkeypatch):
    healthy_client, broken_client = app.test_client(), app.test_client()
    healthy = new_game(healthy_client)

    class Broken(Script):
        name = "broken"

        def act(self, observations, masks):
            raise RuntimeError("the policy file is corrupt")

    monkeypatch.setattr("miaui_env.games.miaui.web.load_agents", lambda names, seed: [Broken([]) for _ in names])
    broken = new_game(broken_client)
    before = broken_client.get(f"/api/games/{broken['id']}").get_json()
    play = {"card": 3, "round": 1}
    refused(broken_client.post(f"/api/games/{broken['id']}/play", json=play), 500, "RuntimeError: the policy file is corrupt")
    assert broken_client.get(f"/api/games/{broken['id']}").get_json() == before  # nothing was played
    assert healthy_client.post(f"/api/games/{healthy['id']}/play", json=play).status_code == 200


def test_the_page_loads_nothing_from_elsewhere(client):
    page = client.get("/")
    assert page.status_code == 200 and "default-src 'self'" in page.headers["Content-Security-Policy"]
    for asset, kind in (("app.js", "javascript"), ("style.css", "css")):
        response = client.get(f"/static/{asset}")
        assert response.status_code == 200 and kind in response.headers["Content-Type"]
    for path in [*STATIC.iterdir(), *TEMPLATES.iterdir()]:
        text = path.read_text()
        assert not re.search(r"(src|href)=\"(https?:)?//|url\((https?:)?//|import\s|innerHTML", text), path.name
    assert "<script>" not in page.get_data(as_text=True)  # no inline script: the policy forbids it


def test_both_pages_load_the_shared_script_before_their_own(client):
    shared = client.get("/static/common.js")
    assert shared.status_code == 200 and "javascript" in shared.headers["Content-Type"]
    for page, own in (("/", "app.js"), ("/octopus", "octopus.js")):
        scripts = re.findall(r'<script src="/static/([\w.]+)"></script>', client.get(page).get_data(as_text=True))
        assert scripts == ["common.js", own], (page, scripts)


def test_no_page_script_declares_again_what_the_shared_script_declares():
    # A second `const $` stops the page's script with a SyntaxError; a second `function h` silently wins.
    def top_level_names(script: str) -> set[str]:
        text = (STATIC / script).read_text()
        return set(re.findall(r"^(?:async )?(?:function|const|let) (\$|\w+)", text, flags=re.MULTILINE))

    shared = top_level_names("common.js")
    assert {"$", "h", "option", "api", "attempt", "showError", "clearError", "fillSeats", "fillOpponents"} <= shared
    for own in ("app.js", "octopus.js"):
        assert not shared & top_level_names(own), own


# -- sessions ---------------------------------------------------------------------------------------
def test_sessions_never_reach_each_others_games(app):
    alice, bob = app.test_client(), app.test_client()
    game = new_game(alice)
    for response in (
        bob.get(f"/api/games/{game['id']}"),
        bob.post(f"/api/games/{game['id']}/play", json={"card": 3, "round": 1}),
        bob.delete(f"/api/games/{game['id']}"),
        bob.get(f"/api/games/{game['id']}/replay"),
    ):
        refused(response, 404, "no game .* in this browser session")
    assert alice.get(f"/api/games/{game['id']}").get_json() == game  # untouched by bob's tries


def test_a_session_cookie_is_http_only_and_same_site(client):
    cookie = client.post("/api/games", json={"players": 3, "opponents": ["random", "random"]}).headers["Set-Cookie"]
    assert re.match(r"miaui_session=[A-Za-z0-9_-]{22};", cookie) and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "Set-Cookie" not in client.post("/api/games", json={"players": 3, "opponents": ["random", "random"]}).headers  # kept
    client.set_cookie("miaui_session", "forged<script>")
    assert "Set-Cookie" not in client.get("/api/agents").headers  # a forged cookie is no session, and reading opens none
    new_game(client)
    assert len(client.get_cookie("miaui_session").value) == 22  # the new game replaced the forgery


def test_reading_the_page_or_the_api_opens_no_session(app):
    reader = app.test_client()
    for path in ("/", "/api/agents", "/api/replays", "/api/games/nothing", "/static/app.js"):
        assert "Set-Cookie" not in reader.get(path).headers, path
    refused(reader.post("/api/games/nothing/play", json={"card": 1, "round": 1}), 404, "no game")
    assert reader.get_cookie("miaui_session") is None and len(app.extensions["miaui_games"]) == 0
    new_game(reader)
    assert reader.get_cookie("miaui_session") is not None


def test_a_finished_game_frees_its_slot_at_once_and_keeps_its_page_and_replay(tmp_path):
    store = GameStore(max_games=1)
    app = create_app(store, replays=None, library=[tmp_path])
    alice, bob = app.test_client(), app.test_client()
    final = play_out(alice, new_game(alice))
    assert len(store) == 0
    new_game(bob)  # the one slot is free the moment alice's last card is played
    assert alice.get(f"/api/games/{final['id']}").get_json()["final"] == final["final"]
    assert replay_from_json(alice.get(f"/api/games/{final['id']}/replay").get_data(as_text=True)).plays
    assert alice.delete(f"/api/games/{final['id']}").status_code == 204
    assert alice.get(f"/api/games/{final['id']}").status_code == 404


def test_finished_games_are_kept_a_bounded_number(tmp_path):
    store = GameStore(max_games=2, per_session=4)
    client = create_app(store, replays=None, library=[tmp_path]).test_client()
    finished = [play_out(client, new_game(client))["id"] for _ in range(3)]
    assert [client.get(f"/api/games/{game_id}").status_code for game_id in finished] == [404, 200, 200]  # the oldest let go


def test_one_client_address_cannot_hold_every_slot(tmp_path):
    store = GameStore(max_games=8, per_session=2, per_address=3)
    app = create_app(store, replays=None, library=[tmp_path])
    body = {"players": 3, "seat": 0, "opponents": ["random", "random"], "seed": 5}

    def new_game_from(address):
        return app.test_client().post("/api/games", json=body, environ_base={"REMOTE_ADDR": address})  # no cookie: a new session each

    assert [new_game_from("127.0.0.1").status_code for _ in range(3)] == [201, 201, 201]
    answer = new_game_from("127.0.0.1")
    refused(answer, 429, r"127\.0\.0\.1 holds 3 live games")
    assert answer.headers["Retry-After"] == "60" and len(store) == 3
    assert new_game_from("10.0.0.2").status_code == 201  # another machine still gets a game
    same = app.test_client()
    for _ in range(5):  # one session's new games replace its oldest: it never counts twice against its address
        assert same.post("/api/games", json=body, environ_base={"REMOTE_ADDR": "10.0.0.3"}).status_code == 201


# -- games of agents ------------------------------------------------------------------------------
WATCHED = {"players": 3, "agents": ["random", "random", "random"], "seed": 3}


def test_games_of_agents_play_a_few_at_once_one_per_session(tmp_path, monkeypatch):
    store = GameStore(max_watch_games=1)
    app = create_app(store, replays=None, library=[tmp_path])
    playing, finish = threading.Event(), threading.Event()
    trims = []
    original = miaui_page.agents_game

    def slow_game(choice):
        playing.set()
        assert finish.wait(30)
        return original(choice)

    monkeypatch.setattr(miaui_page, "agents_game", slow_game)
    monkeypatch.setattr(games_module, "release_memory", lambda: trims.append(1) or True)
    alice, bob = app.test_client(), app.test_client()
    new_game(alice)  # alice's session, so that her second watch is hers
    answers = []
    watcher = threading.Thread(target=lambda: answers.append(alice.post("/api/watch/agents", json=WATCHED)))
    watcher.start()
    assert playing.wait(30)
    mine = alice.post("/api/watch/agents", json=WATCHED)
    refused(mine, 429, "already watching a game of agents: one at a time")
    same_machine = app.test_client().post("/api/watch/agents", json=WATCHED)  # no cookie: a new session, the same address
    refused(same_machine, 429, r"127\.0\.0\.1 is already watching a game of agents")
    full = bob.post("/api/watch/agents", json=WATCHED, environ_base={"REMOTE_ADDR": "10.0.0.2"})
    refused(full, 503, "playing 1 games of agents, as many as it may at once")
    assert mine.headers["Retry-After"] == full.headers["Retry-After"] == "10"
    assert bob.get("/api/agents").status_code == 200  # everything else is served meanwhile
    finish.set()
    watcher.join(30)
    assert answers[0].status_code == 200 and len(answers[0].get_json()["frames"]) == 12
    assert bob.post("/api/watch/agents", json=WATCHED, environ_base={"REMOTE_ADDR": "10.0.0.2"}).status_code == 200  # free again
    assert len(trims) == 2  # the allocator's free memory handed back after each game


def test_eight_search_games_asked_at_once_leave_the_server_answering(server):
    searching = {"players": 3, "agents": ["search"] * 3}
    miaui_page.agents_game(TableChoice.parse(searching, agent_menu(), person=False))  # compiled before the clock runs
    answers, started = [], threading.Barrier(9)

    def watch():
        call = browser_session()
        started.wait()
        answers.append(call("POST", f"{server}/api/watch/agents", searching)[0])

    threads = [threading.Thread(target=watch) for _ in range(8)]
    for thread in threads:
        thread.start()
    started.wait()
    time.sleep(0.5)  # the admitted games are playing
    began = time.perf_counter()
    status, reply = browser_session()("GET", f"{server}/api/agents")
    waited = time.perf_counter() - began
    for thread in threads:
        thread.join(300)
    assert status == 200 and reply["agents"] and waited < 1.0, waited
    assert sorted(answers) == [200] + [429] * 7, answers  # one machine's loopback: one game of agents at a time


def test_the_allocator_arenas_are_capped_and_free_memory_handed_back():
    # The server's hosts are Linux with glibc: there the cap must take effect.
    assert memory._glibc() is not None and memory.limit_arenas()
    memory.release_memory()  # callable from any thread, any number of times


@pytest.fixture
def server(tmp_path) -> Iterator[str]:
    app = create_app(GameStore(max_games=16), replays=tmp_path / "replays", library=[tmp_path])
    serving = create_server(app, host="127.0.0.1", port=0, threads=8)
    thread = threading.Thread(target=serving.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{serving.effective_port}"
    serving.close()


def browser_session():
    """A client with its own cookie jar: one browser session."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(method, url, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with opener.open(request, timeout=60) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    return call


def test_many_sessions_play_at_once_on_a_real_server(server):
    # Eight sessions play the same deal with the same cards at the same time: if any game reached
    # another's state, their games would come out different.
    results, failures = [None] * 8, []

    def play(index):
        call = browser_session()
        status, view = call("POST", f"{server}/api/games", {"players": 4, "opponents": ["counter", "random", "greedy"], "seed": 21})
        while status in (200, 201) and not view["over"]:
            status, view = call("POST", f"{server}/api/games/{view['id']}/play", a_play(view, view["hand"][-1]))
            if index == 0:  # one session sends junk between its cards: the others never notice
                junk = call("POST", f"{server}/api/games/{view['id']}/play", a_play(view, "junk"))
                failures.extend([] if junk[0] in (400, 409) else [(index, junk)])
        if status != 200:
            failures.append((index, status, view))
            return
        results[index] = (view["final"], load_replay(view["replay"]).plays)

    threads = [threading.Thread(target=play, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not failures and all(result == results[0] for result in results), failures


def test_a_double_click_plays_one_card(app):
    client = app.test_client()
    game = new_game(client, opponents=["search", "search"])  # slow enough that the two requests overlap
    statuses = []
    start = threading.Barrier(2)

    def click():
        start.wait()
        statuses.append(client.post(f"/api/games/{game['id']}/play", json={"card": 7, "round": 1}).status_code)

    threads = [threading.Thread(target=click) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 409]  # the second click names a round already played
    view = client.get(f"/api/games/{game['id']}").get_json()
    assert view["table"]["round"] == 2 and 7 not in view["hand"] and len(view["hand"]) == 11


# -- limits -----------------------------------------------------------------------------------------
class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_abandoned_and_finished_games_are_dropped(tmp_path):
    clock = Clock()
    store = GameStore(max_games=8, idle_ttl=120.0, finished_ttl=10.0, clock=clock)
    client = create_app(store, replays=None, library=[tmp_path]).test_client()
    idle, busy, done = new_game(client), new_game(client), new_game(client)
    done = play_out(client, done)
    clock.now = 50.0
    client.post(f"/api/games/{busy['id']}/play", json={"card": 1, "round": 1})
    clock.now = 60.5  # the finished game's last card was 60.5 s ago
    refused(client.get(f"/api/games/{done['id']}"), 404, r"no game .* kept 2 minutes untouched, 10 seconds after the last card")
    assert client.get(f"/api/games/{idle['id']}").status_code == 200  # touched at 60.5
    clock.now = 181.0
    refused(client.get(f"/api/games/{idle['id']}"), 404, "no game")
    assert client.get(f"/api/games/{busy['id']}").status_code == 404 and len(store) == 0  # last touched at 60.5
    assert done["replay"] is None  # replays=None: nothing saved


def test_a_full_server_refuses_new_games_and_a_session_keeps_its_latest(tmp_path):
    store = GameStore(max_games=3, per_session=2)
    app = create_app(store, replays=None, library=[tmp_path])
    alice, bob = app.test_client(), app.test_client()
    first, second, third = new_game(alice), new_game(alice), new_game(alice)  # alice may keep two: the first is dropped
    assert alice.get(f"/api/games/{first['id']}").status_code == 404
    assert [alice.get(f"/api/games/{game['id']}").status_code for game in (second, third)] == [200, 200]
    new_game(bob)
    refused(bob.post("/api/games", json={"players": 3, "opponents": ["random", "random"]}), 503, "as many as it may")
    assert alice.delete(f"/api/games/{second['id']}").status_code == 204 and len(store) == 2
    new_game(bob)  # room again


# -- bad requests -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "message"),
    [
        *bad_new_games("players", 3, 6, "random, greedy, counter"),
        ({"opponents": ["random", "checkpoints/miaui-ppo-v0"]}, r"agent 'checkpoints/miaui-ppo-v0' is not offered"),
        ({"opponents": ["random", "os:system"]}, r"agent 'os:system' is not offered"),
        ({"opponents": ["random", "search+counter"]}, r"agent 'search\+counter' is not offered"),
        ({"no_fighting": "yes"}, r"no_fighting='yes' is not allowed: true or false"),
        ({"view": "god"}, r"view='god' is not allowed: table or recall"),
        ({"seed": "-1"}, r"seed='-1' is not allowed: an integer from 0 to"),
        ({"seed": "12a"}, r"seed='12a' is not allowed"),
        ({"seed": "18446744073709551616"}, r"seed=18446744073709551616 is not allowed: an integer from 0 to 18446744073709551615"),
        ({"seed": 2**64}, r"seed=\d+ is not allowed: an integer from 0 to 18446744073709551615"),
        ({"cheat": True}, r"unknown field 'cheat'; the fields are players, seat, opponents"),
    ],
)
def test_bad_new_games_are_refused_and_create_nothing(app, client, body, message):
    response = client.post("/api/games", json={"players": 3, "opponents": ["random", "random"], **body})
    refused(response, 400, message)
    assert len(app.extensions["miaui_games"]) == 0


def test_fresh_deals_have_64_bit_seeds_from_secrets():
    choice = TableChoice.parse({"players": 3, "opponents": ["random", "random"]}, agent_menu(), person=True)
    seeds = [choice.deal()[1] for _ in range(20)]  # all 20 under 2**32 by chance: 2**-640
    assert max(seeds) >= 2**32 and all(0 <= seed < 2**64 for seed in seeds)
    largest = {"players": 3, "opponents": ["random", "random"], "seed": 2**64 - 1}
    assert TableChoice.parse(largest, agent_menu(), person=True).seed == 2**64 - 1


def test_a_seed_above_2_53_sent_as_digits_deals_the_same_game_as_its_integer(client):
    exact = new_game(client, seed="9223372036854775807")
    assert new_game(client, seed=2**63 - 1)["table"] == exact["table"]
    assert new_game(client, seed=2**63)["table"] != exact["table"]  # the number a JavaScript page would have sent


def test_bad_cards_are_refused_and_change_nothing(client):
    game = new_game(client)
    url = f"/api/games/{game['id']}"
    client.post(f"{url}/play", json={"card": 1, "round": 1})
    before = client.get(url).get_json()
    for body, message in [
        ({"card": 1, "round": 2}, r"card 1 is not in your hand: you have already played it; your cards are \[2, 3"),
        ({"card": 13, "round": 2}, r"card=13 is not allowed: an integer from 1 to 12"),
        ({"card": 0, "round": 2}, r"card=0 is not allowed"),
        ({"card": "7", "round": 2}, r"card='7' is not allowed"),
        ({"card": True, "round": 2}, r"card=True is not allowed"),
        ({"card": 7.0, "round": 2}, r"card=7.0 is not allowed"),
        ({"card": 7, "round": "2"}, r"round='2' is not allowed: an integer from 1 to 12"),
        ({"card": 7, "round": 2, "seat": 2}, r"a play is a JSON object \{'card': a diver card 1-12, 'round': the round it is for\}"),
        ({"card": 7}, r"a play is a JSON object \{'card'"),
        ([7], r"a play is a JSON object"),
    ]:
        refused(client.post(f"{url}/play", json=body), 400, message)
    # a play for another round (sent twice, or from a stale page) is a conflict, not a card
    for stale in (1, 3):
        conflict = client.post(f"{url}/play", json={"card": 7, "round": stale})
        refused(conflict, 409, f"round={stale} is not the round being played: the game is at round 2")
    assert client.get(url).get_json() == before


def test_a_card_for_a_finished_game_and_a_replay_before_the_end(client):
    game = new_game(client)
    refused(client.get(f"/api/games/{game['id']}/replay"), 409, "not over yet")
    game = play_out(client, game)
    refused(client.post(f"/api/games/{game['id']}/play", json={"card": 1, "round": 12}), 409, "this game is over: deal a new one")
    assert client.get(f"/api/games/{game['id']}").get_json() == game


def test_requests_that_are_not_json_or_not_here(client):
    refused(client.post("/api/games", data="players=3", content_type="application/x-www-form-urlencoded"), 415, "must be JSON")
    refused(client.post("/api/games", data="{players: 3", content_type="application/json"), 400, "not valid JSON")
    refused(client.get("/api/games/nosuchgame"), 404, "no game 'nosuchgame' in this browser session")
    refused(client.get("/api/nothing"), 404, "nothing at /api/nothing")
    refused(client.put("/api/games"), 405, "not allowed")


def test_huge_bodies_are_refused(client):
    huge = json.dumps({"replay": "x" * MAX_BODY})
    for url in ("/api/games", "/api/watch", "/api/watch/agents"):
        refused(client.post(url, data=huge, content_type="application/json"), 413, "larger than 1024 kB")
    assert client.get("/api/agents").status_code == 200  # and it keeps serving


def test_deep_bodies_and_huge_integers_are_refused_and_the_server_keeps_serving(client):
    game = new_game(client)
    deep = "[" * 100_000 + "]" * 100_000
    for url in ("/api/games", f"/api/games/{game['id']}/play", "/api/watch", "/api/watch/agents"):
        refused(client.post(url, data=deep, content_type="application/json"), 400, r"nests more than 32 levels deep")
        refused(client.post(url, data='{"seed": ' + "9" * 5000 + "}", content_type="application/json"), 400, r"integer of 5000 digits")
    refused(client.post("/api/games", data='{"seed": NaN}', content_type="application/json"), 400, r"NaN is not allowed")
    refused(client.post("/api/games", data=b"\xff", content_type="application/json"), 400, r"not valid JSON: it is not UTF-8")
    big = a_replay_text().replace('"seed": 4', '"seed": ' + "4" * 5000)
    refused(client.post("/api/watch", json={"replay": big}), 400, r"integer of 5000 digits")
    refused(client.post("/api/watch", json={"replay": deep}), 400, r"the replay nests more than 32 levels")
    named = json.dumps({**json.loads(a_replay_text()), "players": [1, ["b"], None]})
    refused(client.post("/api/watch", json={"replay": named}), 400, r"player name 1 is not allowed: player names are strings")
    assert client.get(f"/api/games/{game['id']}").status_code == 200


def test_odd_replay_names_are_refused_without_the_servers_paths(client, tmp_path):
    for name in ("\u0000", "replays/x\u0000.json", "a" * 5000, "replays/" + "a" * 300 + ".json"):
        error = refused(client.post("/api/watch", json={"file": name}), 400 if len(name) > 1024 or "\0" in name else 404, "saved replay")
        assert str(tmp_path) not in error and str(ROOT) not in error, error


def test_a_body_over_the_limit_gets_the_json_413_from_a_real_server(tmp_path):
    command = web_command(tmp_path, "--library", str(tmp_path))
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://\S+/", server.stdout.readline()).group(0)
        call = browser_session()
        for size in (2 * MAX_BODY, 5 * MAX_BODY, 40 * MAX_BODY):
            status, answer = call("POST", url + "api/watch", {"replay": "x" * size})
            assert status == 413 and "larger than 1024 kB" in answer["error"], (size, status, answer)
        assert call("GET", url + "api/agents")[0] == 200
    finally:
        server.terminate()
        server.wait(timeout=60)


def a_replay_text(seed=4):
    plays = [[r, (r + 3) % 12 + 1, (r + 6) % 12 + 1] for r in range(1, 12)]
    return replay_to_json(record_replay(GameConfig(num_players=3), plays, seed=seed, players=["a", "b", "c"]))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda text: "{", r"not a replay this app can play back: a replay is JSON"),
        (lambda text: text[: len(text) // 2], r"a replay is JSON"),
        (lambda text: text.replace('"version": 1', '"version": 3'), r"replay format version 3; this library reads version 1"),
        (lambda text: json.dumps({"version": 1}), r"missing \['deck', 'players'"),
        (
            lambda text: json.dumps({**json.loads(text), "plays": [[2, 5, 8], [1, 6, 9], *json.loads(text)["plays"][2:]]}),
            r"round 1's record",
        ),
        (lambda text: json.dumps({**json.loads(text), "scores": [99, 0, 0]}), r"scores \[99, 0, 0\]"),
    ],
)
def test_malformed_replays_are_refused(client, edit, message):
    refused(client.post("/api/watch", json={"replay": edit(a_replay_text())}), 400, message)


def test_bad_watch_requests(client):
    text = a_replay_text()
    refused(client.post("/api/watch", json={"replay": text, "seat": 3}), 400, r"seat=3 is not allowed: an integer from 0 to 2")
    refused(client.post("/api/watch", json={"replay": text, "file": "x"}), 400, r"send \{'replay'")
    refused(client.post("/api/watch", json={"replay": 5}), 400, "as a string; got int")
    for name in ("../../etc/passwd", "replays/../../x.json", "/etc/hostname", "nothing.json"):
        refused(client.post("/api/watch", json={"file": name}), 404, "no saved replay")
    refused(client.post("/api/watch/agents", json={"players": 3, "agents": ["random", "random"]}), 400, "a list of 3 agent names")
    refused(client.post("/api/watch/agents", json={"players": 3, "agents": ["random"] * 3, "seat": 4}), 400, "seat=4")


# -- watching ---------------------------------------------------------------------------------------
def test_a_replay_steps_round_by_round_as_spectator_or_one_seat(client):
    text = a_replay_text()
    spectator = client.post("/api/watch", json={"replay": text, "seat": None}).get_json()
    seat = client.post("/api/watch", json={"replay": text, "seat": 2}).get_json()
    assert spectator["players"] == ["a", "b", "c"] and json.loads(spectator["replay"]) == json.loads(text)
    frames = spectator["frames"]
    assert [frame["step"] for frame in frames] == list(range(12))
    assert [[reveal["round"] for reveal in frame["reveal"]] for frame in frames] == [[], *[[r] for r in range(1, 11)], [11, 12]]
    states = replay_states(replay_from_json(text))
    assert [frame["table"] for frame in frames] == [spectator_table(state) for state in states]
    # one seat's view: its observations; the table view forgets the others' hands after round 1
    assert all(frame["table"]["viewer"] == 2 for frame in seat["frames"])
    assert all(held in (0, None) for row in seat["frames"][5]["table"]["seats"][1:] for held in row["hand"])
    assert all(held in (0, 1) for row in frames[5]["table"]["seats"] for held in row["hand"])


def test_saved_replays_are_listed_and_opened_by_name(tmp_path):
    results, checkpoints = tmp_path / "results", tmp_path / "checkpoints"
    client = create_app(replays=None, library=[results, checkpoints]).test_client()
    arena = save_replay(replay_from_json(a_replay_text(1)), results / "arena" / "run" / "replays" / "game-0000.json")
    played = save_replay(replay_from_json(a_replay_text(2)), results / "replays" / "play-1.json")
    trained = save_replay(replay_from_json(a_replay_text(3)), checkpoints / "miaui-ppo" / "replays" / "step-000100000-counter.json")
    (results / "arena" / "run" / "arena.json").write_text("{}")  # not in a replays/ folder: not listed
    outside = save_replay(replay_from_json(a_replay_text(4)), tmp_path / "elsewhere" / "replays" / "x.json")
    listed = client.get("/api/replays").get_json()
    assert listed["roots"] == [str(results), str(checkpoints)]
    assert sorted(item["name"] for item in listed["replays"]) == sorted(str(path) for path in (arena, played, trained))
    for path, seed in ((arena, 1), (trained, 3)):
        watched = client.post("/api/watch", json={"file": str(path)}).get_json()
        assert watched["players"] == ["a", "b", "c"] and replay_from_json(watched["replay"]).seed == seed
    for name in (
        str(results / "arena" / "run" / "arena.json"),
        str(outside),
        str(results / "replays" / ".." / ".." / "elsewhere" / "replays" / "x.json"),
    ):
        refused(client.post("/api/watch", json={"file": name}), 404, "no saved replay")


# -- the command ------------------------------------------------------------------------------------
def web_command(tmp_path, *more: str) -> list[str]:
    """The browser app's command on a free port, its replays in `tmp_path`, and `more` options."""
    return [sys.executable, "-m", "miaui_env.apps.web", "--port", "0", "--replays", str(tmp_path), *more]


def test_the_command_serves_on_loopback_and_answers_only_its_own_host_names(tmp_path):
    command = web_command(tmp_path, "--library", str(tmp_path), str(tmp_path / "checkpoints"))
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert url, (line, server.stderr.read() if server.poll() is not None else "")
        with urllib.request.urlopen(url.group(0) + "api/agents", timeout=60) as response:
            assert response.status == 200 and "counter" in response.read().decode()
        with urllib.request.urlopen(url.group(0), timeout=60) as response:
            assert "<title>Miaui</title>" in response.read().decode()
        rebound = urllib.request.Request(url.group(0) + "api/agents", headers={"Host": f"attacker.example:{url.group(1)}"})
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(rebound, timeout=60)
        assert error.value.code == 400
    finally:
        server.terminate()
        server.wait(timeout=60)


def test_the_command_on_ipv6_loopback_serves_the_url_it_prints(tmp_path):
    command = web_command(tmp_path, "--host", "::1", "--library", str(tmp_path))
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        url = re.search(r"http://\[::1\]:(\d+)/", line)
        assert url, (line, server.stderr.read() if server.poll() is not None else "")
        with urllib.request.urlopen(url.group(0) + "api/agents", timeout=60) as response:  # Host: [::1]:port
            assert response.status == 200 and "counter" in response.read().decode()
        rebound = urllib.request.Request(url.group(0) + "api/agents", headers={"Host": f"attacker.example:{url.group(1)}"})
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(rebound, timeout=60)
        assert error.value.code == 400 and "is not trusted" in json.loads(error.value.read())["error"]
    finally:
        server.terminate()
        server.wait(timeout=60)


@pytest.mark.parametrize(
    ("host", "answered"),
    [("[::1]:8011", True), ("[::1]", True), ("localhost:8000", True), ("127.0.0.1", True), ("[::2]:8011", False), ("evil.example", False)],
)
def test_the_loopback_host_names_trusted_are_the_pages_own(tmp_path, host, answered):
    client = create_app(replays=None, library=[tmp_path], trusted_hosts=["127.0.0.1", "localhost", "::1"]).test_client()
    response = client.get("/api/agents", headers={"Host": host})
    assert response.status_code == (200 if answered else 400), response.get_json()


@pytest.mark.parametrize("open_baskets", [False, True])
def test_your_whole_pile_and_open_baskets_piles_reach_the_page(open_baskets):
    body = {"players": 3, "opponents": ["random", "random"], "seed": 5, "open_baskets": open_baskets}
    game = start_human_game(TableChoice.parse(body, agent_menu(), person=True))
    for _ in range(6):
        game.play(game.state.legal_cards(game.seat)[0], int(game.state.round))
    whole = spectator_table(game.state)["seats"]
    assert max(row["height"] for row in whole) > 3  # some pile has fish below the 3 shown face-up
    for row in game.page()["table"]["seats"]:
        visible = row["seat"] == game.seat or open_baskets  # R11: others' piles show only their height
        assert row["tally"] == (whole[row["seat"]]["tally"] if visible else None)
        if visible:
            assert sum(count for _, count in row["tally"]["kinds"]) == row["height"]  # every fish, below the top 3 too


@pytest.mark.parametrize("view", ["table", "recall"])
def test_only_the_recall_view_sends_a_log_of_earlier_rounds(view):
    body = {"players": 3, "opponents": ["random", "random"], "seed": 5, "view": view}
    game = start_human_game(TableChoice.parse(body, agent_menu(), person=True))
    for _ in range(3):
        game.play(game.state.legal_cards(game.seat)[0], int(game.state.round))
    log = game.page()["log"]
    if view == "table":
        assert log is None  # the table view shows the last reveal only (R11)
    else:
        assert [reveal["round"] for reveal in log] == [1, 2, 3]
        assert log == [reveal_steps(record) for record in game.state.history]


def test_the_replay_shelf_names_players_and_winners(tmp_path):
    replay = record_replay(GameConfig(num_players=3), [[r, r, (r + 5) % 12 + 1] for r in range(1, 12)], seed=9, players=["ann", "bo", "cy"])
    save_replay(replay, tmp_path / "run" / "replays" / "game-0000.json")
    (tmp_path / "run" / "replays" / "broken.json").write_text("[[[")
    listed = {Path(item["name"]).name: item for item in ReplayShelf((tmp_path,)).list()}
    assert listed["game-0000.json"]["players"] == ["ann", "bo", "cy"]
    assert listed["game-0000.json"]["winners"] == list(replay.winners)
    assert listed["broken.json"]["players"] == [] and listed["broken.json"]["winners"] == []


def test_the_miaui_shelf_leaves_the_octopus_game_s_replays_out(tmp_path):
    from miaui_env.games.miaui.agents import RandomAgent
    from miaui_env.games.octopus import replay as octopus_replay

    octopus_replay.save_replay(octopus_replay.play_and_record([RandomAgent(0)], 2, seed=1), tmp_path / "replays" / "octopus.json")
    replay = record_replay(GameConfig(num_players=3), [[r, r, (r + 5) % 12 + 1] for r in range(1, 12)], seed=9, players=["ann", "bo", "cy"])
    save_replay(replay, tmp_path / "replays" / "miaui.json")
    assert [Path(item["name"]).name for item in ReplayShelf((tmp_path,)).list()] == ["miaui.json"]


def test_the_agent_list_names_what_the_training_extra_brings_and_how(tmp_path, monkeypatch):
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    installed = create_app(GameStore(max_games=8), replays=tmp_path / "replays", library=[tmp_path]).test_client()
    answer = installed.get("/api/agents").get_json()
    flagged = {agent["name"] for agent in answer["agents"] if agent["needs_training_extra"]}
    assert {"miaui-ppo-v0", "miaui-ppo-v0@sample", "search+miaui-ppo-v0"} <= flagged and "counter" not in flagged
    assert answer["training_extra"]["missing"] == []

    monkeypatch.setattr(core_web, "training_extra_installed", lambda: False)  # a `pip install -e ".[web]"` machine
    bare = create_app(GameStore(max_games=8), replays=tmp_path / "replays", library=[tmp_path]).test_client()
    answer = bare.get("/api/agents").get_json()
    offered = {agent["name"] for agent in answer["agents"]}
    assert {"random", "greedy", "counter", "search"} <= offered and not offered & flagged
    assert set(answer["training_extra"]["missing"]) == flagged
    install = answer["training_extra"]["install"]
    cpu_torch = "pip install torch --index-url https://download.pytorch.org/whl/cpu"  # the one install line the docs use
    assert install == f'{cpu_torch} && pip install -e ".[web,train]"'
    assert cpu_torch in readme and '".[web,train]"' in readme


def test_a_new_game_over_the_limits_is_refused_before_it_is_dealt(tmp_path, monkeypatch):
    store = GameStore(max_games=8, per_address=1)
    app = create_app(store, replays=None, library=[tmp_path])
    dealt = []
    original = miaui_page.start_game
    monkeypatch.setattr(miaui_page, "start_game", lambda choice: dealt.append(choice) or original(choice))
    new_game(app.test_client())
    second = app.test_client().post("/api/games", json={"players": 3, "seat": 0, "opponents": ["random", "random"]})
    refused(second, 429, "as many as one client")
    assert len(dealt) == 1  # the refused game's agents were never loaded nor its cards dealt


def test_a_finished_games_replay_that_cannot_be_written_is_reported_and_the_game_stays_over(tmp_path):
    from miaui_env.core.web import save_web_replay
    from miaui_env.games.miaui.replay import load_replay, record_replay, save_replay

    replay = record_replay(GameConfig(num_players=3), [[card, 12 - card, card] for card in range(1, 12)], seed=4)
    path, error = save_web_replay(save_replay, replay, tmp_path / "replays", "abcdef123456")
    assert error is None and path is not None and path.parent == tmp_path / "replays"
    assert path.name.startswith("web-") and path.name.endswith("-abcdef.json") and load_replay(path).plays == replay.plays
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    path, error = save_web_replay(save_replay, replay, blocked, "abcdef123456")
    assert path is None and error is not None and error.startswith(f"the replay could not be saved: cannot save a replay to {blocked}/web-")
