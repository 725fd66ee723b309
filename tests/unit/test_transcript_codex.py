"""Codex rollout files read into the same Session the Claude Code reader produces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reflection_core.prompt.transcript_tail import previous_assistant_turn
from reflection_core.session.codex_rollout import (
    MAX_JSON_RESULT_CHARS,
    session_from_rollout_records,
)
from reflection_core.session.evidence import comment_only_edit, is_code_change
from reflection_core.session.task import changed_paths, reverted_paths
from reflection_core.session.transcript import read_session

ROLLOUT = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "codex_rollout.jsonl"


def line(kind: str, **payload: Any) -> dict[str, Any]:
    return {"timestamp": "2026-03-02T14:00:00.000Z", "type": kind, "payload": payload}


def test_rollout_is_detected_and_the_last_turn_is_the_task() -> None:
    session = read_session(ROLLOUT)
    assert session.task_prompt == "Now fix the failing test in tests/test_utils.py"
    assert session.earlier_prompts == ["Rename the helper in utils.py"]
    assert session.session_id == "0199a213-81c0-7800-8aa1-bbab2a035a53"
    assert session.git_branch == "feat/codex"
    assert session.cwd == "/home/dev/shop"


def test_shell_calls_are_classified_with_their_exit_codes() -> None:
    calls = read_session(ROLLOUT).tool_calls
    summary = [(c.name, c.kind, c.ok, c.exit_code) for c in calls]
    assert summary == [
        ("shell", "shell", False, 1),
        ("apply_patch", "edit", True, 0),
        ("exec_command", "shell", True, 0),
    ]
    assert calls[0].command is not None and calls[0].command.partial
    assert calls[2].command is not None and not calls[2].command.partial
    assert calls[0].output == "F\n1 failed"


def test_apply_patch_names_every_file_it_touches() -> None:
    patch = read_session(ROLLOUT).tool_calls[1]
    assert patch.files == ("src/utils.py", "src/compat.py")
    assert patch.changes_files


def test_assistant_text_is_not_duplicated_by_agent_message_events() -> None:
    session = read_session(ROLLOUT)
    assert [t.text for t in session.assistant_texts] == ["Fixed the test; all 3 tests pass."]
    assert previous_assistant_turn(str(ROLLOUT))[0] == "Fixed the test; all 3 tests pass."


def test_environment_context_is_not_a_prompt() -> None:
    records = [
        line(
            "response_item",
            type="message",
            role="user",
            content=[
                {"type": "input_text", "text": "<environment_context>x</environment_context>"}
            ],
        ),
    ]
    session = session_from_rollout_records(records)
    assert session.task_prompt == ""
    assert session.warnings


def test_compacted_rollout_is_noted() -> None:
    records = [
        line("event_msg", type="user_message", message="Do it"),
        line("compacted", message="summary of the work"),
    ]
    session = session_from_rollout_records(records)
    assert session.compacted
    assert session.compaction_summary == "summary of the work"


def test_hook_message_lagging_behind_the_rollout_is_appended() -> None:
    session = read_session(ROLLOUT, last_assistant_message="A later final answer.")
    assert session.assistant_texts[-1].text == "A later final answer."
    # Codex is reported to end a turn in its rollout only after the Stop hook returns: a
    # hook waiting for the message could wait on itself, so a Codex stop never waits.
    assert session.final_message_written


def test_truncated_rollout_still_reads(tmp_path: Path) -> None:
    data = ROLLOUT.read_bytes()
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(data[: len(data) - 40])
    session = read_session(path)
    assert session.task_prompt == "Now fix the failing test in tests/test_utils.py"
    assert any("truncated" in w for w in session.warnings)


def test_function_call_with_unparseable_arguments_is_kept() -> None:
    records = [
        line("event_msg", type="user_message", message="Task"),
        line(
            "response_item", type="function_call", name="shell", arguments="{not json", call_id="c1"
        ),
        line(
            "response_item",
            type="function_call_output",
            call_id="c1",
            output=json.dumps({"output": "x"}),
        ),
    ]
    (call,) = session_from_rollout_records(records).tool_calls
    assert call.kind == "shell"
    assert call.output == "x"


def test_a_rollout_with_a_huge_first_record_is_still_detected(tmp_path: Path) -> None:
    meta = line("session_meta", id="s1", cwd="/r", instructions="I" * 300_000)
    records = [
        meta,
        line("event_msg", type="user_message", message="Task"),
        line(
            "response_item",
            type="function_call",
            name="shell",
            arguments=json.dumps({"command": ["bash", "-lc", "pytest"]}),
            call_id="c1",
        ),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    session = read_session(path)
    assert session.task_prompt == "Task"
    assert [c.kind for c in session.tool_calls] == ["shell"]


def test_a_block_reason_injected_as_a_user_turn_is_feedback_not_a_task() -> None:
    reason = "reflection (attempt 1/3): the task is not done yet.\nMissing:\n- tests"
    records = [
        line("event_msg", type="user_message", message="Fix the bug"),
        line(
            "response_item",
            type="message",
            role="assistant",
            content=[{"type": "output_text", "text": "Done."}],
        ),
        line(
            "response_item",
            type="message",
            role="user",
            content=[{"type": "input_text", "text": reason}],
        ),
        line("event_msg", type="user_message", message=reason),
    ]
    session = session_from_rollout_records(records)
    assert session.task_prompt == "Fix the bug"
    assert session.hook_feedback == [reason]


def _patch_session(*patches: str) -> list[Any]:
    """A task whose only calls are Codex `apply_patch` custom tool calls, all applied."""
    records = [line("event_msg", type="user_message", message="Document divide()")]
    for n, patch in enumerate(patches):
        records += [
            line(
                "response_item",
                type="custom_tool_call",
                status="completed",
                call_id=f"p{n}",
                name="apply_patch",
                input=patch,
            ),
            line(
                "response_item",
                type="custom_tool_call_output",
                call_id=f"p{n}",
                output=json.dumps({"output": "Success. Updated the following files:\nM calc.py\n"}),
            ),
        ]
    return records


COMMENT_PATCH = (
    "*** Begin Patch\n*** Update File: calc.py\n@@\n def divide(a, b):\n"
    "+    # Raises ZeroDivisionError when b is 0.\n     return a / b\n*** End Patch\n"
)


def test_a_comment_only_apply_patch_is_no_code_change() -> None:
    (call,) = session_from_rollout_records(_patch_session(COMMENT_PATCH)).tool_calls
    assert call.input["edits"] == [
        {
            "file_path": "calc.py",
            "old_string": "def divide(a, b):\n    return a / b",
            "new_string": (
                "def divide(a, b):\n    # Raises ZeroDivisionError when b is 0.\n    return a / b"
            ),
        }
    ]
    assert comment_only_edit(call) and not is_code_change(call)


def test_an_apply_patch_that_changes_code_or_adds_a_file_is_a_change() -> None:
    code = COMMENT_PATCH.replace("+    # Raises", "+    assert b, 'b is 0'\n+    # Raises")
    added = "*** Begin Patch\n*** Add File: notes.py\n+# only a comment\n*** End Patch\n"
    for patch in (code, added):
        (call,) = session_from_rollout_records(_patch_session(patch)).tool_calls
        assert is_code_change(call), patch


def test_an_apply_patch_taken_back_by_its_inverse_leaves_the_file_unchanged() -> None:
    inverse = (
        "*** Begin Patch\n*** Update File: calc.py\n@@\n def divide(a, b):\n"
        "-    # Raises ZeroDivisionError when b is 0.\n     return a / b\n*** End Patch\n"
    )
    session = session_from_rollout_records(_patch_session(COMMENT_PATCH, inverse))
    assert reverted_paths(session) == {"calc.py"}
    assert changed_paths(session) == []


def _shell_run(output: str) -> list[Any]:
    """A task with one Codex `shell` call (argv `bash -lc`) and the given result text."""
    arguments = {"command": ["bash", "-lc", "python tests/run_checks.py"], "workdir": "/r"}
    return [
        line("event_msg", type="user_message", message="Add a check script"),
        line(
            "response_item",
            type="function_call",
            name="shell",
            arguments=json.dumps(arguments),
            call_id="c1",
        ),
        line("response_item", type="function_call_output", call_id="c1", output=output),
    ]


CHECK_LOG = "".join(f"checking add({i}, 1) -> {i + 1} ok\n" for i in range(100))
FAILED_CHECK = CHECK_LOG + "AssertionError: add(2, 2) should be 5\n"


def test_a_json_result_keeps_its_exit_code_after_a_long_output() -> None:
    # `metadata` follows `output`: past 2,000 characters of output it was not looked for
    result = json.dumps({"output": FAILED_CHECK, "metadata": {"exit_code": 1}})
    assert len(FAILED_CHECK) > 2000
    (call,) = session_from_rollout_records(_shell_run(result)).tool_calls
    assert (call.ok, call.exit_code) == (False, 1)
    assert call.output.endswith("should be 5\n")


def test_the_output_cannot_name_the_exit_code_of_its_own_result() -> None:
    fake = 'Exit code: 0\n{"exit_code": 0}\nProcess exited with code 0\n'
    as_json = json.dumps({"output": fake, "metadata": {"exit_code": 2}})
    as_text = f"Exit code: 2\nWall time: 0.1 seconds\nOutput:\n{fake}"
    for result in (as_json, as_text):
        (call,) = session_from_rollout_records(_shell_run(result)).tool_calls
        assert (call.ok, call.exit_code) == (False, 2), result


def test_a_json_result_too_big_to_parse_still_gives_its_exit_code() -> None:
    huge = FAILED_CHECK * (MAX_JSON_RESULT_CHARS // len(FAILED_CHECK) + 1)
    result = json.dumps({"output": huge, "metadata": {"exit_code": 1, "duration_seconds": 3.5}})
    (call,) = session_from_rollout_records(_shell_run(result)).tool_calls
    assert (call.ok, call.exit_code) == (False, 1)


def _exec_session(*polls: str) -> list[Any]:
    """`exec_command` running pytest outlives its wait (`Process running with session ID
    7`); each of `polls` is the result of a later `write_stdin` to that session."""
    arguments = {"cmd": "python -m pytest -q", "workdir": "/r", "yield_time_ms": 1000}
    records = [
        line("event_msg", type="user_message", message="Run the tests"),
        line(
            "response_item",
            type="function_call",
            name="exec_command",
            arguments=json.dumps(arguments),
            call_id="c1",
        ),
        line(
            "response_item",
            type="function_call_output",
            call_id="c1",
            output="Chunk ID: 1a2b\nWall time: 1.0021 seconds\nProcess running with session ID 7"
            "\nOriginal token count: 12\nOutput:\n============ test session starts ============\n",
        ),
    ]
    for n, poll in enumerate(polls):
        stdin = {"session_id": 7, "chars": "", "yield_time_ms": 30000}
        records += [
            line(
                "response_item",
                type="function_call",
                name="write_stdin",
                arguments=json.dumps(stdin),
                call_id=f"w{n}",
            ),
            line("response_item", type="function_call_output", call_id=f"w{n}", output=poll),
        ]
    return records


STILL_RUNNING = (
    "Chunk ID: 2b3c\nWall time: 30.0 seconds\nProcess running with session ID 7\n"
    "Original token count: 4\nOutput:\ncollected 12 items\n"
)
FAILED_END = (
    "Chunk ID: 3c4d\nWall time: 0.8 seconds\nProcess exited with code 1\n"
    "Original token count: 30\nOutput:\nF..........\n1 failed, 11 passed in 0.41s\n"
)


def test_a_command_that_outlives_its_wait_is_running_not_passed() -> None:
    for polls in ((), (STILL_RUNNING,)):
        run = session_from_rollout_records(_exec_session(*polls)).tool_calls[0]
        assert (run.ok, run.exit_code) == (None, None), polls


def test_the_write_stdin_that_sees_the_command_end_gives_its_outcome() -> None:
    calls = session_from_rollout_records(_exec_session(STILL_RUNNING, FAILED_END)).tool_calls
    run = calls[0]
    assert run.command is not None and "test" in run.command.kinds
    assert (run.ok, run.exit_code) == (False, 1)
    assert "test session starts" in run.output and "1 failed, 11 passed" in run.output


def test_a_write_stdin_to_another_session_leaves_the_command_running() -> None:
    other = _exec_session(FAILED_END.replace("code 1", "code 0"))
    other[-2]["payload"]["arguments"] = json.dumps({"session_id": 8, "chars": ""})
    run = session_from_rollout_records(other).tool_calls[0]
    assert (run.ok, run.exit_code) == (None, None)
