"""The browser app in a real headless browser: Debian's chromium, driven by selenium.

`.ci/run` installs chromium and chromium-driver; on a machine without them these tests fail and
say how to install them (they are never skipped).
"""

from __future__ import annotations

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

from miaui_env.apps.replay import load_replay, record_replay, save_replay
from miaui_env.apps.web import create_app
from miaui_env.game.rules import GameConfig

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
