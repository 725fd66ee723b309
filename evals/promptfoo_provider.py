"""promptfoo provider: runs one eval case through reflection_core, returns its fields as JSON.

The prompt is only a label; the case is named by the test's vars (`suite`,
`case_id`) and answered by the same targets `reflection eval` uses, so promptfoo
and the runner can never disagree about what a case means.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

EVALS_DIR = Path(__file__).resolve().parent


def call_api(prompt: str, options: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    from reflection_core.evals import targets
    from reflection_core.evals.suite import load_suite

    variables = context.get("vars") or {}
    suite = load_suite(EVALS_DIR / f"{variables['suite']}.yaml")
    case = next((c for c in suite.cases if c.id == variables["case_id"]), None)
    if case is None:
        return {"error": f"no case {variables['case_id']!r} in suite {suite.name!r}"}
    try:
        run = targets.resolve(suite.target)
        with tempfile.TemporaryDirectory(prefix="reflection-promptfoo-") as scratch:
            got = run(case, Path(scratch), EVALS_DIR)
    except Exception as exc:  # reported as a promptfoo error, like the runner's error cases
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"output": json.dumps(got, sort_keys=True, default=str)}
