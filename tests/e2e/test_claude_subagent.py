"""The SubagentStop hook inside the real CLI: a subagent that edits without testing is
pushed on by itself, and the main agent is not blamed for it."""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import TEST_COMMAND, Project
from tests.e2e.model_server import bash, delegate, edit, say

pytestmark = pytest.mark.e2e

SUBTASK = "SUBTASK-SUB"


def test_a_subagent_that_edits_without_tests_is_blocked_on_its_own(project: Project) -> None:
    # The push mechanics under `stop.require: tests`; by default an unchecked edit the
    # subagent does not call done is a note.
    project.write_config("stop:\n  require: tests\n")
    run = project.run(
        "Delegate adding sub(a, b) to calc.py to a subagent, then check its work with "
        "`python -m pytest -q`.",
        [
            delegate(f"{SUBTASK}: add sub(a, b) returning a - b to calc.py."),
            bash(TEST_COMMAND),
            say("The subagent added sub(); I re-ran the tests: 1 passed. Done."),
        ],
        subagents={
            SUBTASK: [
                edit(
                    project.path("calc.py"),
                    "    return a + b\n",
                    "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
                ),
                say("Added sub()."),
                bash(TEST_COMMAND),
                say("Added sub(); 1 passed."),
            ]
        },
    )
    sub_requests = run.subagent_requests(SUBTASK)
    assert sub_requests, f"the subagent never ran\n{run.describe()}"
    sub_feedback = [
        t for t in sub_requests[-1].all_texts() if "hook blocking error from command" in t
    ]
    assert len(sub_feedback) == 1, f"{sub_feedback}\n{run.describe()}"
    assert "pytest" in sub_feedback[0]
    assert run.blocks == 0, run.describe()
    assert run.exhausted == 0, run.describe()

    # Subagent stops leave full records, not a compact verdict: consumers read the main one.
    records = [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((project.root / ".reflection" / "records").glob("*.json"))
    ]
    sub_records = [r for r in records if r["verdict"]["event"] == "subagent-stop"]
    assert [r["verdict"]["status"] for r in sub_records] == ["incomplete", "complete"]
    assert all("/subagents/" in r["hook"]["transcript_path"] for r in sub_records)
    verdicts = sorted(p.name for p in (project.root / ".reflection").glob("verdict_*.json"))
    assert verdicts == [f"verdict_{run.session_id}.json"], verdicts
    assert run.verdict()["status"] == "complete", run.verdict()
