"""A scripted stand-in for the Gemini API (`generateContent`), served on 127.0.0.1.

The real Gemini CLI talks to it through `GOOGLE_GEMINI_BASE_URL`. Turns are the
same `Turn` lists the Anthropic stand-in replays (model_server.py); tool calls are
written with Gemini CLI's tool names (`run_shell_command`, `write_file`, ...).

The turn to answer is the number of `model` contents already in the request, so a
retry the CLI starts after a hook's feedback gets the next turn. Requests without
tools (the CLI's side queries: next-speaker checks, routing, titles) get a short
JSON or text answer and never consume a turn.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.e2e.model_server import EXHAUSTED_TEXT, Text, ToolUse, Turn

SIDE_QUERY_JSON = {"next_speaker": "user", "reasoning": "scripted", "model_choice": "flash"}


def shell(command: str, note: str = "") -> Turn:
    call = ToolUse("run_shell_command", {"command": command, "description": command[:60]})
    return [Text(note), call] if note else [call]


def write_file(path: str, content: str, note: str = "") -> Turn:
    call = ToolUse("write_file", {"file_path": path, "content": content})
    return [Text(note), call] if note else [call]


def _texts(body: dict[str, Any]) -> Iterator[str]:
    for content in body.get("contents") or []:
        for part in content.get("parts") or [] if isinstance(content, dict) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield part["text"]
            response = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(response, dict):
                yield json.dumps(response.get("response"))


class GeminiServer:
    """`with GeminiServer(turns) as server:` then point the CLI at `server.base_url`."""

    def __init__(self, turns: list[Turn]) -> None:
        self.turns = turns
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> GeminiServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def main_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r.get("tools")]

    def texts_sent(self) -> list[str]:
        """Every text the CLI sent in a main-loop request (prompts, context, tool results)."""
        return [t for body in self.main_requests for t in _texts(body)]

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.requests.append(body)
        if not body.get("tools"):
            config = body.get("generationConfig") or {}
            wants_json = "json" in str(config.get("responseMimeType", ""))
            text = json.dumps(SIDE_QUERY_JSON) if wants_json else "ok"
            return _response([Text(text)])
        done = sum(1 for c in body.get("contents") or [] if c.get("role") == "model")
        turn = self.turns[done] if done < len(self.turns) else [Text(EXHAUSTED_TEXT)]
        return _response(turn)


def _response(turn: Turn) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    for block in turn:
        if isinstance(block, Text):
            parts.append({"text": block.text})
        else:
            parts.append({"functionCall": {"name": block.name, "args": block.input}})
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-scripted",
    }


def _handler(server: GeminiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._send(200, b'{"models": []}', "application/json")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?", 1)[0]
            if path.endswith(":countTokens"):
                self._send(200, b'{"totalTokens": 10}', "application/json")
                return
            answer = server.answer(body if isinstance(body, dict) else {})
            if path.endswith(":streamGenerateContent"):
                data = f"data: {json.dumps(answer)}\r\n\r\n".encode()
                self._send(200, data, "text/event-stream")
            else:
                self._send(200, json.dumps(answer).encode(), "application/json")

    return Handler
