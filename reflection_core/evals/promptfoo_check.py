"""Cross-check a promptfoo run of the suites against `reflection eval --report`.

Both run the same cases with the same expectations, so every case must pass or
fail in both; a disagreement means the provider, the JS assert or the runner
drifted. Thresholds stay with `reflection eval`: promptfoo's own pass rate is
reported, not gated.

    python -m reflection_core.evals.promptfoo_check PROMPTFOO_JSON RUNNER_JSON
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def promptfoo_outcomes(data: dict[str, Any]) -> dict[str, bool]:
    """`suite/case_id` -> passed, from promptfoo's `--output x.json`."""
    rows = data.get("results", {}).get("results", [])
    out: dict[str, bool] = {}
    for row in rows:
        variables = row.get("vars") or {}
        key = f"{variables.get('suite')}/{variables.get('case_id')}"
        out[key] = bool(row.get("success"))
    return out


def runner_outcomes(data: dict[str, Any]) -> dict[str, bool]:
    """`suite/case_id` -> passed, from `reflection eval --report x.json` (error suites skipped)."""
    out: dict[str, bool] = {}
    for suite in data.get("suites", []):
        for case in suite.get("cases", []):
            out[f"{suite['suite']}/{case['id']}"] = case.get("status") == "pass"
    return out


def disagreements(promptfoo: dict[str, bool], runner: dict[str, bool]) -> list[str]:
    """Cases judged differently, or run by only one of the two (sorted, human-readable)."""
    problems = []
    for key in sorted(set(promptfoo) | set(runner)):
        if key not in runner:
            problems.append(f"{key}: only in the promptfoo run")
        elif key not in promptfoo:
            problems.append(f"{key}: only in the reflection eval run")
        elif promptfoo[key] != runner[key]:
            pf = "pass" if promptfoo[key] else "fail"
            rf = "pass" if runner[key] else "fail"
            problems.append(f"{key}: promptfoo {pf}, reflection eval {rf}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m reflection_core.evals.promptfoo_check PROMPTFOO_JSON RUNNER_JSON")
        return 2
    try:
        promptfoo = promptfoo_outcomes(json.loads(Path(args[0]).read_text(encoding="utf-8")))
        runner = runner_outcomes(json.loads(Path(args[1]).read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        print(f"promptfoo check: cannot read results: {exc}")
        return 2
    problems = disagreements(promptfoo, runner)
    passing = sum(promptfoo.values())
    agree = sum(1 for key, ok in promptfoo.items() if runner.get(key) is ok)
    print(
        f"promptfoo: {passing} of {len(promptfoo)} cases pass; {agree} agree with reflection eval"
    )
    for problem in problems:
        print(f"  {problem}")
    return 1 if problems or not promptfoo else 0


if __name__ == "__main__":
    raise SystemExit(main())
