"""The browser app in a real headless browser: Debian's chromium, driven by selenium.

`.ci/run` installs chromium and chromium-driver; without them these tests fail and say so.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from waitress import create_server

from miaui_env.replay import record_replay, save_replay
from miaui_env.web import create_app

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    app = create_app(replays=tmp_path_factory.mktemp("replays"))
    serving = create_server(app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=serving.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{serving.effective_port}/"
    serving.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    if not (Path(CHROMIUM).exists() and shutil.which("chromedriver")):
        pytest.fail("the browser tests need Debian's chromium and chromium-driver: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,1000"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def wait_for(browser: webdriver.Chrome, condition, seconds: float = 20):
    return WebDriverWait(browser, seconds).until(lambda _: condition())


def start_game(browser: webdriver.Chrome, server: str, players: str = "3", opponents: str = "random") -> None:
    browser.get(server)
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#opponents option"))
    Select(browser.find_element(By.ID, "players")).select_by_visible_text(players)
    Select(browser.find_element(By.ID, "opponents")).select_by_visible_text(opponents)
    browser.find_element(By.ID, "start").click()
    wait_for(browser, lambda: "round 1 of 12" in browser.find_element(By.ID, "game").text)


def test_a_whole_game_played_by_clicks_to_the_final_scores(browser, server):
    start_game(browser, server, players="4", opponents="counter")
    for round_number in range(1, 12):
        assert f"round {round_number} of 12" in browser.find_element(By.ID, "game").text
        browser.find_element(By.CSS_SELECTOR, "#hand button:not(.spent)").click()
        if round_number < 11:
            wait_for(browser, lambda r=round_number: f"round {r + 1} of 12" in browser.find_element(By.ID, "game").text)
    wait_for(browser, lambda: "Final scores" in browser.find_element(By.ID, "final").text)
    final = browser.find_element(By.ID, "final").text
    assert "(winner)" in final and "you:" in final and "saved as a replay" in final
    assert "round 12 reveal" in browser.find_element(By.ID, "reveal").text


def test_an_illegal_card_is_refused_on_the_page(browser, server):
    start_game(browser, server)
    browser.find_element(By.ID, "card-1").click()
    wait_for(browser, lambda: "round 2 of 12" in browser.find_element(By.ID, "game").text)
    browser.find_element(By.ID, "card-1").click()  # already played: shown spent, still clickable, refused by the server
    wait_for(browser, lambda: "you have already played 1" in browser.find_element(By.ID, "error").text)
    assert "round 2 of 12" in browser.find_element(By.ID, "game").text  # nothing changed


def test_a_replay_stepped_through_forwards_and_back(browser, server, tmp_path):
    plays = [[round_number, round_number, round_number] for round_number in range(1, 12)]  # everyone plays alike: ties everywhere
    path = save_replay(
        record_replay({"num_players": 3, "open_baskets": False, "no_fighting": False}, plays, seed=9, players=["a", "b", "c"]),
        tmp_path / "game.json",
    )
    browser.get(server)
    browser.find_element(By.ID, "tab-watch").click()
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    wait_for(browser, lambda: "step 0 of 11" in browser.find_element(By.ID, "step").text)
    for _ in range(3):
        browser.find_element(By.ID, "forward").click()
    wait_for(browser, lambda: "step 3 of 11" in browser.find_element(By.ID, "step").text)
    assert "round 4 of 12" in browser.find_element(By.ID, "watch-table").text
    assert "round 3 reveal" in browser.find_element(By.ID, "watch-reveal").text
    browser.find_element(By.ID, "back").click()
    wait_for(browser, lambda: "step 2 of 11" in browser.find_element(By.ID, "step").text)
    Select(browser.find_element(By.ID, "watch-seat")).select_by_value("1")  # player_1's own view
    wait_for(browser, lambda: "one seat's view" in browser.find_element(By.ID, "watch-table").text)
