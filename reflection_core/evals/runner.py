"""Run suites: every case through its target, then metrics and thresholds.

A case whose target raises is an `error` case (it counts against accuracy and
is listed); a target that cannot be imported makes the suite `error`. Only a
suite whose thresholds all hold is `pass`.
"""

from __future__ import annotations

import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflection_core.evals import targets
from reflection_core.evals.metrics import (
    CaseResult,
    ThresholdCheck,
    check_thresholds,
    compare,
    suite_metrics,
)
from reflection_core.evals.suite import Suite

Progress = Callable[[str, int, int], None]
"""(suite name, cases done, cases total)."""


@dataclass
class SuiteReport:
    suite: str
    path: str
    target: str
    status: str  # pass | fail | error
    results: list[CaseResult] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    checks: list[ThresholdCheck] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    flips: dict[str, list[str]] | None = None  # vs a baseline run: fixed, broken, new

    @property
    def failures(self) -> list[CaseResult]:
        return [r for r in self.results if r.status != "pass"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "path": self.path,
            "target": self.target,
            "status": self.status,
            "error": self.error,
            "seconds": round(self.seconds, 3),
            "flips": self.flips,
            "metrics": self.metrics,
            "thresholds": [
                {
                    "key": c.key,
                    "metric": c.metric,
                    "limit": c.limit,
                    "value": c.value,
                    "ok": c.ok,
                }
                for c in self.checks
            ],
            "failures": [r.to_dict() for r in self.failures],
            "cases": [r.to_dict() for r in self.results],
        }


def run_case(target: targets.Target, case: Any, workdir: Path, suite_dir: Path) -> CaseResult:
    """One case: its result compared with what it expects; exceptions become `error`."""
    try:
        got = target(case, workdir, suite_dir)
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        error = f"{type(exc).__name__}: {exc} ({Path(where.filename).name}:{where.lineno})"
        return CaseResult(case.id, case.category, case.expect, None, error=error, note=case.note)
    return CaseResult(
        case.id, case.category, case.expect, got, compare(case.expect, got), note=case.note
    )


def run_suite(
    suite: Suite,
    *,
    progress: Progress | None = None,
    threshold_overrides: dict[str, float] | None = None,
    case_ids: set[str] | None = None,
    keep_dir: Path | None = None,
) -> SuiteReport:
    """All (or the selected) cases of one suite, scored against its thresholds.

    `keep_dir`: write the built transcripts to `<keep_dir>/<suite>/` and keep them,
    so a failing case can be replayed with `reflection analyze`.
    """
    started = time.monotonic()
    report = SuiteReport(suite.name, str(suite.path), suite.target, "error")
    try:
        target = targets.resolve(suite.target)
    except targets.TargetUnavailable as exc:
        report.error = str(exc)
        report.metrics = {"cases": len(suite.cases)}
        report.seconds = time.monotonic() - started
        return report
    cases = [c for c in suite.cases if case_ids is None or c.id in case_ids]
    with tempfile.TemporaryDirectory(prefix=f"reflection-eval-{suite.name}-") as scratch:
        workdir = Path(scratch) if keep_dir is None else keep_dir / suite.name
        workdir.mkdir(parents=True, exist_ok=True)
        for done, case in enumerate(cases, start=1):
            report.results.append(run_case(target, case, workdir, suite.path.parent))
            if progress is not None:
                progress(suite.name, done, len(cases))
    report.metrics = suite_metrics(report.results)
    if report.results and all(r.status == "error" for r in report.results):
        report.error = f"every case raised; first: {report.results[0].error}"
        report.seconds = time.monotonic() - started
        return report
    if case_ids is not None:
        # A hand-picked subset says nothing about suite-wide rates: every case must pass.
        ok = all(r.status == "pass" for r in report.results)
        report.status = "pass" if ok else "fail"
    else:
        thresholds = {**suite.thresholds, **(threshold_overrides or {})}
        report.checks = check_thresholds(report.metrics, thresholds)
        report.status = "pass" if all(c.ok for c in report.checks) else "fail"
    report.seconds = time.monotonic() - started
    return report
