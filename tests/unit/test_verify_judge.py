"""Judge verdict parsing, evidence overrides, voting and the shipped prompt file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reflection_core.verify.judge_evidence import apply_evidence, evidence_facts
from reflection_core.verify.judge_schema import VerdictError, parse_verdict
from reflection_core.verify.prompts import JUDGE_SYSTEM
from reflection_core.verify.voting import aggregate, majority_status

REPO = Path(__file__).resolve().parents[2]


def reply(status: str = "complete", **over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "status": status,
        "confidence": 0.8,
        "evidence": {
            "tests": {"ran": True, "results": "passed", "ran_after_changes": True, "commands": []},
            "build": {"ran": False, "results": "not_run"},
            "pr": {"created": True, "url": "https://example.com/pr/1", "ci_status": "passing"},
        },
        "remaining_work": [],
        "needs_user_action": False,
        "stuck": False,
        "alternate_approach": None,
    }
    data.update(over)
    return data


def test_fenced_json_with_prose_parses() -> None:
    text = "Here you go:\n```json\n" + json.dumps(reply()) + "\n```"
    assert parse_verdict(text)["status"] == "complete"


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"status": "done"}, "status must be one of"),
        ({"confidence": 1.5}, "between 0.0 and 1.0"),
        ({"confidence": True}, "must be a number"),
        ({"evidence": {}}, "evidence.tests"),
        ({"stuck": "no"}, "stuck"),
        ({"remaining_work": "everything"}, "remaining_work"),
    ],
)
def test_wrong_shapes_are_rejected_with_the_reason(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(VerdictError, match=message):
        parse_verdict(json.dumps(reply(**bad)))


def test_non_json_is_rejected() -> None:
    with pytest.raises(VerdictError, match="no JSON object"):
        parse_verdict("The task is complete.")


def test_model_cannot_mark_untested_work_complete() -> None:
    facts = evidence_facts({}, {"tests": {"ran": False, "ran_after_changes": False}})
    verdict, notes = apply_evidence(parse_verdict(json.dumps(reply())), facts)
    assert verdict["status"] == "incomplete"
    assert verdict["evidence"]["tests"]["ran"] is False
    assert verdict["remaining_work"][0].startswith("Run the tests")
    assert notes == [
        "model claimed tests ran; no test run was recorded",
        "model marked untested work complete; status set to incomplete",
    ]


def test_false_pr_and_build_claims_are_overridden() -> None:
    facts = evidence_facts(
        {}, {"pr": {"created": False}, "build": {"ran": True, "passed": False}, "tests": {}}
    )
    parsed = parse_verdict(json.dumps(reply()))
    parsed["evidence"]["build"] = {"ran": True, "results": "passed"}
    verdict, notes = apply_evidence(parsed, facts)
    assert verdict["evidence"]["pr"] == {"created": False, "url": None, "ci_status": None}
    assert verdict["evidence"]["build"]["results"] == "failed"
    assert len(notes) == 2


def test_unsatisfied_required_gates_from_the_decision_block_completion() -> None:
    decision = {"gates": {"push": {"required": True, "satisfied": False}}}
    facts = evidence_facts(
        decision, {"tests": {"ran": True, "passed": True, "ran_after_changes": True}}
    )
    verdict, _ = apply_evidence(parse_verdict(json.dumps(reply())), facts)
    assert verdict["status"] == "incomplete"
    assert "push" in verdict["remaining_work"][-1]


def test_consistent_claims_are_left_alone() -> None:
    facts = evidence_facts({}, {"tests": {"ran": True, "passed": True, "ran_after_changes": True}})
    verdict, notes = apply_evidence(parse_verdict(json.dumps(reply())), facts)
    assert verdict["status"] == "complete" and notes == []


def test_majority_and_conservative_ties() -> None:
    assert majority_status(["complete", "complete", "incomplete"]) == "complete"
    assert majority_status(["complete", "incomplete"]) == "incomplete"
    assert majority_status(["complete", "blocked"]) == "blocked"


def test_aggregate_records_spread() -> None:
    votes = [reply(confidence=0.9), reply(confidence=0.5), reply("incomplete", confidence=0.4)]
    merged = aggregate(votes)
    assert merged["status"] == "complete"
    assert merged["confidence"] == pytest.approx(0.7)
    assert merged["spread"]["agreement"] == pytest.approx(0.667)
    assert merged["spread"]["confidence_stdev"] > 0


def test_eval_prompt_file_is_the_shipped_judge_prompt() -> None:
    shipped = (REPO / "evals" / "prompts" / "judge.md").read_text(encoding="utf-8")
    assert shipped == JUDGE_SYSTEM
