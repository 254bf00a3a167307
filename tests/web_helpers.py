"""What the browser app's API tests share (tests/test_web.py for Miaui, tests/test_web_octopus.py for
the octopus game): an app with its own replay folder and library, a client of it, and the checks of
an answer."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from miaui_env.apps.web import create_app
from miaui_env.apps.web.games import GameStore


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    """The browser app with a small game store; it saves replays and lists its library under `tmp_path`."""
    return create_app(GameStore(max_games=8), replays=tmp_path / "replays", library=[tmp_path])


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of `app`: one browser session."""
    return app.test_client()


def posted(client: FlaskClient, path: str, body: dict[str, Any], status: int) -> Any:
    """The JSON answer to `body` posted to `path`, checked to come with `status`."""
    response = client.post(path, json=body)
    assert response.status_code == status, response.get_json()
    return response.get_json()


def refused(response: TestResponse, status: int, message: str) -> str:
    """The error of a refused request, checked to come with `status` and to match `message`."""
    assert response.status_code == status, (response.status_code, response.get_json())
    error = response.get_json()["error"]
    assert re.search(message, error), error
    return error
