"""Reading Claude Code transcript files: the task, its events, and bad input that loses nothing."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reflection_core.prompt.transcript_tail import previous_assistant_turn
from reflection_core.session import transcript
from reflection_core.session.gates import run_passed
from reflection_core.session.model import Session, ToolCall
from reflection_core.session.transcript import read_session

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
TASK = FIXTURES / "claude_task.jsonl"


def calls(session: Session) -> list[ToolCall]:
    return session.tool_calls


def user(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": text}, **extra}


def assistant(text: str, message_id: str = "msg_x") -> dict[str, Any]:
    content = [{"type": "text", "text": text}]
    return {
        "type": "assistant",
        "message": {"id": message_id, "role": "assistant", "content": content},
    }


def bash(tool_id: str, command: str) -> dict[str, Any]:
    block = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}
    return {
        "type": "assistant",
        "message": {"id": f"msg_{tool_id}", "role": "assistant", "content": [block]},
    }


def result(tool_id: str, text: str, is_error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": is_error}
    return {"type": "user", "message": {"role": "user", "content": [block]}}


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_the_task_starts_at_the_last_real_prompt() -> None:
    session = read_session(TASK)
    assert session.task_prompt == (
        "Fix the login redirect bug in src/auth.py and make sure the tests pass"
    )
    assert session.task_started_at == "2026-03-02T09:02:00.000Z"
    assert session.earlier_prompts == ["Add a README section about configuration"]
    assert session.warnings == []


def test_session_facts_come_from_the_records() -> None:
    session = read_session(TASK)
    assert session.session_id == "3f1c2a9e-1111-4a2b-9c3d-000000000001"
    assert session.git_branch == "feat/login"
    assert session.cwd == "/home/dev/shop"


def test_hook_feedback_is_collected_and_does_not_start_a_new_task() -> None:
    session = read_session(TASK)
    assert len(session.hook_feedback) == 1
    assert session.hook_feedback[0].startswith("Stop hook blocking error from command:")
    assert "Stop hook" not in session.task_prompt


def test_events_keep_order_kinds_results_and_files() -> None:
    session = read_session(TASK)
    summary = [(c.name, c.kind, c.ok, c.exit_code) for c in calls(session)]
    assert summary == [
        ("Bash", "search", True, 0),
        ("Edit", "edit", True, None),
        ("Bash", "shell", False, 1),
        ("Write", "write", True, None),
        ("Bash", "shell", True, 0),
    ]
    edit, write = calls(session)[1], calls(session)[3]
    assert edit.files == ("/home/dev/shop/src/auth.py",)
    assert write.files == ("/home/dev/shop/src/urls.py",)
    assert [c.index for c in calls(session)] == [1, 2, 3, 5, 6]
    failing = calls(session)[2]
    assert failing.command is not None and "test" in failing.command.kinds
    assert "NameError" in failing.output


def test_text_blocks_of_one_api_message_are_merged() -> None:
    first = read_session(TASK).assistant_texts[0]
    assert first.text == "Let me look at the auth module.\nI will grep for the redirect first."


def test_sidechain_records_are_the_subagents_not_the_tasks() -> None:
    session = read_session(TASK)
    assert "Subagent" not in session.task_prompt
    assert all("rm -rf" not in str(c.input) for c in calls(session))


def test_a_subagent_transcript_file_is_read_as_its_own_task() -> None:
    session = read_session(FIXTURES / "claude_subagent.jsonl")
    assert session.task_prompt == "Find every call of redirect() and report the unsafe ones"
    assert [c.kind for c in calls(session)] == ["search"]
    assert session.last_assistant_message == "One unsafe call: src/auth.py line 12."


def test_compaction_is_seen_and_its_summary_is_not_a_prompt() -> None:
    session = read_session(FIXTURES / "claude_compaction.jsonl")
    assert session.compacted
    assert session.compaction_summary.startswith("This session is being continued")
    assert session.task_prompt.startswith("Migrate the settings loader")
    assert [c.kind for c in calls(session)] == ["edit"]


def test_background_command_takes_its_result_from_the_task_notification() -> None:
    session = read_session(FIXTURES / "claude_background.jsonl")
    (call,) = calls(session)
    assert call.background
    assert call.ok is False
    assert call.exit_code == 2


def test_background_command_without_notification_has_no_result_yet(tmp_path: Path) -> None:
    lines = (FIXTURES / "claude_background.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "bg.jsonl"
    path.write_text("\n".join(lines[:4]) + "\n", encoding="utf-8")
    (call,) = calls(read_session(path))
    assert call.background
    assert call.ok is None
    assert call.exit_code is None


def test_spilled_tool_result_is_read_from_the_tool_results_file() -> None:
    (call,) = calls(read_session(FIXTURES / "claude_spill.jsonl"))
    assert "SPILL-MIDDLE-MARKER" in call.output
    assert call.exit_code == 1
    assert call.ok is False


def test_spilled_tool_result_keeps_the_preview_when_the_file_is_gone(tmp_path: Path) -> None:
    path = tmp_path / "claude_spill.jsonl"
    shutil.copy(FIXTURES / "claude_spill.jsonl", path)
    (call,) = calls(read_session(path))
    assert "Preview (first 2KB)" in call.output
    assert call.ok is False


def test_missing_file_gives_an_empty_session_with_a_warning(tmp_path: Path) -> None:
    session = read_session(tmp_path / "gone.jsonl", last_assistant_message="Done.")
    assert session.events[-1].text == "Done."  # type: ignore[union-attr]
    assert session.last_assistant_message == "Done."
    assert "not readable" in session.warnings[0]


def test_no_path_and_a_directory_are_warnings_not_errors(tmp_path: Path) -> None:
    assert read_session(None).warnings == ["no transcript path was given"]
    assert "not readable" in read_session(tmp_path).warnings[0]


def test_truncated_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(TASK.read_bytes() + b'{"type":"assistant","message":{"id":"m","con')
    session = read_session(path)
    assert any("truncated" in w for w in session.warnings)
    assert len(calls(session)) == 5


def test_garbage_lines_and_bad_utf8_lose_nothing_else(tmp_path: Path) -> None:
    records = [
        user("Do the thing"),
        bash("t1", "pytest"),
        result("t1", "ok"),
    ]
    body = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    bad_text = json.dumps(assistant("caf\u00e9 done")).encode().replace(b"\\u00e9", b"\xe9")
    path = tmp_path / "g.jsonl"
    path.write_bytes(body + b"not json at all\n[1, 2]\n\x00\xff\xfe\n" + bad_text + b"\n")
    session = read_session(path)
    assert session.task_prompt == "Do the thing"
    assert calls(session)[0].ok is True
    assert session.last_assistant_message == "caf\ufffd done"
    assert any("malformed" in w for w in session.warnings)


def test_malformed_lines_before_and_after_the_prompt_are_counted_once(tmp_path: Path) -> None:
    """Short non-user lines are decoded late, in file order; what they count as malformed
    joins the one warning the early pass writes."""
    records = [user("Earlier"), user("Do the thing"), bash("t1", "pytest"), result("t1", "ok")]
    lines = [json.dumps(r).encode() for r in records]
    lines[1:1] = [b'{"type": "user", broken']  # a user-shaped line: read in the early pass
    lines[3:3] = [b"not json at all", b"[1, 2]"]  # no user record: read in file order
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    session = read_session(path)
    assert session.task_prompt == "Do the thing"
    assert [c.ok for c in calls(session)] == [True]
    assert [w for w in session.warnings if "malformed" in w] == ["3 malformed line(s) skipped"]


def test_absurdly_nested_json_line_is_skipped_not_fatal(tmp_path: Path) -> None:
    nested = b"[" * 200_000 + b"]" * 200_000
    path = tmp_path / "n.jsonl"
    path.write_bytes(json.dumps(user("Task")).encode() + b"\n" + nested + b"\n")
    session = read_session(path)
    assert session.task_prompt == "Task"
    assert any("malformed" in w for w in session.warnings)


def test_hook_message_wins_over_a_lagging_file() -> None:
    session = read_session(TASK, last_assistant_message="Final words not yet in the file.")
    assert session.last_assistant_message == "Final words not yet in the file."
    assert session.events[-1].text == "Final words not yet in the file."  # type: ignore[union-attr]


def test_hook_message_equal_to_the_file_is_not_duplicated() -> None:
    final = "Fixed: the redirect now goes through safe_url and both tests pass."
    session = read_session(TASK, last_assistant_message=final)
    assert [t.text for t in session.assistant_texts].count(final) == 1


def test_a_long_session_is_read_from_the_end(tmp_path: Path) -> None:
    """Lines far before the task are never parsed: their garbage raises no warning."""
    garbage = "{ not json " + "x" * 2000 + "\n"
    history = "".join(
        json.dumps(assistant("old work " + "w" * 1000, f"old{i}")) + "\n" for i in range(600)
    )  # more than the look-back window of valid records
    recent = [user("recent earlier prompt"), assistant("ok"), user("The task"), bash("t", "ls")]
    path = tmp_path / "long.jsonl"
    body = garbage * 2000 + history + "".join(json.dumps(r) + "\n" for r in recent)
    path.write_text(body, encoding="utf-8")
    session = read_session(path)
    assert session.task_prompt == "The task"
    assert session.earlier_prompts == ["recent earlier prompt"]
    assert session.warnings == []


def test_a_task_longer_than_the_budget_is_read_partially_with_a_warning(tmp_path: Path) -> None:
    records = [user("Start"), *[assistant("step " + "y" * 500, f"m{i}") for i in range(400)]]
    path = write_jsonl(tmp_path / "big.jsonl", records)
    session = read_session(path, max_task_bytes=50_000)
    assert any("no task start" in w for w in session.warnings)
    assert session.task_prompt == ""
    assert 0 < len(session.assistant_texts) < 400


def test_block_boundaries_do_not_split_records(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(transcript, "BLOCK_BYTES", 97)
    small = read_session(TASK)
    monkeypatch.undo()
    big = read_session(TASK)
    assert [c.tool_use_id for c in calls(small)] == [c.tool_use_id for c in calls(big)]
    assert small.task_prompt == big.task_prompt
    assert small.warnings == []


def test_a_runners_colours_are_dropped_so_its_summary_reads_the_same(tmp_path: Path) -> None:
    """vitest with FORCE_COLOR: `\\x1b[31m7 failed` split the words the failure reading looks
    for; behind `| tail` the run's outcome was unreadable."""
    coloured = "\x1b[2m Test Files \x1b[22m \x1b[1m\x1b[31m7 failed\x1b[39m\x1b[22m (7)\r\n"
    path = write_jsonl(
        tmp_path / "c.jsonl",
        [user("fix it"), bash("t", "npx vitest run 2>&1 | tail -30"), result("t", coloured)],
    )
    (call,) = calls(read_session(path))
    assert call.output == " Test Files  7 failed (7)\n"
    assert run_passed(call) is False


