"""After a context compaction: restate the task and what is still open.

Compaction summaries lose exactly what the stop hook cares about (was the last
edit tested? is there a PR?). On SessionStart with source `compact` we re-derive
that from the transcript and hand it back as context, so the agent neither
restarts finished work nor forgets the gates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reflection_core.hookio import HookResponse
from reflection_core.session.categories import drift_markers
from reflection_core.session.decide import RepoFacts
from reflection_core.session.gates import (
    GateInputs,
    LedgerEvidence,
    evaluate_gates,
    last_change_index,
    pr_evidence,
)
from reflection_core.session.model import Session
from reflection_core.session.task import build_task_context, required_gates

NUDGE_KINDS = ("continue_task", "update_pr", "ask_clarification", "task_complete")
_MAX_PROMPT_CHARS = 600


@dataclass
class Nudge:
    kind: str
    text: str
    open_gates: list[str] = field(default_factory=list)


@dataclass
class NudgeContext:
    config: dict[str, Any]
    repo: RepoFacts = field(default_factory=RepoFacts)
    ledger: LedgerEvidence | None = None
    root: str | None = None


def nudge_context(
    cfg: Any = None,
    *,
    root: str | None = None,
    repo: RepoFacts | None = None,
    ledger: LedgerEvidence | None = None,
) -> NudgeContext:
    """A context from a Config, a config dict, or nothing (defaults)."""
    from reflection_core import config

    data = cfg.data if hasattr(cfg, "data") else (cfg if isinstance(cfg, dict) else None)
    return NudgeContext(
        config=data or config.defaults(), repo=repo or RepoFacts(), ledger=ledger, root=root
    )


def _pushed_after_last_change(session: Session) -> bool:
    calls = session.tool_calls
    last_change = last_change_index(session)
    return any(
        pos > last_change and c.ok and c.command is not None and "push" in c.command.kinds
        for pos, c in enumerate(calls)
    )


def _task_text(session: Session) -> str:
    text = session.task_prompt.strip() or session.compaction_summary.strip()
    return text if len(text) <= _MAX_PROMPT_CHARS else text[: _MAX_PROMPT_CHARS - 3] + "..."


def compaction_nudge(session: Session, ctx: Any) -> Nudge:
    """Which nudge fits the session after compaction, and its text (pure)."""
    if not isinstance(ctx, NudgeContext):
        ctx = nudge_context(ctx)
    task_text = _task_text(session)
    if not task_text:
        return Nudge(
            "ask_clarification",
            "reflection: the context was compacted and the task is no longer visible. Before "
            "doing anything else, ask the user to restate the task and what counts as done.",
        )
    task = build_task_context(session, ctx.root or session.cwd)
    required = required_gates(task, ctx.config, ctx.repo.has_tests)
    tests_cfg = ctx.config.get("tests", {})
    gates = evaluate_gates(
        session,
        GateInputs(
            task=task,
            required=required,
            protected_branches=list(ctx.config.get("protected_branches", ["main", "master"])),
            ignore_globs=list(tests_cfg.get("ignore", [])),
            allow_partial=bool(tests_cfg.get("allow_partial", False)),
            test_command=tests_cfg.get("command") or ctx.repo.test_command,
            ledger=ctx.ledger,
        ),
    )
    open_gates = [g.missing or g.evidence for g in gates.values() if g.failing]
    head = f'reflection: the context was compacted. Your task (from the user): "{task_text}"'
    changed = ", ".join(task.changed_paths[:8]) or "none yet"
    has_pr = pr_evidence(session) is not None
    if has_pr and task.changed_paths and not _pushed_after_last_change(session):
        return Nudge(
            "update_pr",
            f"{head}\nA pull request exists, but changes made since the last push are not in "
            f"it (files changed this task: {changed}). Run the tests, push the branch to update "
            "the pull request, then check CI.",
            open_gates,
        )
    answered = task.task_type != "coding" and len(session.last_assistant_message.strip()) > 80
    worked = bool(task.changed_paths) or (bool(session.tool_calls) and answered)
    drift = drift_markers(session.last_assistant_message)
    if worked and not open_gates and not drift:
        return Nudge(
            "task_complete",
            f"{head}\nThe evidence says this task is done (files changed: {changed}; every "
            "required gate is satisfied). Do not redo it: confirm the result to the user in a "
            "short summary.",
        )
    lines = [head, f"Files changed so far: {changed}."]
    if open_gates:
        lines.append("Still open: " + "; ".join(open_gates) + ".")
    lines.append("Continue from where you left off; do not start over.")
    return Nudge("continue_task", "\n".join(lines), open_gates)


def handle_session_start(payload: dict[str, Any]) -> HookResponse:
    """SessionStart: only `source: compact` gets a nudge; other starts stay silent."""
    if payload.get("source") != "compact":
        return HookResponse(output=None)
    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        return HookResponse(output=None)
    from pathlib import Path

    from reflection_core import config, paths
    from reflection_core.session.analyze import gather_context, load_session

    session = load_session(transcript, session_id=payload.get("session_id"))
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else session.cwd
    root = paths.find_repo_root(cwd) if cwd and Path(cwd).is_dir() else None
    cfg = config.load(root) if root is not None else config.Config()
    ctx, _ = gather_context(root, cfg)
    nudge = compaction_nudge(
        session,
        NudgeContext(config=cfg.data, repo=ctx.repo, ledger=ctx.ledger, root=ctx.root),
    )
    return HookResponse(
        output={
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": nudge.text,
            }
        }
    )
