"""Eval output: tables name what failed and why; the progress bar redraws one line."""

from __future__ import annotations

import io
from pathlib import Path

from reflection_core.evals.metrics import CaseResult, check_thresholds, compare, suite_metrics
from reflection_core.evals.render import ProgressBar, render_report, render_summary
from reflection_core.evals.runner import SuiteReport


def _report(results: list[CaseResult], thresholds: dict[str, float]) -> SuiteReport:
    metrics = suite_metrics(results)
    checks = check_thresholds(metrics, thresholds)
    status = "pass" if all(c.ok for c in checks) else "fail"
    return SuiteReport(
        "judge", str(Path("evals/judge.yaml")), "session", status, results, metrics, checks
    )


def _case(case_id: str, expected: dict, got: dict) -> CaseResult:
    return CaseResult(case_id, "true_incomplete/x", expected, got, compare(expected, got))


def test_table_shows_rates_thresholds_categories_and_each_wrong_field() -> None:
    report = _report(
        [
            _case(
                "j-1",
                {"complete": False, "severity": "HIGH"},
                {"complete": True, "severity": "NONE"},
            ),
            _case("j-2", {"complete": False}, {"complete": False}),
        ],
        {"false_complete_max": 0.0},
    )
    text = render_report(report)
    assert "== judge (session) — FAIL" in text
    assert "false-complete rate            50.0%" in text
    assert "FAIL false_complete_rate 0.500 <= 0.000" in text
    assert "true_incomplete" in text and "1/2" in text
    assert "j-1 [true_incomplete/x]" in text
    assert "complete: expected true, got true" not in text
    assert "complete: expected false, got true" in text
    assert "severity: expected HIGH, got NONE" in text


def test_a_suite_whose_api_is_missing_says_it_is_not_a_pass() -> None:
    report = SuiteReport("stop", "evals/stop.yaml", "session", "error", error="no module")
    report.metrics = {"cases": 18}
    text = render_report(report)
    assert "ERROR: no module" in text
    assert "not a pass" in text
    summary = render_summary([report])
    assert "stop" in summary and "ERROR" in summary and "18" in summary
    assert "0 of 1 suites met their thresholds" in summary


def test_every_case_erroring_is_reported_once_not_per_case() -> None:
    results = [
        CaseResult(f"c-{i}", "x", {"complete": True}, None, error="ImportError: gone")
        for i in range(5)
    ]
    report = _report(results, {})
    report.status, report.error = "error", "every case raised; first: ImportError: gone"
    text = render_report(report)
    assert text.count("ImportError: gone") == 1
    assert "every case raised the error above (5 cases)" in text


def test_progress_bar_redraws_in_place_and_ends_the_line_when_done() -> None:
    stream = io.StringIO()
    bar = ProgressBar(stream, width=10)
    bar("judge", 1, 4)
    bar("judge", 4, 4)
    out = stream.getvalue()
    assert out.startswith("\rjudge")
    assert "[##--------] 1/4" in out
    assert out.endswith("[##########] 4/4\n")
