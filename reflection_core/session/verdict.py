"""Verdict files: the compact signal consumers read, and the full record behind it.

`<root>/.reflection/verdict_<safe id>.json` is small and stable (its JSON Schema is
`reflection_core/data/verdict.schema.json`); `<root>/.reflection/records/<safe
id>_<UTC timestamp>.json` holds everything, secrets redacted. The record is
written first, so the verdict's `record` link always resolves; both writes are
atomic, so a reader never sees a torn file.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from reflection_core import paths
from reflection_core.atomic import locked, unlink_own_file, write_json_atomic
from reflection_core.redact import redact, redact_obj

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA_VERSION = 1
RECORDS_DIRNAME = "records"


def now_us() -> int:
    """Now, in microseconds since the epoch: what a record's name and its times are cut
    from (`datetime` is not imported for them, about 1 ms of every stop)."""
    return time.time_ns() // 1000


def iso(moment_us: int) -> str:
    """UTC, milliseconds, `Z`: `2026-03-02T09:00:00.123Z`."""
    seconds, micros = divmod(moment_us, 1_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{micros // 1000:03d}Z"


def compact_verdict(
    decision_fields: dict[str, Any],
    *,
    session_id: str | None,
    prompt_id: str | None,
    event: str,
    record: str,
    created_at: str,
    git: dict[str, str | None] | None = None,
) -> dict[str, Any]:
    """The contract fields (plus task_id, task_type, event, agent_score, final, and `git`,
    the branch and commit checked out at the stop, when known)."""
    compact = {
        "schema_version": SCHEMA_VERSION,
        "session_id": session_id,
        "prompt_id": prompt_id,
        "status": decision_fields["status"],
        "complete": decision_fields["complete"],
        "severity": decision_fields["severity"],
        "stop_category": decision_fields["stop_category"],
        "missing": decision_fields["missing"],
        "next_actions": decision_fields["next_actions"],
        "requires_human_action": decision_fields["requires_human_action"],
        "attempt": decision_fields["attempt"],
        "max_attempts": decision_fields["max_attempts"],
        "gates": decision_fields["gates"],
        "created_at": created_at,
        "record": record,
        "task_id": decision_fields.get("task_id"),
        "task_type": decision_fields.get("task_type"),
        "agent_score": decision_fields.get("agent_score"),
        "event": event,
        "final": False,
    }
    if git is not None:
        compact["git"] = git
    return compact


def git_position(root: Path) -> dict[str, str | None] | None:
    """`{"branch", "head"}` checked out at `root` when the verdict is written: what the
    pre-push hook matches a pushed branch against (consumers/verdict_notes.py). Read from
    git's files; only a reftable repository costs a git process."""
    from reflection_core.githead import head_position

    found = head_position(root)
    if found is None:
        found = _asked_git(root)
    branch, head = found
    if branch is None and head is None:
        return None
    return {"branch": branch, "head": head}


def _asked_git(root: Path) -> tuple[str | None, str | None]:
    from reflection_core.guards import gitcmd

    try:
        head = gitcmd.run(root, ["rev-parse", "-q", "--verify", "HEAD"], check=False).strip()
        return gitcmd.current_branch(root), head or None
    except gitcmd.GitError:
        return None, None


def skipped_fields(reason: str, max_attempts: int) -> dict[str, Any]:
    """Decision fields for a stop the hook could not judge (fail-open evidence)."""
    return {
        "status": "skipped",
        "complete": False,
        "severity": "NONE",
        "stop_category": "working",
        "missing": [],
        "next_actions": [],
        "requires_human_action": False,
        "attempt": 0,
        "max_attempts": max_attempts,
        "gates": {},
        "task_id": None,
        "task_type": None,
        "agent_score": None,
        "skipped_reason": reason,
    }


def _record_name(session_id: object, moment_us: int, directory: Path) -> Path:
    seconds, micros = divmod(moment_us, 1_000_000)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(seconds)) + f".{micros:06d}Z"
    base = f"{paths.safe_session_id(session_id)}_{stamp}"
    candidate = directory / f"{base}.json"
    counter = 1
    while candidate.exists():
        candidate = directory / f"{base}-{counter}.json"
        counter += 1
    return candidate


