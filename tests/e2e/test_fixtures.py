"""The committed Claude Code transcripts stay small, parseable, and show what docs/e2e.md says.

These run without the CLI: they guard the fixtures other areas' unit tests read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import SNAPSHOT_OMITTED, fixture_lines

FIXTURES = Path(__file__).parent / "fixtures"
MAX_BYTES = 100 * 1024


def records(name: str) -> list[dict[str, Any]]:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def tool_results(name: str) -> list[dict[str, Any]]:
    return [
        block
        for record in records(name)
        if record.get("type") == "user" and isinstance(record["message"]["content"], list)
        for block in record["message"]["content"]
        if block.get("type") == "tool_result"
    ]


def stop_feedback(name: str) -> list[str]:
    return [
        r["message"]["content"]
        for r in records(name)
        if r.get("type") == "user"
        and isinstance(r["message"]["content"], str)
        and r["message"]["content"].startswith("Stop hook feedback:")
    ]


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.jsonl")), ids=lambda p: p.name)
def test_each_fixture_is_small_json_lines_of_one_session(path: Path) -> None:
    assert path.stat().st_size < MAX_BYTES
    parsed = records(path.name)
    sessions = {r["sessionId"] for r in parsed if r.get("type") in ("user", "assistant")}
    assert len(sessions) == 1, sessions
    assert not any(r.get("type") == "api-request-blob" for r in parsed)
    assert "sk-e2e-dummy" not in path.read_text(encoding="utf-8")


def test_edit_blocked_then_tests_pass_shows_one_block_then_a_passing_run() -> None:
    assert len(stop_feedback("claude_edit_blocked_then_tests_pass.jsonl")) == 1
    results = tool_results("claude_edit_blocked_then_tests_pass.jsonl")
    assert "1 passed" in results[-1]["content"] and not results[-1].get("is_error")


def test_failing_tests_fixture_has_a_failed_run_with_an_exit_code() -> None:
    failed = [
        r for r in tool_results("claude_failing_tests_claimed_done.jsonl") if r.get("is_error")
    ]
    assert failed and failed[0]["content"].startswith("Exit code 1")


def test_first_day_fixture_holds_the_guards_refusals() -> None:
    outputs = [r["content"] for r in tool_results("claude_first_day_git_guards.jsonl")]
    assert any("refusing the commit" in o for o in outputs)
    assert any(o.startswith("Exit code") and "main" in o for o in outputs)


def test_compaction_fixture_has_a_boundary_and_the_session_start_nudge() -> None:
    parsed = records("claude_compaction.jsonl")
    assert any(r.get("subtype") == "compact_boundary" for r in parsed)
    assert any(
        r.get("attachment", {}).get("type") == "hook_additional_context"
        and r["attachment"].get("hookEvent") == "SessionStart"
        for r in parsed
    )


def test_plan_mode_fixture_records_the_permission_mode() -> None:
    assert any(r.get("permissionMode") == "plan" for r in records("claude_plan_mode.jsonl"))


def test_direct_push_fixture_pushes_to_main() -> None:
    commands = [
        block["input"].get("command", "")
        for r in records("claude_direct_push_to_main.jsonl")
        if r.get("type") == "assistant"
        for block in r["message"]["content"]
        if block.get("type") == "tool_use"
    ]
    assert any("git push" in c and "HEAD:main" in c for c in commands)


def test_fixture_lines_drop_bulky_records_and_keep_the_uuid_chain() -> None:
    snapshot = {
        "type": "attachment",
        "uuid": "u2",
        "parentUuid": "u1",
        "attachment": {"type": "prompt_snapshot", "systemPrompt": ["x" * 5000], "tools": [{}]},
    }
    lines = [
        json.dumps({"type": "user", "uuid": "u1"}) + "\n",
        json.dumps({"type": "api-request-blob", "message": "x" * 5000}) + "\n",
        json.dumps(snapshot) + "\n",
        "not json, kept as is\n",
    ]
    kept = fixture_lines(lines)
    assert len(kept) == 3
    blanked = json.loads(kept[1])
    assert blanked["uuid"] == "u2" and blanked["parentUuid"] == "u1"
    assert blanked["attachment"]["systemPrompt"] == [SNAPSHOT_OMITTED]
    assert kept[2] == "not json, kept as is\n"


def test_subagent_fixtures_keep_the_agent_in_its_own_transcript() -> None:
    main = records("claude_subagent_main.jsonl")
    agent = records("claude_subagent_agent.jsonl")
    assert any(
        block.get("name") == "Agent"
        for r in main
        if r.get("type") == "assistant"
        for block in r["message"]["content"]
    )
    assert all(r.get("isSidechain") is True for r in agent if r.get("type") == "user")
    assert len(stop_feedback("claude_subagent_agent.jsonl")) == 1
    assert stop_feedback("claude_subagent_main.jsonl") == []
