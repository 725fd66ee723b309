"""StopFailure: the host ended the turn on its own error. Nothing is pushed; a `blocked`
verdict and one line tell the user, with secrets in the error redacted."""

from __future__ import annotations

import json
from pathlib import Path

from tests.gitutil import make_repo
from tests.hookrun import run_hook


def _payload(repo: Path, **fields: str) -> dict[str, str]:
    return {
        "session_id": "s-fail",
        "cwd": str(repo),
        "hook_event_name": "StopFailure",
        "transcript_path": str(repo / "missing.jsonl"),
        **fields,
    }


def test_a_host_failure_leaves_a_blocked_verdict_and_pushes_nobody(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    proc = run_hook(
        "stop-failure",
        _payload(
            repo,
            error="rate_limit",
            error_details="529 Overloaded; retry with Authorization: Bearer sk-live-abcdef123456",
        ),
        repo,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "decision" not in out
    assert "host failure (rate_limit" in out["systemMessage"]
    verdict = json.loads((repo / ".reflection" / "verdict_s-fail.json").read_text())
    assert verdict["status"] == "blocked" and verdict["requires_human_action"] is True
    assert verdict["event"] == "stop-failure"
    assert "529 Overloaded" in verdict["missing"][0]
    assert "sk-live-abcdef123456" not in json.dumps(verdict)


def test_outside_a_repository_only_the_line_is_given(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    proc = run_hook("stop-failure", _payload(plain, error="server_error"), plain)
    assert proc.returncode == 0, proc.stderr
    assert "host failure (server_error)" in json.loads(proc.stdout)["systemMessage"]
    assert not (plain / ".reflection").exists()
