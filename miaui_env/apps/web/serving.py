"""The browser app's server: waitress, with its own refusals (a body over the limit, a malformed
request) answered as the app answers its own, JSON `{"error": message}`.

This module imports waitress; `app.main` imports it only when it serves.
"""

from __future__ import annotations

import json
from typing import Any

from waitress import create_server
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import BaseWSGIServer
from waitress.task import ErrorTask
from waitress.utilities import RequestEntityTooLarge

from miaui_env.apps.web.games import MAX_BODY

TOO_LARGE = f"the request is larger than {MAX_BODY // 1024} kB"


class _DrainingParser(HTTPRequestParser):  # type: ignore[misc]
    """Reads and discards a body whose Content-Length is over the limit before the 413 is sent:
    a client still sending it would otherwise find the connection reset and never see the answer.
    Nothing of it is kept, so a huge body costs the server no memory or disk."""

    _discard = 0

    def received(self, data: bytes) -> int:
        if self._discard:
            taken = min(self._discard, len(data))
            self._discard -= taken
            self.completed = not self._discard
            return taken
        consumed: int = super().received(data)
        if isinstance(self.error, RequestEntityTooLarge) and not self.chunked and self.content_length > 0:
            self._discard, self.completed = self.content_length, False
        return consumed


class _JsonErrorTask(ErrorTask):  # type: ignore[misc]
    """waitress's own refusal as JSON `{"error": message}`, as the page reads every error."""

    def execute(self) -> None:
        error = self.request.error
        message = TOO_LARGE if error.code == 413 else f"{error.reason}: {error.body}"
        body = json.dumps({"error": message}).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.append(("Content-Type", "application/json"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class _JsonChannel(HTTPChannel):  # type: ignore[misc]
    parser_class = _DrainingParser
    error_task_class = _JsonErrorTask


def web_server(app: Any, host: str, port: int, threads: int = 8) -> Any:
    """A waitress server of `app` on `host`:`port` that refuses a body over MAX_BODY with a JSON 413
    (read to its end and thrown away: never buffered)."""
    server: Any = create_server(app, host=host, port=port, threads=threads, max_request_body_size=MAX_BODY + 1)
    # A host name of several addresses gets a MultiSocketServer (`map`), one address a server (`_map`).
    dispatchers = getattr(server, "map", None) or server._map
    for dispatcher in list(dispatchers.values()):
        if isinstance(dispatcher, BaseWSGIServer):
            dispatcher.channel_class = _JsonChannel
    return server
