"""The browser app in a real headless browser: Debian's chromium, driven by selenium.

`.ci/run` installs chromium and chromium-driver; on a machine without them these tests fail and
say how to install them (they are never skipped).
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait
from waitress import create_server

from miaui_env.apps.web import create_app
from miaui_env.games.miaui.agents import RandomAgent
from miaui_env.games.miaui.replay import load_replay, record_replay, save_replay
from miaui_env.games.miaui.rules import GameConfig
from miaui_env.games.miaui.web import TableChoice, agent_menu
from miaui_env.games.miaui.web import start_game as start_human_game
from miaui_env.games.octopus.agents import load_octopus_agents
from miaui_env.games.octopus.replay import play_and_record
from miaui_env.games.octopus.replay import save_replay as save_octopus_replay

pytestmark = pytest.mark.browser  # Debian's chromium: out of the fast loop

CHROMIUM = "/usr/bin/chromium"
INSTALL = "apt-get install chromium chromium-driver (as .ci/run does)"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("results")


@pytest.fixture(scope="module")
def server(library: Path) -> Iterator[str]:
    app = create_app(replays=library / "replays", library=[library])
    serving = create_server(app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=serving.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{serving.effective_port}/"
    serving.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    driver_path = shutil.which("chromedriver")
    if not Path(CHROMIUM).exists() or driver_path is None:
        pytest.fail(f"the browser tests need Debian's chromium ({CHROMIUM}) and chromedriver on PATH: {INSTALL}")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1360,1000"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    yield driver
    driver.quit()


def wait_for(browser: webdriver.Chrome, condition: Callable[[], Any], seconds: float = 30) -> Any:
    return WebDriverWait(browser, seconds).until(lambda _: condition())


def text(browser: webdriver.Chrome, element_id: str) -> str:
    return browser.find_element(By.ID, element_id).text


def start_game(browser: webdriver.Chrome, server: str, players: str, opponents: list[str]) -> None:
    browser.get(server)
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#opponent-1 option"))
    Select(browser.find_element(By.ID, "players")).select_by_visible_text(players)
    for k, name in enumerate(opponents, start=1):
        Select(browser.find_element(By.ID, f"opponent-{k}")).select_by_value(name)
    browser.find_element(By.ID, "start").click()
    wait_for(browser, lambda: "Round 1 of 12" in text(browser, "play-table"))


def start_octopus_game(browser: webdriver.Chrome, server: str) -> None:
    """The octopus page with a game started, at its first decision."""
    browser.get(server + "octopus")
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#opponent-1 option"))
    browser.find_element(By.ID, "start").click()
    wait_for(browser, lambda: browser.find_elements(By.ID, "action-1"))


def click_card(browser: webdriver.Chrome, card: int) -> None:
    wait_for(browser, lambda: browser.find_element(By.ID, f"card-{card}").is_enabled())
    browser.find_element(By.ID, f"card-{card}").click()


def test_a_whole_game_played_by_clicks_to_the_final_scores(browser, server, library):
    start_game(browser, server, "4", ["counter", "search", "miaui-ppo-v0"])
    assert "your view" in text(browser, "play-table") and "Kiti sits between" in text(browser, "play-table")
    mine = [7, 12, 1, 9, 3, 11, 2, 6, 10, 4, 5]
    for round_number, card in enumerate(mine, start=1):
        assert f"Round {round_number} of 12" in text(browser, "play-table")
        click_card(browser, card)
        if round_number < 11:
            wait_for(browser, lambda r=round_number: f"Round {r + 1} of 12" in text(browser, "play-table"))
            reveal = text(browser, "play-reveal")
            # the reveal, step by step: every card played, then each depth's catch
            wait_for(browser, lambda r=round_number: "Top" in text(browser, "play-reveal"))
            assert f"Round {round_number} revealed" in reveal
            assert "Bottom" in text(browser, "play-reveal") and "catch" in text(browser, "play-reveal")
            assert browser.find_element(By.ID, f"card-{card}").get_attribute("class") == "spent"
    wait_for(browser, lambda: "Final scores" in text(browser, "final"))
    final = text(browser, "final")
    assert ("You win" in final or "You share the win" in final or "Better luck next time" in final) and "winner" in final
    assert "Game over" in text(browser, "play-table")
    assert "Round 11 revealed" in text(browser, "play-reveal") and "Round 12 revealed (the last cards, forced)" in text(
        browser, "play-reveal"
    )
    saved = final.split("saved as a replay: ")[1].splitlines()[0]
    replay = load_replay(saved)
    assert Path(saved).parent == library / "replays"
    assert [cards[0] for cards in replay.plays] == mine and replay.players == ("human", "counter", "search", "miaui-ppo-v0")
    for seat, total in enumerate(replay.scores):
        row = browser.find_element(By.CSS_SELECTOR, f"#final tr[data-seat='{seat}']")
        assert row.find_element(By.CSS_SELECTOR, "td.score").text == str(total)
        assert (row.get_attribute("class") == "won") == (seat in replay.winners)

    browser.find_element(By.ID, "watch-this").click()  # and watch it back
    wait_for(browser, lambda: "step 0 of 11" in text(browser, "step"))
    assert "your game" in text(browser, "watch-title")


def test_a_seed_above_2_53_typed_on_the_page_deals_exactly_that_seed(browser, server, library):
    browser.get(server)
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#opponent-1 option"))
    Select(browser.find_element(By.ID, "players")).select_by_visible_text("3")
    browser.find_element(By.ID, "seed").send_keys(str(2**63 - 1))
    browser.find_element(By.ID, "start").click()
    wait_for(browser, lambda: "Round 1 of 12" in text(browser, "play-table"))
    assert browser.find_element(By.ID, "seed").get_attribute("value") == str(2**63 - 1)
    for round_number in range(1, 12):
        click_card(browser, round_number)
        if round_number < 11:
            wait_for(browser, lambda r=round_number: f"Round {r + 1} of 12" in text(browser, "play-table"))
    wait_for(browser, lambda: "saved as a replay: " in text(browser, "final"))
    saved = text(browser, "final").split("saved as a replay: ")[1].splitlines()[0]
    assert load_replay(saved).seed == 2**63 - 1  # not 2**63, as Number() would have sent


def test_an_illegal_card_is_refused_on_the_page(browser, server):
    start_game(browser, server, "3", ["random", "random"])
    click_card(browser, 5)
    wait_for(browser, lambda: "Round 2 of 12" in text(browser, "play-table"))
    before = text(browser, "play-table")
    click_card(browser, 5)  # spent: shown greyed, still a button, refused by the server
    wait_for(browser, lambda: browser.find_element(By.ID, "error").is_displayed())
    assert "card 5 is not in your hand: you have already played it" in text(browser, "error")
    assert text(browser, "play-table") == before  # nothing moved
    click_card(browser, 6)  # a good card clears the error and plays on
    wait_for(browser, lambda: "Round 3 of 12" in text(browser, "play-table"))
    assert not browser.find_element(By.ID, "error").is_displayed()


def test_a_game_survives_a_reload(browser, server):
    start_game(browser, server, "3", ["greedy", "counter"])
    click_card(browser, 8)
    wait_for(browser, lambda: "Round 2 of 12" in text(browser, "play-table"))
    browser.refresh()
    wait_for(browser, lambda: "Round 2 of 12" in text(browser, "play-table"))
    assert browser.find_element(By.ID, "card-8").get_attribute("class") == "spent"


def saved_replay(library: Path) -> Path:
    plays = [[r, r, (r + 5) % 12 + 1] for r in range(1, 12)]  # two seats tie every round: Kiti decides
    replay = record_replay(GameConfig(num_players=3), plays, seed=9, players=["ann", "bo", "cy"])
    return save_replay(replay, library / "arena" / "run" / "replays" / "game-0000.json")


def test_a_replay_stepped_through_forwards_and_back(browser, server, library):
    path = saved_replay(library)
    browser.get(server)
    browser.find_element(By.ID, "tab-watch").click()
    name = str(path)
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, f"#shelf option[value='{name}']"))
    Select(browser.find_element(By.ID, "shelf")).select_by_value(name)
    browser.find_element(By.ID, "open-saved").click()
    wait_for(browser, lambda: "step 0 of 11: the deal" in text(browser, "step"))
    assert "Round 1 of 12" in text(browser, "watch-table") and "spectator" in text(browser, "watch-table")
    for _ in range(3):
        browser.find_element(By.ID, "forward").click()
    wait_for(browser, lambda: "step 3 of 11: round 3 revealed" in text(browser, "step"))
    assert "Round 4 of 12" in text(browser, "watch-table")
    wait_for(browser, lambda: "Kiti gives it to" in text(browser, "watch-reveal"))
    assert "Round 3 revealed" in text(browser, "watch-reveal") and "player_0 (ann)" in text(browser, "watch-reveal")
    browser.find_element(By.ID, "back").click()
    wait_for(browser, lambda: "step 2 of 11" in text(browser, "step"))
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)  # the keyboard steps too
    wait_for(browser, lambda: "step 3 of 11" in text(browser, "step"))
    browser.find_element(By.ID, "autoplay").click()  # plays on by itself (common.js), then pauses on a click
    wait_for(browser, lambda: "step 4 of 11" in text(browser, "step"))
    browser.find_element(By.ID, "autoplay").click()
    assert browser.find_element(By.ID, "autoplay").text == "play"
    browser.execute_script("step(3)")  # back where the checks below look, whichever step the pause caught
    wait_for(browser, lambda: "step 3 of 11" in text(browser, "step"))

    Select(browser.find_element(By.ID, "watch-seat")).select_by_value("1")  # bo's own view, from its observations
    wait_for(browser, lambda: "player_1's view" in text(browser, "watch-table"))
    assert "step 3 of 11" in text(browser, "step")
    first_row = browser.find_elements(By.CSS_SELECTOR, "#watch-table .seat")[0]
    assert first_row.get_attribute("data-seat") == "1"
    others = browser.find_elements(By.CSS_SELECTOR, "#watch-table .seat:not([data-seat='1']) .diver.unknown")
    assert len(others) == 2 * 11  # the others' hands: all unknown but the card of the last reveal

    browser.find_element(By.ID, "last").click()
    wait_for(browser, lambda: "step 11 of 11" in text(browser, "step"))
    assert "Final scores" in text(browser, "watch-final") and "Game over" in text(browser, "watch-table")
    assert path.exists()


def test_watching_agents_and_a_bad_replay_file(browser, server, tmp_path):
    browser.get(server)
    browser.find_element(By.ID, "tab-watch").click()
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#watch-agent-0 option"))
    Select(browser.find_element(By.ID, "watch-players")).select_by_visible_text("5")
    browser.find_element(By.ID, "watch-fresh").click()
    wait_for(browser, lambda: "step 0 of 11" in text(browser, "step"))
    assert "a fresh game of agents" in text(browser, "watch-title")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#watch-table .seat")) == 5

    bad = tmp_path / "edited.json"
    bad.write_text('{"version": 7}')
    browser.find_element(By.CSS_SELECTOR, "#watch-box summary").click()  # folded away while a game is watched
    browser.find_element(By.ID, "replay-file").send_keys(str(bad))
    wait_for(browser, lambda: browser.find_element(By.ID, "error").is_displayed())
    assert "not a replay this app can play back: replay format version 7" in text(browser, "error")
    assert "a fresh game of agents" in text(browser, "watch-title")  # the game being watched stays


def finished_page(players: int = 4, **choices: Any) -> dict[str, Any]:
    """The page of a game played to its end by random agents' cards (the person plays their lowest)."""
    body = {"players": players, "opponents": ["random"] * (players - 1), "seed": 5, **choices}
    game = start_human_game(TableChoice.parse(body, agent_menu(), person=True))
    while not game.over:
        game.play(game.state.legal_cards(game.seat)[0], int(game.state.round))
    return game.page()


