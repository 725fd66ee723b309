"""Real HTTP endpoints on 127.0.0.1: a JSON post receiver (apprise's json:// target) and a
scripted chat API for the model readers and the judge."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from reflection_core.config import Config, validate


class Receiver:
    """What the endpoint received, and an event set on the first post."""

    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []
        self.got_one = threading.Event()


@contextlib.contextmanager
def json_receiver(delay: float = 0.0, trickle: float = 0.0) -> Iterator[tuple[Receiver, int]]:
    """Serve on a free loopback port until the block ends: (receiver, port). Each answer
    waits `delay` seconds; with `trickle`, it promises 1000 bytes and sends one byte every
    `trickle` seconds (each read is quick, the body never ends) until the block ends."""
    received = Receiver()
    over = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            received.posts.append(json.loads(body))
            received.got_one.set()
            over.wait(delay)
            self.send_response(200)
            self.send_header("Content-Length", "1000" if trickle else "0")
            self.end_headers()
            while trickle and not over.wait(trickle):
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield received, server.server_address[1]
    finally:
        over.set()
        server.shutdown()
        server.server_close()


Reply = tuple[int, Any, dict[str, str], float]  # status, body, headers, delay seconds


class ChatServer:
    """A chat API (OpenAI or Anthropic shape) on 127.0.0.1:0; a test scripts `respond`."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.respond: Callable[[dict[str, Any]], Reply] = lambda req: (500, {}, {}, 0.0)
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                request = {"path": self.path, "headers": dict(self.headers), "json": body}
                with owner.lock:
                    owner.requests.append(request)
                status, payload, headers, delay = owner.respond(request)
                time.sleep(delay)
                raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def unreachable_judge() -> Config:
    """A judge pointed at a closed loopback port: every call fails to connect, no retry."""
    judge = {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m", "retries": 0}
    return Config(data=validate({"judge": judge}, "test"))
