"""`reflection hook EVENT --host NAME` as real processes, with each host's payload shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.gitutil import make_repo
from tests.hookrun import run_hook

FILES = {
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": (
        "from src.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    ),
    # An untested change pushes under `stop.require: tests` (the default leaves a note).
    ".reflection.yaml": "stop:\n  require: tests\ntests:\n  ledger: false\n",
}
TASK = "Add sub(a, b) to src/calc.py; done when python -m pytest -q passes."


def _repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", files=FILES)


def _gemini_chat(path: Path, repo: Path, tested: bool) -> Path:
    write = {
        "id": "w1",
        "name": "write_file",
        "args": {"file_path": str(repo / "src/calc.py"), "content": "x"},
        "status": "success",
        "result": [],
    }
    calls = [write]
    if tested:
        output = {"functionResponse": {"response": {"output": "Output: 1 passed"}}}
        calls.append(
            {
                "id": "s1",
                "name": "run_shell_command",
                "args": {"command": "python -m pytest -q"},
                "status": "success",
                "result": [output],
            }
        )
    records = [
        {"sessionId": "g1", "projectHash": "h", "startTime": "t", "kind": "main"},
        {"id": "u1", "timestamp": "t", "type": "user", "content": [{"text": TASK}]},
        {"id": "m1", "timestamp": "t", "type": "gemini", "content": "Done.", "toolCalls": calls},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _after_agent(repo: Path, chat: Path) -> dict[str, Any]:
    return {
        "session_id": "g1",
        "transcript_path": str(chat),
        "cwd": str(repo),
        "hook_event_name": "AfterAgent",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "prompt": TASK,
        "prompt_response": "Done.",
        "stop_hook_active": False,
    }


def test_gemini_after_agent_denies_an_untested_edit(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    chat = _gemini_chat(tmp_path / "session-g1.jsonl", repo, tested=False)
    proc = run_hook("stop", _after_agent(repo, chat), repo, host="gemini")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["decision"] == "deny"
    assert "tests have not run" in out["reason"]
    verdict = json.loads((repo / ".reflection" / "verdict_g1.json").read_text())
    assert verdict["status"] == "incomplete"


def test_gemini_after_agent_allows_a_tested_edit(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    chat = _gemini_chat(tmp_path / "session-g1.jsonl", repo, tested=True)
    proc = run_hook("stop", _after_agent(repo, chat), repo, host="gemini")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""
    verdict = json.loads((repo / ".reflection" / "verdict_g1.json").read_text())
    assert verdict["status"] == "complete"


def test_opencode_stop_blocks_in_the_plugins_terms(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write = {
        "type": "tool",
        "tool": "write",
        "callID": "c1",
        "state": {"status": "completed", "input": {"filePath": str(repo / "src/calc.py")}},
    }
    messages = [
        {"info": {"role": "user"}, "parts": [{"type": "text", "text": TASK}]},
        {"info": {"role": "assistant"}, "parts": [write, {"type": "text", "text": "Done."}]},
    ]
    payload = {"session_id": "ses_1", "cwd": str(repo), "messages": messages}
    proc = run_hook("stop", payload, repo, host="opencode")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) <= {"block", "context", "message", "level"}
    assert "tests have not run" in out["block"]


def test_opencode_prompt_context_comes_back_as_context(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    payload = {"session_id": "ses_1", "cwd": str(repo), "prompt": "make this file better"}
    proc = run_hook("user-prompt-submit", payload, repo, host="opencode")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["message"] == "reflection: 1 question passed to the agent"
    assert out["level"] == "info"
    assert "hookSpecificOutput" not in out


def test_an_unknown_host_or_an_event_the_host_lacks_is_a_usage_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    unknown = run_hook("stop", {}, repo, host="cursor")
    assert unknown.returncode == 2 and "unknown host 'cursor'" in unknown.stderr
    missing = run_hook("session-start", {}, repo, host="opencode")
    assert missing.returncode == 2 and "opencode has no hook for 'session-start'" in missing.stderr
