"""Host handlers for Stop, SubagentStop and SessionEnd: gather, decide, record, answer.

The imperative shell around `decide`: it reads the transcript, loads attempt
state, asks the optional sources (ledger, repo signals, configured gates, judge),
writes the verdict, and renders the host answer. Every stop leaves a verdict,
including complete ones, budget-exhausted ones and ones we failed to judge.
Failure policy: open. A bug here never blocks or wedges a session.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from reflection_core import paths
from reflection_core.hosts.events import (
    SILENT,
    HostEvent,
    Reply,
    SessionEnded,
    StopFailed,
    StopRequested,
    SubagentStopped,
)
from reflection_core.hosts.loader import open_workspace, read_session
from reflection_core.records import replace
from reflection_core.session.model import Session
from reflection_core.state import sqlite3  # the engine alone: no `datetime` for its adapters

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _event_name(event: StopRequested) -> str:
    return "subagent-stop" if isinstance(event, SubagentStopped) else "stop"


def handle_stop(event: StopRequested) -> Reply:
    """Stop and SubagentStop: judge the turn, record the verdict, push on or let go."""
    from reflection_core import config

    name = _event_name(event)
    try:
        workspace = open_workspace(event)
    except config.ConfigError as exc:
        message = f"reflection: configuration error, stop not judged: {exc}"
        _write_skipped(paths.hook_root(event.cwd), event, "ConfigError", str(exc))
        return Reply(message=message, stderr=message)
    root, cfg = workspace.root, workspace.config
    unstored: list[str] = []  # what could not be stored; the decision never depends on it

    session = _open_session(event, int(cfg.get("stop.max_transcript_bytes")))
    if isinstance(session, str):
        return _skip_unreadable(root, event, session)
    from reflection_core.session import attempts

    # One connection to the state database for the attempt count and the stop's outcome.
    conn = _optional_state(attempts.connect, unstored)
    try:
        return _judge_and_answer(event, name, root, cfg, session, conn, unstored)
    finally:
        if conn is not None:
            conn.close()


def _judge_and_answer(
    event: StopRequested,
    name: str,
    root: Path | None,
    cfg: Any,
    session: Session,
    conn: sqlite3.Connection | None,
    unstored: list[str],
) -> Reply:
    """Decide, count the attempt, write the verdict and store the outcome: the answer."""
    session_key = paths.safe_session_id(event.session_id)
    if isinstance(event, SubagentStopped):
        session_key += "-sub-" + paths.safe_session_id(event.agent_id or "agent")
    decision, sources, state, counted = _judge(
        event, name, root, cfg, session, session_key, conn, unstored
    )
    notes = _unrun_notes(sources) + [f"reflection: could not store {what}" for what in unstored]
    answer = render_decision(decision)
    if counted == 0:
        # A concurrent stop of this task used the last attempt: this one lets go.
        answer = Reply(
            message=f"reflection: stopped incomplete; the {decision.max_attempts} attempt(s) "
            "were used by concurrent stops of this task; not blocking."
        )
    if unstored and decision.should_block and event.stop_hook_active:
        # Without stored attempts the budget cannot run out: push on at most once.
        answer = Reply(
            message="reflection: would push on again but cannot count attempts; "
            f"not blocking. {decision.feedback or ''}"[:500]
        )
    if root is None:
        # Outside a repository nothing is written (no .reflection/ in an arbitrary dir).
        return _with_notes(answer, notes, "not in a git repository")
    failure = _write_verdict(root, decision, session, event, name, cfg, sources)
    if failure is not None:
        # The decision stands even when the verdict cannot be written (read-only
        # tree, full disk); the user is told, the agent is still pushed if needed.
        return _with_notes(answer, [*notes, failure])
    from reflection_core.outcomes.hook import on_stop

    notes += on_stop(root, event, session, decision, conn)
    if decision.complete or decision.budget_exhausted or decision.status == "blocked":
        gate_lesson = (sources.get("gate_run") or {}).get("lesson")
        stored = _optional(
            _store_lesson, root, session.task_prompt, decision, state, gate_lesson, cfg, conn
        )
        notes += _unrun_notes({"lesson": stored})
    return _with_notes(answer, notes)


def _judge(
    event: StopRequested,
    name: str,
    root: Path | None,
    cfg: Any,
    session: Any,
    session_key: str,
    conn: sqlite3.Connection | None,
    unstored: list[str],
) -> tuple[Any, dict[str, Any], Any, int | None]:
    """Gather the context, decide, and count the attempt on `conn` (None: the state
    database could not be opened): the count stored, or 0 when concurrent stops used the
    budget (state that cannot be stored is named in `unstored`; the decision never
    depends on it)."""
    from reflection_core.session import attempts
    from reflection_core.session.analyze import gather_context
    from reflection_core.session.decide import decide
    from reflection_core.session.task import task_id

    tid = task_id(session)
    loaded = conn and _optional_state(lambda: attempts.load(conn, session_key, tid), unstored)
    state = loaded or attempts.AttemptState()
    ctx, sources = gather_context(
        root,
        cfg,
        permission_mode=event.permission_mode,
        attempts=state,
        event=name,
        session=session,
    )
    ctx.background_tasks = list(event.background_tasks)
    sources["gate_run"] = (
        _optional(_run_configured_gates, root, cfg, f"{session_key}:{tid}", ctx, session)
        if root is not None
        else None
    )
    decision = decide(session, ctx)
    counted: int | None = None
    if conn is not None and decision.should_block:
        counted = _optional_state(
            lambda: (
                attempts.record_block(
                    conn,
                    session_key,
                    tid,
                    decision.patterns,
                    decision.attempt,
                    decision.max_attempts,
                )
                or 0
            ),
            unstored,
        )
    elif conn is not None and decision.complete:
        _optional_state(lambda: attempts.reset(conn, session_key, tid), unstored)
    return decision, sources, state, counted


def _write_verdict(
    root: Path,
    decision: Any,
    session: Any,
    event: StopRequested,
    name: str,
    cfg: Any,
    sources: dict[str, Any],
) -> str | None:
    """Write the verdict files; the warning to show when they cannot be written."""
    from reflection_core.session import verdict

    try:
        verdict.write_verdict(
            root,
            decision,
            session,
            extra={
                "session_id": event.session_id,
                "prompt_id": event.prompt_id,
                "event": name,
                "keep_records": cfg.get("verdict.keep_records"),
                "compact": name == "stop",
                "hook": {
                    "host": event.host,
                    "permission_mode": event.permission_mode,
                    "stop_hook_active": event.stop_hook_active,
                    "transcript_path": event.transcript.path if event.transcript else None,
                },
                "sources": sources,
            },
        )
    except OSError as exc:
        return f"reflection: could not write the verdict ({type(exc).__name__}: {exc})"
    return None


def transcript_problem(event: StopRequested) -> str | None:
    """Why the transcript the host named cannot be judged, or None. Checked with `os.stat`
    before anything opens it: a FIFO, a device or a directory is never read."""
    handed = event.transcript
    if handed is None or handed.records is not None:
        return None  # no transcript named (judged from the last message) or handed inline
    if not handed.path:
        return "the payload's transcript_path is not a file path"
    try:
        mode = os.stat(handed.path).st_mode
    except (OSError, ValueError) as exc:
        return f"the transcript cannot be opened ({type(exc).__name__}): {handed.path[:200]}"
    if not stat.S_ISREG(mode):
        return f"the transcript is not a regular file: {handed.path[:200]}"
    return None


# The reader's warnings that mean the transcript was never read (session/transcript.py).
_UNREAD_WARNINGS = ("transcript not readable", "transcript read failed")


def _open_session(event: StopRequested, max_task_bytes: int) -> Session | str:
    """The session to judge, or why its transcript cannot be read (also when the file
    changed between the check and the read: the reader's own warning says so)."""
    problem = _transcript_written(event)
    if problem is not None:
        return problem
    session = _settled_session(event, max_task_bytes)
    failed = [w for w in session.warnings if w.startswith(_UNREAD_WARNINGS)]
    return failed[0] if failed else session


# The host can call the Stop hook before its transcript writer has caught up: a tool call
# the agent already answered shows no result yet, or the final message the host hands the
# hook is not written yet, and with it maybe the last tool calls. Re-read a few times,
# briefly, before judging (a failed command read as "no result" would let a false "done"
# through; a missing test run would push on work that was checked).
_SETTLE_READS = 8
_SETTLE_PAUSE_S = 0.1


def _settled_session(event: StopRequested, max_task_bytes: int) -> Session:
    """The session once the transcript has caught up with the host (bounded)."""
    import time

    for attempt in range(_SETTLE_READS):
        session = read_session(
            event,
            last_assistant_message=event.last_assistant_message,
            max_task_bytes=max_task_bytes,
        )
        if event.transcript is None or event.transcript.records is not None:
            return session  # handed inline: nothing to wait for
        if not _behind_the_host(session) or attempt == _SETTLE_READS - 1:
            return session
        time.sleep(_SETTLE_PAUSE_S)
    return session


def _transcript_written(event: StopRequested) -> str | None:
    """`transcript_problem`, after waiting briefly (bounded, as for a lagging result) for
    a transcript file the host names but has not created yet: on a session's first turn
    the Stop hook can start before the host's writer creates the file."""
    import time

    problem = transcript_problem(event)
    for _ in range(_SETTLE_READS - 1):
        path = event.transcript.path if event.transcript is not None else None
        if problem is None or not path or os.path.lexists(path):
            return problem
        time.sleep(_SETTLE_PAUSE_S)
        problem = transcript_problem(event)
    return problem


def _behind_the_host(session: Session) -> bool:
    """The transcript does not hold the host's final message yet, or shows a foreground
    tool call with no result yet."""
    if not session.final_message_written:
        return True
    return any(call.ok is None and not call.background for call in session.tool_calls)


def _skip_unreadable(root: Path | None, event: StopRequested, problem: str) -> Reply:
    """A stop whose transcript cannot be read is not judged: a `skipped` verdict, one
    visible line, never a block (there is nothing to push the agent on)."""
    line = f"reflection: stop not judged (skipped): {problem}"[:300]
    try:
        _write_skipped(root, event, "UnreadableTranscript", problem)
    except OSError as exc:
        line += f" (could not write the verdict: {type(exc).__name__})"
    return Reply(message=line, stderr=line)


def _optional_state(step: Callable[[], Any], unstored: list[str]) -> Any:
    """A step on the state database: its failure (full disk, a path under a file, a
    locked or corrupt database) is noted, and the stop is judged without it."""
    try:
        return step()
    except (OSError, sqlite3.Error) as exc:
        what = f"the stop attempts ({type(exc).__name__}: {str(exc)[:120]})"
        if what not in unstored:
            unstored.append(what)
        return None


def _unrun_notes(sources: dict[str, Any]) -> list[str]:
    """One line per optional check that did not run because of an error (our bug or
    its environment): a fail-open path must never hide it inside the record."""
    notes = []
    for name, value in sources.items():
        if not isinstance(value, dict):
            continue
        if "error" in value:
            notes.append(
                f"reflection: the {name} check did not run ({value['error']}: "
                f"{str(value.get('detail', ''))[:160]})"
            )
        elif value.get("available") is False and str(value.get("reason", "")).startswith(_OUR_BUGS):
            notes.append(f"reflection: the {name} check did not run ({value['reason']})"[:300])
        elif value.get("notice"):
            notes.append(str(value["notice"]))
    return notes


# Error classes that mean our own code is broken, not that a source is unavailable.
_OUR_BUGS = ("ImportError", "ModuleNotFoundError", "AttributeError", "NameError", "TypeError")


def _with_notes(reply: Reply, notes: list[str], quiet: str = "") -> Reply:
    """`reply` with `notes` appended to what the user sees (and to stderr)."""
    stderr = reply.stderr
    if quiet:
        stderr = (stderr + f"\nreflection: {quiet}; no verdict written").strip()
    if notes:
        stderr = (stderr + "\n" + "\n".join(notes)).strip()
    message = ((reply.message or "") + " " + " ".join(notes)).strip() or None
    return replace(reply, message=message, stderr=stderr)


# A stop that stands as the user reads it in the one-line status. An incomplete stop the
# hook did not push on gets no word of its own: its note says what is open.
STATUS_WORDS: dict[str, str] = {
    "waiting_for_user": "waiting for you",
    "blocked": "blocked",
}


def render_decision(decision: Any) -> Reply:
    """The answer: block with the feedback, or one line when something is worth saying
    (the attempt budget ran out, something is still open, a paid reader failed)."""
    if decision.should_block and decision.feedback:
        return Reply(block=decision.feedback)
    if decision.complete:
        # Silent, unless something the user should know did not work (a paid reader failed).
        return Reply(message=f"reflection: complete; {decision.note}") if decision.note else SILENT
    if decision.budget_exhausted:
        line = f"reflection: stopped incomplete after {decision.attempt} attempt(s). " + (
            decision.status_report or ""
        )
    elif getattr(decision, "note", None):
        status = STATUS_WORDS.get(decision.status)
        line = f"reflection: {f'{status}: ' if status else ''}{decision.note}"
    else:
        return SILENT
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
    from reflection_core.session.decide import ExternalGateFailure
    from reflection_core.verify.runner import run_for_stop  # a failure here is our bug: shown

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
        "notice": getattr(outcome, "notice", None),
    }


