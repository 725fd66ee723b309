"""The judge's verdict: the strict JSON shape a judge reply must have (pure).

A judge reply is one JSON object: `status`, `confidence`, `evidence` (tests, build,
pr), `remaining_work`, `needs_user_action`, `stuck`, `alternate_approach`. Anything
else raises VerdictError saying what is wrong, for the repair request.
"""

from __future__ import annotations

from typing import Any

from reflection_core.reading.reply import ReplyError, extract_json

STATUSES = ("complete", "incomplete", "blocked", "waiting_for_user")
RESULTS = ("passed", "failed", "not_run", "unknown")


class VerdictError(ValueError):
    """A model reply that is not the required JSON shape; the message says what is wrong."""


def _expect(value: Any, kind: type | tuple[type, ...], where: str) -> Any:
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise VerdictError(f"{where} must be a number")
    if not isinstance(value, kind):
        raise VerdictError(f"{where} has the wrong type ({type(value).__name__})")
    return value


def _str_list(value: Any, where: str) -> list[str]:
    items = _expect(value, list, where)
    if not all(isinstance(item, str) for item in items):
        raise VerdictError(f"{where} must be a list of strings")
    return [item.strip()[:300] for item in items if item.strip()]


def _opt_str(value: Any, where: str) -> str | None:
    return None if value is None else str(_expect(value, str, where))[:500]


def _results(value: Any, where: str) -> str:
    if value not in RESULTS:
        raise VerdictError(f"{where} must be one of {', '.join(RESULTS)}")
    return str(value)


def parse_verdict(text: str) -> dict[str, Any]:
    """A judge reply checked against the strict verdict shape (unknown keys dropped)."""
    try:
        decoded = extract_json(text)
    except ReplyError as exc:
        raise VerdictError(str(exc)) from None
    data = _expect(decoded, dict, "the reply")
    if data.get("status") not in STATUSES:
        raise VerdictError(f"status must be one of {', '.join(STATUSES)}")
    confidence = float(_expect(data.get("confidence"), (int, float), "confidence"))
    if not 0.0 <= confidence <= 1.0:
        raise VerdictError("confidence must be between 0.0 and 1.0")
    ev = _expect(data.get("evidence"), dict, "evidence")
    tests = _expect(ev.get("tests"), dict, "evidence.tests")
    build = _expect(ev.get("build"), dict, "evidence.build")
    pr = _expect(ev.get("pr"), dict, "evidence.pr")
    return {
        "status": data["status"],
        "confidence": confidence,
        "evidence": {
            "tests": {
                "ran": _expect(tests.get("ran"), bool, "evidence.tests.ran"),
                "results": _results(tests.get("results"), "evidence.tests.results"),
                "ran_after_changes": _expect(
                    tests.get("ran_after_changes"), bool, "evidence.tests.ran_after_changes"
                ),
                "commands": _str_list(tests.get("commands", []), "evidence.tests.commands"),
            },
            "build": {
                "ran": _expect(build.get("ran"), bool, "evidence.build.ran"),
                "results": _results(build.get("results"), "evidence.build.results"),
            },
            "pr": {
                "created": _expect(pr.get("created"), bool, "evidence.pr.created"),
                "url": _opt_str(pr.get("url"), "evidence.pr.url"),
                "ci_status": _opt_str(pr.get("ci_status"), "evidence.pr.ci_status"),
            },
        },
        "remaining_work": _str_list(data.get("remaining_work", []), "remaining_work")[:5],
        "needs_user_action": _expect(data.get("needs_user_action"), bool, "needs_user_action"),
        "stuck": _expect(data.get("stuck"), bool, "stuck"),
        "alternate_approach": _opt_str(data.get("alternate_approach"), "alternate_approach"),
    }
