"""The promptfoo cross-check: both runs must judge every case alike."""

from __future__ import annotations

import json
from pathlib import Path

from reflection_core.evals.promptfoo_check import (
    disagreements,
    main,
    promptfoo_outcomes,
    runner_outcomes,
)

PROMPTFOO = {
    "results": {
        "results": [
            {"vars": {"suite": "judge", "case_id": "judge-001"}, "success": True},
            {"vars": {"suite": "judge", "case_id": "judge-002"}, "success": False},
        ]
    }
}
RUNNER = {
    "suites": [
        {
            "suite": "judge",
            "cases": [{"id": "judge-001", "status": "pass"}, {"id": "judge-002", "status": "fail"}],
        }
    ]
}


def test_outcomes_are_keyed_by_suite_and_case() -> None:
    assert promptfoo_outcomes(PROMPTFOO) == {"judge/judge-001": True, "judge/judge-002": False}
    assert runner_outcomes(RUNNER) == {"judge/judge-001": True, "judge/judge-002": False}


def test_a_case_judged_differently_or_run_once_is_a_disagreement() -> None:
    runner = {"judge/judge-001": False, "judge/judge-003": True}
    promptfoo = {"judge/judge-001": True, "judge/judge-002": True}
    assert disagreements(promptfoo, runner) == [
        "judge/judge-001: promptfoo pass, reflection eval fail",
        "judge/judge-002: only in the promptfoo run",
        "judge/judge-003: only in the reflection eval run",
    ]


def test_main_exits_0_when_runs_agree_and_1_when_they_do_not(tmp_path: Path, capsys) -> None:
    pf = tmp_path / "pf.json"
    rf = tmp_path / "rf.json"
    pf.write_text(json.dumps(PROMPTFOO), encoding="utf-8")
    rf.write_text(json.dumps(RUNNER), encoding="utf-8")
    assert main([str(pf), str(rf)]) == 0
    assert "1 of 2 cases pass; 2 agree" in capsys.readouterr().out
    RUNNER["suites"][0]["cases"][1]["status"] = "pass"
    rf.write_text(json.dumps(RUNNER), encoding="utf-8")
    assert main([str(pf), str(rf)]) == 1
    assert "judge/judge-002: promptfoo fail, reflection eval pass" in capsys.readouterr().out


def test_unreadable_results_are_a_usage_error(tmp_path: Path) -> None:
    broken = tmp_path / "pf.json"
    broken.write_text("{truncated", encoding="utf-8")
    assert main([str(broken), str(broken)]) == 2
    assert main([]) == 2
