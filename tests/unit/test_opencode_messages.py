"""OpenCode's session messages (as `client.session.messages()` lists them) read into a session."""

from __future__ import annotations

from typing import Any

import pytest

from reflection_core.session.evidence import comment_only_edit, is_code_change
from reflection_core.session.opencode_messages import session_from_messages
from reflection_core.session.task import changed_paths, reverted_paths, task_id


def _user(text: str, synthetic: bool = False) -> dict[str, Any]:
    part = {"type": "text", "text": text, **({"synthetic": True} if synthetic else {})}
    return {"info": {"role": "user", "id": "u"}, "parts": [part]}


def _assistant(*parts: dict[str, Any]) -> dict[str, Any]:
    info = {"role": "assistant", "path": {"cwd": "/repo", "root": "/repo"}}
    return {"info": info, "parts": [{"type": "step-start"}, *parts, {"type": "step-finish"}]}


def _tool(tool: str, args: dict[str, Any], output: str = "", **state: Any) -> dict[str, Any]:
    return {
        "type": "tool",
        "tool": tool,
        "callID": f"c-{tool}",
        "state": {"status": "completed", "input": args, "output": output, **state},
    }


def test_an_edit_and_a_test_run_become_tool_calls() -> None:
    session = session_from_messages(
        [
            _user("earlier"),
            _assistant({"type": "text", "text": "ok"}),
            _user("add sub() to calc.py"),
            _user("[reflection] context the plugin added", synthetic=True),
            _assistant(_tool("write", {"filePath": "/repo/calc.py", "content": "x"})),
            _assistant(
                _tool("bash", {"command": "python -m pytest -q"}, "1 passed", metadata={"exit": 0})
            ),
            _assistant({"type": "text", "text": "Done."}),
        ]
    )
    assert session.task_prompt == "add sub() to calc.py"
    assert session.earlier_prompts == ["earlier"]
    assert session.cwd == "/repo"
    write, test = session.tool_calls
    assert (write.kind, write.files) == ("write", ("/repo/calc.py",))
    assert test.command is not None and "test" in test.command.kinds
    assert (test.ok, test.exit_code) == (True, 0)
    assert session.last_assistant_message == "Done."


def test_a_failing_command_is_not_ok() -> None:
    session = session_from_messages(
        [
            _user("run the tests"),
            _assistant(
                _tool("bash", {"command": "python -m pytest -q"}, "1 failed", metadata={"exit": 1})
            ),
        ]
    )
    assert session.tool_calls[0].ok is False


def test_our_pushed_feedback_is_not_a_new_task() -> None:
    feedback = "reflection (attempt 1/3): the task is not done yet."
    session = session_from_messages(
        [_user("add sub()"), _assistant(), _user(feedback), _assistant()]
    )
    assert session.task_prompt == "add sub()"
    assert session.hook_feedback == [feedback]


OLD = "def divide(a, b):\n    return a / b\n"
COMMENTED = "def divide(a, b):\n    # Raises ZeroDivisionError when b is 0.\n    return a / b\n"


def _edit(old: str, new: str) -> dict[str, Any]:
    args = {"filePath": "/repo/calc.py", "oldString": old, "newString": new}
    return _tool("edit", args, "Edit applied successfully.")


def test_a_comment_only_edit_is_no_code_change() -> None:
    session = session_from_messages([_user("document divide()"), _assistant(_edit(OLD, COMMENTED))])
    (call,) = session.tool_calls
    assert call.files == ("/repo/calc.py",)
    assert comment_only_edit(call) and not is_code_change(call)


def test_a_comment_only_multiedit_is_no_code_change_and_a_code_one_is() -> None:
    def multiedit(new: str) -> dict[str, Any]:
        edit = {"filePath": "/repo/calc.py", "oldString": OLD, "newString": new}
        return _tool("multiedit", {"filePath": "/repo/calc.py", "edits": [edit]}, "ok")

    comment = session_from_messages([_user("x"), _assistant(multiedit(COMMENTED))])
    code = session_from_messages([_user("x"), _assistant(multiedit(OLD.replace("/", "//")))])
    assert not is_code_change(comment.tool_calls[0])
    assert is_code_change(code.tool_calls[0])


def test_an_edit_taken_back_leaves_the_file_unchanged() -> None:
    session = session_from_messages(
        [
            _user("try a debug print"),
            _assistant(_edit(OLD, OLD.replace("    return", "    print(a, b)\n    return"))),
            _assistant(_edit(OLD.replace("    return", "    print(a, b)\n    return"), OLD)),
        ]
    )
    assert reverted_paths(session) == {"calc.py"}
    assert changed_paths(session) == []


def test_apply_patch_is_an_edit_of_the_files_its_patch_names() -> None:
    # OpenCode 1.18 gives GPT models `apply_patch` ({patchText}) instead of edit/write.
    patch = (
        "*** Begin Patch\n*** Update File: calc.py\n@@\n     return a / b\n+\n+\n"
        "+def sub(a, b):\n+    return a - b\n*** Add File: tests/test_sub.py\n"
        "+from calc import sub\n*** End Patch"
    )
    session = session_from_messages(
        [
            _user("add sub()"),
            _assistant(
                _tool("apply_patch", {"patchText": patch}, "Success. Updated the following files:"),
                {"type": "patch", "hash": "h1", "files": ["/repo/calc.py"]},
            ),
        ]
    )
    (call,) = session.tool_calls
    assert (call.kind, call.files) == ("edit", ("calc.py", "tests/test_sub.py"))
    assert is_code_change(call)
    assert changed_paths(session) == ["calc.py", "tests/test_sub.py"]


def test_a_comment_only_apply_patch_is_no_code_change() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: calc.py\n@@\n def divide(a, b):\n"
        "+    # Raises ZeroDivisionError when b is 0.\n     return a / b\n*** End Patch"
    )
    session = session_from_messages(
        [_user("document divide()"), _assistant(_tool("apply_patch", {"patchText": patch}))]
    )
    assert not is_code_change(session.tool_calls[0])


def _timed_user(text: str, created: Any) -> dict[str, Any]:
    message = _user(text)
    message["info"]["time"] = {"created": created}
    return message


def test_the_task_starts_when_opencode_created_its_prompt() -> None:
    session = session_from_messages([_timed_user("add sub()", 1767261600123), _assistant()])
    assert session.task_started_at == "2026-01-01T10:00:00.123Z"


def test_the_same_prompt_given_again_later_is_another_task() -> None:
    first = [_timed_user("Add sub() to calc.py.", 1767261600000), _assistant()]
    again = [*first, _timed_user("Add sub() to calc.py.", 1767265200000), _assistant()]
    assert task_id(session_from_messages(first)) != task_id(session_from_messages(again))
    # a stop re-read of the same task keeps its id
    assert task_id(session_from_messages(first)) == task_id(session_from_messages(list(first)))


@pytest.mark.parametrize("created", [None, "1767261600000", True, -5, 10**30, float("nan")])
def test_a_missing_or_odd_creation_time_gives_no_start(created: Any) -> None:
    session = session_from_messages([_timed_user("add sub()", created), _assistant()])
    assert session.task_started_at is None
