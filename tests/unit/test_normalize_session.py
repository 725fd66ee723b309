"""Records -> normalized session: what starts a task, how tool results become evidence."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reflection_core.session.model import AssistantText, ToolCall
from reflection_core.session.normalize import (
    cap_output,
    holds_message,
    prompt_text,
    record_role,
    session_from_records,
)


def user(content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": content}, **extra}


def blocks(message_id: str, *content: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "assistant",
        "message": {"id": message_id, "role": "assistant", "content": list(content)},
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(tool_id: str, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def result(tool_id: str, content: Any, is_error: bool = False, extra: Any = None) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    if is_error:
        block["is_error"] = True
    record = user([block])
    if extra is not None:
        record["toolUseResult"] = extra
    return record


NOT_PROMPTS = [
    "[Request interrupted by user]",
    "[Request interrupted by user for tool use]",
    "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>",
    "<local-command-stdout>Compacted</local-command-stdout>",
    "<system-reminder>Remember the todo list.</system-reminder>",
    "Stop hook blocking error from command: reflection hook stop: run the tests",
    "SubagentStop hook feedback:\nkeep going",
    "<bash-input>ls</bash-input>",
]


@pytest.mark.parametrize("content", NOT_PROMPTS)
def test_plumbing_user_records_do_not_start_a_task(content: str) -> None:
    records = [user("The real task"), blocks("m1", text("working")), user(content)]
    assert session_from_records(records).task_prompt == "The real task"


def test_meta_and_compact_summary_records_are_not_prompts() -> None:
    assert record_role(user("expanded command text", isMeta=True)) == "meta"
    assert record_role(user("summary", isCompactSummary=True)) == "compact_summary"
    assert record_role(user("hi", isSidechain=True)) == "sidechain"
    assert record_role({"type": "summary", "summary": "x"}) == "other"
    assert record_role("not a dict") == "other"


def test_custom_slash_commands_are_tasks_with_their_arguments() -> None:
    content = (
        "<command-message>review-pr is running…</command-message>\n"
        "<command-name>/review-pr</command-name>\n<command-args>123</command-args>"
    )
    assert prompt_text(user(content)) == "/review-pr 123"


def test_a_reminder_before_the_prompt_is_stripped() -> None:
    record = user("<system-reminder>context</system-reminder>\nAdd logging to the worker")
    assert prompt_text(record) == "Add logging to the worker"


def test_an_image_only_prompt_is_a_prompt() -> None:
    record = user([{"type": "image", "source": {"type": "base64", "data": "AAAA"}}])
    assert prompt_text(record) == "[image]"


def test_duplicate_lines_of_one_message_are_counted_once() -> None:
    call = tool_use("t1", "Bash", command="pytest")
    records = [
        user("Task"),
        blocks("m1", text("Running tests.")),
        blocks("m1", text("Running tests.")),
        blocks("m1", call),
        blocks("m1", call),
        result("t1", "1 passed"),
    ]
    session = session_from_records(records)
    assert len(session.tool_calls) == 1
    assert [t.text for t in session.assistant_texts] == ["Running tests."]


def test_texts_of_different_messages_stay_separate() -> None:
    records = [user("Task"), blocks("m1", text("one")), blocks("m2", text("two"))]
    assert [t.text for t in session_from_records(records).assistant_texts] == ["one", "two"]


def test_exit_code_comes_from_the_result_text() -> None:
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Bash", command="make test")),
        result("t1", "Exit code 2\nmake: *** [test] Error 2", is_error=True),
    ]
    (call,) = session_from_records(records).tool_calls
    assert (call.ok, call.exit_code) == (False, 2)


def test_an_error_without_exit_code_is_a_failure_with_unknown_code() -> None:
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Edit", file_path="a.py", old_string="x", new_string="y")),
        result("t1", "String to replace not found in file.", is_error=True),
    ]
    (call,) = session_from_records(records).tool_calls
    assert (call.ok, call.exit_code) == (False, None)


def test_an_interrupted_command_is_not_a_success() -> None:
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Bash", command="pytest")),
        result("t1", "partial output", extra={"stdout": "", "interrupted": True}),
    ]
    (call,) = session_from_records(records).tool_calls
    assert call.ok is False


def test_a_call_without_result_is_unknown() -> None:
    records = [user("Task"), blocks("m1", tool_use("t1", "Bash", command="pytest"))]
    (call,) = session_from_records(records).tool_calls
    assert call.ok is None


def test_result_content_as_a_list_of_blocks_is_read() -> None:
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Read", file_path="/r/a.py")),
        result("t1", [text("line one"), {"type": "image"}, text("line two")]),
    ]
    (call,) = session_from_records(records).tool_calls
    assert call.output == "line one\nline two"
    assert (call.kind, call.files) == ("read", ("/r/a.py",))


TOOL_KINDS = [
    ("Edit", {"file_path": "a.py"}, "edit", ("a.py",)),
    ("MultiEdit", {"file_path": "a.py", "edits": []}, "edit", ("a.py",)),
    ("NotebookEdit", {"notebook_path": "n.ipynb"}, "edit", ("n.ipynb",)),
    ("Write", {"file_path": "b.py"}, "write", ("b.py",)),
    ("Read", {"file_path": "c.py"}, "read", ("c.py",)),
    ("Grep", {"pattern": "x", "path": "src"}, "search", ("src",)),
    ("Glob", {"pattern": "**/*.py"}, "search", ()),
    ("WebSearch", {"query": "x"}, "search", ()),
    ("TodoWrite", {"todos": []}, "todo", ()),
    ("Task", {"prompt": "x"}, "agent", ()),
    ("Agent", {"prompt": "x"}, "agent", ()),
    ("WebFetch", {"url": "http://127.0.0.1/"}, "web", ()),
    ("Skill", {"skill": "x"}, "other", ()),
    ("Bash", {"command": "sed -i s/a/b/ a.py"}, "shell", ("a.py",)),
    ("Bash", {"command": "grep -rn x src"}, "search", ()),
    ("Bash", {"command": "cat a.py"}, "read", ()),
    # Claude Code's PowerShell tool (Windows) is a shell like Bash.
    ("PowerShell", {"command": "Set-Content -Path a.ps1 -Value x"}, "shell", ()),
    ("PowerShell", {"command": "Get-ChildItem src"}, "shell", ()),
]


@pytest.mark.parametrize(("name", "tool_input", "kind", "files"), TOOL_KINDS)
def test_tool_kind_and_files_per_host_tool(
    name: str, tool_input: dict[str, Any], kind: str, files: tuple[str, ...]
) -> None:
    records = [user("Task"), blocks("m1", tool_use("t1", name, **tool_input))]
    (call,) = session_from_records(records).tool_calls
    assert (call.kind, call.files) == (kind, files)


def test_modifying_shell_commands_count_as_changes() -> None:
    records = [user("Task"), blocks("m1", tool_use("t1", "Bash", command="echo x > a.py"))]
    (call,) = session_from_records(records).tool_calls
    assert call.changes_files


def test_a_powershell_tool_call_is_a_classified_command() -> None:
    command = "Get-Content .\\build.ps1 -Raw | Invoke-Expression"
    records = [user("Task"), blocks("m1", tool_use("t1", "PowerShell", command=command))]
    (call,) = session_from_records(records).tool_calls
    assert call.command is not None and "run" in call.command.kinds


def test_background_call_completes_from_a_notification_by_tool_use_id() -> None:
    notification = (
        "<task-notification>\n<tool-use-id>t1</tool-use-id>\n<status>completed</status>\n"
        '<summary>Background command "tests" completed (exit code 0)</summary>\n'
        "</task-notification>"
    )
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Bash", command="pytest", run_in_background=True)),
        result("t1", "Command running in background with ID: abc123"),
        user(notification),
    ]
    session = session_from_records(records)
    (call,) = session.tool_calls
    assert (call.background, call.ok, call.exit_code) == (True, True, 0)
    assert session.task_prompt == "Task"


def test_spill_resolver_gets_the_saved_path_and_tool_id() -> None:
    seen: list[tuple[str, str]] = []

    def resolve(path: str, tool_id: str) -> str | None:
        seen.append((path, tool_id))
        return "Exit code 1\nfull output"

    spilled = (
        "<persisted-output>\nOutput too large (40KB). Full output saved to: "
        "/h/.claude/projects/p/s/tool-results/t1.txt\n\nPreview (first 2KB):\nab\n"
        "</persisted-output>"
    )
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Bash", command="pytest")),
        result("t1", spilled),
    ]
    (call,) = session_from_records(records, resolve_spill=resolve).tool_calls
    assert seen == [("/h/.claude/projects/p/s/tool-results/t1.txt", "t1")]
    assert (call.output, call.exit_code, call.ok) == ("Exit code 1\nfull output", 1, False)


def test_no_prompt_at_all_takes_everything_as_the_task_with_a_warning() -> None:
    session = session_from_records([blocks("m1", text("hello"))])
    assert session.task_prompt == ""
    assert [t.text for t in session.assistant_texts] == ["hello"]
    assert session.warnings


def test_earlier_prompts_keep_the_most_recent_three() -> None:
    records = [user(f"prompt {i}") for i in range(6)]
    session = session_from_records(records)
    assert session.task_prompt == "prompt 5"
    assert session.earlier_prompts == ["prompt 2", "prompt 3", "prompt 4"]


def test_compaction_during_the_task_is_noted() -> None:
    records = [
        user("Task"),
        {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"},
        user("Summary of the earlier work", isCompactSummary=True),
        blocks("m1", text("continuing")),
    ]
    session = session_from_records(records)
    assert session.compacted
    assert session.compaction_summary == "Summary of the earlier work"
    assert session.task_prompt == "Task"


def test_hook_message_is_appended_when_the_file_lags() -> None:
    session = session_from_records(
        [user("Task"), blocks("m1", text("older"))], last_assistant_message="newest"
    )
    assert isinstance(session.events[-1], AssistantText)
    assert [t.text for t in session.assistant_texts] == ["older", "newest"]
    assert session.last_assistant_message == "newest"
    assert not session.final_message_written


def test_a_file_that_holds_the_hook_message_has_caught_up() -> None:
    session = session_from_records(
        [user("Task"), blocks("m1", text("Done.\n\nAll 3 tests pass."))],
        last_assistant_message="Done.\nAll 3 tests pass.",
    )
    assert session.final_message_written


# (the file's last text, the message the host handed the hook, written?)
MESSAGE_IN_FILE = [
    ("Fixed it; 3 passed.", "Fixed it; 3 passed.", True),
    ("Fixed it;\n\n3 passed.", "Fixed it; 3 passed.", True),  # whitespace does not count
    ("3 passed.", "Fixed it.\n\n3 passed.", True),  # the message's last text block
    ("I will run the tests now.", "Fixed it; 3 passed.", False),  # an older text
    ("", "Fixed it; 3 passed.", False),  # no text written yet
]


@pytest.mark.parametrize(("in_file", "from_hook", "written"), MESSAGE_IN_FILE)
def test_holds_message_tells_a_file_that_caught_up_from_one_that_lags(
    in_file: str, from_hook: str, written: bool
) -> None:
    assert holds_message(in_file, from_hook) is written


def test_event_indexes_follow_event_order() -> None:
    records = [
        user("Task"),
        blocks("m1", text("a"), tool_use("t1", "Read", file_path="x")),
        blocks("m2", text("b")),
    ]
    events = session_from_records(records).events
    assert [e.index for e in events] == [0, 1, 2]
    assert isinstance(events[1], ToolCall)


def test_cap_output_keeps_head_and_tail() -> None:
    capped = cap_output("H" * 10 + "M" * 100 + "T" * 10, head=10, tail=10)
    assert capped.startswith("H" * 10) and capped.endswith("T" * 10)
    assert "100 characters omitted" in capped
    assert cap_output("short", head=10, tail=10) == "short"


def test_a_command_the_host_says_modified_files_counts_as_a_change() -> None:
    hint = (
        "[This command modified 2 files you've previously read: src/a.py, src/b.py."
        " Call Read before editing.]"
    )
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Bash", command="python scripts/fix_imports.py")),
        result("t1", f"done\n{hint}", extra={"stdout": "done", "staleReadFileStateHint": hint}),
    ]
    (call,) = session_from_records(records).tool_calls
    assert call.changes_files
    assert call.command is not None and call.command.modified_files == ("src/a.py", "src/b.py")
    assert call.files == ("src/a.py", "src/b.py")


def test_an_edit_keeps_the_whole_lines_the_host_recorded_it_changed() -> None:
    patch = [
        {
            "lines": [
                " fn main() {}",
                " ",
                "-/// Values seperated by commas.",
                "+/// Values separated by commas.",
            ]
        },
        {"lines": ["-x", "\\ No newline at end of file", "+y"]},
    ]
    records = [
        user("Fix the typo"),
        blocks(
            "m1",
            tool_use(
                "t1",
                "Edit",
                file_path="/r/src/lib.rs",
                old_string="seperated",
                new_string="separated",
            ),
        ),
        result("t1", "The file /r/src/lib.rs has been updated.", extra={"structuredPatch": patch}),
    ]
    (call,) = session_from_records(records).tool_calls
    assert call.hunks == (
        (
            "fn main() {}\n\n/// Values seperated by commas.",
            "fn main() {}\n\n/// Values separated by commas.",
        ),
        ("x", "y"),
    )


def test_an_edit_with_no_recorded_patch_has_no_hunks() -> None:
    records = [
        user("Fix the typo"),
        blocks("m1", tool_use("t1", "Edit", file_path="/r/a.py", old_string="a", new_string="b")),
        result("t1", "updated", extra={"structuredPatch": "not a list"}),
    ]
    (call,) = session_from_records(records).tool_calls
    assert call.hunks == ()


def test_the_modified_hint_in_the_result_text_alone_is_enough() -> None:
    hint = (
        "[This command modified 7 files you've previously read: a.py, b.py and 5 more."
        " Call Read before editing.]"
    )
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Bash", command="cat a.py")),
        result("t1", f"x\n{hint}"),
    ]
    (call,) = session_from_records(records).tool_calls
    assert (call.kind, call.files) == ("shell", ("a.py", "b.py"))


def test_implicit_push_gets_the_branch_the_host_reports() -> None:
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Bash", command="git push")),
        result("t1", "ok", extra={"stdout": "", "gitOperation": {"push": {"branch": "feat/x"}}}),
    ]
    (call,) = session_from_records(records).tool_calls
    assert call.command is not None
    assert (call.command.push_refs, call.command.push_implicit) == (("feat/x",), False)


def test_a_timed_out_command_failed() -> None:
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Bash", command="pytest")),
        result("t1", "...", extra={"stdout": "...", "timedOutAfterMs": 120000}),
    ]
    (call,) = session_from_records(records).tool_calls
    assert call.ok is False


def test_a_benign_nonzero_exit_is_ok_with_unknown_code() -> None:
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Bash", command="grep -r nothing src")),
        result("t1", "", extra={"stdout": "", "returnCodeInterpretation": "No matches found"}),
    ]
    (call,) = session_from_records(records).tool_calls
    assert (call.ok, call.exit_code) == (True, None)


def test_a_rejected_tool_use_failed() -> None:
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Bash", command="rm -rf /")),
        result(
            "t1",
            "The user doesn't want to proceed with this tool use.",
            is_error=True,
            extra="User rejected tool use",
        ),
    ]
    (call,) = session_from_records(records).tool_calls
    assert call.ok is False


def test_persisted_output_path_field_is_preferred_for_spills() -> None:
    seen: list[str] = []

    def resolve(path: str, tool_id: str) -> str | None:
        seen.append(path)
        return "full"

    spilled = (
        "<persisted-output>\nOutput too large (40KB). Full output saved to: /a/t1.txt\n"
        "</persisted-output>"
    )
    records = [
        user("Task"),
        blocks("m1", tool_use("t1", "Bash", command="pytest")),
        result(
            "t1", spilled, extra={"stdout": "", "persistedOutputPath": "/b/tool-results/t1.txt"}
        ),
    ]
    (call,) = session_from_records(records, resolve_spill=resolve).tool_calls
    assert seen == ["/b/tool-results/t1.txt"]
    assert call.output == "full"


def test_meta_marked_stop_hook_feedback_is_collected() -> None:
    feedback = "Stop hook feedback:\nreflection (attempt 1/3): the task is not done yet."
    records = [user("Task"), blocks("m1", text("Done.")), user(feedback, isMeta=True)]
    session = session_from_records(records)
    assert session.hook_feedback == [feedback]
    assert session.task_prompt == "Task"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELD_VALUES = st.one_of(JSON, st.sampled_from(["tool_result", "tool_use", "text", "t1", "Bash"]))


@st.composite
def shaped_record(draw: st.DrawFn) -> dict[str, Any]:
    """Records with the right keys but any values: what a future CLI might write."""
    block = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "type": FIELD_VALUES,
                "id": FIELD_VALUES,
                "tool_use_id": FIELD_VALUES,
                "name": FIELD_VALUES,
                "input": JSON,
                "text": JSON,
                "content": JSON,
                "is_error": JSON,
            },
        )
    )
    content = draw(st.one_of(JSON, st.just([block])))
    return draw(
        st.fixed_dictionaries(
            {"type": st.sampled_from(["user", "assistant", "system", "x"])},
            optional={
                "message": st.one_of(JSON, st.just({"id": "m", "content": content})),
                "toolUseResult": JSON,
                "isMeta": JSON,
                "isSidechain": JSON,
                "subtype": FIELD_VALUES,
                "timestamp": JSON,
                "cwd": JSON,
            },
        )
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(shaped_record(), max_size=8), st.one_of(st.none(), st.text(max_size=10)))
def test_records_of_any_shape_never_break_normalization(
    records: list[dict[str, Any]], final: str | None
) -> None:
    session = session_from_records(
        [{"type": "user", "message": {"content": "Task"}}, *records], last_assistant_message=final
    )
    assert all(isinstance(e, (ToolCall, AssistantText)) for e in session.events)


def test_our_own_block_reason_as_a_bare_prompt_is_feedback() -> None:
    reason = "reflection — FINAL attempt (3/3): the task is still not done."
    session = session_from_records([user("Task"), blocks("m1", text("Done.")), user(reason)])
    assert session.task_prompt == "Task"
    assert session.hook_feedback == [reason]


def test_permission_mode_is_taken_from_the_task_records() -> None:
    records = [user("Earlier", permissionMode="default"), user("Plan it", permissionMode="plan")]
    assert session_from_records(records).permission_mode == "plan"
    assert session_from_records([user("No mode")]).permission_mode is None


def test_a_task_whose_prompt_is_out_of_reach_uses_the_clis_last_prompt_note() -> None:
    records = [
        blocks("m1", text("working")),
        {"type": "last-prompt", "lastPrompt": "Refactor the parser", "leafUuid": "x"},
    ]
    session = session_from_records(records)
    assert session.task_prompt == "Refactor the parser"
    assert session.warnings
