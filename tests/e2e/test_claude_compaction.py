"""After `/compact`, the SessionStart(compact) hook reminds the agent of the task."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import TEST_COMMAND, Project
from tests.e2e.model_server import bash, edit, say

pytestmark = pytest.mark.e2e

TASK = (
    "Add a function sub(a, b) to calc.py that returns a - b. "
    "Done when `python -m pytest -q` passes."
)


def test_the_agent_is_reminded_of_the_task_after_compaction(project: Project) -> None:
    first = project.run(
        TASK,
        [
            edit(
                project.path("calc.py"),
                "    return a + b\n",
                "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
            ),
            bash(TEST_COMMAND),
            say("Added sub(); 1 passed."),
        ],
    )
    assert first.session_id, first.describe()
    compacted = project.run("/compact", [], extra_args=("--resume", first.session_id))
    assert compacted.returncode == 0, compacted.describe()
    boundary = first.transcript.read_text(encoding="utf-8")
    assert '"compact_boundary"' in boundary, "the CLI did not compact the session"

    after = project.run(
        "Carry on.",
        [say("Everything in the task is done and tested.")] * 3,
        extra_args=("--resume", first.session_id),
    )
    nudges = after.hook_context("SessionStart")
    assert nudges, f"no post-compaction nudge\n{after.describe()}"
    assert after.model_saw(nudges[-1], request=0), "the nudge did not reach the model"
    assert "sub" in nudges[-1], f"the nudge does not name the task: {nudges[-1]}"
    assert after.blocks == 0, after.describe()
    verdict = after.verdict()
    assert verdict["status"] == "complete", verdict
