"""Host adapters: each host's payload becomes the same typed event; a Reply becomes its protocol."""

from __future__ import annotations

import pytest

from reflection_core import hosts
from reflection_core.hosts.base import UnsupportedEvent
from reflection_core.hosts.events import (
    PromptSubmitted,
    Reply,
    SessionEnded,
    StopRequested,
    SubagentStopped,
    ToolUsed,
)

# Field names as each host documents them (docs/hosts.md says where).
CLAUDE_STOP = {
    "session_id": "s1",
    "transcript_path": "/t/s1.jsonl",
    "cwd": "/repo",
    "permission_mode": "default",
    "hook_event_name": "Stop",
    "stop_hook_active": True,
    "last_assistant_message": "Done.",
}
GEMINI_AFTER_AGENT = {
    "session_id": "g1",
    "transcript_path": "/home/.gemini/tmp/p/chats/session-x.jsonl",
    "cwd": "/repo",
    "hook_event_name": "AfterAgent",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "prompt": "add sub()",
    "prompt_response": "I added sub(). Done.",
    "stop_hook_active": False,
}


def test_claude_and_gemini_stops_become_the_same_event() -> None:
    claude = hosts.get("claude").parse("stop", CLAUDE_STOP)
    gemini = hosts.get("gemini").parse("stop", GEMINI_AFTER_AGENT)
    assert isinstance(claude, StopRequested) and isinstance(gemini, StopRequested)
    assert (claude.session_id, claude.cwd, claude.last_assistant_message) == (
        "s1",
        "/repo",
        "Done.",
    )
    assert claude.stop_hook_active is True
    assert claude.transcript is not None and claude.transcript.format == "claude"
    assert gemini.last_assistant_message == "I added sub(). Done."
    assert gemini.transcript is not None and gemini.transcript.format == "gemini"


def test_claude_background_work_is_carried_on_the_stop() -> None:
    payload = {
        **CLAUDE_STOP,
        "background_tasks": [{"id": "b1", "type": "shell"}, "junk"],
        "session_crons": [{"id": "c1"}],
    }
    event = hosts.get("claude").parse("stop", payload)
    assert isinstance(event, StopRequested)
    assert event.background_tasks == ({"id": "b1", "type": "shell"}, {"id": "c1", "type": "cron"})


def test_subagent_stop_reads_the_agents_own_transcript() -> None:
    payload = {**CLAUDE_STOP, "agent_id": "a7", "agent_transcript_path": "/t/agent-a7.jsonl"}
    event = hosts.get("claude").parse("subagent-stop", payload)
    assert isinstance(event, SubagentStopped)
    assert event.agent_id == "a7"
    assert event.transcript is not None and event.transcript.path == "/t/agent-a7.jsonl"


def test_codex_reads_rollouts_and_takes_its_turn_id() -> None:
    event = hosts.get("codex").parse("stop", {**CLAUDE_STOP, "turn_id": "t9"})
    assert isinstance(event, StopRequested)
    assert event.prompt_id == "t9"
    assert event.transcript is not None and event.transcript.format == "codex"


def test_a_hook_line_without_host_tells_claude_and_codex_files_apart() -> None:
    event = hosts.get(None).parse("stop", CLAUDE_STOP)
    assert event.transcript is not None and event.transcript.format is None


@pytest.mark.parametrize(
    ("host", "payload", "tool", "key"),
    [
        ("claude", {"tool_name": "TodoWrite"}, "TodoWrite", "content"),
        ("gemini", {"tool_name": "write_todos"}, "write_todos", "description"),
    ],
)
def test_todo_tools_become_todo_items(host: str, payload: dict, tool: str, key: str) -> None:
    todos = [{key: "add sub()", "status": "completed"}, {key: "run tests", "status": "pending"}]
    event = hosts.get(host).parse("post-tool-use", {**payload, "tool_input": {"todos": todos}})
    assert isinstance(event, ToolUsed) and event.tool_name == tool
    assert event.todos == (("add sub()", "completed"), ("run tests", "pending"))


