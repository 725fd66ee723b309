"""The scripted model speaks the Messages API the way the CLI reads it (no CLI needed)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.e2e.model_server import (
    COMPACTION_SUMMARY,
    EXHAUSTED_TEXT,
    SIDE_QUERY_ANSWER,
    ModelServer,
    bash,
    say,
)

TOOLS = [{"name": "Bash", "input_schema": {"type": "object"}}]


def post(server: ModelServer, path: str, body: dict[str, Any]) -> tuple[int, str]:
    request = urllib.request.Request(
        server.base_url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def sse_events(text: str) -> list[dict[str, Any]]:
    return [
        json.loads(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: ")
    ]


def conversation(assistant_turns: int, last_user: str = "go") -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "task"}]
    for _ in range(assistant_turns):
        messages += [{"role": "assistant", "content": "x"}, {"role": "user", "content": "y"}]
    messages[-1] = {"role": "user", "content": last_user}
    return messages


def test_the_turn_is_picked_by_assistant_messages_and_streams_tool_input() -> None:
    with ModelServer([say("first"), bash("python -m pytest -q")]) as server:
        body = {"stream": True, "tools": TOOLS, "messages": conversation(1)}
        status, text = post(server, "/v1/messages?beta=true", body)
    assert status == 200
    events = sse_events(text)
    assert events[0]["type"] == "message_start"
    assert events[-1]["type"] == "message_stop"
    start = next(e for e in events if e["type"] == "content_block_start")
    assert start["content_block"]["name"] == "Bash"
    delta = next(e for e in events if e["type"] == "content_block_delta")["delta"]
    assert json.loads(delta["partial_json"])["command"] == "python -m pytest -q"
    stop = next(e for e in events if e["type"] == "message_delta")
    assert stop["delta"]["stop_reason"] == "tool_use"
    assert server.model.requests[0].main_loop and server.model.requests[0].turn == 1


def test_side_queries_and_compaction_do_not_consume_turns() -> None:
    with ModelServer([say("only turn")]) as server:
        _, side = post(server, "/v1/messages", {"messages": conversation(0)})
        compact = {
            "tools": TOOLS,
            "messages": conversation(0, "CRITICAL: Respond with TEXT ONLY. Summarize."),
        }
        _, summary = post(server, "/v1/messages", compact)
        _, main = post(server, "/v1/messages", {"tools": TOOLS, "messages": conversation(0)})
    assert json.loads(side)["content"][0]["text"] == SIDE_QUERY_ANSWER
    assert json.loads(summary)["content"][0]["text"] == COMPACTION_SUMMARY
    answer = json.loads(main)
    assert answer["content"][0]["text"] == "only turn"
    assert answer["stop_reason"] == "end_turn"
    assert [r.main_loop for r in server.model.requests] == [False, False, True]


def test_running_past_the_script_is_counted_not_hung() -> None:
    with ModelServer([say("one")]) as server:
        _, text = post(server, "/v1/messages", {"tools": TOOLS, "messages": conversation(3)})
    assert json.loads(text)["content"][0]["text"] == EXHAUSTED_TEXT
    assert server.model.exhausted == 1


@pytest.mark.parametrize(
    ("path", "status"), [("/v1/messages/count_tokens", 200), ("/v1/unknown", 404)]
)
def test_other_paths_are_answered_and_recorded(path: str, status: int) -> None:
    with ModelServer([]) as server:
        got, _ = post(server, path, {"messages": []})
    assert got == status
    assert server.model.requests[0].path == path


def test_texts_and_tool_results_are_read_from_every_role() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "prompt"}]},
        {"role": "system", "content": "Stop hook blocking error from command: x"},
        {
            "role": "user",
            "content": [{"type": "tool_result", "content": [{"type": "text", "text": "out"}]}],
        },
    ]
    with ModelServer([say("ok")]) as server:
        post(server, "/v1/messages", {"tools": TOOLS, "messages": messages})
    request = server.model.requests[0]
    assert list(request.all_texts()) == ["prompt", "Stop hook blocking error from command: x"]
    assert list(request.tool_result_texts()) == ["out"]
