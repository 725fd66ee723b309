from __future__ import annotations

import json

import pytest

from reflection_core.consumers.codex_notify import (
    CodexPayloadError,
    parse_turn,
    payload_verdict,
    session_of,
)


def payload(**fields: object) -> str:
    data: dict[str, object] = {
        "type": "agent-turn-complete",
        "thread-id": "thr-1",
        "turn-id": "turn-7",
        "cwd": "/repo",
        "client": "codex-tui",
        "input-messages": ["add a --json flag", "also update the README"],
        "last-assistant-message": "Added the flag and updated the README.",
    }
    data.update(fields)
    return json.dumps({k: v for k, v in data.items() if v is not ...})


def verdict_for(message: str) -> dict:
    turn = parse_turn(payload(**{"last-assistant-message": message}))
    assert turn is not None
    return payload_verdict(session_of(turn), max_attempts=3)


def test_valid_payload_becomes_a_session_with_the_last_prompt_as_the_task() -> None:
    turn = parse_turn(payload())
    assert turn is not None and turn.thread_id == "thr-1" and turn.turn_id == "turn-7"
    session = session_of(turn)
    assert session.task_prompt == "also update the README"
    assert session.earlier_prompts == ["add a --json flag"]
    assert session.last_assistant_message == "Added the flag and updated the README."


def test_a_finished_final_message_is_complete_with_no_gate_evidence() -> None:
    verdict = verdict_for("Added the flag and updated the README.")
    assert verdict["status"] == "complete" and verdict["complete"] is True
    assert verdict["gates"] == {} and verdict["severity"] == "NONE"


def test_a_question_waits_for_the_user() -> None:
    verdict = verdict_for("Should the flag be --json or --format=json?")
    assert verdict["status"] == "waiting_for_user"
    assert verdict["requires_human_action"] is True
    assert verdict["next_actions"] == ["answer: Should the flag be --json or --format=json?"]


def test_announced_remaining_work_is_incomplete() -> None:
    verdict = verdict_for("Did the parser.\n\nNext steps:\n- wire the CLI")
    assert verdict["status"] == "incomplete" and verdict["stop_category"] == "summary_drift_stop"
    assert verdict["missing"] == ["announced but not done: Next steps:"]


def test_a_missing_final_message_is_incomplete() -> None:
    verdict = verdict_for("")
    assert verdict["complete"] is False
    assert verdict["missing"] == ["the turn ended without a final message"]


def test_other_notification_types_are_ignored() -> None:
    assert parse_turn(json.dumps({"type": "approval-requested"})) is None


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected an object"),
        (json.dumps({"thread-id": "x"}), "'type' is missing"),
        (payload(**{"thread-id": ...}), "'thread-id' is missing"),
        (payload(cwd=...), "'cwd' is missing"),
    ],
)
def test_malformed_payloads_name_the_problem(argument: str, message: str) -> None:
    with pytest.raises(CodexPayloadError, match=message):
        parse_turn(argument)


def test_wrongly_typed_optional_fields_are_ignored_with_a_warning() -> None:
    turn = parse_turn(payload(**{"input-messages": "oops", "last-assistant-message": 42}))
    assert turn is not None
    assert turn.input_messages == [] and turn.last_assistant_message == ""
    assert len(turn.warnings) == 2