def write_fields(
    root: Path,
    decision_fields: dict[str, Any],
    *,
    session_id: str | None,
    prompt_id: str | None,
    event: str,
    record_body: dict[str, Any],
    keep_records: int = 200,
    compact: bool = True,
) -> tuple[Path, Path]:
    """Write the record, then (when `compact`) the verdict; prune old records.

    Subagent stops pass `compact=False`: they leave a record but never replace the
    session's own verdict.
    """
    moment = now_us()
    directory = paths.writable_reflection_dir(root, RECORDS_DIRNAME)
    target = paths.verdict_path(root, session_id)
    with locked(target):
        record_path = _record_name(session_id, moment, directory)
        relative = record_path.relative_to(root).as_posix()
        # Redacted here, at the one place verdicts are written: evidence and reasons
        # can quote push URLs and commands with credentials in them.
        verdict = redact_obj(
            compact_verdict(
                decision_fields,
                session_id=session_id,
                prompt_id=prompt_id,
                event=event,
                record=relative,
                created_at=iso(moment),
                git=git_position(root),
            )
        )
        verdict.update(session_id=session_id, prompt_id=prompt_id)  # ids, never secrets
        record = redact_obj({"verdict": verdict, **record_body})
        write_json_atomic(record_path, record)
        if compact:
            write_json_atomic(target, verdict)
    prune_records(directory, keep_records)
    return target, record_path


def write_verdict(
    root: Path, decision: Any, session: Any, *, extra: dict[str, Any] | None = None
) -> tuple[Path, Path]:
    """The contract entry point: a Decision and its Session -> verdict + full record."""
    extra = dict(extra or {})
    fields = decision.to_dict()
    session_id = extra.pop("session_id", None) or getattr(session, "session_id", None)
    prompt_id = extra.pop("prompt_id", None)
    event = extra.pop("event", "stop")
    keep = int(extra.pop("keep_records", 200))
    compact = bool(extra.pop("compact", True))
    body = {"decision": fields, "session": session_summary(session), **extra}
    return write_fields(
        root,
        fields,
        session_id=session_id,
        prompt_id=prompt_id,
        event=event,
        record_body=body,
        keep_records=keep,
        compact=compact,
    )


def session_summary(session: Any) -> dict[str, Any]:
    """What the record keeps of the session: the task and a compact action log."""
    if session is None:
        return {}
    calls = session.tool_calls
    return {
        "task_prompt": session.task_prompt[:4000],
        "task_started_at": session.task_started_at,
        "last_assistant_message": session.last_assistant_message[:4000],
        "tool_calls": len(calls),
        "compacted": session.compacted,
        "warnings": list(session.warnings)[:20],
        "actions": [
            {
                "index": call.index,
                "tool": call.name,
                "kind": call.kind,
                "ok": call.ok,
                "what": (call.command.raw if call.command else ", ".join(call.files))[:200],
            }
            for call in calls[-60:]
        ],
    }


def prune_records(directory: Path, keep: int) -> None:
    """Delete the oldest records beyond `keep`: only regular files this user owns,
    never a symlink or what it points to. One directory scan; a file is stat'ed only
    when there are more than `keep` (the scan tells links apart without a stat)."""
    try:
        with os.scandir(directory) as scan:
            entries = [e for e in scan if e.name.endswith(".json") and not e.is_symlink()]
    except OSError:
        return
    if len(entries) <= keep:
        return

    def mtime(entry: os.DirEntry[str]) -> float:
        try:
            return entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            return 0.0

    for stale in sorted(entries, key=mtime)[: len(entries) - keep]:
        unlink_own_file(stale.path)


def read_verdict(root: Path, session_id: object) -> dict[str, Any] | None:
    from reflection_core.smallfile import read_small

    try:
        data = json.loads(read_small(paths.verdict_path(root, session_id)))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def finalize_verdict(root: Path, session_id: object, *, reason: str | None) -> Path | None:
    """SessionEnd: mark the last verdict final without re-analysing anything."""
    if not paths.verdict_path(root, session_id).exists():
        return None
    target = paths.writable_reflection_dir(root) / paths.verdict_path(root, session_id).name
    with locked(target):
        current = read_verdict(root, session_id)
        if current is None:
            return None
        current["final"] = True
        current["ended_at"] = iso(now_us())
        current["end_reason"] = redact(reason) if reason else reason
        write_json_atomic(target, current)
    return target
