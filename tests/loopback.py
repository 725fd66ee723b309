"""A real HTTP endpoint on 127.0.0.1 that records JSON posts (apprise's json:// target)."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    """What the endpoint received, and an event set on the first post."""

    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []
        self.got_one = threading.Event()


@contextlib.contextmanager
def json_receiver() -> Iterator[tuple[Receiver, int]]:
    """Serve on a free loopback port until the block ends: (receiver, port)."""
    received = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            received.posts.append(json.loads(body))
            received.got_one.set()
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield received, server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