def drawn_page(browser: webdriver.Chrome, server: str, view: dict[str, Any]) -> None:
    browser.get(server)
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#opponent-1 option"))
    browser.execute_script("showGame(arguments[0])", view)


def inside(browser: webdriver.Chrome, inner: Any, outer: Any) -> bool:
    return bool(
        browser.execute_script(
            "const a = arguments[0].getBoundingClientRect(), b = arguments[1].getBoundingClientRect();"
            "return a.left >= b.left - 0.5 && a.right <= b.right + 0.5;",
            inner,
            outer,
        )
    )


def test_at_game_over_every_panel_shows_its_final_score_and_fits(browser, server):
    view = finished_page()
    view["players"] = ["human"] + ["a-very-long-agent-name-" + "x" * 40] * 3
    drawn_page(browser, server, view)
    for seat, total in enumerate(view["final"]["scores"]):
        panel = browser.find_element(By.CSS_SELECTOR, f"#play-table .seat[data-seat='{seat}'] .seat-score")
        assert panel.text == str(total)
    assert "score hidden" not in text(browser, "play-table")
    final = browser.find_element(By.ID, "final")
    for element in final.find_elements(By.CSS_SELECTOR, "table, button"):
        assert inside(browser, element, final), element.text


def test_the_seagull_and_jellyfish_steps_say_your_pile(browser, server):
    drawn_page(browser, server, finished_page())
    ctx = {"players": ["human", "a", "b"], "you": 0}
    steps = [
        {"kind": "theft", "depth": "top", "seat": 0, "stolen": None},
        {"kind": "theft", "depth": "top", "seat": 0, "stolen": {"kind": "lantern", "value": 3, "face_down": False, "peeker": None}},
        {"kind": "triple", "depth": "top", "seat": 0, "cards": []},
        {"kind": "theft", "depth": "top", "seat": 1, "stolen": None},
    ]
    said = [browser.execute_script("return stepElement(arguments[0], arguments[1]).textContent", step, ctx) for step in steps]
    assert "finds your pile empty" in said[0] and "steals the top of your pile" in said[1]
    assert "three Jellyfish in your pile" in said[2] and "finds player_1's pile empty" in said[3]
    assert not any("you's" in line for line in said)


