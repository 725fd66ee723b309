"""The grader at the hooks' edges: the next prompt grades the stop before it, the stop
after a push grades the push. Fails open: a broken database or verdict file costs the
outcome, never the prompt or the stop, and says so in one short note.
"""

from __future__ import annotations

import time

from reflection_core import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path
    from typing import Any


def on_prompt(
    event: Any, prompt: str, cfg: Any, *, flagged: bool, conn: sqlite3.Connection | None = None
) -> str:
    """Grade the session's previous stop from `prompt`; '' or why nothing was recorded.
    `conn`: the prompt hook's open connection to the state database (else one is opened)."""
    root_dir = getattr(cfg, "root_dir", None)
    if not isinstance(root_dir, str):
        return ""
    if not flagged and not _ungraded_verdict(root_dir, event.session_id):
        return ""  # nothing to grade or count: no database opened on a plain reply
    from reflection_core.state import sqlite3

    try:
        _grade_previous_stop(root_dir, event, prompt, cfg, flagged=flagged, given=conn)
    except (OSError, sqlite3.Error) as exc:
        return f"outcome not recorded: {type(exc).__name__}"
    return ""


def _ungraded_verdict(root: str, session_id: object) -> bool:
    """The session's verdict file exists and has no outcome yet (a cheap file read)."""
    import json

    from reflection_core.smallfile import read_small

    try:
        data = json.loads(read_small(paths.verdict_file(root, session_id)))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "outcome" not in data and data.get("status") != "skipped"


def _grade_previous_stop(
    root: str, event: Any, prompt: str, cfg: Any, *, flagged: bool, given: Any
) -> None:
    from reflection_core import state
    from reflection_core.outcomes import store
    from reflection_core.outcomes.grade import Previous
    from reflection_core.outcomes.reader import read_next_turn

    key = paths.safe_session_id(event.session_id)
    if given is not None:
        state.ensure_schema(given, store.DDL)
    conn = given or store.connect()
    try:
        if flagged:
            store.record_prompt_flag(conn, _repo(root), event.host, key)
        row = store.latest_stop(conn, key)
        if row is None or row.outcome is not None or row.pushed:
            return
        graded = read_next_turn(prompt, Previous(asked=row.asked, status=row.status), cfg)
        if store.set_outcome(conn, row.id, graded):
            field = store.outcome_field(graded, "next_prompt", store.now_iso())
            store.annotate_verdict(root, event.session_id, row.verdict_at, "outcome", field)
    finally:
        if given is None:
            conn.close()


def on_stop(
    root: Path, event: Any, session: Any, decision: Any, conn: sqlite3.Connection | None = None
) -> list[str]:
    """Grade the push before this stop (if any) and store this stop; notes on failure.
    `conn`: the stop hook's open connection to the state database (else one is opened)."""
    from reflection_core.hosts.events import SubagentStopped

    if isinstance(event, SubagentStopped):
        return []  # subagent stops have no verdict of their own
    from reflection_core.state import sqlite3

    try:
        _record_stop(root, event, session, decision, conn)
    except (OSError, sqlite3.Error) as exc:
        return [f"reflection: could not store the stop's outcome ({type(exc).__name__})"]
    return []


def _record_stop(
    root: Path, event: Any, session: Any, decision: Any, given: sqlite3.Connection | None
) -> None:
    from reflection_core import state
    from reflection_core.outcomes import store
    from reflection_core.reading.builtin import last_line
    from reflection_core.session.human_action import ends_as_question
    from reflection_core.session.verdict import read_verdict

    verdict = read_verdict(root, event.session_id) or {}
    verdict_at = str(verdict.get("created_at") or "")
    key = paths.safe_session_id(event.session_id)
    calls = session.tool_calls
    if given is not None:
        state.ensure_schema(given, store.DDL)
    conn = given or store.connect()
    try:
        previous = store.latest_stop(conn, key)
        if previous is not None and previous.pushed and previous.outcome is None:
            from reflection_core.outcomes.after_push import grade_after_push

            since = calls[previous.tool_calls :] if len(calls) >= previous.tool_calls else calls
            graded = grade_after_push(since)
            if store.set_outcome(conn, previous.id, graded):
                field = store.outcome_field(graded, "next_stop", store.now_iso())
                store.annotate_verdict(root, event.session_id, verdict_at, "push_outcome", field)
        status = str(decision.status)
        store.record_stop(
            conn,
            store.StopRow(
                created_at=time.time(),
                verdict_at=verdict_at,
                repo=_repo(root),
                host=str(event.host),
                session_key=key,
                status=status,
                pushed=bool(decision.should_block),
                held=status == "waiting_for_user",
                asked=ends_as_question(last_line(session.last_assistant_message or "")),
                tool_calls=len(calls),
                rules=tuple(decision.patterns),
            ),
        )
    finally:
        if given is None:
            conn.close()


def _repo(root: str | Path) -> str:
    from reflection_core.redact import redact

    return redact(str(root))
