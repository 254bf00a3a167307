"""The browser app's octopus page (O1-O12): a whole game through the JSON API and its replay, what
the person's seat may see (O4), every bad request a clear 4xx that changes nothing, and one game
clicked in a real headless browser."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import bad_decisions, bad_new_games
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from waitress import create_server
from web_helpers import posted, refused

from miaui_env.apps.web import create_app
from miaui_env.apps.web.games import GameStore
from miaui_env.apps.web.routes import GAMES, SESSION_COOKIE
from miaui_env.games.miaui.agents import RandomAgent
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.agents import load_octopus_agents
from miaui_env.games.octopus.replay import (
    OctopusReplay,
    describe_event,
    load_replay,
    play_and_record,
    replay_from_json,
    replay_states,
    save_replay,
)
from miaui_env.games.octopus.rules import fish, stacked_deck
from miaui_env.games.octopus.web import OctopusHumanGame

CHROMIUM = "/usr/bin/chromium"


def new_game(client, status=201, **choices):
    body = {"num_players": 3, "seat": 1, "opponents": ["cautious", "random"], "seed": 11, **choices}
    return posted(client, "/api/octopus/games", body, status)


def scripted(view):
    """Flip until the row holds two cards, then stop; after an octopus steal the most offered, else none."""
    legal = {choice["label"]: choice["action"] for choice in view["legal"]}
    if view["table"]["asked"] == "theft":
        return view["legal"][-1]["action"]
    return legal["flip"] if len(view["table"]["row"]) < 2 else legal["stop"]


def decide(client, view, action, status=200):
    response = client.post(f"/api/octopus/games/{view['id']}/actions", json={"action": action, "step": view["step"]})
    assert response.status_code == status, response.get_json()
    return response.get_json()


def the_state(app, client, view) -> rules.OctopusState:
    """The whole game behind a page: what the test checks the page against, never what it shows."""
    session = client.get_cookie(SESSION_COOKIE).value
    return app.extensions[GAMES].find(session, view["id"], OctopusHumanGame).state


# -- a whole game ------------------------------------------------------------------------------------
def test_a_whole_game_through_the_api_plays_back_from_its_replay(client, tmp_path):
    view = new_game(client, view="recall")
    # the opponents sit clockwise from the person's left: seat 2, then seat 0
    assert view["players"] == ["random", "human", "cautious"] and view["seat"] == 1
    assert {choice["label"] for choice in view["legal"]} == {"stop", "flip"}  # O10: asked only when it is the person's turn
    decisions = 0
    while not view["over"]:
        assert view["legal"] and view["table"]["seats"][1]["to_act"]
        view = decide(client, view, scripted(view))
        decisions += 1
    final = view["final"]
    assert view["legal"] == []
    assert max(final["totals"]) >= rules.TARGET or final["truncated"]
    assert final["winners"] == [seat for seat, total in enumerate(final["totals"]) if total == max(final["totals"])]
    assert any(line.startswith("The game ends") for line in view["log"]) and "you" in " ".join(view["log"])
    refused(client.post(f"/api/octopus/games/{view['id']}/actions", json={"action": 1}), 409, "this octopus game is over")

    response = client.get(f"/api/octopus/games/{view['id']}/replay")
    assert response.status_code == 200 and "attachment" in response.headers["Content-Disposition"]
    replay = replay_from_json(response.get_data(as_text=True))
    played = replay_states(replay)[-1]  # bit for bit: the same decisions make the same totals
    assert list(played.totals) == final["totals"] and list(replay.winners) == final["winners"]
    assert replay.players == ("random", "human", "cautious") and replay.seed == 11 and replay.view == "recall"
    assert len(replay.actions) == view["step"] > decisions
    saved = Path(view["replay"])
    assert saved.parent == tmp_path / "replays" / "octopus" and load_replay(saved) == replay


def test_the_octopus_page_is_served_and_linked_both_ways(client):
    page = client.get("/octopus")
    assert page.status_code == 200 and "default-src 'self'" in page.headers["Content-Security-Policy"]
    text = page.get_data(as_text=True)
    assert 'src="/static/octopus.js"' in text and 'href="/"' in text and "<script>" not in text
    assert 'href="/octopus"' in client.get("/").get_data(as_text=True)
    assert client.get("/static/octopus.js").status_code == 200
    assert {"random", "cautious", "risk-aware"} <= {agent["name"] for agent in client.get("/api/octopus/agents").get_json()["agents"]}
    assert "aria-label" in text


def test_both_pages_have_an_icon_and_the_browsers_guess_finds_it_too(client):
    for page in ("/", "/octopus"):
        assert '<link rel="icon" href="/static/favicon.svg"' in client.get(page).get_data(as_text=True)
    for path in ("/static/favicon.svg", "/favicon.ico"):  # no 404 on any load
        icon = client.get(path)
        assert icon.status_code == 200 and icon.mimetype == "image/svg+xml" and b"<svg" in icon.get_data()


def test_the_default_table_is_two_players_against_risk_aware(client):
    response = client.post("/api/octopus/games", json={})
    assert response.status_code == 201
    view = response.get_json()
    assert view["num_players"] == 2 and view["players"] == ["human", "risk-aware"] and view["view"] == "table"


# -- what the person's seat may see (O4) --------------------------------------------------------------
@pytest.mark.parametrize("view_name", ["table", "recall"])
def test_the_page_shows_what_the_seat_may_see_and_nothing_more(app, client, view_name):
    view = new_game(client, num_players=4, seat=2, opponents=["cautious", "random", "cautious"], seed=3, view=view_name)
    state = the_state(app, client, view)
    for _ in range(60):
        if view["over"]:
            break
        table = view["table"]
        assert table["row"] == [rules.card_name(card) for card in state.row]
        assert table["deck_size"] == len(state.deck) and table["discard_size"] == len(state.discard)
        assert table["session"] == state.session
        for row in table["seats"]:
            seat = row["seat"]
            assert row["total"] == state.totals[seat] and row["collection_size"] == len(state.collections[seat])
            cards = sorted(rules.card_name(card) for card in state.collections[seat])
            if seat == 2 or view_name == "recall":
                assert sorted(row["collection"]) == cards and row["session_score"] == rules.session_score(state.collections[seat])
            else:  # face down: never shown, and shown as hidden, not as empty
                assert row["collection"] is None and row["session_score"] is None
        if view_name == "recall":
            assert sorted(table["discard"]) == sorted(rules.card_name(c) for c in state.discard if not rules.is_octopus(c))
        else:
            assert table["discard"] is None
        assert "deck" not in table
        view = decide(client, view, scripted(view))


def two_games_with_decks_differing_below(top):
    """Two games whose decks agree on `top` and differ in every card below it: the person at seat 0
    flips first, an agent at seat 1."""
    rest = [card for card in stacked_deck(top) if card not in top]
    games = []
    for deck in ([*top, *rest], [*top, *reversed(rest)]):
        state = rules.new_game(2, deck=deck, seed=1)
        games.append(OctopusHumanGame(state, {1: RandomAgent(seed=0)}, "recall", seed=1))
    return games


def test_no_field_of_the_page_depends_on_the_deck_below_the_cards_flipped():
    first, second = two_games_with_decks_differing_below([fish("cod", 4), fish("eel", 3), fish("jack", 2)])
    assert first.state.deck != second.state.deck
    for _ in range(3):
        first_page, second_page = first.page(), second.page()
        del first_page["id"], second_page["id"]
        assert first_page == second_page
        if len(first.state.row) < 3:
            first.play(rules.action_of(first.state, rules.FLIP))
            second.play(rules.action_of(second.state, rules.FLIP))


# -- bad requests -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "message"),
    [
        *bad_new_games("num_players", 2, 4, "random, cautious, risk-aware", kind="octopus agent"),
        ({"num_players": 1}, r"num_players=1 is not allowed"),
        ({"num_players": True}, r"num_players=True is not allowed"),
        ({"opponents": ["cautious", "/etc/passwd"]}, r"'/etc/passwd' is not offered"),
        ({"view": "god"}, r"view='god' is not allowed: table or recall"),
        ({"players": 3}, r"unknown field 'players'; the fields are num_players"),
    ],
)
def test_bad_new_games_are_refused_and_create_nothing(app, client, body, message):
    refused(client.post("/api/octopus/games", json={"num_players": 3, "opponents": ["cautious", "random"], **body}), 400, message)
    assert len(app.extensions[GAMES]) == 0
    new_game(client)  # and the server goes on serving


def test_bad_decisions_are_refused_and_change_nothing(client):
    view = new_game(client)
    url = f"/api/octopus/games/{view['id']}/actions"
    for body, status, message in [
        ({"action": 5, "step": view["step"]}, 400, r"action 5 is not legal now: the legal actions are 0 \(stop\); 1 \(flip\)"),
        ({"action": "1"}, 400, r"action='1' is not an action: the legal actions are 0 \(stop\); 1 \(flip\)"),
        ({"action": 12}, 400, r"action=12 is not an action"),
        ({"card": 1}, 400, r"a decision is a JSON object \{'action': an action index 0-11"),
        *bad_decisions(view["step"]),
    ]:
        refused(client.post(url, json=body), status, message)
        assert client.get(f"/api/octopus/games/{view['id']}").get_json() == view  # unchanged
    refused(client.post(url, data="1", content_type="text/plain"), 415, "must be JSON")
    refused(client.get(f"/api/octopus/games/{view['id']}/replay"), 409, "not over yet")
    refused(client.get("/api/octopus/games/nope"), 404, "no game 'nope' in this browser session")
    refused(client.post("/api/octopus/games/nope/actions", json={"action": 1}), 404, "no game 'nope'")
    refused(client.post(url, data="{", content_type="application/json"), 400, "not valid JSON")
    refused(client.get(f"/api/games/{view['id']}"), 404, "no game")  # an octopus game is no Miaui game
    assert decide(client, view, 1)["step"] > view["step"]  # still served


# -- watching a replay ------------------------------------------------------------------------------
def a_saved_octopus_replay(folder: Path, seed: int = 3, players: int = 3) -> tuple[Path, OctopusReplay]:
    replay = play_and_record([RandomAgent(seed), *load_octopus_agents(["cautious"], seed)], players, seed=seed, max_sessions=1)
    return save_replay(replay, folder / "replays" / "octopus" / f"game-{seed}.json"), replay


def test_an_octopus_replay_is_watched_decision_by_decision(client, tmp_path):
    path, replay = a_saved_octopus_replay(tmp_path)
    shelf = client.get("/api/octopus/replays").get_json()["replays"]
    assert [item["name"] for item in shelf] == [path.as_posix()] and shelf[0]["players"] == list(replay.players)
    assert client.get("/api/replays").get_json()["replays"] == []  # Miaui's shelf leaves it out
    data = posted(client, "/api/octopus/watch", {"file": path.as_posix(), "seat": 2}, 200)
    states = replay_states(replay)
    assert len(data["frames"]) == len(replay.actions) + 1 == len(states)
    assert data["seat"] == 2 and data["view"] == "recall" and data["players"] == list(replay.players)
    for frame, state in zip(data["frames"], states, strict=True):  # each frame: the table after that decision
        table = frame["table"]
        assert table["deck_size"] == len(state.deck) and [seat["total"] for seat in table["seats"]] == state.totals
        assert [seat["collection_size"] for seat in table["seats"]] == [len(c) for c in state.collections]
    lines = [line for frame in data["frames"] for line in frame["log"]]
    assert lines == [line for line in (describe_event(event, 2) for event in states[-1].events) if line is not None]
    assert data["final"]["totals"] == list(replay.totals) and data["final"]["winners"] == list(replay.winners)
    assert replay_from_json(data["replay"]) == replay
    sent = posted(client, "/api/octopus/watch", {"replay": data["replay"], "seat": None}, 200)
    assert sent["seat"] == 0 and sent["frames"][-1]["table"]["seats"][0]["collection"] is not None


def test_a_person_s_octopus_game_is_watched_from_their_seat(client, tmp_path):
    view = new_game(client, num_players=2, seat=1, opponents=["cautious"], seed=4)
    while not view["over"]:
        view = decide(client, view, scripted(view))
    data = posted(client, "/api/octopus/watch", {"file": view["replay"], "seat": None}, 200)
    assert data["seat"] == 1 and data["players"] == ["cautious", "human"]


def test_bad_octopus_watch_requests_are_refused_and_the_server_goes_on(client, tmp_path):
    path, replay = a_saved_octopus_replay(tmp_path)
    text = path.read_text()
    edited = json.loads(text)
    edited["totals"][0] += 1
    miaui = tmp_path / "replays" / "miaui.json"
    miaui.write_text(json.dumps({"version": 1, "game": "miaui"}))
    for body, status, message in [
        ({"file": "nowhere.json"}, 404, "no saved replay 'nowhere.json'"),
        ({"file": 3}, 400, "file=3"),
        ({"replay": text, "file": path.as_posix()}, 400, r"send \{'replay'"),
        ({}, 400, r"send \{'replay'"),
        ({"replay": 5}, 400, "the replay file's text, as a string; got int"),
        ({"replay": text, "seat": 3}, 400, "seat=3"),
        ({"replay": text, "seat": "0"}, 400, "seat='0'"),
        ({"replay": json.dumps(edited)}, 400, r"totals\[0\]"),
        ({"replay": "{"}, 400, "not"),
        ({"file": miaui.as_posix()}, 400, "octopus"),
        ({"replay": text, "colour": 1}, 400, r"send \{'replay'"),
    ]:
        refused(client.post("/api/octopus/watch", json=body), status, message)
    assert len(posted(client, "/api/octopus/watch", {"replay": text}, 200)["frames"]) == len(replay.actions) + 1


def test_octopus_games_share_the_miaui_games_limits_and_sessions(tmp_path):
    app = create_app(GameStore(max_games=1), replays=None, library=[tmp_path])
    owner, stranger = app.test_client(), app.test_client()
    view = new_game(owner)
    refused(stranger.get(f"/api/octopus/games/{view['id']}"), 404, "no game")
    refused(stranger.post("/api/octopus/games", json={}), 503, "the server is playing 1 games")
    refused(stranger.post("/api/games", json={"players": 3, "opponents": ["random", "random"]}), 503, "the server is playing 1 games")
    assert owner.delete(f"/api/octopus/games/{view['id']}").status_code == 204
    assert stranger.post("/api/octopus/games", json={}).status_code == 201


# -- in a browser -----------------------------------------------------------------------------------
@pytest.fixture
def server(tmp_path) -> Iterator[str]:
    serving = create_server(create_app(replays=None, library=[tmp_path]), host="127.0.0.1", port=0, threads=2)
    threading.Thread(target=serving.run, daemon=True).start()
    yield f"http://127.0.0.1:{serving.effective_port}/"
    serving.close()


@pytest.mark.browser
def test_a_few_decisions_clicked_and_typed_on_the_octopus_page(server):
    driver_path = shutil.which("chromedriver")
    if not Path(CHROMIUM).exists() or driver_path is None:
        pytest.fail(f"the browser test needs Debian's chromium ({CHROMIUM}) and chromedriver: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        wait = WebDriverWait(browser, 30)
        browser.get(server + "octopus")
        wait.until(lambda _: browser.find_elements(By.CSS_SELECTOR, "#opponent-1 option"))
        Select(browser.find_element(By.ID, "opponent-1")).select_by_value("cautious")
        # A bigger table keeps the chosen opponent and offers the default for the new seat; a smaller one drops it.
        Select(browser.find_element(By.ID, "players")).select_by_value("3")
        chosen = [Select(browser.find_element(By.ID, f"opponent-{k}")).first_selected_option.get_attribute("value") for k in (1, 2)]
        assert chosen == ["cautious", "risk-aware"], chosen
        Select(browser.find_element(By.ID, "players")).select_by_value("2")
        assert not browser.find_elements(By.ID, "opponent-2")
        browser.find_element(By.ID, "seed").send_keys("5")
        browser.find_element(By.ID, "start").click()
        wait.until(lambda _: browser.find_elements(By.ID, "action-1"))
        assert "Session 1" in browser.find_element(By.ID, "table").text
        flips = len(browser.find_elements(By.CSS_SELECTOR, "#log li"))
        browser.find_element(By.ID, "action-1").click()  # flip
        wait.until(lambda _: len(browser.find_elements(By.CSS_SELECTOR, "#log li")) > flips)
        assert not browser.find_element(By.ID, "error").is_displayed()
        before = browser.find_element(By.ID, "log").text
        # s stops (or, after an octopus, n declines the theft): either way the turn passes and the log grows
        key = "n" if browser.find_elements(By.ID, "action-2") else "s"
        browser.find_element(By.TAG_NAME, "body").send_keys(key)
        wait.until(lambda _: browser.find_element(By.ID, "log").text != before)
        log = browser.find_element(By.ID, "log").text
        assert "you" in log and not browser.find_element(By.ID, "error").is_displayed()
        json.loads(browser.execute_script("return JSON.stringify(game)"))  # the page holds the server's answer
        # The shared error banner (common.js) on this page: a refused request shows, the close button hides.
        browser.execute_script("attempt(() => api('POST', '/api/octopus/games/nothing/actions', {action: 1, step: 0}))")
        wait.until(lambda _: browser.find_element(By.ID, "error").is_displayed())
        assert "no game 'nothing'" in browser.find_element(By.ID, "error-text").text
        browser.find_element(By.ID, "error-close").click()
        assert not browser.find_element(By.ID, "error").is_displayed()
        # Dealing again (common.js's startGame) leaves the unfinished game and closes the setup form.
        first = browser.execute_script("return game.id")
        browser.execute_script("$('setup-box').open = true")
        browser.find_element(By.ID, "start").click()
        wait.until(lambda _: browser.execute_script("return game && game.id") not in (None, first))
        assert not browser.find_element(By.ID, "setup-box").get_attribute("open")
        status = "return fetch('/api/octopus/games/' + arguments[0]).then((response) => response.status)"
        wait.until(lambda _: browser.execute_script(status, first) == 404)
    finally:
        browser.quit()