def test_number_keys_play_cards_and_the_focus_stays_on_the_hand(browser, server):
    start_game(browser, server, "3", ["random", "random"])
    browser.switch_to.active_element.send_keys("5")
    wait_for(browser, lambda: "Round 2 of 12" in text(browser, "play-table"))
    assert browser.find_element(By.ID, "card-5").get_attribute("class") == "spent"
    wait_for(browser, lambda: browser.switch_to.active_element.get_attribute("id") == "card-6")  # the next card, not the body
    ring = browser.execute_script("const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth];")
    assert ring[0] == "solid" and float(ring[1].removesuffix("px")) >= 3
    for key, card, round_number in (("-", 11, 3), ("0", 10, 4), ("=", 12, 5)):
        browser.switch_to.active_element.send_keys(key)
        wait_for(browser, lambda r=round_number: f"Round {r} of 12" in text(browser, "play-table"))
        assert browser.find_element(By.ID, f"card-{card}").get_attribute("class") == "spent"
        assert browser.switch_to.active_element.get_attribute("id").startswith("card-")
    assert "press 1-9, 0, - or =" in text(browser, "hand-hint")


def test_the_page_counts_your_whole_pile_with_its_jellyfish(browser, server):
    view = finished_page(3, open_baskets=True)
    drawn_page(browser, server, view)
    for row in view["table"]["seats"]:
        shown = browser.find_element(By.CSS_SELECTOR, f"#play-table .seat[data-seat='{row['seat']}'] .tally").text
        jellyfish = dict(row["tally"]["kinds"]).get("jellyfish", 0) if row["tally"] else 0
        assert "whole pile:" in shown and f"{jellyfish} of 3 Jellyfish" in shown


