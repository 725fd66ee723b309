"""Host handlers for Stop, SubagentStop and SessionEnd: gather, decide, record, answer.

The imperative shell around `decide`: it reads the transcript, loads attempt
state, asks the optional sources (ledger, repo signals, configured gates, judge),
writes the verdict, and renders the host answer. Every stop leaves a verdict,
including complete ones, budget-exhausted ones and ones we failed to judge.
Failure policy: open. A bug here never blocks or wedges a session.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from reflection_core import paths
from reflection_core.hosts.events import (
    SILENT,
    HostEvent,
    Reply,
    SessionEnded,
    StopRequested,
    SubagentStopped,
)
from reflection_core.hosts.loader import open_workspace, read_session, workdir
from reflection_core.session.model import Session


def _event_name(event: StopRequested) -> str:
    return "subagent-stop" if isinstance(event, SubagentStopped) else "stop"


def handle_stop(event: StopRequested) -> Reply:
    """Stop and SubagentStop: judge the turn, record the verdict, push on or let go."""
    from reflection_core import config
    from reflection_core.session import attempts, verdict
    from reflection_core.session.analyze import gather_context
    from reflection_core.session.decide import decide

    name = _event_name(event)
    session_id = event.session_id
    prompt_id = event.prompt_id
    try:
        workspace = open_workspace(event)
    except config.ConfigError as exc:
        message = f"reflection: configuration error, stop not judged: {exc}"
        _write_skipped(_record_root(event), event, "ConfigError", str(exc))
        return Reply(message=message, stderr=message)
    root, cfg = workspace.record_root, workspace.config

    transcript = event.transcript.path if event.transcript else None
    session = read_session(event, last_assistant_message=event.last_assistant_message)
    session_key = paths.safe_session_id(session_id)
    if isinstance(event, SubagentStopped):
        session_key += "-sub-" + paths.safe_session_id(event.agent_id or "agent")
    from reflection_core.session.task import task_id

    tid = task_id(session)
    conn = attempts.connect()
    try:
        state = attempts.load(conn, session_key, tid)
        ctx, sources = gather_context(
            root,
            cfg,
            permission_mode=event.permission_mode,
            attempts=state,
            event=name,
        )
        ctx.background_tasks = list(event.background_tasks)
        sources["gate_run"] = _optional(
            _run_configured_gates, root, cfg, f"{session_key}:{tid}", ctx, session
        )
        decision = decide(session, ctx)
        if decision.should_block:
            attempts.record_block(conn, session_key, tid, decision.patterns, decision.attempt)
        elif decision.complete:
            attempts.reset(conn, session_key, tid)
    finally:
        conn.close()

    try:
        verdict.write_verdict(
            root,
            decision,
            session,
            extra={
                "session_id": session_id,
                "prompt_id": prompt_id,
                "event": name,
                "keep_records": cfg.get("verdict.keep_records"),
                "compact": name == "stop",
                "hook": {
                    "host": event.host,
                    "permission_mode": event.permission_mode,
                    "stop_hook_active": event.stop_hook_active,
                    "transcript_path": transcript,
                },
                "sources": sources,
            },
        )
    except OSError as exc:
        # The decision stands even when the verdict cannot be written (read-only
        # tree, full disk); the user is told, the agent is still pushed if needed.
        reply = render_decision(decision)
        warning = f"reflection: could not write the verdict ({type(exc).__name__}: {exc})"
        message = ((reply.message or "") + " " + warning).strip()
        return Reply(block=reply.block, message=message, stderr=warning)
    if decision.complete or decision.budget_exhausted or decision.status == "blocked":
        gate_lesson = (sources.get("gate_run") or {}).get("lesson")
        _optional(_store_lesson, root, session.task_prompt, decision, state, gate_lesson, cfg)
    return render_decision(decision)


def render_decision(decision: Any) -> Reply:
    """The answer: block with the feedback, or a one-line status when not complete."""
    if decision.should_block and decision.feedback:
        return Reply(block=decision.feedback)
    if decision.complete:
        return SILENT
    if decision.budget_exhausted:
        line = f"reflection: stopped incomplete after {decision.attempt} attempt(s). " + (
            decision.status_report or ""
        )
    elif getattr(decision, "note", None):
        line = f"reflection: {decision.status}: {decision.note}"
    elif decision.status == "waiting_for_user":
        line = "reflection: waiting for you" + (
            f" ({decision.human_actions[0]})" if decision.human_actions else "."
        )
    elif decision.status == "blocked" and decision.next_actions:
        line = f"reflection: blocked ({decision.stop_category}). {decision.next_actions[0]}"
    else:
        line = f"reflection: {decision.status} ({decision.stop_category})."
        if decision.missing:
            line += " Open: " + "; ".join(decision.missing[:3])
    return Reply(message=line[:500])


def _optional(step: Callable[..., Any], *args: Any) -> Any:
    """Run an optional extra; its failure is noted in the record, never fatal to the verdict."""
    try:
        return step(*args)
    except Exception as exc:
        return {"error": type(exc).__name__, "detail": str(exc)[:300]}


def _run_configured_gates(
    root: Path, cfg: Any, task_key: str, ctx: Any, session: Session
) -> dict[str, Any] | None:
    """`stop.run_gates`: run the configured gates; failures become decision gaps."""
    if not cfg.get("stop.run_gates") or not cfg.get("gates"):
        return None
    try:
        from reflection_core.verify.runner import run_for_stop
    except ImportError as exc:
        return {"available": False, "reason": type(exc).__name__}
    from reflection_core.session.decide import ExternalGateFailure

    outcome = run_for_stop(
        root, cfg, task_key, last_agent_output=session.last_assistant_message or None
    )
    for failure in getattr(outcome, "failures", None) or []:
        text = failure if isinstance(failure, str) else str(getattr(failure, "message", ""))
        name = getattr(failure, "name", None) or text.partition(":")[0] or "gate"
        ctx.gate_failures.append(
            ExternalGateFailure(
                name=str(name),
                message=text.strip()[:300],
                escalate=bool(getattr(failure, "escalate", False)),
            )
        )
    if getattr(outcome, "escalate", False):
        question = getattr(outcome, "question", None)
        ctx.gate_escalation = str(question or "the configured gates keep failing")[:1000]
    return {
        "ok": bool(getattr(outcome, "ok", False)),
        "failures": [f.message for f in ctx.gate_failures],
        "escalation": ctx.gate_escalation,
        "fixed": list(getattr(outcome, "fixed", []) or []),
        "events": list(getattr(outcome, "events", []) or [])[:50],
        "lesson": dict(getattr(outcome, "lesson", None) or {}),
        "last_agent_output": getattr(outcome, "last_agent_output", None),
    }


def _store_lesson(
    root: Path,
    task_prompt: str,
    decision: Any,
    state: Any,
    gate_lesson: dict[str, Any] | None,
    cfg: Any,
) -> None:
    """A finished or escalated task: remember what it was pushed on and which fixes worked."""
    if not cfg.get("memory.enabled") or not task_prompt:
        return
    try:
        from reflection_core.verify.memory import store_lesson
    except ImportError:
        return
    gate_lesson = gate_lesson or {}
    failed = {p.split(":")[0] for p in state.sent_patterns}
    failed.update(str(g) for g in gate_lesson.get("failed_gates") or [])
    store_lesson(
        root,
        task_prompt,
        {
            "outcome": "complete" if decision.complete else "escalated",
            "missing": decision.missing,
            "failed_gates": sorted(failed),
            "fixes_worked": list(gate_lesson.get("fixes_worked") or []),
            "note": decision.status_report,
        },
        cfg,
    )


def _record_root(event: HostEvent) -> Path:
    where = workdir(event)
    return paths.find_repo_root(where) or where


def _write_skipped(root: Path, event: StopRequested, error_class: str, detail: str) -> Path | None:
    from reflection_core.session import verdict

    name = _event_name(event)
    fields = verdict.skipped_fields(f"{error_class}: {detail}"[:300], max_attempts=0)
    written, _ = verdict.write_fields(
        root,
        fields,
        session_id=event.session_id,
        prompt_id=event.prompt_id,
        event=name,
        record_body={"error": {"class": error_class, "detail": detail[:2000]}},
        compact=name == "stop",
    )
    return written


def on_internal_error(event: HostEvent, exc: BaseException) -> None:
    """Fail-open evidence: a `skipped` verdict naming the error class."""
    if isinstance(event, StopRequested):
        _write_skipped(_record_root(event), event, type(exc).__name__, str(exc))


def handle_session_end(event: SessionEnded) -> Reply:
    """Mark the session's last verdict final; never re-read a (possibly huge) transcript."""
    from reflection_core.session import verdict

    root = _record_root(event)
    session_id = event.session_id
    reason = event.reason
    if verdict.finalize_verdict(root, session_id, reason=reason) is None:
        fields = verdict.skipped_fields("the session ended before any Stop was judged", 0)
        verdict.write_fields(
            root,
            fields,
            session_id=session_id,
            prompt_id=None,
            event="session-end",
            record_body={"end_reason": reason},
        )
        verdict.finalize_verdict(root, session_id, reason=reason)
    return SILENT
