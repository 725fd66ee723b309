"""`reflection mcp` through the MCP SDK's own stdio client, spawning the installed CLI."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.verdictutil import iso_utc, write_verdict

REFLECTION = str(Path(sys.executable).with_name("reflection"))
PROMPT_FIELDS = {"score", "action", "skipped", "dimensions", "smells", "classification"}


async def call_tools(cwd: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list]:
    params = StdioServerParameters(
        command=REFLECTION,
        args=["mcp"],
        cwd=str(cwd),
        # PYTHONPATH too: the SDK passes the server only a few safe variables, and without
        # it the server would run the installed tree instead of this one
        env={
            "REFLECTION_STATE_DIR": os.environ["REFLECTION_STATE_DIR"],
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        },
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = sorted(tool.name for tool in (await session.list_tools()).tools)
        results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return tools, results


def payload(result: Any) -> Any:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def error_text(result: Any) -> str:
    assert result.is_error
    return str(result.content[0].text)


def test_latest_verdict_and_errors_over_stdio(git_repo: Path, tmp_path: Path) -> None:
    write_verdict(git_repo, "older", complete=False, created_at=iso_utc(60))
    write_verdict(git_repo, "sess-1", complete=True)
    tools, results = asyncio.run(
        call_tools(
            git_repo,
            [
                ("latest_verdict", {"session_id": "sess-1"}),
                ("latest_verdict", {}),
                ("latest_verdict", {"session_id": "nope"}),
                ("check_completion", {"transcript_path": str(tmp_path / "missing.jsonl")}),
            ],
        )
    )
    assert tools == ["check_completion", "evaluate_prompt", "latest_verdict"]
    assert payload(results[0])["complete"] is True
    assert payload(results[1])["session_id"] == "sess-1"
    assert "no verdict for session 'nope'" in error_text(results[2])
    assert "no transcript file" in error_text(results[3])


def test_check_completion_returns_the_decision_contract(git_repo: Path, tmp_path: Path) -> None:
    if importlib.util.find_spec("reflection_core.session.transcript") is None:
        pytest.skip(
            "the transcript reader (reflection_core.session.transcript) is not in this tree"
        )
    transcript = tmp_path / "t.jsonl"
    records = [
        {
            "type": "user",
            "sessionId": "s",
            "cwd": str(git_repo),
            "message": {"role": "user", "content": "What does main.py do?"},
        },
        {
            "type": "assistant",
            "sessionId": "s",
            "cwd": str(git_repo),
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "It prints hello."}],
            },
        },
    ]
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    _, results = asyncio.run(
        call_tools(git_repo, [("check_completion", {"transcript_path": str(transcript)})])
    )
    decision = payload(results[0])
    assert {"status", "complete", "stop_category", "missing", "gates"} <= set(decision)


def test_evaluate_prompt_returns_the_prompt_score_contract(git_repo: Path) -> None:
    if importlib.util.find_spec("reflection_core.prompt.score") is None:
        pytest.skip("the prompt scorer (reflection_core.prompt.score) is not in this tree yet")
    _, results = asyncio.run(
        call_tools(git_repo, [("evaluate_prompt", {"prompt": "make it better"})])
    )
    score = payload(results[0])
    assert set(score) >= PROMPT_FIELDS
    assert 1.0 <= score["score"] <= 5.0


def test_check_completion_redacts_like_analyze_json(git_repo: Path, tmp_path: Path) -> None:
    """The agent quotes a key in a claim the transcript does not back: the claim lands in
    `missing`, and neither the MCP tool nor `analyze --json` gives the key back."""
    from reflection_core.evals.transcript_builder import build_records, write_jsonl

    secret = "sk-ant-api03-Zq81SECRETabcdefghijkl"
    final = f"All done, everything works with key {secret} and the tests pass."
    spec = {
        "task": "Make add() in calc.py return b + a and run pytest.",
        "cwd": str(git_repo),
        "steps": [{"edit": "calc.py"}],
        "final": final,
    }
    transcript = write_jsonl(build_records(spec), tmp_path / "t.jsonl")
    assert secret in transcript.read_text()
    _, results = asyncio.run(
        call_tools(git_repo, [("check_completion", {"transcript_path": str(transcript)})])
    )
    decision = payload(results[0])
    assert decision["complete"] is False
    assert "[REDACTED]" in json.dumps(decision)
    assert "Zq81SECRET" not in json.dumps(decision)
    analyzed = subprocess.run(
        [REFLECTION, "analyze", "--json", str(transcript)],
        cwd=git_repo,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert '"status"' in analyzed.stdout and "Zq81SECRET" not in analyzed.stdout