def test_rules_help_a_round_log_and_a_readable_shelf(browser, server, library):
    browser.get(server)
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#opponent-1 option"))
    browser.find_element(By.CSS_SELECTOR, "#rules summary").click()
    rules = text(browser, "rules")
    for word in ("Lantern", "Seagull", "Jellyfish", "Kiti", "Bottom", "Top", "“the table”", "perfect memory"):
        assert word in rules, word

    Select(browser.find_element(By.ID, "view")).select_by_value("recall")
    Select(browser.find_element(By.ID, "players")).select_by_visible_text("3")
    browser.find_element(By.ID, "start").click()
    wait_for(browser, lambda: "Round 1 of 12" in text(browser, "play-table"))
    for round_number, card in ((1, 4), (2, 9), (3, 1)):
        click_card(browser, card)
        wait_for(browser, lambda r=round_number: f"Round {r + 1} of 12" in text(browser, "play-table"))
    log = text(browser, "play-log")
    assert "Earlier rounds" in log and "Round 2: you 9" in log and "Round 1: you 4" in log
    assert "Round 3:" not in log  # the last round shows above, as the reveal

    saved_replay(library)
    browser.find_element(By.ID, "tab-watch").click()
    wait_for(browser, lambda: "ann, bo, cy" in text(browser, "shelf"))
    line = next(o.text for o in browser.find_elements(By.CSS_SELECTOR, "#shelf option") if "ann" in o.text)
    assert "won by" in line and "/" not in line  # players, date and winner; the path shows on hover only


