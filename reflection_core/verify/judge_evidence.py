"""Evidence wins over a judge: the facts a verdict must respect, and its corrections (pure).

`evidence_facts` gathers what the deterministic evidence and the decision's gates
prove; `apply_evidence` replaces every claim of a judge's verdict they contradict, so
a model can never mark untested work complete or a failed build passed.
"""

from __future__ import annotations

import json
from typing import Any


def evidence_facts(decision: dict[str, Any], evidence: dict[str, Any]) -> dict[str, Any]:
    """The deterministic facts the judge must respect, from evidence and the decision's gates.

    Reads `evidence.tests` {ran, passed, ran_after_changes, commands, required},
    `evidence.build` {ran, passed}, `evidence.pr` {created, url, ci_status, required}
    and, for what is missing there, `decision.gates.<name>` {required, satisfied}.
    """
    raw_gates = decision.get("gates")
    gates: dict[str, Any] = raw_gates if isinstance(raw_gates, dict) else {}
    tests = _as_dict(evidence.get("tests"))
    tests_gate = gates.get("tests") if isinstance(gates.get("tests"), dict) else None
    if tests_gate is not None:
        tests.setdefault("required", bool(tests_gate.get("required")))
        if tests_gate.get("satisfied") is True:
            tests.setdefault("ran", True)
            tests.setdefault("passed", True)
            tests.setdefault("ran_after_changes", True)
        elif tests_gate.get("required") and tests_gate.get("satisfied") is False:
            tests.setdefault("ran_after_changes", False)
    unsatisfied = sorted(
        name
        for name, gate in gates.items()
        if isinstance(gate, dict) and gate.get("required") and gate.get("satisfied") is False
    )
    return {
        "tests": tests,
        "build": _as_dict(evidence.get("build")),
        "pr": _as_dict(evidence.get("pr")),
        "unsatisfied_gates": unsatisfied,
    }


def _as_dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def apply_evidence(
    verdict: dict[str, Any], facts: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The verdict with every claim the facts contradict replaced; and what was overridden."""
    out = json.loads(json.dumps(verdict))
    notes: list[str] = []
    tests, claimed = facts["tests"], out["evidence"]["tests"]
    if tests.get("ran") is False and claimed["ran"]:
        claimed.update(ran=False, results="not_run", ran_after_changes=False)
        notes.append("model claimed tests ran; no test run was recorded")
    if tests.get("passed") is False and claimed["results"] == "passed":
        claimed["results"] = "failed"
        notes.append("model claimed tests passed; the recorded run failed")
    if tests.get("passed") is True and tests.get("ran") is not False:
        claimed.update(ran=True, results="passed")
    if tests.get("ran_after_changes") is False and claimed["ran_after_changes"]:
        claimed["ran_after_changes"] = False
        notes.append("model claimed tests ran after the latest change; they did not")
    if tests.get("ran_after_changes") is True:
        claimed["ran_after_changes"] = True
    if tests.get("commands"):
        claimed["commands"] = [str(c) for c in tests["commands"]][:10]
    build, claimed_build = facts["build"], out["evidence"]["build"]
    if build.get("passed") is False and claimed_build["results"] == "passed":
        claimed_build["results"] = "failed"
        notes.append("model claimed the build passed; it failed")
    if build.get("ran") is False and claimed_build["ran"]:
        claimed_build.update(ran=False, results="not_run")
        notes.append("model claimed a build ran; none was recorded")
    pr, claimed_pr = facts["pr"], out["evidence"]["pr"]
    if pr.get("created") is False and claimed_pr["created"]:
        claimed_pr.update(created=False, url=None, ci_status=None)
        notes.append("model claimed a pull request exists; none was found")
    if pr.get("ci_status") and pr.get("ci_status") != claimed_pr["ci_status"]:
        claimed_pr["ci_status"] = pr["ci_status"]
    if out["status"] == "complete":
        untested = tests.get("required", True) and (
            tests.get("ran_after_changes") is False or tests.get("passed") is False
        )
        if untested:
            out["status"] = "incomplete"
            notes.append("model marked untested work complete; status set to incomplete")
            out["remaining_work"] = [
                "Run the tests after the latest change and make them pass."
            ] + [w for w in out["remaining_work"] if "test" not in w.lower()]
        elif facts["unsatisfied_gates"]:
            out["status"] = "incomplete"
            names = ", ".join(facts["unsatisfied_gates"])
            notes.append(f"model marked the task complete; required gates unsatisfied: {names}")
            out["remaining_work"].append(f"Satisfy the required gates: {names}.")
    return out, notes
