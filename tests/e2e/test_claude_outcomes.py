"""What happened next, graded inside the real Claude Code CLI: a complaint after a stop
that was let through, a push that led the agent to a failing test, and the dashboard."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import TEST_COMMAND, Project
from tests.e2e.model_server import bash, edit, say

pytestmark = pytest.mark.e2e

PROMPT = (
    "Add a function sub(a, b) to calc.py that returns a - b. Keep add() unchanged. "
    "Done when `python -m pytest -q` passes."
)
ADD_SUB = ("    return a + b\n", "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
BREAK_ADD = ("    return a + b\n", "    return a - b\n")
FIX_ADD = ("    return a - b\n", "    return a + b\n")


def stats(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["reflection", "stats", *args],
        cwd=project.root,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def record_of(project: Project, verdict: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((project.root / verdict["record"]).read_text("utf-8"))
    return data


def test_a_complaint_after_a_let_through_stop_is_counted_premature(project: Project) -> None:
    first = project.run(
        PROMPT,
        [
            edit(project.path("calc.py"), *ADD_SUB),
            bash(TEST_COMMAND),
            say("Added sub(); 1 passed. Done."),
        ],
    )
    assert first.blocks == 0, first.describe()
    let_through = first.verdict()
    assert let_through["status"] == "complete", let_through

    second = project.run(
        "sub() is still broken when I call it with floats, it doesn't work",
        [say("Let me look at the float case.")],
        extra_args=("--resume", first.session_id),
    )
    assert second.session_id == first.session_id, second.describe()
    graded = record_of(project, let_through)["verdict"]["outcome"]
    assert (graded["name"], graded["by"]) == ("premature", "next_prompt"), graded
    data = json.loads(stats(project, "--json").stdout)
    assert data["outcomes"]["premature"] == 1, data
    assert data["estimate"]["premature_let_through"] == 1


def test_a_push_that_leads_to_a_failing_test_is_counted_paid_off(
    project: Project, tmp_path: Path
) -> None:
    run = project.run(
        PROMPT,
        [
            edit(project.path("calc.py"), *BREAK_ADD),
            say("Changed calc.py. Done."),
            bash(TEST_COMMAND),
            edit(project.path("calc.py"), *FIX_ADD),
            bash(TEST_COMMAND),
            say("The test failed after my change; I restored add(). 1 passed. Done."),
        ],
    )
    assert run.blocks == 1, run.describe()
    results = run.tool_results()
    assert any("failed" in r for r in results), results
    verdict = run.verdict()
    push = verdict["push_outcome"]
    assert (push["name"], push["rule"], push["by"]) == ("block_paid_off", "new_check", "next_stop")
    data = json.loads(stats(project, "--json").stdout)
    assert data["outcomes"]["block_paid_off"] == 1, data
    assert data["estimate"]["precision"] == 1.0

    page = tmp_path / "stats.html"
    assert stats(project, "--html", str(page)).returncode == 0
    html = page.read_text(encoding="utf-8")
    assert f"Repository: {project.root.name}" in html
    assert "Push paid off</text>" in html
    assert "1 paid off of 1 pushes" in html
