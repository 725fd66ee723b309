"""`reflection stats`' numbers: counts per repository and host, the estimate, the export."""

from __future__ import annotations

import json

from reflection_core.outcomes import store
from reflection_core.outcomes.stats import DAY, LedgerRun, Window, estimate, export, summarize
from reflection_core.outcomes.store import StopRow

T0 = 1_767_225_600.0  # 2026-01-01 00:00 UTC


def stop(day: int, repo: str = "/w/shop", host: str = "claude", **kw: object) -> StopRow:
    fields: dict[str, object] = dict(
        created_at=T0 + day * DAY + 3600,
        verdict_at="",
        repo=repo,
        host=host,
        session_key="s",
        status="complete",
        pushed=False,
        held=False,
        asked=False,
        tool_calls=3,
    )
    fields.update(kw)
    return StopRow(**fields)  # type: ignore[arg-type]


def test_precision_and_recall_come_from_pushes_and_premature_stops() -> None:
    got = estimate({"block_paid_off": 3, "block_wasted": 1, "premature": 3})
    assert got == {
        "precision": 0.75,
        "recall": 0.5,
        "pushes_paid_off": 3,
        "pushes_wasted": 1,
        "premature_let_through": 3,
    }
    assert estimate({})["precision"] is None


def test_summary_counts_per_repository_and_host_over_the_window() -> None:
    stops = [
        stop(0, pushed=True, status="incomplete", outcome="block_paid_off", rules=("tests",)),
        stop(1, outcome="premature", outcome_rule="reports_broken"),
        stop(1, held=True, status="waiting_for_user", outcome="answered"),
        stop(2, repo="/w/blog", host="codex", outcome="fine"),
        stop(-5),  # before the window
    ]
    flags = [(T0 + 3600, "/w/shop", "claude")]
    runs = [LedgerRun(T0 + 7200, "/w/shop", True), LedgerRun(T0 + DAY + 60, "/w/shop", False)]
    summary = summarize(stops, flags, runs, Window(T0, T0 + 3 * DAY - 1))

    assert summary["window"]["days"] == ["2026-01-01", "2026-01-02", "2026-01-03"]
    assert (summary["stops"], summary["pushes"], summary["holds"]) == (4, 1, 1)
    assert summary["outcomes"] == {
        "premature": 1,
        "fine": 1,
        "answered": 1,
        "block_paid_off": 1,
        "block_wasted": 0,
        "unknown": 0,
    }
    blog, shop = summary["repositories"]
    assert (blog["repository"], blog["host"], blog["stops"]) == ("blog", "codex", 1)
    assert shop["daily"]["stops"] == [1, 2, 0]
    assert shop["daily"]["tests_passed"] == [1, 0, 0]
    assert shop["daily"]["tests_failed"] == [0, 1, 0]
    assert shop["prompts_flagged"] == 1
    assert shop["estimate"]["recall"] == 0.5


def test_the_export_carries_counts_and_rule_ids_but_no_repository_or_text() -> None:
    stops = [stop(0, repo="/home/ann/secret-project", pushed=True, rules=("tests_after_edit",))]
    summary = summarize(stops, [], [], Window(T0, T0 + DAY))
    pooled = json.dumps(export(summary))
    assert "secret-project" not in pooled and "/home" not in pooled
    assert json.loads(pooled)["rules"] == {"tests_after_edit": 1}
    assert json.loads(pooled)["hosts"] == {"claude": 1}


def test_outcome_times_are_written_like_the_verdicts_utc_with_milliseconds() -> None:
    assert store.now_iso(0.5) == "1970-01-01T00:00:00.500Z"
    assert store.now_iso(1_764_000_000.25) == "2025-11-24T16:00:00.250Z"
