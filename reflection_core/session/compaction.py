"""After a context compaction: restate the task and what is still open.

Compaction summaries lose exactly what the stop hook cares about (was the last
edit tested? is there a PR?). After a compaction (compaction_hook.py) we
re-derive that from the transcript and hand it back as context, so the agent
neither restarts finished work nor forgets the gates. Pure: the session and the
context in, the nudge out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from reflection_core.lazyre import lazy
from reflection_core.session.categories import drift_markers
from reflection_core.session.decide import RepoFacts, with_defaults
from reflection_core.session.gates import (
    GateInputs,
    GateResult,
    LedgerEvidence,
    evaluate_gates,
    pr_evidence,
    suite_shown,
)
from reflection_core.session.human_action import assess_requests
from reflection_core.session.model import Session
from reflection_core.session.task import TaskContext, build_task_context, required_gates

_PR_NUMBER = lazy(r"\b(PR|pull request|MR|merge request) ?#\d+", re.I)
_WAITING = lazy(
    r"\b(waiting for (the|an|your) (answer|reply|decision|input)|(has|have) not (yet )?"
    r"(answered|replied|decided)|not answered yet|(i|we) asked|asked the user|"
    r"not stated|unclear (what|which|whether)|needs? (a |the )?(user's |your )?decision)\b",
    re.I,
)
_REQUEST = lazy(r"\b(the )?user (asked|wants|wanted|requested)\b|^\s*task:", re.I)
_DONE = lazy(
    r"\b(everything (requested |asked )?is done|(the )?answer was (already )?given|"
    r"task is (complete|done)|all (requested )?(work|items) (is |are )?done|"
    r"already (answered|delivered))\b",
    re.I,
)
_MAX_PROMPT_CHARS = 600


@dataclass
class Nudge:
    """kind: continue_task | update_pr | ask_clarification | task_complete."""

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
    data = cfg.data if hasattr(cfg, "data") else (cfg if isinstance(cfg, dict) else {})
    return NudgeContext(
        config=with_defaults(data), repo=repo or RepoFacts(), ledger=ledger, root=root
    )


def _unpushed_work(session: Session) -> bool:
    """A change or a commit after the last successful push."""
    last_push = -1
    for pos, call in enumerate(session.tool_calls):
        if call.ok and call.command is not None and "push" in call.command.kinds:
            last_push = pos
    return any(
        pos > last_push
        and call.ok is not False
        and (call.changes_files or (call.command is not None and "commit" in call.command.kinds))
        for pos, call in enumerate(session.tool_calls)
    )


def _pr_exists(session: Session) -> bool:
    if pr_evidence(session) is not None or _PR_NUMBER.search(session.task_prompt):
        return True
    return any(
        call.command is not None and "pr_checks" in call.command.kinds
        for call in session.tool_calls
    )


def _task_text(session: Session) -> str:
    text = session.task_prompt.strip() or session.compaction_summary.strip()
    return text if len(text) <= _MAX_PROMPT_CHARS else text[: _MAX_PROMPT_CHARS - 3] + "..."


def _last_words(session: Session) -> str:
    """What the agent said last: the final message, else its last text before compaction."""
    if session.last_assistant_message.strip():
        return session.last_assistant_message
    texts = session.assistant_texts
    return texts[-1].text if texts else ""


def _awaiting_user(session: Session, last_words: str) -> bool:
    """The agent asked the user something that is still unanswered, or requirements are missing."""
    if _WAITING.search(" ".join(session.compaction_summary.split())):
        return True
    requests = assess_requests(last_words)
    return bool(requests.questions or requests.human_only)


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
    gates = _gates_now(session, task, ctx)
    open_gates = [g.missing or g.evidence for g in gates.values() if g.failing]
    head = f'reflection: the context was compacted. Your task (from the user): "{task_text}"'
    changed = ", ".join(task.changed_paths[:8]) or "none yet"
    last_words = _last_words(session)
    remaining = _announced_remaining(session, last_words)
    if not task.changed_paths and _awaiting_user(session, last_words):
        return Nudge(
            "ask_clarification",
            f"{head}\nA question to the user is still open (or the requirements are not "
            "stated). Do not guess and do not start implementing: ask the user, briefly "
            "restating the options, and wait for the answer.",
        )
    if _pr_exists(session) and (_unpushed_work(session) or remaining):
        todo = "; ".join(remaining[:3]) or "local changes and commits are not pushed yet"
        return Nudge(
            "update_pr",
            f"{head}\nA pull request exists but is not up to date ({todo}). Run the tests, "
            "push the branch to update the pull request, finish the follow-ups, then check CI.",
            open_gates,
        )
    if not remaining and _looks_done(session, task, gates, last_words):
        return Nudge(
            "task_complete",
            f"{head}\nThe task looks done (files changed: {changed}). Do not redo it: check "
            "that nothing is left, then confirm the result to the user in a short summary.",
            open_gates,
        )
    lines = [head, f"Files changed so far: {changed}."]
    lines.extend(_still_open_lines(gates, open_gates, remaining))
    lines.append("Continue from where you left off; do not start over.")
    return Nudge("continue_task", "\n".join(lines), open_gates)


def _gates_now(session: Session, task: TaskContext, ctx: NudgeContext) -> dict[str, GateResult]:
    """The stop hook's gates as they stand, so the nudge names what is still open."""
    tests_cfg = ctx.config.get("tests", {})
    return evaluate_gates(
        session,
        GateInputs(
            task=task,
            required=required_gates(
                task, ctx.config, suite_shown(ctx.repo.has_tests, session.tool_calls)
            ),
            protected_branches=list(ctx.config.get("protected_branches", ["main", "master"])),
            ignore_globs=list(tests_cfg.get("ignore", [])),
            allow_partial=bool(tests_cfg.get("allow_partial", False)),
            test_command=tests_cfg.get("command") or ctx.repo.test_command,
            ledger=ctx.ledger,
        ),
    )


def _announced_remaining(session: Session, last_words: str) -> list[str]:
    """Work the summary or the last message announces as still to do."""
    # Summary lines that restate the request ("The user asked which services still use
    # 3.8") are not announcements of remaining work.
    summary_drift = [m for m in drift_markers(session.compaction_summary) if not _REQUEST.search(m)]
    return summary_drift + drift_markers(last_words)


def _looks_done(
    session: Session, task: TaskContext, gates: dict[str, GateResult], last_words: str
) -> bool:
    """Work done with no gate open, or done as the summary says with no hard gap left."""
    open_gates = [g for g in gates.values() if g.failing]
    answered = task.task_type != "coding" and len(last_words.strip()) > 80
    worked = bool(task.changed_paths) or (bool(session.tool_calls) and answered)
    claimed_done = bool(_DONE.search(" ".join(session.compaction_summary.split())))
    hard_gaps = [g for g in open_gates if g.severity in ("HIGH", "BLOCKER")]
    return bool(
        (worked and not open_gates) or (claimed_done and session.tool_calls and not hard_gaps)
    )


def _still_open_lines(
    gates: dict[str, GateResult], open_gates: list[str], remaining: list[str]
) -> list[str]:
    """The open gates with their next actions, then the work announced as remaining."""
    lines: list[str] = []
    if open_gates:
        lines.append("Still open: " + "; ".join(open_gates) + ".")
        actions = [g.next_action for g in gates.values() if g.failing and g.next_action]
        lines.extend(f"Next: {action}." for action in dict.fromkeys(actions))
    if remaining:
        lines.append("Announced as remaining: " + "; ".join(remaining[:3]) + ".")
    return lines
