"""The Stop reader holds a long task's outputs capped as it reads, with the same session."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from reflection_core.session import normalize
from reflection_core.session.transcript import read_session

_LONG = "collected 900 items\n" + "." * 30_000 + "\nFAILED tests/test_app.py::test_x\n"


def _use(n: int, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "tool_use", "id": f"t{n}", "name": name, "input": tool_input}
    return {
        "type": "assistant",
        "uuid": f"a{n}",
        "sessionId": "s-1",
        "cwd": "/repo",
        "message": {"id": f"m{n}", "content": [block]},
    }


def _result(n: int, content: Any, extra: Any, error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": f"t{n}", "content": content, "is_error": error}
    return {
        "type": "user",
        "sessionId": "s-1",
        "cwd": "/repo",
        "message": {"role": "user", "content": [block]},
        "toolUseResult": extra,
    }


def _records() -> list[dict[str, Any]]:
    prompt = {"type": "user", "message": {"role": "user", "content": "Fix the failing test"}}
    pytest = {"command": "python -m pytest -q"}
    return [
        prompt,
        _use(1, "Bash", pytest),
        _result(1, f"Exit code 1\n{_LONG}", {"stdout": _LONG, "interrupted": False}, True),
        _use(2, "Read", {"file_path": "/repo/app.py"}),
        _result(2, [{"type": "text", "text": _LONG}, {"type": "text", "text": "end"}], None),
        _use(3, "Bash", {"command": "git push"}),
        _result(
            3,
            _LONG,
            {"stdout": _LONG, "gitOperation": {"push": {"branch": "fix"}}, "x": _LONG},
        ),
        _use(4, "Bash", pytest),
        _result(4, _LONG, "Error: the command timed out after 120 s " + _LONG),
        _use(5, "Edit", {"file_path": "/repo/app.py", "old_string": "one", "new_string": "two"}),
        _result(5, "updated", {"originalFile": _LONG, "structuredPatch": [_HUNK], "x": _LONG}),
        {"type": "assistant", "message": {"id": "m9", "content": "Fixed; the tests pass."}},
    ]


_HUNK = {"lines": [" def add(a, b):", "-    # one", "+    # two", "     return a + b"]}


def test_a_slimmed_record_builds_the_same_session_as_the_whole_one() -> None:
    whole = _records()
    slimmed = copy.deepcopy(whole)
    for record in slimmed:
        normalize.slim_tool_results(record)
    assert normalize.session_from_records(slimmed) == normalize.session_from_records(whole)
    call = normalize.session_from_records(slimmed).tool_calls[0]
    assert (call.exit_code, call.ok) == (1, False)
    assert "FAILED tests/test_app.py::test_x" in (call.output or "")


def test_a_slimmed_record_holds_capped_outputs_and_only_the_details_read() -> None:
    record = _result(3, _LONG, {"stdout": _LONG, "gitOperation": {"push": {"branch": "f"}}})
    normalize.slim_tool_results(record)
    (block,) = record["message"]["content"]
    kept = normalize.OUTPUT_HEAD_CHARS + normalize.OUTPUT_TAIL_CHARS
    assert kept < len(block["content"]) < kept + 100 < len(_LONG)
    assert record["toolUseResult"] == {"gitOperation": {"push": {"branch": "f"}}}


def test_a_slimmed_edit_result_keeps_a_small_patch_and_drops_the_file_and_a_large_patch() -> None:
    small = _result(5, "updated", {"originalFile": _LONG, "structuredPatch": [_HUNK]})
    normalize.slim_tool_results(small)
    assert small["toolUseResult"] == {"structuredPatch": [_HUNK]}
    lines = ["+" + "x" * 100] * (normalize.PATCH_CHARS // 100 + 1)
    large = _result(5, "updated", {"structuredPatch": [{"lines": lines}]})
    normalize.slim_tool_results(large)
    assert large["toolUseResult"] == {}


def test_the_reader_gives_the_session_the_records_give(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _records()), encoding="utf-8")
    read = read_session(path, session_id="s-1")
    built = normalize.session_from_records(_records(), session_id="s-1")
    assert read.events == built.events
    assert read.task_prompt == built.task_prompt == "Fix the failing test"