def centre(browser: webdriver.Chrome, element: Any) -> tuple[float, float]:
    box = browser.execute_script(
        "const b = arguments[0].getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2];", element
    )
    return float(box[0]), float(box[1])


@pytest.mark.parametrize("players", [3, 4, 6])
def test_the_round_table_seats_players_clockwise_with_kiti_between_its_neighbours(browser, server, players):
    body = {"players": players, "seat": 1, "opponents": ["random"] * (players - 1), "seed": 5}
    game = start_human_game(TableChoice.parse(body, agent_menu(), person=True))
    for _ in range(2):  # round 3: Kiti sits between player_2 and player_3 (R1)
        game.play(game.state.legal_cards(game.seat)[0], int(game.state.round))
    view = game.page()
    drawn_page(browser, server, view)
    table = browser.find_element(By.CSS_SELECTOR, "#play-table .round-table")
    middle = centre(browser, table)
    seats = {int(e.get_attribute("data-seat")): centre(browser, e) for e in table.find_elements(By.CSS_SELECTOR, ".rt-seat")}
    assert seats[1][1] > middle[1] + 40  # you sit at the bottom
    # player_{i+1} sits at player_i's left, clockwise on the screen (y grows downwards): every step turns the same way
    turns = [
        (seats[s][0] - middle[0]) * (seats[(s + 1) % players][1] - middle[1])
        - (seats[s][1] - middle[1]) * (seats[(s + 1) % players][0] - middle[0])
        for s in range(players)
    ]
    assert all(turn > 0 for turn in turns)
    kiti = centre(browser, table.find_element(By.CSS_SELECTOR, ".rt-kiti"))
    nearest = sorted(seats, key=lambda s: (seats[s][0] - kiti[0]) ** 2 + (seats[s][1] - kiti[1]) ** 2)[:2]
    assert sorted(nearest) == sorted(view["table"]["kiti"]) == sorted([2, 3 % players])
    ranks = table.find_element(By.CSS_SELECTOR, ".rt-seat[data-seat='2'] .ranks").text
    assert ranks == "▼1 ▲{}".format(view["table"]["shallow_order"].index(2) + 1)  # Kiti's right arm wins deep ties
    assert "Kiti →" not in text(browser, "play-table")


@pytest.fixture
def phone(browser: webdriver.Chrome) -> Iterator[webdriver.Chrome]:
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    yield browser
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def box(browser: webdriver.Chrome, selector: str) -> dict[str, float]:
    return dict(browser.execute_script("return document.querySelector(arguments[0]).getBoundingClientRect().toJSON();", selector))