def _store_lesson(
    root: Path,
    task_prompt: str,
    decision: Any,
    state: Any,
    gate_lesson: dict[str, Any] | None,
    cfg: Any,
    conn: sqlite3.Connection | None,
) -> None:
    """A finished or escalated task: remember what it was pushed on and which fixes worked
    (on the hook's connection to the state database, when it has one)."""
    if not cfg.get("memory.enabled") or not task_prompt:
        return
    from reflection_core.verify.memory import store_lesson

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
        conn,
    )


def _write_skipped(
    root: Path | None, event: StopRequested, error_class: str, detail: str
) -> Path | None:
    from reflection_core.session import verdict

    if root is None:
        return None
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
        _write_skipped(paths.hook_root(event.cwd), event, type(exc).__name__, str(exc))
    # The attempt counter is not touched: a stop we could not judge pushes nobody.


def handle_stop_failure(event: StopFailed) -> Reply:
    """The host ended the turn on its own failure: nothing to push (the agent cannot go on
    until the service is back); leave a `blocked` verdict saying so and tell the user."""
    from reflection_core.session import verdict

    what = "; ".join(part for part in (event.error, event.error_details) if part)
    what = what or "an error the host did not name"
    line = f"reflection: the turn ended on a host failure ({what[:200]}); resume when it is back."
    root = paths.hook_root(event.cwd)
    if root is None:
        return Reply(message=line)
    fields = {
        **verdict.skipped_fields("", max_attempts=0),
        "status": "blocked",
        "severity": "LOW",
        "stop_category": "genuinely_stuck",
        "missing": [f"the host failed: {what[:300]}"],
        "next_actions": ["Resume the session when the service is back"],
        "requires_human_action": True,
    }
    fields.pop("skipped_reason")
    try:
        verdict.write_fields(
            root,
            fields,
            session_id=event.session_id,
            prompt_id=None,
            event="stop-failure",
            record_body={"host_failure": {"error": event.error, "details": event.error_details}},
        )
    except OSError as exc:
        line += f" (could not write the verdict: {type(exc).__name__})"
    return Reply(message=line)


def handle_session_end(event: SessionEnded) -> Reply:
    """Mark the session's last verdict final; never re-read a (possibly huge) transcript."""
    from reflection_core.session import verdict

    root = paths.hook_root(event.cwd)
    if root is None:
        return SILENT
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
