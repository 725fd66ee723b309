"""Gemini CLI chat recordings read into the normalized session (shapes as 0.61.0 writes them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reflection_core.session.gemini_chat import fold_records, session_from_chat_records
from reflection_core.session.transcript import read_session

META = {"sessionId": "g1", "projectHash": "h", "startTime": "t", "kind": "main"}
CONTEXT = {"id": "c", "type": "user", "content": [{"text": "<session_context>\nThis is..."}]}


def _user(mid: str, *texts: str) -> dict[str, Any]:
    return {"id": mid, "timestamp": "t", "type": "user", "content": [{"text": t} for t in texts]}


def _gemini(mid: str, text: str, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {"id": mid, "timestamp": "t", "type": "gemini", "content": text}
    if calls is not None:
        record["toolCalls"] = calls
    return record


def _shell(cid: str, command: str, output: str, status: str = "success") -> dict[str, Any]:
    response = {
        "functionResponse": {"id": cid, "name": "run_shell_command", "response": {"output": output}}
    }
    return {
        "id": cid,
        "name": "run_shell_command",
        "args": {"command": command},
        "result": [response],
        "status": status,
        "timestamp": "t",
    }


def test_the_task_starts_at_the_last_prompt_and_hook_context_is_not_part_of_it() -> None:
    records = [
        META,
        {"$set": {"messages": [CONTEXT]}},
        _user("u1", "first task"),
        _gemini("m1", "ok"),
        _user("u2", "add sub() to calc.py", "<hook_context>[reflection] prompt 4/5</hook_context>"),
        _gemini("m2", "Writing."),
    ]
    session = session_from_chat_records(records)
    assert session.session_id == "g1"
    assert session.task_prompt == "add sub() to calc.py"
    assert session.earlier_prompts == ["first task"]
    assert [t.text for t in session.assistant_texts] == ["Writing."]


def test_a_message_written_again_replaces_the_earlier_line() -> None:
    write = {
        "id": "w",
        "name": "write_file",
        "args": {"file_path": "/r/calc.py", "content": "x"},
        "status": "success",
        "result": [],
    }
    records = [
        _user("u", "task"),
        _gemini("m", "Writing."),
        _gemini("m", "Writing.", [write]),
    ]
    session = session_from_chat_records(records)
    assert len(session.tool_calls) == 1
    call = session.tool_calls[0]
    assert (call.kind, call.files, call.ok) == ("write", ("/r/calc.py",), True)


def test_a_rewind_drops_the_message_and_what_followed() -> None:
    records = [
        _user("u1", "keep"),
        _gemini("m1", "a"),
        _user("u2", "dropped"),
        _gemini("m2", "b"),
        {"$rewindTo": "u2"},
    ]
    assert [m["id"] for m in fold_records(records)] == ["u1", "m1"]
    assert session_from_chat_records(records).task_prompt == "keep"


def test_shell_exit_codes_decide_the_outcome() -> None:
    records = [
        _user("u", "task"),
        _gemini(
            "m",
            "",
            [
                _shell("a", "python -m pytest -q", "Output: 1 failed\nExit Code: 1"),
                _shell("b", "python -m pytest -q", "Output: 1 passed"),
            ],
        ),
    ]
    failed, passed = session_from_chat_records(records).tool_calls
    assert (failed.ok, failed.exit_code) == (False, 1)
    assert (passed.ok, passed.exit_code) == (True, 0)
    assert passed.command is not None and "test" in passed.command.kinds


def test_our_feedback_sent_as_a_prompt_is_feedback_not_a_new_task() -> None:
    feedback = "reflection (attempt 1/3): the task is not done yet.\nMissing: tests"
    records = [
        _user("u", "add sub()"),
        _gemini("m", "Done."),
        _user("f", feedback),
        _gemini("m2", "Running them."),
    ]
    session = session_from_chat_records(records)
    assert session.task_prompt == "add sub()"
    assert session.hook_feedback == [feedback]


def test_the_hooks_whole_turn_text_does_not_duplicate_the_last_message() -> None:
    records = [_user("u", "task"), _gemini("m1", "Writing."), _gemini("m2", "Done.")]
    session = session_from_chat_records(records, last_assistant_message="Writing.\nDone.")
    assert session.last_assistant_message == "Done."
    assert len(session.assistant_texts) == 2


def test_the_file_reader_takes_the_gemini_format(tmp_path: Path) -> None:
    path = tmp_path / "session-x.jsonl"
    lines = [META, _user("u", "explain calc.py"), _gemini("m", "It adds.")]
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n{broken", encoding="utf-8")
    session = read_session(path, transcript_format="gemini")
    assert session.task_prompt == "explain calc.py"
    assert session.last_assistant_message == "It adds."
