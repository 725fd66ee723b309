"""promptfoo test generator: one test per eval case, expectations from the suite files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

EVALS_DIR = Path(__file__).resolve().parent


def generate_tests(config: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every case of the named suites (config `suites`, env REFLECTION_EVAL_SUITES, or all)."""
    from reflection_core.evals.suite import find_suites, load_suite

    names = (config or {}).get("suites") or os.environ.get("REFLECTION_EVAL_SUITES", "").split()
    tests = []
    for path in find_suites(EVALS_DIR, list(names)):
        suite = load_suite(path)
        for case in suite.cases:
            tests.append(
                {
                    "description": f"{suite.name}/{case.id} [{case.category}]",
                    "vars": {"suite": suite.name, "case_id": case.id, "expect": case.expect},
                    "metadata": {"suite": suite.name, "category": case.top_category},
                }
            )
    return tests