def test_on_a_phone_one_round_fits_on_one_screen(phone, server, library):
    start_game(phone, server, "4", ["counter", "greedy", "random"])
    click_card(phone, 6)
    wait_for(phone, lambda: "Round 2 of 12" in text(phone, "play-table"))
    wait_for(phone, lambda: "Top" in text(phone, "play-reveal"))
    top = box(phone, "#play-table .lagoon")["top"]
    for part in ("#play-table .lagoon", ".hand-area", "#play-reveal .reveal"):
        assert box(phone, part)["bottom"] - top <= 844, part  # no scrolling between them
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    assert box(phone, "#play-table .diver")["width"] >= 22
    for select in phone.find_elements(By.CSS_SELECTOR, "#opponents select"):  # whole agent names, not 3 letters
        assert phone.execute_script("return arguments[0].getBoundingClientRect().width", select) >= 150
    saved_replay(library)
    phone.find_element(By.ID, "tab-watch").click()
    wait_for(phone, lambda: "ann, bo, cy" in text(phone, "shelf"))
    assert box(phone, "#shelf")["right"] <= 390 - 8
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 390


def test_the_page_names_the_missing_trained_policies_and_their_install_command(browser, server):
    browser.get(server)
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#opponent-1 option"))
    assert not browser.find_element(By.ID, "training-note").is_displayed()  # this machine has torch and sb3-contrib
    missing = {"missing": ["miaui-ppo-v0", "miaui-ppo-v0@sample", "search+miaui-ppo-v0"], "install": "pip install X"}
    note = browser.execute_script(
        "const n = document.getElementById('training-note');"
        "n.replaceChildren(...trainingNote(arguments[0])); n.hidden = false; return n.textContent;",
        missing,
    )
    assert "The trained policies (miaui-ppo-v0) need the training extra" in note and "pip install X" in note


def test_on_a_phone_the_round_table_is_a_ring_and_the_watch_board_fits(phone, server):
    start_game(phone, server, "6", ["counter", "greedy", "random", "counter", "greedy"])
    seats = phone.execute_script(
        "return [...document.querySelectorAll('#play-table .rt-seat')].map((e) => e.getBoundingClientRect().toJSON())"
    )
    assert len(seats) == 6
    for i, a in enumerate(seats):  # no two seats' boxes overlap: they sit around the table, not on one line
        for b in seats[i + 1 :]:
            assert a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or b["bottom"] <= a["top"], (a, b)
    assert "▼ is a seat's place in the first order and ▲ in the second" in text(phone, "play-table")
    phone.find_element(By.ID, "tab-watch").click()
    phone.find_element(By.ID, "watch-fresh").click()
    wait_for(phone, lambda: "Round 1 of 12" in text(phone, "watch-table"))
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 390
    assert box(phone, "#watch-table .round-table")["width"] >= 150


def test_on_a_phone_the_octopus_page_fits_a_long_collection_and_shows_the_odds(phone, server):
    start_octopus_game(phone, server)
    # The page as it draws a late position: a 17-card collection, an opponent's hidden score, a theft offered.
    phone.execute_script("""
        const view = structuredClone(game);
        view.table.seats[0].collection = Array.from({length: 17}, (_, i) => `fish:${i % 4 + 1}`);
        view.table.seats[0].collection_size = 17;
        view.table.seats[1].session_score = null;
        view.legal = [{action: 0, label: "no theft", key: "n"}, {action: 3, label: "steal 1 from player_1", key: "1", odds: "5/6"}];
        view.log = Array.from({length: 120}, (_, i) => `step ${i + 1}`);
        showGame(view);""")
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    assert phone.execute_script("return document.documentElement.scrollHeight") <= 2 * 844  # under two screens
    assert "succeeds with chance 5/6" in phone.find_element(By.ID, "action-3").text  # no tooltip needed on a touch screen
    assert "hidden" in phone.find_element(By.ID, "seat-1").text and "?" not in phone.find_element(By.ID, "seat-1").text
    gutter = phone.execute_script("""const log = document.getElementById('log');
        return parseFloat(getComputedStyle(log).paddingLeft) / parseFloat(getComputedStyle(log).fontSize);""")
    assert gutter >= 3  # room for "120." in the list's gutter


