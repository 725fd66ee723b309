"""Text output of an eval run: a table per suite, failing cases, a progress bar."""

from __future__ import annotations

import json
from typing import IO, Any

from reflection_core.evals.runner import SuiteReport

HEADLINE = (
    ("accuracy", "accuracy"),
    ("false_complete_rate", "false-complete rate"),
    ("false_incomplete_rate", "false-incomplete rate"),
    ("severity_accuracy", "severity accuracy"),
    ("requires_human_action_accuracy", "human-action accuracy"),
    ("stop_category_accuracy", "stop-category accuracy"),
    ("agent_score_accuracy", "agent-score in bounds"),
    ("kind_accuracy", "nudge-kind accuracy"),
    ("needs_clarification_accuracy", "needs-clarification accuracy"),
    ("precision", "  precision"),
    ("recall", "  recall"),
    ("f1", "  F1"),
    ("missed_clarification_rate", "missed-clarification rate"),
    ("false_alarm_rate", "false-alarm rate"),
    ("continuation_accuracy", "continuation accuracy"),
    ("classification_accuracy", "classification accuracy"),
    ("atomic_accuracy", "atomic accuracy"),
    ("smells_accuracy", "smells exact-set accuracy"),
    ("smells_precision", "  smell precision"),
    ("smells_recall", "  smell recall"),
)
MAX_SHOWN = 160


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{100 * value:5.1f}%"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def render_report(report: SuiteReport) -> str:
    """One suite: headline metrics, thresholds, per-category accuracy, every failing case."""
    lines = [f"== {report.suite} ({report.target}) — {report.status.upper()}"]
    if report.status == "error" and not report.results:
        lines.append(f"   ERROR: {report.error}")
        lines.append("   (an unavailable core API counts as a failed suite, not a pass)")
        return "\n".join(lines)
    if report.error:
        lines.append(f"   ERROR: {report.error}")
    m = report.metrics
    lines.append(
        f"   cases {m['cases']}   passed {m['passed']}   failed {m['failed']}   "
        f"errors {m['errors']}   ({report.seconds:.1f}s)"
    )
    width = max(len(label) for _, label in HEADLINE)
    for key, label in HEADLINE:
        if key in m:
            line = f"   {label:<{width}}  {_pct(m[key])}"
            if key == "accuracy" and m.get("accuracy_ci95"):
                low, high = m["accuracy_ci95"]
                line += f"   (95% CI {100 * low:.0f}-{100 * high:.0f}%)"
            lines.append(line)
    if report.flips is not None:
        for kind in ("broken", "fixed", "new"):
            if report.flips[kind]:
                lines.append(f"   {kind} since baseline: {', '.join(report.flips[kind])}")
    if report.checks:
        lines.append("   thresholds:")
        lines.extend(f"     {'ok  ' if c.ok else 'FAIL'} {c.describe()}" for c in report.checks)
    for name, pairs in m.get("confusions", {}).items():
        shown = ", ".join(f"{pair} x{count}" for pair, count in pairs.items())
        lines.append(f"   wrong {name}: {shown}")
    lines.append("   per category:")
    for name, cat in m["per_category"].items():
        lines.append(
            f"     {name:<28} {cat['passed']:>3}/{cat['cases']:<3} {_pct(cat['accuracy'])}"
        )
    failures = report.failures
    if failures and all(r.status == "error" for r in report.results):
        lines.append(f"   every case raised the error above ({len(failures)} cases)")
    elif failures:
        lines.append(f"   failing cases ({len(failures)}):")
        for result in failures:
            lines.append(f"     {result.case_id} [{result.category}]")
            if result.error:
                lines.append(f"       error: {result.error}")
            for mismatch in result.mismatches:
                lines.append(
                    f"       {mismatch.field}: expected {_short(mismatch.expected)}, "
                    f"got {_short(mismatch.got)}"
                )
    return "\n".join(lines)


def render_summary(reports: list[SuiteReport]) -> str:
    """The closing table: one line per suite."""
    lines = ["", f"{'suite':<18} {'status':<6} {'cases':>5} {'accuracy':>9}  key metric"]
    for report in reports:
        m = report.metrics
        key_metric = ""
        if "false_complete_rate" in m:
            key_metric = f"false-complete {_pct(m['false_complete_rate']).strip()}"
        elif "f1" in m:
            key_metric = f"needs-clarification F1 {_pct(m['f1']).strip()}"
        lines.append(
            f"{report.suite:<18} {report.status.upper():<6} {m.get('cases', 0):>5} "
            f"{_pct(m.get('accuracy')):>9}  {key_metric}"
        )
    passed = sum(1 for r in reports if r.status == "pass")
    lines.append(f"{passed} of {len(reports)} suites met their thresholds")
    return "\n".join(lines)


class ProgressBar:
    """A one-line bar on stderr, redrawn in place; only used on a TTY."""

    def __init__(self, stream: IO[str], width: int = 30) -> None:
        self.stream = stream
        self.width = width

    def __call__(self, suite: str, done: int, total: int) -> None:
        filled = int(self.width * done / total) if total else self.width
        bar = "#" * filled + "-" * (self.width - filled)
        end = "\n" if done >= total else ""
        self.stream.write(f"\r{suite:<16} [{bar}] {done}/{total}{end}")
        self.stream.flush()