def test_other_tools_carry_no_todos() -> None:
    event = hosts.get("gemini").parse(
        "post-tool-use", {"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}
    )
    assert isinstance(event, ToolUsed) and event.todos is None


def test_malformed_fields_become_absent_not_errors() -> None:
    event = hosts.get("gemini").parse(
        "user-prompt-submit", {"prompt": 3, "cwd": ["x"], "session_id": ""}
    )
    assert isinstance(event, PromptSubmitted)
    assert (event.prompt, event.cwd, event.session_id, event.transcript) == (None, None, None, None)


def test_session_end_reason() -> None:
    event = hosts.get("gemini").parse("session-end", {"session_id": "g", "reason": "exit"})
    assert isinstance(event, SessionEnded) and event.reason == "exit"


def test_opencode_hands_the_messages_over_inline() -> None:
    messages = [{"info": {"role": "user"}, "parts": [{"type": "text", "text": "hi"}]}]
    event = hosts.get("opencode").parse(
        "stop", {"session_id": "ses_1", "cwd": "/repo", "messages": messages}
    )
    assert isinstance(event, StopRequested)
    assert event.transcript is not None and event.transcript.records == tuple(messages)
    assert event.transcript.read_session().task_prompt == "hi"


def test_a_host_refuses_events_it_does_not_have() -> None:
    with pytest.raises(UnsupportedEvent):
        hosts.get("opencode").parse("session-start", {})
    with pytest.raises(UnsupportedEvent):
        hosts.get("codex").parse("subagent-stop", {})
    with pytest.raises(hosts.UnknownHost):
        hosts.get("cursor")


BLOCK = Reply(block="run the tests", message="reflection: incomplete")


def test_claude_blocks_with_decision_block() -> None:
    out = hosts.get("claude").render("stop", BLOCK).output
    assert out == {
        "decision": "block",
        "reason": "run the tests",
        "systemMessage": "reflection: incomplete",
    }


def test_gemini_blocks_with_decision_deny() -> None:
    out = hosts.get("gemini").render("stop", BLOCK).output
    assert out is not None and out["decision"] == "deny" and out["reason"] == "run the tests"


@pytest.mark.parametrize(
    ("host", "event", "native"),
    [
        ("claude", "user-prompt-submit", "UserPromptSubmit"),
        ("claude", "post-tool-use", "PostToolUse"),
        ("gemini", "user-prompt-submit", "BeforeAgent"),
        ("gemini", "post-tool-use", "AfterTool"),
    ],
)
def test_context_names_the_hosts_own_event(host: str, event: str, native: str) -> None:
    out = hosts.get(host).render(event, Reply(context="ask about X")).output
    assert out == {
        "hookSpecificOutput": {"hookEventName": native, "additionalContext": "ask about X"}
    }


def test_opencode_answers_its_plugin_in_our_own_terms() -> None:
    out = hosts.get("opencode").render("stop", BLOCK).output
    assert out == {
        "block": "run the tests",
        "message": "reflection: incomplete",
        "level": "warning",
    }


@pytest.mark.parametrize(
    ("reply", "level"),
    [
        (Reply(message="reflection: prompt 4.5/5 · backend"), "info"),
        (Reply(context="ask about X", message="reflection: prompt 1.4/5"), "info"),
        (Reply(message="reflection: the stop check did not run", stderr="did not run"), "warning"),
        (Reply(block="not sent", message="reflection: prompt 1.0/5"), "warning"),
        (Reply(block="run the tests"), None),
    ],
)
def test_opencode_levels_the_users_line(reply: Reply, level: str | None) -> None:
    """The plugin shows `message` as a toast of variant `level`: a warning when the
    reply holds the session or something of ours did not work (it also logs stderr)."""
    out = hosts.get("opencode").render("stop", reply).output or {}
    assert out.get("level") == level


@pytest.mark.parametrize("host", sorted(hosts.HOSTS))
def test_silence_is_no_output(host: str) -> None:
    response = hosts.get(host).render("stop", Reply())
    assert response.output is None and response.exit_code == 0