def test_the_default_opponents_are_the_terminals(browser, server):
    browser.get(server)
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#opponent-1 option"))
    Select(browser.find_element(By.ID, "players")).select_by_visible_text("6")
    chosen = [Select(browser.find_element(By.ID, f"opponent-{k}")).first_selected_option.get_attribute("value") for k in range(1, 6)]
    assert chosen == ["counter", "greedy", "random", "counter", "greedy"]  # play.py's --opponents default, cycled


def test_the_octopus_final_panel_gives_each_total_with_its_sessions(browser, server):
    start_octopus_game(browser, server)
    browser.execute_script("""
        const view = structuredClone(game);
        Object.assign(view, {over: true, legal: [], final: {totals: [79, 64], winners: [0], truncated: false,
                                                            session_scores: [[30, 28], [25, 20], [24, 16]]}});
        showGame(view);""")
    lines = text(browser, "final").splitlines()
    assert "you (human): 79 (sessions: 30 + 25 + 24)" in lines and "player_1 (risk-aware): 64 (sessions: 28 + 20 + 16)" in lines


@pytest.mark.parametrize("width", [390, 1280])
def test_an_octopus_replay_is_watched_step_by_step_on_a_phone_and_a_desktop(browser, server, library, width):
    replay = play_and_record([RandomAgent(7), *load_octopus_agents(["risk-aware"], 7)], 2, seed=7, max_sessions=1)
    name = save_octopus_replay(replay, library / "replays" / "octopus" / f"watched-{width}.json").as_posix()
    height = 844 if width == 390 else 800
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width == 390}
    )
    try:
        browser.get(server + "octopus")
        wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#opponent-1 option"))
        browser.find_element(By.CSS_SELECTOR, "#watch-box summary").click()
        wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, f"#shelf option[value='{name}']"))
        Select(browser.find_element(By.ID, "shelf")).select_by_value(name)
        browser.find_element(By.ID, "open-saved").click()
        wait_for(browser, lambda: "decision 0 of" in text(browser, "step"))
        last = len(replay.actions)
        assert text(browser, "step") == f"decision 0 of {last}" and "Session 1" in text(browser, "watch-table")
        lines = len(browser.find_elements(By.CSS_SELECTOR, "#watch-log li"))
        browser.find_element(By.ID, "forward").click()
        assert text(browser, "step") == f"decision 1 of {last}"
        assert len(browser.find_elements(By.CSS_SELECTOR, "#watch-log li")) > lines
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)  # the arrow keys step too
        assert text(browser, "step") == f"decision 2 of {last}"
        browser.find_element(By.ID, "autoplay").click()  # plays on by itself, then pauses on a click
        wait_for(browser, lambda: text(browser, "step") != f"decision 2 of {last}")
        browser.find_element(By.ID, "autoplay").click()
        assert browser.find_element(By.ID, "autoplay").text == "play"
        browser.find_element(By.ID, "last").click()
        final = text(browser, "watch-final")
        assert f"{replay.totals[0]} (sessions: {replay.session_scores[0][0]})" in final and "Game over" in final
        Select(browser.find_element(By.ID, "watch-seat")).select_by_value("1")  # another seat's view, same step
        wait_for(browser, lambda: "you (risk-aware)" in text(browser, "watch-final"))
        assert text(browser, "step") == f"decision {last} of {last}"
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width  # nothing wider than the screen
        for button in ("first", "back", "forward", "last", "autoplay"):
            assert box(browser, f"#{button}")["height"] >= 24, button  # touch-sized
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize("width", [390, 1280])
def test_a_sealed_bids_game_played_to_the_end_on_the_generic_page(browser, server, library, width):
    # tests/games/sealed_bids.py gives no page of its own: the generic one puts it in its words.
    height = 844 if width == 390 else 800
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width == 390}
    )
    try:
        browser.get(server + "games")
        browser.find_element(By.CSS_SELECTOR, "#game-sealed_bids a").click()
        wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#opponent-1 option"))
        assert text(browser, "title") == "Sealed bids" and browser.title == "Sealed bids"
        Select(browser.find_element(By.ID, "seat")).select_by_value("1")
        chosen = [Select(browser.find_element(By.ID, f"opponent-{k}")).first_selected_option.get_attribute("value") for k in (1, 2)]
        assert chosen == ["match-the-prize", "match-the-prize"]  # the terminal's opponents, cycled
        Select(browser.find_element(By.ID, "opponent-2")).select_by_value("random")
        browser.find_element(By.ID, "seed").send_keys("11")
        browser.find_element(By.ID, "start").click()
        wait_for(browser, lambda: browser.find_elements(By.ID, "action-2"))
        assert "your bids: [1, 2, 3]" in text(browser, "seat-view") and "player_0 (random) decides" in text(browser, "log")
        buttons = [button.text for button in browser.find_elements(By.CSS_SELECTOR, "#actions button")]
        assert buttons == ["bid 1 [1]", "bid 2 [2]", "bid 3 [3]"]  # each action in the game's words, with its key
        browser.find_element(By.ID, "action-2").click()  # bid 3 by a click
        wait_for(browser, lambda: "your bids: [1, 2]" in text(browser, "seat-view"))
        assert "you: bid 3" in text(browser, "log")
        browser.find_element(By.TAG_NAME, "body").send_keys("1")  # bid 1 by its key
        wait_for(browser, lambda: "your bids: [2]" in text(browser, "seat-view"))
        browser.find_element(By.ID, "action-1").click()  # the last bid, 2
        wait_for(browser, lambda: browser.find_element(By.ID, "final").is_displayed())
        final = text(browser, "final")
        assert ("You win!" in final or "You share the win!" in final or "Game over" in final) and "Won by" in final
        assert not browser.find_elements(By.CSS_SELECTOR, "#actions button") and "game over" in text(browser, "seat-view")
        saved = final.split("saved as a replay: ")[1].splitlines()[0]
        replay = json.loads(Path(saved).read_text())
        assert Path(saved).parent == library / "replays" / "sealed_bids" and replay["decisions"][1::3] == [2, 0, 1]
        for seat, score in enumerate(replay["scores"]):
            row = browser.find_element(By.CSS_SELECTOR, f"#final tr[data-seat='{seat}']")
            assert row.find_element(By.CSS_SELECTOR, "td.score").text == f"{score:g}"
            assert (row.get_attribute("class") == "won") == replay["winners"][seat]
        link = browser.find_element(By.CSS_SELECTOR, "#final a[download]").get_attribute("href")
        assert link.endswith(f"/api/sealed_bids/games/{browser.execute_script('return game.id')}/replay")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width  # nothing wider than the screen

        browser.find_element(By.ID, "watch-this").click()  # and watch it back, from the person's seat
        wait_for(browser, lambda: text(browser, "step") == "decision 0 of 9")
        assert "your game" in text(browser, "watch-title") and "player_1's view (human)" in text(browser, "watch-view")
        browser.find_element(By.ID, "forward").click()
        assert text(browser, "step") == "decision 1 of 9" and text(browser, "watch-log") == "player_0 (random) decides"
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        assert text(browser, "step") == "decision 2 of 9" and "player_1 (human) decides: bid 3" in text(browser, "watch-log")
        Select(browser.find_element(By.ID, "watch-seat")).select_by_value("")  # the spectator sees every decision in words
        wait_for(browser, lambda: "The table (spectator)" in text(browser, "watch-view"))
        assert text(browser, "step") == "decision 2 of 9" and "player_0 (random) decides: bid" in text(browser, "watch-log")
        browser.find_element(By.ID, "last").click()
        assert "Won by" in text(browser, "watch-final") and browser.find_element(By.ID, "watch-final").is_displayed()
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width
        for button in ("first", "back", "forward", "last", "autoplay"):
            assert box(browser, f"#{button}")["height"] >= 24, button  # touch-sized
        assert not browser.find_element(By.ID, "error").is_displayed()
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
