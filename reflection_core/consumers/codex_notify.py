"""`reflection hook codex-notify '<json>'`: Codex CLI's legacy `notify` program.

Codex runs it after every agent turn with one JSON argument (`type:
agent-turn-complete`, `thread-id`, `turn-id`, `cwd`, `input-messages`,
`last-assistant-message`). There is no transcript, so the verdict comes from what
the payload carries: the final message and the prompts of the turn. When the
Codex Stop hook (hooks.json) already wrote a fresh verdict for this thread — from
the full rollout, with evidence — that verdict wins. Then the notifiers run.

Whatever arrives, this exits 0: a notify program must never break Codex. Bad
input gets one clear stderr line and a line in `.reflection/notify.log`.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflection_core import paths
from reflection_core.session.model import AssistantText, Session

TURN_COMPLETE = "agent-turn-complete"
SOURCE = "codex-notify"
REJECTED_KEEP_CHARS = 16_000


class CodexPayloadError(ValueError):
    """The notify argument is not a usable agent-turn-complete payload."""


@dataclass(frozen=True)
class CodexTurn:
    """The fields of one agent-turn-complete payload that a verdict can use."""

    thread_id: str
    turn_id: str
    cwd: str
    input_messages: list[str] = field(default_factory=list)
    last_assistant_message: str = ""
    warnings: list[str] = field(default_factory=list)


def parse_turn(argument: str) -> CodexTurn | None:
    """The turn in Codex's JSON argument; None for other notification types."""
    try:
        data = json.loads(argument)
    except json.JSONDecodeError as exc:
        raise CodexPayloadError(
            f"argument is not valid JSON: {exc.msg} at char {exc.pos}"
        ) from None
    if not isinstance(data, dict):
        raise CodexPayloadError(f"argument is JSON {type(data).__name__}, expected an object")
    kind = data.get("type")
    if kind != TURN_COMPLETE:
        if kind is None:
            raise CodexPayloadError(f"'type' is missing (expected {TURN_COMPLETE!r})")
        return None
    warnings: list[str] = []
    thread_id = _text(data, "thread-id", warnings)
    if not thread_id:
        raise CodexPayloadError("'thread-id' is missing; cannot tell which session this is")
    cwd = _text(data, "cwd", warnings)
    if not cwd:
        raise CodexPayloadError("'cwd' is missing; cannot tell which repository this is")
    raw_inputs = data.get("input-messages")
    if raw_inputs is None:
        inputs: list[str] = []
    elif isinstance(raw_inputs, list):
        inputs = [m for m in raw_inputs if isinstance(m, str)]
        if len(inputs) != len(raw_inputs):
            warnings.append("non-text input messages were ignored")
    else:
        inputs = []
        warnings.append("'input-messages' is not a list; ignored")
    return CodexTurn(
        thread_id=thread_id,
        turn_id=_text(data, "turn-id", warnings),
        cwd=cwd,
        input_messages=inputs,
        last_assistant_message=_text(data, "last-assistant-message", warnings),
        warnings=warnings,
    )


def _text(data: dict[str, Any], key: str, warnings: list[str]) -> str:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value or ""
    warnings.append(f"{key!r} is {type(value).__name__}, expected a string; ignored")
    return ""


def session_of(turn: CodexTurn) -> Session:
    """A Session holding only what the payload carries: prompts and the final message."""
    prompts = turn.input_messages
    return Session(
        session_id=turn.thread_id,
        task_prompt=prompts[-1] if prompts else "",
        earlier_prompts=prompts[:-1],
        events=[AssistantText(index=0, text=turn.last_assistant_message)]
        if turn.last_assistant_message
        else [],
        last_assistant_message=turn.last_assistant_message,
        cwd=turn.cwd,
        warnings=["no transcript: Codex notify carries only the final message", *turn.warnings],
    )


def payload_verdict(session: Session, *, max_attempts: int) -> dict[str, Any]:
    """The verdict fields from the final message alone (no transcript, so no gate evidence).

    Reads the last message the way the stop hook does (questions for the user,
    work announced as remaining, "I'm stuck", asking the user to do tool work).
    """
    message = session.last_assistant_message.strip()
    category, missing, actions, human = _read_final_message(message)
    complete = category == "complete"
    status = {
        "complete": "complete",
        "waiting_for_user": "waiting_for_user",
        "genuinely_stuck": "blocked",
    }.get(category, "incomplete")
    return {
        "status": status,
        "complete": complete,
        "severity": "NONE" if complete else ("LOW" if human else "MEDIUM"),
        "stop_category": category,
        "missing": missing,
        "next_actions": actions,
        "requires_human_action": human,
        "attempt": 0,
        "max_attempts": max_attempts,
        "gates": {},
    }


def _read_final_message(message: str) -> tuple[str, list[str], list[str], bool]:
    """(stop category, missing, next actions, requires a human) from the final message."""
    if not message:
        return "working", ["the turn ended without a final message"], [], False
    from reflection_core.session.categories import categorize
    from reflection_core.session.human_action import assess_requests

    assessment = categorize(message, {}, assess_requests(message))
    category = assessment.category
    if category == "waiting_for_user":
        asks = assessment.questions or ["the agent is waiting for your answer"]
        return category, [], [f"answer: {q}" for q in asks[:3]], True
    if category == "genuinely_stuck":
        return category, [assessment.stuck or "the agent reports it is stuck"], [], True
    if category == "summary_drift_stop":
        return category, [f"announced but not done: {d}" for d in assessment.drift[:3]], [], False
    if category == "tool_available_punt":
        return category, [f"asked you to do: {p}" for p in assessment.punts[:3]], [], False
    return category, [], [], False


