"""Scoring eval results: per-case comparison, suite metrics, threshold checks. Pure.

The costly error of a completion judge is calling unfinished work complete, so
`complete` gets its own confusion rates; the prompt suite's equivalent is letting
an ambiguous prompt through (`missed_clarification_rate`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from reflection_core.evals.suite import threshold_metric


@dataclass(frozen=True)
class Mismatch:
    field: str
    expected: Any
    got: Any


@dataclass
class CaseResult:
    """What one case produced; `status` is pass, fail or error (the target raised)."""

    case_id: str
    category: str
    expected: dict[str, Any]
    got: dict[str, Any] | None
    mismatches: list[Mismatch] = field(default_factory=list)
    error: str | None = None
    note: str = ""

    @property
    def status(self) -> str:
        if self.error is not None:
            return "error"
        return "fail" if self.mismatches else "pass"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.case_id,
            "category": self.category,
            "status": self.status,
            "expected": self.expected,
            "got": self.got,
            "mismatches": [
                {"field": m.field, "expected": m.expected, "got": m.got} for m in self.mismatches
            ],
            "error": self.error,
            "note": self.note,
        }


def value_matches(expected: Any, got: Any) -> bool:
    """Equality, except `{min, max}` bounds for numbers and lists compared as sets."""
    if isinstance(expected, dict):
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return False
        low, high = expected.get("min"), expected.get("max")
        return (low is None or got >= low) and (high is None or got <= high)
    if isinstance(expected, list):
        return isinstance(got, (list, tuple)) and set(map(str, expected)) == set(map(str, got))
    if isinstance(expected, float) or isinstance(got, float):
        return isinstance(got, (int, float)) and abs(float(got) - float(expected)) < 1e-9
    return bool(expected == got)


def compare(expected: dict[str, Any], got: dict[str, Any]) -> list[Mismatch]:
    """Every expected field the result gets wrong (a field it lacks is wrong too)."""
    return [
        Mismatch(key, want, got.get(key))
        for key, want in expected.items()
        if not value_matches(want, got.get(key))
    ]


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def suite_metrics(results: list[CaseResult]) -> dict[str, Any]:
    """Accuracy overall, per field, per category; confusion rates of the decisive booleans."""
    total = len(results)
    passed = sum(1 for r in results if r.status == "pass")
    metrics: dict[str, Any] = {
        "cases": total,
        "passed": passed,
        "failed": sum(1 for r in results if r.status == "fail"),
        "errors": sum(1 for r in results if r.status == "error"),
        "accuracy": _ratio(passed, total),
        "accuracy_ci95": wilson_interval(passed, total),
    }
    fields = sorted({key for r in results for key in r.expected})
    for name in fields:
        relevant = [r for r in results if name in r.expected]
        right = sum(1 for r in relevant if r.got is not None and _field_ok(r, name))
        metrics[f"{name}_accuracy"] = _ratio(right, len(relevant))
    for name in fields:
        if any(isinstance(r.expected.get(name), list) for r in results):
            metrics.update(_set_scores(results, name))
    if "complete" in fields:
        metrics.update(
            _confusion(
                results, "complete", wrongly_true="false_complete", wrongly_false="false_incomplete"
            )
        )
    if "needs_clarification" in fields:
        metrics.update(
            _confusion(
                results,
                "needs_clarification",
                wrongly_true="false_alarm",
                wrongly_false="missed_clarification",
            )
        )
        metrics.update(_precision_recall(results, "needs_clarification"))
    metrics["confusions"] = label_confusions(results)
    metrics["per_category"] = _per_category(results, top_level=True)
    metrics["per_subcategory"] = _per_category(results, top_level=False)
    return metrics


def wilson_interval(successes: int, total: int, z: float = 1.96) -> list[float] | None:
    """95% Wilson score interval of a proportion: how much of a change is noise.

    With 37 cases one case moves accuracy by 2.7 points; the interval shows
    whether a rule change moved accuracy by more than the suite can resolve.
    """
    if total == 0:
        return None
    p = successes / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def flipped_cases(
    previous: dict[str, Any], current: list[CaseResult], suite: str
) -> dict[str, list[str]]:
    """Cases whose outcome changed since a previous `--report` JSON: fixed and broken."""
    before = {
        case["id"]: case.get("status") == "pass"
        for entry in previous.get("suites", [])
        if entry.get("suite") == suite
        for case in entry.get("cases", [])
    }
    fixed = [
        r.case_id
        for r in current
        if r.case_id in before and not before[r.case_id] and r.status == "pass"
    ]
    broken = [
        r.case_id
        for r in current
        if r.case_id in before and before[r.case_id] and r.status != "pass"
    ]
    new = [r.case_id for r in current if r.case_id not in before]
    return {"fixed": fixed, "broken": broken, "new": new}


CATEGORICAL_FIELDS = ("stop_category", "kind", "severity", "classification", "status")


def label_confusions(results: list[CaseResult]) -> dict[str, dict[str, int]]:
    """Wrong labels by field, `expected -> got` with counts: which rule to look at first."""
    out: dict[str, dict[str, int]] = {}
    for r in results:
        for m in r.mismatches:
            if m.field in CATEGORICAL_FIELDS:
                pair = f"{m.expected} -> {m.got}"
                out.setdefault(m.field, {})
                out[m.field][pair] = out[m.field].get(pair, 0) + 1
    return {
        name: dict(sorted(pairs.items(), key=lambda item: (-item[1], item[0])))
        for name, pairs in sorted(out.items())
    }


def _field_ok(result: CaseResult, name: str) -> bool:
    return all(m.field != name for m in result.mismatches)


def _judged(results: list[CaseResult], name: str) -> list[tuple[bool, bool]]:
    """(expected, got) pairs of a boolean field over cases that produced a value."""
    pairs = []
    for r in results:
        if name in r.expected and r.got is not None and isinstance(r.got.get(name), bool):
            pairs.append((bool(r.expected[name]), bool(r.got[name])))
    return pairs


def _confusion(
    results: list[CaseResult], name: str, *, wrongly_true: str, wrongly_false: str
) -> dict[str, Any]:
    """Rates of `name` judged true when expected false, and judged false when expected true."""
    pairs = _judged(results, name)
    negatives = [got for want, got in pairs if not want]
    positives = [got for want, got in pairs if want]
    return {
        f"{wrongly_true}_rate": _ratio(sum(negatives), len(negatives)),
        f"{wrongly_false}_rate": _ratio(sum(1 for g in positives if not g), len(positives)),
        f"{name}_counts": {
            "expected_true": len(positives),
            "expected_false": len(negatives),
            wrongly_true: sum(negatives),
            wrongly_false: sum(1 for g in positives if not g),
        },
    }


def _precision_recall(results: list[CaseResult], name: str) -> dict[str, Any]:
    pairs = _judged(results, name)
    tp = sum(1 for want, got in pairs if want and got)
    fp = sum(1 for want, got in pairs if not want and got)
    fn = sum(1 for want, got in pairs if want and not got)
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    f1 = (
        2 * precision * recall / (precision + recall)
        if precision is not None and recall is not None and precision + recall
        else None
    )
    return {"precision": precision, "recall": recall, "f1": f1}


def _set_scores(results: list[CaseResult], name: str) -> dict[str, Any]:
    """Micro precision/recall of a list field (e.g. smells), item by item."""
    tp = fp = fn = 0
    for r in results:
        if name not in r.expected or r.got is None:
            continue
        want = set(map(str, r.expected[name] or []))
        got = set(map(str, r.got.get(name) or []))
        tp += len(want & got)
        fp += len(got - want)
        fn += len(want - got)
    return {f"{name}_precision": _ratio(tp, tp + fp), f"{name}_recall": _ratio(tp, tp + fn)}


def _per_category(results: list[CaseResult], *, top_level: bool) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        key = r.category.split("/", 1)[0] if top_level else r.category
        groups[key].append(r)
    return {
        key: {
            "cases": len(members),
            "passed": sum(1 for m in members if m.status == "pass"),
            "accuracy": _ratio(sum(1 for m in members if m.status == "pass"), len(members)),
        }
        for key, members in sorted(groups.items())
    }


@dataclass(frozen=True)
class ThresholdCheck:
    key: str
    metric: str
    limit: float
    value: float | None
    ok: bool

    def describe(self) -> str:
        shown = "n/a" if self.value is None else f"{self.value:.3f}"
        op = "<=" if self.key.endswith("_max") else ">="
        return f"{self.metric} {shown} {op} {self.limit:.3f}" + ("" if self.ok else "  FAILED")


def check_thresholds(metrics: dict[str, Any], thresholds: dict[str, float]) -> list[ThresholdCheck]:
    """Each threshold against the metrics; a metric with no data (n/a) does not fail."""
    checks = []
    for key, limit in thresholds.items():
        metric = threshold_metric(key)
        value = metrics.get(metric)
        if value is None:
            ok = True
        elif key.endswith("_max"):
            ok = value <= limit + 1e-12
        else:
            ok = value >= limit - 1e-12
        checks.append(ThresholdCheck(key, metric, limit, value, ok))
    return checks
