"""The browser app's API: whole games, isolation between games, and every bad request a 4xx."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import stacked_game

from miaui_env.picture import seat_table, table_as_dict
from miaui_env.replay import load_replay
from miaui_env.rules import LagoonCard, play_round
from miaui_env.web import AGENTS, create_app

LANTERN_FIRST = [["lantern:7", "tigerfish:6", "kittenfish:2"], ["emperor_tuna:15", "tigerfish:9", "kittenfish:4"]]


@pytest.fixture
def client(tmp_path):
    app = create_app(max_games=3, replays=tmp_path)
    app.testing = True
    return app.test_client()


def new_game(client, **choices):
    response = client.post("/api/games", json={"players": 3, "opponents": ["random"], "seed": 5, **choices})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def play_out(client, view):
    while not view["over"]:
        response = client.post(f"/api/games/{view['id']}/play", json={"card": view["hand"][0]})
        assert response.status_code == 200, response.get_json()
        view = response.get_json()
    return view


def test_a_whole_game_to_the_final_scores_saved_as_a_replay(client, tmp_path):
    view = new_game(client, opponents=["counter", "greedy"], seat=1)  # dealt clockwise from your left: seat 2, then seat 0
    assert view["table"]["round_line"] == "round 1 of 12" and view["hand"] == list(range(1, 13))
    assert view["table"]["seats"][0]["name"] == "player_1 (you)"
    view = play_out(client, view)
    assert view["final"]["names"] == ["greedy", "you", "counter"] and len(view["final"]["scores"]) == 3
    best = max(view["final"]["scores"])
    assert view["final"]["winners"] == [s for s, total in enumerate(view["final"]["scores"]) if total == best]
    assert any("round 12 reveal" in line for line in view["reveal"])
    replay = load_replay(view["replay"])
    assert replay.players == ("greedy", "you", "counter") and list(replay.scores) == view["final"]["scores"]


def test_games_never_see_each_other(client):
    first, second = new_game(client, seed=1), new_game(client, seed=2)
    assert first["id"] != second["id"]
    moved = client.post(f"/api/games/{first['id']}/play", json={"card": 12}).get_json()
    untouched = client.get(f"/api/games/{second['id']}").get_json()
    assert moved["table"]["round_line"] == "round 2 of 12" and untouched == second  # the other game did not move


def test_a_seat_is_shown_only_what_its_observation_holds():
    # The page's table comes from the seat's observation; a face-down card it did not peek cannot show.
    from miaui_env.observation import Encoder

    game = stacked_game(LANTERN_FIRST, num_players=3)
    play_round(game, [12, 5, 1])  # player_0 catches the Lantern and peeks round 2's bottom card
    swapped = game.clone()
    swapped.lagoon[0][0] = LagoonCard(game.lagoon[1][0].card, peeker=0)
    encoder = Encoder(game.config, "table")

    def shown(state, seat):
        encoder.refresh(state)
        return json.dumps(table_as_dict(seat_table(encoder.observe(seat), 3)))

    assert shown(game, 1) == shown(swapped, 1) and shown(game, 2) == shown(swapped, 2)
    assert shown(game, 0) != shown(swapped, 0)


@pytest.mark.parametrize(
    ("request_body", "status", "message"),
    [
        ({"players": 9}, 400, "players=9: a table seats 3-6"),
        ({"opponents": ["evil:agent"]}, 400, "opponents=\\['evil:agent'\\]: choose from random"),
        ({"opponents": ["checkpoints/miaui-ppo-v0"]}, 400, "choose from"),
        ({"seat": 5}, 400, "seat=5: seats are 0-2"),
        ({"no_fighting": "yes"}, 400, "open_baskets and no_fighting are true or false"),
        ([1, 2], 400, "a new game is a JSON object"),
    ],
)
def test_bad_new_games_are_refused(client, request_body, status, message):
    body = request_body if isinstance(request_body, list) else {"players": 3, **request_body}
    response = client.post("/api/games", json=body)
    assert response.status_code == status
    assert __import__("re").search(message, response.get_json()["error"])


def test_bad_cards_are_refused_and_change_nothing(client):
    view = new_game(client)
    game = f"/api/games/{view['id']}"
    client.post(f"{game}/play", json={"card": 1})
    before = client.get(game).get_json()
    for card, message in ((1, "you have already played 1"), (13, "card=13: a diver card is a number 1-12"), ("7", "card='7'")):
        response = client.post(f"{game}/play", json={"card": card})
        assert response.status_code == 400 and message in response.get_json()["error"]
    assert client.get(game).get_json() == before
    assert client.post(f"{game}/play", data="not json", content_type="application/json").status_code == 400


def test_a_card_for_a_finished_game_and_unknown_games(client):
    view = play_out(client, new_game(client))
    response = client.post(f"/api/games/{view['id']}/play", json={"card": 1})
    assert response.status_code == 409 and "this game is over" in response.get_json()["error"]
    response = client.get("/api/games/nosuchgame")
    assert response.status_code == 404 and "no game 'nosuchgame' here" in response.get_json()["error"]


def test_full_server_refuses_new_games_and_abandoned_ones_expire(tmp_path):
    app = create_app(max_games=2, game_ttl=0.0, replays=tmp_path)
    client = app.test_client()
    assert client.post("/api/games", json={"players": 3}).status_code == 201
    assert client.post("/api/games", json={"players": 3}).status_code == 201  # the first expired (ttl 0) on the way
    assert len(app.extensions["miaui_games"]) == 1
    full = create_app(max_games=1, replays=tmp_path).test_client()
    assert full.post("/api/games", json={"players": 3}).status_code == 201
    response = full.post("/api/games", json={"players": 3})
    assert response.status_code == 503 and "as many as it may" in response.get_json()["error"]


def test_huge_bodies_and_malformed_replays_are_refused(client):
    response = client.post("/api/replays", data="x" * (2 << 20), content_type="application/json")
    assert response.status_code == 413 and "larger than 1 MB" in response.get_json()["error"]
    for replay, message in (("{", "a replay is JSON"), ('{"version": 3}', "replay format version 3"), ({"version": 1}, "missing")):
        response = client.post("/api/replays", json={"replay": replay})
        assert response.status_code == 400 and message in response.get_json()["error"]
    assert client.post("/api/replays", json={"nothing": 1}).status_code == 400
    assert client.get("/api/agents").get_json()["agents"] == list(AGENTS)  # and it keeps serving


def test_watching_steps_through_a_replay_as_spectator_or_one_seat(client):
    watched = client.post("/api/watch", json={"players": 4, "opponents": ["counter"], "seed": 3}).get_json()
    assert len(watched["frames"]) == 12 and watched["players"] == ["counter"] * 4
    spectator = client.post("/api/replays", json={"replay": watched["replay"], "seat": None}).get_json()["frames"]
    seat = client.post("/api/replays", json={"replay": watched["replay"], "seat": 2}).get_json()["frames"]
    assert [frame["step"] for frame in spectator] == list(range(12))
    assert spectator[3]["table"]["round_line"] == "round 4 of 12" and spectator[3]["reveal"][0].startswith("round 3 reveal")
    # a seat never sees another's hand in the table view after round 1; the spectator sees every hand
    assert all(held is None for row in seat[5]["table"]["seats"][1:] for held in row["held"])
    assert all(held in (0, 1) for row in spectator[5]["table"]["seats"] for held in row["held"])
    response = client.post("/api/replays", json={"replay": watched["replay"], "seat": 7})
    assert response.status_code == 400 and "seat=7" in response.get_json()["error"]
    assert np.all([frame["table"]["title"].startswith("Miaui, 4 players") for frame in spectator])
