"""The YAML-session builder writes records in Claude Code's transcript shape."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from reflection_core.evals.transcript_builder import (
    COMPACT_PREFIX,
    HOOK_FEEDBACK_PREFIX,
    SessionSpecError,
    build_records,
    write_jsonl,
)

SPEC = {
    "task": "Fix the off-by-one in utils/paging.py and add a test",
    "branch": "fix/paging",
    "steps": [
        {
            "read": "utils/paging.py",
            "output": "def page_count(total, size):\n    return total // size\n",
        },
        {"edit": "utils/paging.py", "note": "Use ceiling division."},
        {"bash": "python -m pytest -q", "exit": 1, "output": "1 failed, 4 passed in 0.1s"},
        {"write": "tests/test_paging.py", "content": "def test_x():\n    pass\n"},
        {"bash": "python -m pytest -q", "output": "5 passed in 0.1s"},
        {"todo": [{"content": "Run the tests", "status": "completed"}]},
    ],
    "final": "Fixed; 5 passed.",
}


def _tool_uses(records: list[dict]) -> list[dict]:
    return [
        block
        for r in records
        if r["type"] == "assistant"
        for block in r["message"]["content"]
        if block["type"] == "tool_use"
    ]


def _tool_results(records: list[dict]) -> list[dict]:
    return [
        block
        for r in records
        if r["type"] == "user" and isinstance(r["message"]["content"], list)
        for block in r["message"]["content"]
    ]


def test_task_is_the_first_user_record_with_string_content() -> None:
    records = build_records(SPEC)
    first = records[0]
    assert first["type"] == "user"
    assert first["message"] == {"role": "user", "content": SPEC["task"]}
    assert first["parentUuid"] is None
    assert first["gitBranch"] == "fix/paging"
    assert first["permissionMode"] == "default"


def test_records_form_one_parent_chain_with_session_and_timestamps() -> None:
    records = build_records(SPEC)
    assert len({r["sessionId"] for r in records}) == 1
    for previous, record in itertools.pairwise(records):
        assert record["parentUuid"] == previous["uuid"]
        assert record["timestamp"] > previous["timestamp"]


def test_every_tool_use_gets_a_result_with_its_id() -> None:
    records = build_records(SPEC)
    uses = _tool_uses(records)
    results = _tool_results(records)
    assert [u["name"] for u in uses] == ["Read", "Edit", "Bash", "Write", "Bash", "TodoWrite"]
    assert [r["tool_use_id"] for r in results] == [u["id"] for u in uses]
    assert all(u["id"].startswith("toolu_") for u in uses)


def test_failed_command_is_an_error_result_starting_with_exit_code() -> None:
    results = _tool_results(build_records(SPEC))
    failed, passed = results[2], results[4]
    assert failed["is_error"] is True
    assert failed["content"].startswith("Exit code 1\n")
    assert passed["is_error"] is False
    assert passed["content"] == "5 passed in 0.1s"


def test_note_and_tool_call_share_one_message_id_on_separate_lines() -> None:
    records = build_records(SPEC)
    assistant = [r for r in records if r["type"] == "assistant"]
    edit_lines = [r for r in assistant if r["message"]["id"] == assistant[1]["message"]["id"]]
    assert [line["message"]["content"][0]["type"] for line in edit_lines] == ["text", "tool_use"]
    assert all(len(r["message"]["content"]) == 1 for r in assistant)


def test_relative_paths_become_absolute_under_cwd() -> None:
    uses = _tool_uses(build_records({**SPEC, "cwd": "/srv/app"}))
    assert uses[0]["input"]["file_path"] == "/srv/app/utils/paging.py"


def test_final_message_is_the_last_assistant_text() -> None:
    last = build_records(SPEC)[-1]
    assert last["type"] == "assistant"
    assert last["message"]["content"] == [{"type": "text", "text": "Fixed; 5 passed."}]
    assert last["message"]["stop_reason"] == "end_turn"


def test_compaction_writes_a_boundary_and_a_summary_that_is_not_a_prompt() -> None:
    records = build_records({"task": "Port the handlers", "steps": [{"compact": "Two left."}]})
    boundary, summary = records[-2], records[-1]
    assert boundary["type"] == "system"
    assert boundary["subtype"] == "compact_boundary"
    assert summary["isCompactSummary"] is True
    assert summary["message"]["content"] == COMPACT_PREFIX + "Two left."


def test_hook_feedback_is_a_meta_user_message_then_a_stop_hook_summary() -> None:
    records = build_records({"task": "t", "steps": [{"hook_feedback": "run the tests"}]})
    feedback, summary = records[-2], records[-1]
    assert feedback["message"]["content"] == HOOK_FEEDBACK_PREFIX + "run the tests"
    assert feedback["isMeta"] is True
    assert summary["subtype"] == "stop_hook_summary"
    assert summary["hookErrors"] == ["run the tests"]


def test_background_command_returns_a_shell_id_not_output() -> None:
    records = build_records({"task": "t", "steps": [{"bash": "make build", "background": True}]})
    use = _tool_uses(records)[0]
    assert use["input"]["run_in_background"] is True
    assert "running in background" in _tool_results(records)[0]["content"]


def test_same_spec_gives_identical_records() -> None:
    assert build_records(SPEC) == build_records(SPEC)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"steps": []}, "'task' must be a non-empty string"),
        ({"task": "t", "steps": [{"bash": "ls", "read": "x"}]}, "step 1: expected exactly one"),
        ({"task": "t", "steps": ["ls"]}, "step 1: expected a mapping"),
        ({"task": "t", "steps": [{"bash": "pytest", "exit": "1"}]}, "'exit' must be an integer"),
        ({"task": "t", "steps": [{"todo": [{"content": "x", "status": "done"}]}]}, "todo status"),
        ({"task": "t", "final": 3}, "'final' must be a string"),
    ],
)
def test_malformed_specs_are_rejected_with_the_step_named(spec: dict, message: str) -> None:
    with pytest.raises(SessionSpecError, match=message):
        build_records(spec)


def test_jsonl_file_has_one_parseable_record_per_line(tmp_path: Path) -> None:
    records = build_records(SPEC)
    path = write_jsonl(records, tmp_path / "t.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == records


def test_the_session_reader_sees_the_built_session() -> None:
    normalize = pytest.importorskip(
        "reflection_core.session.normalize", reason="the transcript normalizer has not landed"
    )
    session = normalize.session_from_records(build_records(SPEC))
    assert session.task_prompt == SPEC["task"]
    assert session.git_branch == "fix/paging"
    calls = session.tool_calls
    assert [c.name for c in calls] == ["Read", "Edit", "Bash", "Write", "Bash", "TodoWrite"]
    assert calls[2].ok is False and calls[2].exit_code == 1
    assert calls[4].ok is True
    assert "test" in calls[4].command.kinds
    assert session.last_assistant_message == "Fixed; 5 passed."


def test_the_session_reader_takes_hook_feedback_as_feedback_not_a_new_task() -> None:
    normalize = pytest.importorskip(
        "reflection_core.session.normalize", reason="the transcript normalizer has not landed"
    )
    spec = {
        "task": "Add sub() to calc.py",
        "steps": [{"edit": "calc.py"}, {"hook_feedback": "Run `python -m pytest`"}],
        "final": "Done.",
    }
    session = normalize.session_from_records(build_records(spec))
    assert session.task_prompt == "Add sub() to calc.py"
    assert any("python -m pytest" in text for text in session.hook_feedback)


def test_the_session_reader_sees_a_compaction() -> None:
    normalize = pytest.importorskip(
        "reflection_core.session.normalize", reason="the transcript normalizer has not landed"
    )
    spec = {"task": "Port the handlers", "steps": [{"edit": "a.py"}, {"compact": "Two left."}]}
    session = normalize.session_from_records(build_records(spec))
    assert session.task_prompt == "Port the handlers"
    assert session.compacted is True
    assert "Two left." in session.compaction_summary