def write_payload_verdict(
    root: Path, fields: dict[str, Any], turn: CodexTurn, *, keep_records: int
) -> Path:
    """The compact verdict and its full record, through the stop hook's own verdict writer."""
    from reflection_core.session.verdict import write_fields

    body = {
        "source": SOURCE,
        "decision": fields,
        "turn_id": turn.turn_id,
        "input_messages": [m[:2000] for m in turn.input_messages[-5:]],
        "last_assistant_message": turn.last_assistant_message[:8000],
        "warnings": turn.warnings,
    }
    verdict_path, _ = write_fields(
        root,
        fields,
        session_id=turn.thread_id,
        prompt_id=None,
        event="stop",
        record_body=body,
        keep_records=keep_records,
    )
    return verdict_path


def main(argv: Sequence[str]) -> int:
    """Entry for `reflection hook codex-notify '<json>'`; always 0."""
    try:
        return _run(list(argv))
    except Exception as exc:  # never break Codex over our own bug
        _warn(f"internal error ({type(exc).__name__}: {str(exc)[:200]}); nothing was sent")
        return 0


def _run(argv: list[str]) -> int:
    started = time.monotonic()  # the run's deadline counts from here, as `notify`'s does
    if not argv:
        _warn("expected one JSON argument (Codex passes it); got none")
        return 0
    argument = _valid_text(argv[-1])
    try:
        turn = parse_turn(argument)
    except CodexPayloadError as exc:
        _warn(f"{exc}; the payload was kept in {_keep_rejected(argument, str(exc))}")
        return 0
    if turn is None:
        return 0  # another notification type: nothing to judge
    for warning in turn.warnings:
        _warn(warning)
    root = paths.find_repo_root(turn.cwd)
    if root is None:
        _warn(f"{turn.cwd} is not inside a git repository; no verdict written, nothing sent")
        return 0
    from reflection_core import config as config_mod
    from reflection_core.consumers import notify, verdict_files

    try:
        cfg = config_mod.load(root)
    except config_mod.ConfigError as exc:
        _warn(f"configuration error, nothing sent: {exc}")
        return 0
    stale = float(cfg.get("verdict.stale_seconds"))
    verdict = _fresh_hook_verdict(root, turn.thread_id, stale)
    if verdict is None:
        fields = payload_verdict(session_of(turn), max_attempts=int(cfg.get("stop.max_attempts")))
        path = write_payload_verdict(
            root, fields, turn, keep_records=int(cfg.get("verdict.keep_records"))
        )
        verdict = verdict_files.read_verdict(path).data
    notify_cfg = {**cfg.get("notify"), "terminal": False}  # Codex has no terminal channel
    budget = notify.run_budget(cfg.get("hooks.deadline_seconds"))
    outcome = notify.notify_for_verdict(
        root,
        verdict,
        notify_cfg,
        last_message=turn.last_assistant_message,
        deadline=started + budget if budget > 0 else None,
    )
    for failed in (d for d in outcome.deliveries if not d.ok):
        _warn(f"delivery to {failed.channel} failed: {failed.error}")
    notify.end_if_abandoned(outcome)
    return 0


def _fresh_hook_verdict(root: Path, thread_id: str, stale: float) -> dict[str, Any] | None:
    """A verdict the Codex Stop hook wrote for this thread moments ago (it saw the rollout)."""
    from reflection_core.consumers import verdict_files

    try:
        found = verdict_files.latest_verdict(root, thread_id)
    except verdict_files.VerdictError:
        return None
    if found is None or not verdict_files.is_fresh(found, now=time.time(), stale_seconds=stale):
        return None
    return None if _written_by_us(root, found.data) else found.data


def _written_by_us(root: Path, verdict: dict[str, Any]) -> bool:
    """True when the verdict's record says an earlier notify run wrote it from a payload."""
    record = verdict.get("record")
    if not isinstance(record, str):
        return False
    try:
        data = json.loads((root / record).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("source") == SOURCE


def _valid_text(argument: str) -> str:
    """argv decoded by the OS keeps invalid UTF-8 as surrogates; make them U+FFFD."""
    return argument.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _keep_rejected(argument: str, problem: str) -> Path:
    """Keep a payload we could not use (redacted, capped) for diagnosis; return where."""
    from reflection_core.atomic import append_line
    from reflection_core.redact import redact

    target = paths.state_dir() / "codex-notify-rejected.jsonl"
    entry = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "problem": problem}
    entry["argument"] = redact(argument[:REJECTED_KEEP_CHARS])
    try:
        append_line(target, json.dumps(entry, ensure_ascii=False))
    except OSError:
        pass
    return target


def _warn(message: str) -> None:
    sys.stderr.write(f"reflection codex-notify: {message}\n")
    sys.stderr.flush()