def test_huge_tool_output_is_capped_head_and_tail(tmp_path: Path) -> None:
    output = "HEAD-START " + "z" * 3_000_000 + " TAIL-END"
    path = write_jsonl(
        tmp_path / "h.jsonl", [user("go"), bash("t", "cat big"), result("t", output)]
    )
    (call,) = calls(read_session(path))
    assert len(call.output) < 9000
    assert call.output.startswith("HEAD-START")
    assert call.output.endswith("TAIL-END")


def test_the_prompt_hooks_tail_reader_and_the_session_reader_agree_on_the_last_text() -> None:
    expected = "Fixed: the redirect now goes through safe_url and both tests pass."
    assert previous_assistant_turn(str(TASK))[0] == expected
    assert read_session(TASK).assistant_texts[-1].text == expected


def test_reading_while_the_host_appends_never_fails(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "live.jsonl", [user("Live task")])
    stop = threading.Event()

    def writer() -> None:
        n = 0
        with path.open("ab") as handle:
            while not stop.is_set() and n < 3000:
                line = json.dumps(bash(f"t{n}", "pytest -q")) + "\n"
                handle.write(line[: len(line) // 2].encode())
                handle.flush()
                handle.write(line[len(line) // 2 :].encode())
                handle.flush()
                n += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(30):
            session = read_session(path)
            assert session.task_prompt == "Live task"
    finally:
        stop.set()
        thread.join()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cut=st.integers(min_value=0, max_value=len(TASK.read_bytes())),
    garbage=st.lists(st.binary(max_size=40), max_size=5),
    where=st.integers(min_value=0, max_value=40),
)
def test_any_truncation_and_garbage_still_gives_a_session(
    tmp_path: Path, cut: int, garbage: list[bytes], where: int
) -> None:
    lines = TASK.read_bytes()[:cut].split(b"\n")
    at = min(where, len(lines))
    damaged = b"\n".join(lines[:at] + garbage + lines[at:])
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(damaged)
    session = read_session(path)
    assert isinstance(session, Session)
    assert all(isinstance(c, ToolCall) for c in session.tool_calls)
