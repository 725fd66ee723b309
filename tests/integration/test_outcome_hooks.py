"""The grader as the hooks run it: real hook processes, real transcripts, real SQLite.

A stop is judged, then the user's next prompt (or the agent's next stop after a push)
grades it; the outcome lands on the verdict file (schema-valid) and in the state DB.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reflection_core.outcomes import store
from tests.integration.test_stop_hook_process import (
    TESTED,
    UNTESTED,
    hook,
    project,
    read_verdict,
    stop_payload,
    transcript,
)


def prompt_payload(repo: Path, text: str, session_id: str = "sess-1") -> dict[str, Any]:
    return {
        "session_id": session_id,
        "transcript_path": "",
        "cwd": str(repo),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def stored_outcomes() -> list[tuple[str, bool, str | None, str | None]]:
    conn = store.connect()
    try:
        return [(r.status, r.pushed, r.outcome, r.outcome_rule) for r in store.load_stops(conn, 0)]
    finally:
        conn.close()


def test_a_complaint_after_a_let_through_stop_marks_it_premature(tmp_path: Path) -> None:
    repo = project(tmp_path)
    path = transcript(repo, TESTED, "Fixed the parser; the tests pass.")
    code, out, _ = hook("stop", stop_payload(repo, path))
    assert code == 0 and not (out or {}).get("decision")
    assert "outcome" not in read_verdict(repo)

    hook("user-prompt-submit", prompt_payload(repo, "hm, it still doesn't work on empty input"))

    outcome = read_verdict(repo)["outcome"]
    assert (outcome["name"], outcome["rule"], outcome["by"]) == (
        "premature",
        "reports_broken",
        "next_prompt",
    )
    assert stored_outcomes() == [("complete", False, "premature", "reports_broken")]
    record = json.loads((repo / read_verdict(repo)["record"]).read_text(encoding="utf-8"))
    assert record["verdict"]["outcome"]["name"] == "premature"  # outlives the next verdict


def test_a_later_prompt_never_regrades_the_stop(tmp_path: Path) -> None:
    repo = project(tmp_path)
    hook("stop", stop_payload(repo, transcript(repo, TESTED, "Fixed the parser.")))
    hook("user-prompt-submit", prompt_payload(repo, "merci ! maintenant ajoute un README"))
    hook("user-prompt-submit", prompt_payload(repo, "ça ne marche toujours pas"))
    assert read_verdict(repo)["outcome"]["name"] == "fine"
    assert [row[2] for row in stored_outcomes()] == ["fine"]


def test_a_push_that_leads_to_a_failing_test_paid_off(tmp_path: Path) -> None:
    repo = project(tmp_path)
    first = transcript(repo, UNTESTED, "Fixed the parser.", name="t1")
    _, out, _ = hook("stop", stop_payload(repo, first))
    assert (out or {}).get("decision") == "block"
    failing = {"bash": "python -m pytest -q", "output": "1 failed in 0.02s", "exit": 1}
    second = transcript(repo, [*UNTESTED, failing], "The test fails; the fix is wrong.", "t2")
    hook("stop", stop_payload(repo, second, stop_hook_active=True))

    push = read_verdict(repo)["push_outcome"]
    assert (push["name"], push["rule"], push["by"]) == ("block_paid_off", "new_check", "next_stop")
    assert stored_outcomes()[0][1:] == (True, "block_paid_off", "new_check")


def test_a_push_followed_by_nothing_new_was_wasted(tmp_path: Path) -> None:
    repo = project(tmp_path)
    path = transcript(repo, UNTESTED, "Fixed the parser.")
    hook("stop", stop_payload(repo, path))
    hook("stop", stop_payload(repo, path, stop_hook_active=True))
    assert read_verdict(repo)["push_outcome"]["name"] == "block_wasted"


def test_a_reply_to_the_agents_question_is_answered(tmp_path: Path) -> None:
    repo = project(tmp_path)
    steps = [{"read": "src/parser.py"}]
    path = transcript(repo, steps, "Should empty input return None or raise ValueError?")
    hook("stop", stop_payload(repo, path))
    hook("user-prompt-submit", prompt_payload(repo, "None, please"))
    assert read_verdict(repo)["outcome"]["name"] == "answered"


def test_a_slash_command_as_the_next_prompt_grades_the_stop_unknown(tmp_path: Path) -> None:
    repo = project(tmp_path)
    hook("stop", stop_payload(repo, transcript(repo, TESTED, "Fixed the parser; tests pass.")))

    code, _, _ = hook("user-prompt-submit", prompt_payload(repo, "/review parser.py"))
    assert code == 0
    outcome = read_verdict(repo)["outcome"]
    assert (outcome["name"], outcome["rule"]) == ("unknown", "not_typed")

    hook("user-prompt-submit", prompt_payload(repo, "it still fails on empty input"))
    assert read_verdict(repo)["outcome"]["name"] == "unknown"  # graded once
    assert stored_outcomes() == [("complete", False, "unknown", "not_typed")]
