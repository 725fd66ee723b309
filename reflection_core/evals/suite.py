"""Eval suite files: `evals/<name>.yaml`, one labelled case per entry.

A suite names its target (what part of the core answers a case), the
thresholds the run must meet, and its cases. Loading validates everything up
front so a typo in a suite is a usage error naming the file and the case, never
a silently skipped case.

    suite: judge
    target: session            # session | compaction | prompt
    thresholds: {accuracy: 0.85, false_complete_max: 0.05}
    cases:
      - id: judge-001
        category: true_complete/bug_fix
        task: "..."            # inputs: whatever the target reads
        steps: [...]
        final: "..."
        expect: {complete: true, severity: NONE}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflection_core.lazyre import lazy

TARGETS = ("session", "compaction", "prompt")
SUITE_NAMES = ("judge", "stop", "post-compaction", "agent", "prompts")
_RESERVED = {"id", "category", "expect", "note"}
_ID = lazy(r"^[A-Za-z0-9_.-]+$")


class SuiteError(ValueError):
    """A suite file that cannot be used; the message names the file and the case."""


@dataclass(frozen=True)
class Case:
    """One labelled example: inputs for the target and the outputs expected of it."""

    id: str
    category: str
    inputs: dict[str, Any]
    expect: dict[str, Any]
    note: str = ""

    @property
    def top_category(self) -> str:
        """`true_incomplete/failed_tests` -> `true_incomplete` (the table groups by this)."""
        return self.category.split("/", 1)[0]


@dataclass(frozen=True)
class Suite:
    name: str
    target: str
    path: Path
    thresholds: dict[str, float]
    cases: list[Case] = field(default_factory=list)
    description: str = ""
    min_cases: int = 0


def load_suite(path: Path) -> Suite:
    """Parse and validate one suite file."""
    import yaml

    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SuiteError(f"{path}: cannot read: {exc.strerror}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{path}: invalid YAML: {exc}") from None
    return parse_suite(raw, path)


def parse_suite(raw: Any, path: Path) -> Suite:
    """Validate an already-parsed suite document (pure)."""
    where = str(path)
    if not isinstance(raw, dict):
        raise SuiteError(f"{where}: expected a mapping with 'suite', 'target' and 'cases'")
    name = raw.get("suite")
    if not isinstance(name, str) or not name:
        raise SuiteError(f"{where}: 'suite' must name the suite")
    target = raw.get("target")
    if target not in TARGETS:
        raise SuiteError(f"{where}: 'target' must be one of {', '.join(TARGETS)}")
    cases_raw = raw.get("cases")
    if not isinstance(cases_raw, list) or not cases_raw:
        raise SuiteError(f"{where}: 'cases' must be a non-empty list")
    cases = [_parse_case(item, index, where) for index, item in enumerate(cases_raw)]
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise SuiteError(f"{where}: duplicate case id {case.id!r}")
        seen.add(case.id)
    min_cases = raw.get("min_cases", 0)
    if isinstance(min_cases, bool) or not isinstance(min_cases, int) or min_cases < 0:
        raise SuiteError(f"{where}: 'min_cases' must be a non-negative integer")
    if len(cases) < min_cases:
        raise SuiteError(f"{where}: {len(cases)} cases, fewer than min_cases {min_cases}")
    thresholds = _parse_thresholds(raw.get("thresholds") or {}, where, cases)
    description = raw.get("description") or ""
    return Suite(
        name=name,
        target=target,
        path=path,
        thresholds=thresholds,
        cases=cases,
        description=str(description).strip(),
        min_cases=min_cases,
    )


def _parse_case(item: Any, index: int, where: str) -> Case:
    if not isinstance(item, dict):
        raise SuiteError(f"{where}: case {index + 1}: expected a mapping")
    case_id = item.get("id")
    if not isinstance(case_id, str) or not _ID.match(case_id):
        raise SuiteError(f"{where}: case {index + 1}: 'id' must be letters, digits, . _ -")
    label = f"{where}: {case_id}"
    category = item.get("category")
    if not isinstance(category, str) or not category:
        raise SuiteError(f"{label}: 'category' is required")
    expect = item.get("expect")
    if not isinstance(expect, dict) or not expect:
        raise SuiteError(f"{label}: 'expect' must be a non-empty mapping")
    for key, value in expect.items():
        if isinstance(value, dict) and not (set(value) <= {"min", "max"} and value):
            raise SuiteError(f"{label}: expect.{key}: a mapping must be {{min: N, max: N}}")
    inputs = {k: v for k, v in item.items() if k not in _RESERVED}
    return Case(
        id=case_id,
        category=category,
        inputs=inputs,
        expect=dict(expect),
        note=str(item.get("note") or ""),
    )


def known_metrics(cases: list[Case]) -> set[str]:
    """Metric names a run of these cases produces (threshold keys must name one)."""
    fields: set[str] = set()
    for case in cases:
        fields.update(case.expect)
    names = {"accuracy"} | {f"{f}_accuracy" for f in fields}
    if "complete" in fields:
        names |= {"false_complete_rate", "false_incomplete_rate"}
    if "needs_clarification" in fields:
        names |= {"missed_clarification_rate", "false_alarm_rate", "precision", "recall", "f1"}
    return names


def _parse_thresholds(raw: Any, where: str, cases: list[Case]) -> dict[str, float]:
    """`{accuracy: 0.85, false_complete_max: 0.05}`: `*_max` caps a rate, others are floors."""
    if not isinstance(raw, dict):
        raise SuiteError(f"{where}: 'thresholds' must be a mapping of metric to number")
    known = known_metrics(cases)
    out: dict[str, float] = {}
    for key, value in raw.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise SuiteError(f"{where}: thresholds.{key}: expected a number from 0 to 1")
        metric = threshold_metric(str(key))
        if metric not in known:
            raise SuiteError(
                f"{where}: thresholds.{key}: no metric {metric!r} in this suite; "
                f"known: {', '.join(sorted(known))}"
            )
        out[str(key)] = float(value)
    return out


def threshold_metric(key: str) -> str:
    """The metric a threshold key bounds: `false_complete_max` -> `false_complete_rate`."""
    if key.endswith("_max"):
        return key[: -len("_max")] + "_rate"
    return key


def find_suites(evals_dir: Path, names: list[str] | tuple[str, ...] = ()) -> list[Path]:
    """Suite files to run: the named ones (name or path), else every suite in `evals_dir`."""
    if not names:
        found = [evals_dir / f"{n}.yaml" for n in SUITE_NAMES if (evals_dir / f"{n}.yaml").exists()]
        if not found:
            raise SuiteError(f"{evals_dir}: no suite files ({', '.join(SUITE_NAMES)}.yaml)")
        return found
    out = []
    for name in names:
        candidate = Path(name)
        if candidate.suffix in (".yaml", ".yml") and candidate.exists():
            out.append(candidate)
            continue
        named = evals_dir / f"{name}.yaml"
        if not named.exists():
            known = ", ".join(n for n in SUITE_NAMES if (evals_dir / f"{n}.yaml").exists())
            raise SuiteError(f"unknown suite {name!r}; known in {evals_dir}: {known or 'none'}")
        out.append(named)
    return out
