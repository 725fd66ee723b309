"""The Stop hook as a real process reading Codex rollouts and OpenCode messages: the host's
own edit, shell and result formats decide as the same work under Claude Code would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.gitutil import make_repo
from tests.hookrun import run_hook

CALC = "def add(a, b):\n    return a + b\n\n\ndef divide(a, b):\n    return a / b\n"
FILES = {
    "calc.py": CALC,
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    # An unchecked change pushes under `stop.require: tests` (the default leaves a note).
    ".reflection.yaml": "stop:\n  require: tests\ntests:\n  ledger: false\n",
}
COMMENT_PATCH = (
    "*** Begin Patch\n*** Update File: calc.py\n@@\n def divide(a, b):\n"
    "+    # Raises ZeroDivisionError when b is 0.\n     return a / b\n*** End Patch\n"
)
CODE_PATCH = (
    "*** Begin Patch\n*** Update File: calc.py\n@@\n def divide(a, b):\n"
    "+    if b == 0:\n+        raise ValueError('b is 0')\n     return a / b\n*** End Patch\n"
)


def _repo(tmp_path: Path, *, require_tests: bool = True) -> Path:
    """The project; without `require_tests` the default `stop.require` (a check of any
    kind backs a change)."""
    files = FILES if require_tests else {k: v for k, v in FILES.items() if k != ".reflection.yaml"}
    return make_repo(tmp_path / "repo", files=files)


def _codex_stop(tmp_path: Path, repo: Path, items: list[dict[str, Any]], final: str) -> Any:
    """Run the hook on a rollout: the prompt, `items` (response_item payloads), `final`."""
    prompt = "Work on divide() in calc.py."

    def record(i: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": f"2026-03-02T10:00:{i:02d}.000Z", "type": kind, "payload": payload}

    records = [
        record(0, "session_meta", {"id": "c1", "cwd": str(repo), "cli_version": "0.169.0"}),
        record(1, "event_msg", {"type": "user_message", "message": prompt}),
        record(1, "turn_context", {"cwd": str(repo), "model": "gpt-5-codex"}),
        *(record(2 + n, "response_item", item) for n, item in enumerate(items)),
        record(59, "event_msg", {"type": "agent_message", "message": final}),
    ]
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    payload = {
        "session_id": "c1",
        "transcript_path": str(rollout),
        "cwd": str(repo),
        "hook_event_name": "Stop",
        "turn_id": "t1",
        "stop_hook_active": False,
        "last_assistant_message": final,
    }
    proc = run_hook("stop", payload, repo, host="codex")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def _apply_patch(call_id: str, patch: str) -> list[dict[str, Any]]:
    result = {"output": "Success. Updated the following files:\nM calc.py\n"}
    return [
        {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": call_id,
            "name": "apply_patch",
            "input": patch,
        },
        {
            "type": "custom_tool_call_output",
            "call_id": call_id,
            "output": json.dumps({**result, "metadata": {"exit_code": 0}}),
        },
    ]


def _opencode_stop(repo: Path, messages: list[dict[str, Any]]) -> Any:
    payload = {"session_id": "ses_1", "cwd": str(repo), "messages": messages}
    proc = run_hook("stop", payload, repo, host="opencode")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def _user(text: str, created: int) -> dict[str, Any]:
    info = {"id": f"msg_u{created}", "role": "user", "time": {"created": created}}
    return {"info": info, "parts": [{"type": "text", "text": text}]}


def _assistant(repo: Path, created: int, *parts: dict[str, Any]) -> dict[str, Any]:
    info = {
        "id": f"msg_a{created}",
        "role": "assistant",
        "path": {"cwd": str(repo), "root": str(repo)},
        "time": {"created": created},
    }
    return {"info": info, "parts": [{"type": "step-start"}, *parts, {"type": "step-finish"}]}


def _tool(tool: str, args: dict[str, Any], output: str, **metadata: Any) -> dict[str, Any]:
    state = {"status": "completed", "input": args, "output": output, "metadata": metadata}
    return {"type": "tool", "callID": f"call_{tool}", "tool": tool, "state": state}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def test_codex_comment_only_apply_patch_stands_and_a_code_patch_is_pushed(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path)
    comment = _codex_stop(tmp_path, repo, _apply_patch("p1", COMMENT_PATCH), "Added it. Done.")
    assert "decision" not in comment
    code = _codex_stop(tmp_path, repo, _apply_patch("p1", CODE_PATCH), "Added it. Done.")
    assert code["decision"] == "block"


def test_opencode_comment_only_edit_stands_and_a_code_edit_is_pushed(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    old = "def divide(a, b):\n    return a / b"

    def session(new: str) -> list[dict[str, Any]]:
        args = {"filePath": str(repo / "calc.py"), "oldString": old, "newString": new}
        edit = _tool("edit", args, "Edit applied successfully.")
        prompt = _user("Document divide() in calc.py.", 1767261600000)
        return [prompt, _assistant(repo, 1767261601000, edit, _text("Added it. Done."))]

    comment = session(old.replace("\n", "\n    # Raises ZeroDivisionError when b is 0.\n"))
    assert "block" not in _opencode_stop(repo, comment)
    code = session(old.replace("\n", "\n    if b == 0:\n        raise ValueError('b')\n"))
    assert "block" in _opencode_stop(repo, code)


def test_opencode_apply_patch_edits_are_seen(tmp_path: Path) -> None:
    """OpenCode's GPT models edit through `apply_patch`: an unchecked change called done is
    pushed, and so is "All tests pass" after the tests failed on the patched code."""
    repo = _repo(tmp_path)
    patch = (
        "*** Begin Patch\n*** Update File: calc.py\n@@\n def add(a, b):\n"
        "-    return a + b\n+    return a - b\n*** End Patch"
    )
    apply = _tool("apply_patch", {"patchText": patch}, "Success. Updated the following files:")
    prompt = _user("Make add() in calc.py subtract.", 1767261600000)
    unchecked = [prompt, _assistant(repo, 1767261601000, apply, _text("Done, it works."))]
    assert "block" in _opencode_stop(repo, unchecked)
    failed = _tool("bash", {"command": "python -m pytest -q"}, "1 failed in 0.02s", exit=1)
    claimed = [
        prompt,
        _assistant(repo, 1767261601000, apply),
        _assistant(repo, 1767261602000, failed, _text("add() subtracts now. All tests pass.")),
    ]
    assert "block" in _opencode_stop(repo, claimed)


def test_codex_failing_check_with_a_long_json_result_is_pushed(tmp_path: Path) -> None:
    """Codex `shell` results are JSON with `metadata.exit_code` after the output: a failing
    check with 2 KB of log lines failed, so "all checks pass" is pushed."""
    repo = _repo(tmp_path, require_tests=False)
    log = "".join(f"checking add({i}, 1) -> {i + 1} ok\n" for i in range(100))
    log += "Traceback (most recent call last):\nAssertionError: add(2, 2) should be 5\n"
    arguments = {"command": ["bash", "-lc", "python tests/run_checks.py"], "workdir": str(repo)}
    result = {"output": log, "metadata": {"exit_code": 1, "duration_seconds": 0.1}}
    items = [
        *_apply_patch("p1", CODE_PATCH),
        {"type": "function_call", "name": "shell", "arguments": json.dumps(arguments)}
        | {"call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": json.dumps(result)},
    ]
    out = _codex_stop(tmp_path, repo, items, "Guarded divide(); all checks pass. Done.")
    assert out["decision"] == "block"


def test_codex_tests_ending_in_a_later_write_stdin_are_a_failed_run(tmp_path: Path) -> None:
    """Unified exec: pytest outlives `yield_time_ms` ("Process running with session ID 7")
    and fails in the result of a later `write_stdin`; "All tests pass." is pushed."""
    repo = _repo(tmp_path, require_tests=False)
    run = {"cmd": "python -m pytest -q", "workdir": str(repo), "yield_time_ms": 1000}
    poll = {"session_id": 7, "chars": "", "yield_time_ms": 30000}
    first = "Chunk ID: 1a2b\nWall time: 1.0 seconds\nProcess running with session ID 7\nOutput:\n"
    end = (
        "Chunk ID: 3c4d\nWall time: 0.8 seconds\nProcess exited with code 1\nOutput:\n"
        "F\n=== FAILURES ===\nE   assert -1 == 5\n1 failed in 0.05s\n"
    )
    items = [
        *_apply_patch("p1", CODE_PATCH),
        {"type": "function_call", "name": "exec_command", "arguments": json.dumps(run)}
        | {"call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": first + "F"},
        {"type": "function_call", "name": "write_stdin", "arguments": json.dumps(poll)}
        | {"call_id": "c2"},
        {"type": "function_call_output", "call_id": "c2", "output": end},
    ]
    out = _codex_stop(tmp_path, repo, items, "divide() is guarded. All tests pass.")
    assert out["decision"] == "block"


def test_opencode_same_prompt_later_gets_its_own_attempt_budget(tmp_path: Path) -> None:
    """Two tasks in one OpenCode session with the same prompt text: after the first used
    its pushes, the second's unchecked "Done" is still pushed, as attempt 1."""
    repo = _repo(tmp_path)
    prompt = "Add a sub(a, b) function to calc.py."
    old = "    return a + b\n"
    edit = _tool(
        "edit",
        {"filePath": str(repo / "calc.py"), "oldString": old, "newString": old + "\n\ndef sub"},
        "Edit applied successfully.",
    )
    clock = iter(range(1767261600000, 1767270000000, 60000))
    messages = [_user(prompt, next(clock)), _assistant(repo, next(clock), edit)]
    messages.append(_assistant(repo, next(clock), _text("Added sub(). Done.")))
    for _ in range(3):
        block = _opencode_stop(repo, messages)["block"]
        messages += [_user(block, next(clock)), _assistant(repo, next(clock), _text("Done."))]
    assert "block" not in _opencode_stop(repo, messages)  # the first task's budget is spent
    messages += [_user(prompt, next(clock)), _assistant(repo, next(clock), edit)]
    messages.append(_assistant(repo, next(clock), _text("Added sub() again. Done.")))
    assert "(attempt 1/3)" in _opencode_stop(repo, messages)["block"]
