"""A scripted stand-in for the Anthropic Messages API, served on 127.0.0.1.

The real Claude Code CLI talks to it through `ANTHROPIC_BASE_URL`. Each test
writes the agent's side of the conversation as a list of turns (text and tool
calls); the server replays them in order and records every request so the test
can assert what the model was told (hook feedback, prompt context).

The turn to answer is picked from the request itself: the number of assistant
messages already in the main conversation. Requests that are not the main agent
loop (title generation, topic checks and other side queries the CLI makes) get
a short text answer and never consume a turn.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SIDE_QUERY_ANSWER = "ok"
COMPACTION_MARKER = "Respond with TEXT ONLY"  # the CLI's summarization request (`/compact`)
COMPACTION_SUMMARY = (
    "<analysis>Scripted summary.</analysis>\n<summary>1. Primary Request and Intent: "
    "the user's task, as scripted.</summary>"
)
EXHAUSTED_TEXT = "The scripted model has no more turns."


@dataclass(frozen=True)
class Text:
    """An assistant text block."""

    text: str


@dataclass(frozen=True)
class ToolUse:
    """An assistant tool call, e.g. ToolUse("Bash", {"command": "python -m pytest -q"})."""

    name: str
    input: dict[str, Any]


Block = Text | ToolUse
Turn = list[Block]


def say(text: str) -> Turn:
    """A turn that only talks (ends the agent's turn: stop_reason end_turn)."""
    return [Text(text)]


def bash(command: str, note: str = "") -> Turn:
    return _with_note(note, ToolUse("Bash", {"command": command, "description": command[:60]}))


def write(path: str, content: str, note: str = "") -> Turn:
    return _with_note(note, ToolUse("Write", {"file_path": path, "content": content}))


def edit(path: str, old: str, new: str, note: str = "") -> Turn:
    return _with_note(
        note, ToolUse("Edit", {"file_path": path, "old_string": old, "new_string": new})
    )


def read(path: str, note: str = "") -> Turn:
    return _with_note(note, ToolUse("Read", {"file_path": path}))


def delegate(prompt: str, description: str = "delegated task") -> Turn:
    """Start a subagent in the foreground; `prompt` should hold a key of the server's
    `subagents` scripts so the subagent's requests are answered from that script."""
    return [
        ToolUse(
            "Agent",
            {
                "description": description,
                "prompt": prompt,
                "subagent_type": "general-purpose",
                "run_in_background": False,
            },
        )
    ]


def _with_note(note: str, call: ToolUse) -> Turn:
    return [Text(note), call] if note else [call]


@dataclass
class RecordedRequest:
    """One HTTP request the CLI made."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    main_loop: bool = False  # an agent-loop request (main agent or subagent), not a side query
    turn: int | None = None
    agent: str | None = None  # the subagent script that answered it; None: the main agent

    def messages(self) -> list[dict[str, Any]]:
        if isinstance(self.body, dict) and isinstance(self.body.get("messages"), list):
            return [m for m in self.body["messages"] if isinstance(m, dict)]
        return []

    def all_texts(self) -> Iterator[str]:
        """Text blocks of every message, any role (prompts, reminders, hook feedback)."""
        for message in self.messages():
            content = message.get("content")
            if isinstance(content, str):
                yield content
            elif isinstance(content, list):
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "text":
                        yield str(block.get("text", ""))

    def tool_result_texts(self) -> Iterator[str]:
        """What each tool call returned to the model, in order."""
        for message in self.messages():
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    yield _flatten(block.get("content"))


def _flatten(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def is_compaction(body: Any) -> bool:
    """`/compact` sends the conversation plus an instruction to summarize it, tools and all."""
    if not isinstance(body, dict) or not body.get("messages"):
        return False
    last = RecordedRequest("POST", "", {}, {"messages": body["messages"][-1:]})
    return any(COMPACTION_MARKER in text for text in last.all_texts())


def is_main_loop(body: Any) -> bool:
    """The agent loop sends the tool set (Claude Code's `Bash`, OpenCode's `bash`); side
    queries (titles, topic checks) send none."""
    if not isinstance(body, dict) or is_compaction(body):
        return False
    tools = body.get("tools")
    if not isinstance(tools, list):
        return False
    names = {t.get("name") for t in tools if isinstance(t, dict)}
    return bool(names & {"Bash", "bash"})


def assistant_turns_so_far(body: dict[str, Any]) -> int:
    return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")


class ScriptedModel:
    """The script plus everything the CLI sent; thread-safe."""

    def __init__(
        self,
        turns: list[Turn],
        subagents: dict[str, list[Turn]] | None = None,
        model: str = "claude-sonnet-4-5",
    ) -> None:
        self.turns = turns
        self.subagents = subagents or {}
        self.model = model
        self.requests: list[RecordedRequest] = []
        self.exhausted = 0  # main-loop requests beyond the end of the script
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def next_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_{next(self._ids):04d}"

    def agent_for(self, body: dict[str, Any]) -> str | None:
        """The subagent script whose key the conversation's first message holds, if any."""
        first = RecordedRequest("POST", "", {}, {"messages": body.get("messages", [])[:1]})
        texts = list(first.all_texts())
        return next((key for key in self.subagents if any(key in t for t in texts)), None)

    def blocks_for(self, body: dict[str, Any], agent: str | None) -> tuple[int | None, Turn]:
        """The turn an agent loop asks for, by how many assistant messages it already holds."""
        script = self.turns if agent is None else self.subagents[agent]
        index = assistant_turns_so_far(body)
        if index < len(script):
            return index, script[index]
        with self._lock:
            self.exhausted += 1
        return None, [Text(EXHAUSTED_TEXT)]


def _message_events(model: ScriptedModel, blocks: Turn, model_name: str) -> Iterator[bytes]:
    """Server-sent events of one assistant message, as the streaming API sends them."""
    message_id = model.next_id("msg")
    usage = {"input_tokens": 10, "output_tokens": 1}
    yield _sse(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model_name,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            },
        },
    )
    for index, block in enumerate(blocks):
        start: dict[str, Any]
        if isinstance(block, Text):
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block.text}
        else:
            start = {
                "type": "tool_use",
                "id": model.next_id("toolu"),
                "name": block.name,
                "input": {},
            }
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block.input)}
        yield _sse(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        yield _sse(
            "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        )
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
    stop_reason = "tool_use" if any(isinstance(b, ToolUse) for b in blocks) else "end_turn"
    yield _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield _sse("message_stop", {"type": "message_stop"})


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _message_json(model: ScriptedModel, blocks: Turn, model_name: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, Text):
            content.append({"type": "text", "text": block.text})
        else:
            content.append(
                {
                    "type": "tool_use",
                    "id": model.next_id("toolu"),
                    "name": block.name,
                    "input": block.input,
                }
            )
    return {
        "id": model.next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": model_name,
        "content": content,
        "stop_reason": "tool_use" if any(isinstance(b, ToolUse) for b in blocks) else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _make_handler(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # requests are recorded, not printed

        def _read_body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw) if raw else None
            except json.JSONDecodeError:
                return raw.decode("utf-8", "replace")

        def _record(self, body: Any) -> RecordedRequest:
            request = RecordedRequest(
                method=self.command,
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
            )
            model.record(request)
            return request

        def _send_json(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._record(None)
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error"}})

        def do_HEAD(self) -> None:
            self._record(None)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            body = self._read_body()
            request = self._record(body)
            path = self.path.split("?", 1)[0]
            if path.endswith("/count_tokens"):
                self._send_json(200, {"input_tokens": 100})
                return
            if not path.endswith("/v1/messages") or not isinstance(body, dict):
                self._send_json(404, {"type": "error", "error": {"type": "not_found_error"}})
                return
            model_name = str(body.get("model") or model.model)
            if is_main_loop(body):
                request.main_loop = True
                request.agent = model.agent_for(body)
                request.turn, blocks = model.blocks_for(body, request.agent)
            elif is_compaction(body):
                blocks = [Text(COMPACTION_SUMMARY)]
            else:
                blocks = [Text(SIDE_QUERY_ANSWER)]
            if body.get("stream"):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in _message_events(model, blocks, model_name):
                    self.wfile.write(chunk)
                self.wfile.flush()
                self.close_connection = True
            else:
                self._send_json(200, _message_json(model, blocks, model_name))

    return Handler


class ModelServer:
    """`with ModelServer(turns) as server:` serves on `server.base_url` until exit."""

    def __init__(self, turns: list[Turn], subagents: dict[str, list[Turn]] | None = None) -> None:
        self.model = ScriptedModel(turns, subagents)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self.model))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        port = self._httpd.server_address[1]
        return f"http://127.0.0.1:{port}"

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
