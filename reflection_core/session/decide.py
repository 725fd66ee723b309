"""The stop decision: a pure function from a session and its context to a verdict.

`decide(session, ctx)` reads nothing and writes nothing; the stop hook gathers the
context (config, repo signals, ledger evidence, attempt state) and acts on the
result. Tests and the eval runner call it directly with constructed contexts.
"""

from __future__ import annotations

import re

from reflection_core import config
from reflection_core.lazyre import lazy
from reflection_core.reading import dispatch
from reflection_core.reading.builtin import (
    SURE,
    announced_next_action,
    claims_checked_it,
    claims_done,
    failure_with_the_last_word,
    handed_check,
    read_builtin,
    shows_where_to_look,
)
from reflection_core.reading.facts import Reading
from reflection_core.records import field, record, replace
from reflection_core.session.attempts import AttemptState
from reflection_core.session.categories import (
    CATEGORY,
    CHECK_EVIDENCE,
    StopAssessment,
    categorize,
    contradicted_claims,
    gap_weight,
    reports_the_failure,
)
from reflection_core.session.coverage import (
    checked_since_last_change,
    claimed_without_any_run,
    failed_compile,
    known_checks,
    open_todos,
    requested_commands,
    shipped_unchecked,
    unchecked_change,
    unchecked_error_fix,
    uncompiled_sources,
    unfinished_git_operation,
    unparsed_scripts,
    unrun_requested,
    untouched_targets,
)
from reflection_core.session.digest import (
    build_digest,
    last_check_after_change,
    pushes_and_prs,
    task_kind,
)
from reflection_core.session.evidence import is_check, project_view, with_wrapped_checks
from reflection_core.session.feedback import Gap, compose_feedback, status_report
from reflection_core.session.gates import (
    GateInputs,
    GateResult,
    LedgerEvidence,
    evaluate_gates,
    ran_nothing,
    read_outcomes,
    suite_shown,
    tests_gate,
    untested_packages_only,
)
from reflection_core.session.human_action import (
    HumanActionAssessment,
    asks_leave_to_act,
    assess_requests,
    is_choice,
)
from reflection_core.session.loops import Loop, LoopThresholds, detect_loops
from reflection_core.session.model import Session, ToolCall
from reflection_core.session.security import SecurityFinding, security_findings
from reflection_core.session.task import (
    TaskContext,
    build_task_context,
    is_doc_path,
    required_gates,
    task_id,
    unnamed_changes,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SEVERITIES = ("NONE", "LOW", "MEDIUM", "HIGH", "BLOCKER")
_OUR_ATTEMPT = lazy(r"\breflection(?: \(| \u2014 FINAL )attempt \(?(\d+)/\d+\)")
MESSAGE_LIMIT = 20_000  # a final message longer than this is read as its start and its end
_NO_CHANGE_NEEDED = lazy(
    r"\b(no (code )?changes? (is |are |was |were )?(needed|required|necessary)|already "
    r"(fixed|implemented|works|working|in place|handled|supported|done)|nothing to (fix|change)|"
    r"works as (expected|intended)|(can(no|')t|could(n't| not)) reproduce|not a bug)\b",
    re.I,
)


@record
class RepoFacts:
    """What the repo itself says about how to check it (from project.repo_signals)."""

    test_command: str | None = None
    build_command: str | None = None
    has_tests: bool | None = None
    # From the project model (project_model.py): the rest of what the repo says.
    typecheck_command: str | None = None
    lint_command: str | None = None
    run_command: str | None = None
    test_runs: str | None = None  # what the test command runs when it wraps one (make test)
    ecosystems: tuple[str, ...] = ()
    tested_dirs: frozenset[str] | None = None  # Go packages with a test file beside them
    # What the project's named wrappers run (`script:ci` -> `vitest run && tsc`), and the
    # shell scripts the session ran (`file:PATH` -> their text): project_model.
    wrapped: tuple[tuple[str, str], ...] = ()


@record
class ExternalGateFailure:
    """A configured gate that `stop.run_gates` ran and that failed."""

    name: str
    message: str
    escalate: bool = False


@record
class DecisionContext:
    """Everything besides the transcript that the decision depends on."""

    config: dict[str, Any]
    repo: RepoFacts = field(default_factory=RepoFacts)
    ledger: LedgerEvidence | None = None
    permission_mode: str | None = None
    attempts: AttemptState = field(default_factory=AttemptState)
    event: str = "stop"
    root: str | None = None
    gate_failures: list[ExternalGateFailure] = field(default_factory=list)
    gate_escalation: str | None = None  # the runner gave up: its question for the user
    # What the host's Stop payload reports as still in flight (`background_tasks`) or
    # scheduled to wake the session (`session_crons`).
    background_tasks: list[dict[str, Any]] = field(default_factory=list)


@record
class Decision:
    """The verdict fields plus what the hook needs to act: block or not, and what to say."""

    status: str
    complete: bool
    severity: str
    stop_category: str
    missing: list[str]
    next_actions: list[str]
    requires_human_action: bool
    gates: dict[str, GateResult]
    task_type: str
    task_id: str
    loops: list[Loop]
    feedback: str | None
    should_block: bool
    agent_score: int
    attempt: int
    max_attempts: int
    patterns: list[str] = field(default_factory=list)
    open_patterns: list[str] = field(default_factory=list)  # every open item, pushed or not
    pushed_by: list[str] = field(default_factory=list)  # the items that pushed, if it blocks
    security: list[SecurityFinding] = field(default_factory=list)
    assessment: StopAssessment | None = None
    human_actions: list[str] = field(default_factory=list)
    plan_only: bool = False
    budget_exhausted: bool = False
    status_report: str | None = None
    task_reasons: list[str] = field(default_factory=list)
    changed_paths: list[str] = field(default_factory=list)
    note: str | None = None  # the one line the user reads when the stop is not pushed on
    digest: dict[str, Any] = field(default_factory=dict)
    reading: Reading | None = None

    def to_dict(self) -> dict[str, Any]:
        assessment = self.assessment
        return {
            "status": self.status,
            "complete": self.complete,
            "severity": self.severity,
            "stop_category": self.stop_category,
            "missing": list(self.missing),
            "next_actions": list(self.next_actions),
            "requires_human_action": self.requires_human_action,
            "gates": {name: gate.to_dict() for name, gate in self.gates.items()},
            "task_type": self.task_type,
            "task_id": self.task_id,
            "loops": [loop.to_dict() for loop in self.loops],
            "feedback": self.feedback,
            "should_block": self.should_block,
            "agent_score": self.agent_score,
            "attempt": self.attempt,
            "max_attempts": self.max_attempts,
            "patterns": list(self.patterns),
            "security": [finding.to_dict() for finding in self.security],
            "unsupported_claims": list(assessment.unsupported_claims) if assessment else [],
            "drift": list(assessment.drift) if assessment else [],
            "punts": list(assessment.punts) if assessment else [],
            "human_actions": list(self.human_actions),
            "plan_only": self.plan_only,
            "budget_exhausted": self.budget_exhausted,
            "status_report": self.status_report,
            "task_reasons": list(self.task_reasons),
            "changed_paths": list(self.changed_paths),
            "note": self.note,
            "evidence": {
                key: self.digest.get(key)
                for key in (
                    "task_kind",
                    "last_command",
                    "last_check_after_change",
                    "pushes",
                    "prs",
                    "background_pending",
                    "host_failure",
                    "plan_mode",
                )
                if key in self.digest
            },
            "reading": reading_dict(self.reading),
        }


def clip_message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """The part of a huge final message worth reading: its start and, mostly, its end."""
    if len(text) <= limit:
        return text
    head = limit // 4
    return text[:head] + "\n...\n" + text[-(limit - head) :]


def with_defaults(data: dict[str, Any], base: dict[str, Any] | None = None) -> dict[str, Any]:
    """`data` deep-merged over the config defaults, so a partial config dict keeps every gate."""
    merged = dict(config.defaults() if base is None else base)
    for key, value in data.items():
        current = merged.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            merged[key] = with_defaults(value, current)
        else:
            merged[key] = value
    return merged


def attempts_in_transcript(session: Session) -> int:
    """The highest attempt number our own feedback shows in this task's transcript.

    A floor under the stored count: if the state database is lost or another
    machine judges the session, the budget still holds.
    """
    numbers = [
        int(m.group(1)) for text in session.hook_feedback for m in _OUR_ATTEMPT.finditer(text)
    ]
    return max(numbers, default=0)


def _worst(severities: list[str]) -> str:
    return max(severities, key=SEVERITIES.index, default="NONE")


def collect_gaps(
    gates: dict[str, GateResult],
    assessment: StopAssessment,
    loops: list[Loop],
    findings: list[SecurityFinding],
    external: list[ExternalGateFailure],
    no_change: bool,
    coverage: list[Gap] | None = None,
) -> list[Gap]:
    """Every open item, most severe first within a stable order."""
    gaps = [
        Gap(f"security:{f.rule}", f"security: {f.evidence}", _SECURITY_FIX.get(f.rule), "BLOCKER")
        for f in findings
    ]
    gaps += [
        Gap(g.pattern or f"{g.name}:open", g.missing or g.evidence, g.next_action, g.severity)
        for g in gates.values()
        if g.failing
    ]
    gaps += [
        Gap(
            f"gate_run:{failure.name}",
            f"configured gate `{failure.name}` failed: {failure.message}",
            f"Fix what `{failure.name}` reports and run it again",
            "HIGH" if failure.escalate else "MEDIUM",
        )
        for failure in external
    ]
    if no_change:
        gaps.append(
            Gap(
                "work:no_change",
                "the task asks for a code change but no file was changed",
                "Make the change the task asks for (or say why none is needed)",
                "MEDIUM",
            )
        )
    gaps.extend(coverage or [])
    return gaps + assessment_gaps(assessment, loops)


def assessment_gaps(assessment: StopAssessment, loops: list[Loop]) -> list[Gap]:
    """The open items the category and the loops name: a claim without evidence, a loop,
    work announced as remaining, a request for what the agent could do itself."""
    gaps = []
    if assessment.unsupported_claims:
        gaps.append(
            Gap(
                "claims:unsupported",
                f'claimed without evidence: "{assessment.unsupported_claims[0]}"',
                "Back the claim with a real run after the latest change, or withdraw it",
                "HIGH",
            )
        )
    gaps += [
        Gap(
            f"loop:{loop.kind}", f"{loop.kind} loop: {loop.evidence}", None, "MEDIUM", loop.feedback
        )
        for loop in loops
    ]
    if assessment.category == "summary_drift_stop":
        gaps.append(
            Gap(
                "drift:remaining",
                f'work announced as remaining: "{assessment.drift[0]}"',
                "Do the remaining steps now instead of listing them",
                "MEDIUM",
            )
        )
    if assessment.category == "tool_available_punt":
        gaps.append(
            Gap(
                "punt:ask",
                f'asked the user to do or approve: "{assessment.punts[0]}"',
                "Do it yourself with your tools; you do not need permission for the task you "
                "were given",
                "LOW",
            )
        )
    return gaps


_SECURITY_FIX = {
    "no_verify": "Undo the --no-verify commit/push and let the hooks run",
    "hooks_disabled": "Re-enable the git hooks and rerun them",
    "rm_rf_important": "Check what the rm -rf deleted and restore it (git status, git restore)",
    "chmod_777": "Restore sane permissions (e.g. chmod 755/644)",
    "pipe_to_shell": "Tell the user what the piped script installed; prefer a package manager",
    "secret_in_code": "Remove the credential from the code and read it from the environment",
    "secret_file_added": "Unstage the secrets file (git restore --staged), add it to .gitignore",
    "tests_disabled": "Remove the skip marker and make the test pass",
    "tests_deleted": "Restore the deleted tests and make them pass",
    "tests_disabled_cli": "Run the full test suite without deselecting tests",
}


def agent_score(
    status: str, severity: str, task: TaskContext, session: Session, *, verified: bool, drift: bool
) -> int:
    """0-5: COMPLETE 5, mostly 4, PARTIAL 3, minimal 2, attempted-but-wrong 1, NO_ATTEMPT 0.

    A change that is only unverified, or verified work with more announced, is
    partial; unverified changes with most of the work announced as remaining are
    minimal progress; a coding task that changed nothing is at most an attempt.
    """
    if status == "complete":
        return 5
    coding = task.task_type == "coding"
    if not session.tool_calls and (coding or len(session.last_assistant_message.strip()) < 20):
        return 0
    if severity in ("HIGH", "BLOCKER"):
        return 1
    if severity in ("NONE", "LOW"):
        return 4
    if coding and not task.changed_paths:
        return 1
    return 2 if drift and not verified else 3


def task_coverage(
    session: Session,
    task: TaskContext,
    message: str,
    requests: HumanActionAssessment,
    known: list[str] | None = None,
    compile_command: str | None = None,
    *,
    tests_open: bool = False,
) -> list[Gap]:
    """What the work does not show: a push/commit claimed although it failed, requested
    check commands not run, listed paths left unchanged, and the agent's own open todo
    items. An agent that stops on a real question or a human-only blocker is not pushed
    on its todo list. `tests_open`: the tests gate already names what is unchecked."""
    prompt = session.task_prompt or ""
    gaps = [
        Gap(
            "claims:contradicted",
            f"claimed against the tool output: {claim}",
            "Look at why it failed, fix it and retry, or correct the summary",
            "HIGH",
        )
        for claim in contradicted_claims(message, session)
    ]
    if task.changed_paths:
        gaps += unrun_requested(session, requested_commands(prompt))
        gaps += uncompiled_sources(session, task.changed_paths, compile_command)
        if known and not any(g.pattern == "build:not_run" for g in gaps):
            gaps += unchecked_change(session, task.changed_paths, known)
        gaps += unchecked_error_fix(session, task.changed_paths)
        done = claims_done(message)
        gaps += shipped_unchecked(session, task.changed_paths, claimed=done)
        gaps += failed_compile(session, message)
        if not tests_open:
            claimed = done or claims_checked_it(message)
            gaps += unparsed_scripts(session, task.changed_paths, claimed=claimed)
    if task.task_type == "coding":
        gaps += untouched_targets(prompt, task.changed_paths, message)
    gaps += unfinished_git_operation(session)
    if not (requests.blocking or requests.questions):
        gaps += open_todos(session)
    if not task.changed_paths:
        gaps += claimed_without_any_run(session, message)
    return gaps


def read_stop(digest: dict[str, Any], cfg: dict[str, Any], session: Session) -> Reading:
    """The one reading of this stop's words the decision uses: the built-in reading, or a
    configured paid reader's merged over it (only when the built-in one is uncertain and
    a budget allows; a failed paid read falls back with `error` set)."""
    return dispatch.read(digest, read_builtin(digest), cfg, session)


def reading_dict(reading: Reading | None) -> dict[str, Any] | None:
    if reading is None:
        return None
    return {
        "reader": reading.reader,
        "uncertain": reading.uncertain,
        "cost_tokens": reading.cost_tokens,
        "latency_ms": reading.latency_ms,
        "error": reading.error,
        "facts": [
            {"kind": f.kind, "confidence": f.confidence, "quote": f.quote, "source": f.source}
            for f in reading.facts
        ],
    }


# Facts that keep a stop from being pushed on, in precedence order (see categories.py).
_HOLDING_FACTS = (
    ("host_failure", "host_failure"),
    ("background_pending", "background_pending"),
    ("confirm_irreversible", "confirm_irreversible"),
    ("human_only", "waiting_for_user"),
)


# Reasons that make even a stop with every check green not complete: the agent waits for
# a confirmation, for background work, or the host failed.
_HOLDS_OVER_COMPLETE = frozenset({"host_failure", "background_pending", "confirm_irreversible"})


def shipped(session: Session) -> bool:
    """A push or a PR create/merge that succeeded in this task."""
    found = pushes_and_prs(session)
    return any(item.get("ok") for item in found["pushes"] + found["prs"])


def payload_background(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The host's in-flight tasks as digest entries (`kind` from the host's type label)."""
    entries = []
    for task in tasks[:10]:
        if not isinstance(task, dict) or task.get("status") in ("completed", "failed", "killed"):
            continue
        kind = str(task.get("type") or "task")
        entries.append(
            {
                "at": None,
                "kind": "background_shell" if kind == "shell" else kind,
                "what": str(task.get("description") or task.get("id") or "")[:120],
                "source": "payload",
            }
        )
    return entries


def holding_reason(
    digest: dict[str, Any], reading: Reading, *, plan_mode: bool, hard_open: bool = False
) -> str | None:
    """The category of a stop that must not be pushed on, or None.

    Never pushed: the host's failure, background work still running, plan mode, a
    confirmation before an irreversible step, human-only needs, a real question (not a
    request for leave to do what was asked, nor, with hard evidence open, for a step the
    agent's own tools can do), and an answered report-only/read-only task.
    """
    for kind, category in _HOLDING_FACTS[:2]:
        if reading.has(kind, SURE):
            return category
    if plan_mode:
        return "plan_mode"
    for kind, category in _HOLDING_FACTS[2:]:
        if reading.has(kind, SURE):
            return category
    asked = reading.has("question_for_user", SURE)
    asked = asked and not reading.has("permission_for_requested", SURE)
    if asked and not (hard_open and only_asks_leave(reading)):
        return "waiting_for_user"
    if reading.has("report_delivered", SURE):
        return "report_delivered"
    return None


def only_asks_leave(reading: Reading) -> bool:
    """Every question the reading holds asks leave for a step the agent's own tools can do
    ("Soll ich die Tests laufen lassen?"), none offers a choice: no answer is needed for
    the work to go on."""
    asked = [
        f.quote for f in reading.facts if f.kind == "question_for_user" and f.confidence >= SURE
    ]
    return all(asks_leave_to_act(q) and not is_choice(q) for q in asked)


_READING_GAPS = {
    "remaining_work": (
        "Do the step you announced now, then finish the task",
        "work announced but not done",
    ),
    "permission_for_requested": (
        "Go ahead: the task already asks for this, no permission is needed",
        "asks leave for what the task asked",
    ),
    "claim_contradicted": (
        "It failed: look at the error, fix it and try again, or say it failed",
        "claims success the tool output contradicts",
    ),
    "punt_to_user": (
        "Run it yourself: the change is not checked yet, and your tools can run, retry or check it",
        "hands the user a check of an unchecked change",
    ),
    "reported_failure": (
        "Run what does not work (or a check that exercises the fix) and show that it works now",
        "the task says it does not work, and nothing ran after the latest change to show it does",
    ),
    "unfinished_work": (
        "Finish what the task asked: the reader of the turn names what is missing",
        "the reader of the turn finds the work unfinished",
    ),
    "unexercised_change": (
        "Run a check that exercises the change itself",
        "the reader of the turn finds that no check reached the change",
    ),
}


def ended_on_announced_step(reading: Reading, digest: dict[str, Any]) -> Gap | None:
    """The turn's last words announce the agent's own next step ("Now let me run the
    build:") and the transcript shows nothing after them: the agent stopped mid-step. The
    shape, not a phrase of the task, is the evidence: the announcement is the final
    record, so the step it announces never ran."""
    announced = announced_next_action(str(digest.get("final_message") or ""))
    if announced is None or not reading.has("remaining_work", SURE):
        return None
    return Gap(
        "reading:announced_step",
        f'the turn ended on a step it announced and never took: "{announced[:160]}"',
        "Take the step you announced now, then finish the task",
        "MEDIUM",
    )


def reading_gaps(reading: Reading, digest: dict[str, Any], gaps: list[Gap]) -> list[Gap]:
    """High-confidence facts from the reading that are open work, as gaps naming their
    evidence (the quote and, for a failed command, the record it came from). An
    announced step the turn ended on stands for the remaining work it shows."""
    step = ended_on_announced_step(reading, digest)
    found = [step] if step is not None else []
    known = {g.pattern for g in gaps} | ({"reading:remaining_work"} if step else set())
    for kind, (action, what) in _READING_GAPS.items():
        facts = [f for f in reading.facts if f.kind == kind and f.confidence >= SURE]
        if not facts or f"reading:{kind}" in known:
            continue
        if kind in ("punt_to_user", "reported_failure") and not unchecked_code_change(digest):
            continue  # open only while the change is unchecked: a check ran, or nothing changed
        if kind == "remaining_work" and reading.has("human_only"):
            continue  # the step it announces waits on what only the user can do
        if kind == "reported_failure" and "error_fix:not_checked" in known:
            continue  # the pasted error already says so
        quote = facts[0].quote
        if kind == "punt_to_user" and looks_at_an_unrunnable_change(quote, digest):
            continue
        if kind == "punt_to_user":
            action = handed_check_action(str(digest.get("final_message") or "")) or action
        where = ""
        if kind == "claim_contradicted" and digest.get("failed_changes"):
            failed = digest["failed_changes"][-1]
            named = ", ".join(failed["files"]) or "a file"
            where = f" ({failed['tool']} of {named} at record {failed['at']} failed)"
        elif kind == "claim_contradicted" and (last := failure_with_the_last_word(digest)):
            verb = "shows a failed state" if last.get("ok") else "failed"
            where = f" (`{last['command'][:80]}` at record {last['at']} {verb})"
        found.append(Gap(f"reading:{kind}", f'{what}: "{quote[:160]}"{where}', action, "MEDIUM"))
    return found


def handed_check_action(message: str) -> str | None:
    """The push for a check handed to the user names the command it handed over."""
    handed = handed_check(message)
    if handed is None:
        return None
    return f"Run `{handed}` yourself: the change is not checked yet, and your tools can run it"


def unchecked_code_change(digest: dict[str, Any]) -> bool:
    """Code (not only docs) changed and no check ran after the latest change."""
    code = [p for p in digest.get("changed_files") or [] if not is_doc_path(p)]
    return bool(code) and digest.get("last_check_after_change") is None


def looks_at_an_unrunnable_change(quote: str, digest: dict[str, Any]) -> bool:
    """The hand-over tells the user where to look at a change only a browser shows
    ("Reload the page to see it" after a stylesheet edit), and the project shows no check
    that could run it (no test suite, no check run in the task): a look, not a check the
    agent's tools could run."""
    code = [p for p in digest.get("changed_files") or [] if not is_doc_path(p)]
    runnable = digest.get("repo_has_tests") or digest.get("checks_before_change")
    return not runnable and shows_where_to_look(quote, code)


# A configured reader's fact this sure may push alone, unless the evidence says the work
# is checked (a passing check after the latest change).
READER_PUSHES = 0.9


def evidence_agrees(gap: Gap, gaps: list[Gap], digest: dict[str, Any], *, changed: bool) -> bool:
    """Hard evidence `gap` (a reading of the words, or the todo list) may push with: an
    item about the checks of the change (CHECK_EVIDENCE: an unchecked change where the
    project has a check, a failed check), a failed last command, a look at a system's state
    after the last act that shows a failed state, a change that failed to apply, or, for a
    reading, an open item on the agent's own todo list. No item agrees
    with itself."""
    last_check = digest.get("last_check_after_change") or {}
    last_command = digest.get("last_command") or {}
    message = str(digest.get("final_message") or "")
    others = [g for g in gaps if g is not gap]
    return (
        any(g.pattern.startswith(CHECK_EVIDENCE) and _counts(g, changed) for g in others)
        or (last_check.get("passed") is False and not _reported(last_check, message))
        or (last_command.get("ok") is False and not _reported(last_command, message))
        or digest.get("failed_state") is not None
        or bool(digest.get("failed_changes"))
        or (gap.pattern != "todos:open" and any(g.pattern == "todos:open" for g in others))
    )


def _reported(outcome: dict[str, Any], message: str) -> bool:
    """The final message says the command failed and quotes its failure line (`password
    authentication failed`): the failure is told, so it backs no reading of another claim."""
    return reports_the_failure(message, {**outcome, "passed": False})


# Readings about whether the change was checked: a passing check after the latest change
# is evidence against them, whoever read them.
_CHECK_READINGS = frozenset(
    {"punt_to_user", "reported_failure", "claim_contradicted", "unexercised_change"}
)


def reader_insists(gap: Gap, reading: Reading, digest: dict[str, Any]) -> bool:
    """A configured reader (not the built-in one) is sure of this open work, and the
    evidence does not speak against it (a passing check after the latest change does, for
    a reading about checking)."""
    kind = gap.pattern.removeprefix("reading:")
    sure = any(
        f.kind == kind and f.source != "builtin" and f.confidence >= READER_PUSHES
        for f in reading.facts
    )
    last_check = digest.get("last_check_after_change") or {}
    checked = last_check.get("passed") is True
    return sure and not (checked and kind in _CHECK_READINGS)


def _counts(gap: Gap, changed: bool) -> bool:
    """A check the tree lacks is the agent's only if it changed it."""
    return changed or not gap.pattern.startswith("tests:")


def _is_hard(
    gap: Gap, sent_patterns: frozenset[str], *, changed: bool = True, require: str = "check"
) -> bool:
    """Hard evidence blocks; a check the tree lacks is the agent's only if it changed it."""
    if not _counts(gap, changed):
        return False
    weight = gap_weight(gap.pattern, require)
    return weight == "hard" or (weight == "once" and gap.pattern not in sent_patterns)


def pushing_gaps(
    gaps: list[Gap],
    digest: dict[str, Any],
    reading: Reading,
    sent: frozenset[str],
    *,
    changed: bool,
    require: str,
) -> list[Gap]:
    """The open items that push the agent on: hard evidence, the readings of words that
    hard evidence agrees with (or a configured reader insists on), and the readings only a
    configured reader's certainty may push."""
    return [
        g
        for g in gaps
        if _is_hard(g, sent, changed=changed, require=require)
        or (
            gap_weight(g.pattern) == "evidence"
            and (
                evidence_agrees(g, gaps, digest, changed=changed)
                or reader_insists(g, reading, digest)
            )
        )
        or (gap_weight(g.pattern) == "reader" and reader_insists(g, reading, digest))
    ]


# Readings whose own words add nothing to the open items they come with ("checks or work
# still open"), or contradict them ("done, with the evidence it needs" beside "tests have
# not run"): with open items, the note is those items alone.
_SAID_BY_ITS_ITEMS = frozenset(("working", "complete", "report_delivered"))


def stop_note(category: str, gaps: list[Gap]) -> str:
    """The one line the user reads when the stop stands: why, and what is still soft."""
    entry = CATEGORY.get(category)
    why = entry.line if entry else category
    if gaps and category in _SAID_BY_ITS_ITEMS:
        why = ""
    still_open = "open: " + "; ".join(g.missing for g in gaps[:2]) if gaps else ""
    return "; ".join(part for part in (why, still_open) if part)[:400]


@record
class StopEvidence:
    """What the session shows, before any reading of its words: the project model (the
    gate inputs and the checks the project is known to have) and the evidence per change
    (the gates, coverage, loops and security findings)."""

    task: TaskContext
    inputs: GateInputs
    gates: dict[str, GateResult]
    loops: list[Loop]
    findings: list[SecurityFinding]
    message: str
    requests: HumanActionAssessment
    no_change: bool
    coverage: list[Gap]
    plan_mode: bool
    planning: bool


def gate_inputs(
    session: Session, task: TaskContext, ctx: DecisionContext, cfg: dict[str, Any], planning: bool
) -> GateInputs:
    """The project model as the gates see it: required gates, commands, the ledger, the
    `stop.require` policy; tests that ran in the task show a suite (`suite_shown`)."""
    tests_cfg = cfg["tests"]
    has_tests = suite_shown(ctx.repo.has_tests, session.tool_calls)
    require = str(cfg["stop"]["require"])
    if (
        has_tests
        and require == "check"
        and untested_packages_only(task.changed_paths, ctx.repo.tested_dirs)
    ):
        has_tests = False  # no test reaches the change: its build checks it
    return GateInputs(
        task=task,
        required=set() if planning else required_gates(task, cfg, has_tests),
        protected_branches=list(cfg["protected_branches"]),
        ignore_globs=list(tests_cfg["ignore"]),
        allow_partial=bool(tests_cfg["allow_partial"]),
        test_command=tests_cfg["command"] or ctx.repo.test_command,
        build_command=ctx.repo.build_command,
        ledger=ctx.ledger if tests_cfg["ledger"] else None,
        require=require,
        has_tests=has_tests,
    )


def no_change_made(
    session: Session, task: TaskContext, ctx: DecisionContext, message: str, human_only: bool
) -> bool:
    """A coding task that asks for a change, and nothing changed or shipped."""
    return (
        task.task_type == "coding"
        and task_kind(session.task_prompt, task) == "change"
        and not task.changed_paths
        and not unnamed_changes(session)
        and not task.continuation
        and ctx.ledger is None
        and not _NO_CHANGE_NEEDED.search(message)
        and not human_only  # the agent says what it needs: a human-only item
        and not shipped(session)  # a push or a PR that went through proves a change
    )


def gather_evidence(session: Session, ctx: DecisionContext, cfg: dict[str, Any]) -> StopEvidence:
    """Stage 1 and 2: the project model and the evidence of checks per change."""
    task = build_task_context(session, ctx.root or session.cwd)
    plan_mode = ctx.permission_mode == "plan"
    planning = plan_mode or task.plan_only
    inputs = gate_inputs(session, task, ctx, cfg, planning)
    gates = evaluate_gates(session, inputs)
    thresholds = LoopThresholds.from_config(cfg)
    loops = [] if planning else detect_loops(session, task.task_type, thresholds)
    configured = [c for c in (cfg["tests"]["command"], ctx.repo.test_command) if c]
    message = clip_message(session.last_assistant_message)
    requests = assess_requests(message)
    no_change = not planning and no_change_made(
        session, task, ctx, message, bool(requests.human_only)
    )
    compile_command = ctx.repo.build_command or ctx.repo.typecheck_command
    known = (
        []
        if gates["tests"].failing
        else known_checks(session, [inputs.test_command, compile_command])
    )
    coverage = (
        []
        if planning
        else task_coverage(
            session,
            task,
            message,
            requests,
            known,
            compile_command,
            tests_open=gates["tests"].failing,
        )
    )
    return StopEvidence(
        task=task,
        inputs=inputs,
        gates=gates,
        loops=loops,
        findings=security_findings(session, configured),
        message=message,
        requests=requests,
        no_change=no_change,
        coverage=coverage,
        plan_mode=plan_mode,
        planning=planning,
    )


def assess_stop(
    session: Session, ev: StopEvidence, ctx: DecisionContext, cfg: dict[str, Any]
) -> tuple[StopAssessment, list[Gap], dict[str, Any], Reading]:
    """Stage 3: the category of the stop, its open items, the digest and the reading."""
    other_gaps = bool(ev.findings or ev.loops or ctx.gate_failures or ev.no_change or ev.coverage)
    inputs = ev.inputs
    transcript_tests = tests_gate(session, replace(inputs, ledger=None)) if inputs.ledger else None
    if transcript_tests is not None and transcript_tests.pattern == "tests:no_result":
        transcript_tests = None  # the transcript lags: the ledger is the better witness
    assessment = categorize(
        ev.message,
        ev.gates,
        ev.requests,
        other_gaps=other_gaps,
        claims_basis=transcript_tests,
        task_prompt=session.task_prompt,
        shown=last_check_after_change(session),
    )
    if ev.planning:
        assessment = StopAssessment("waiting_for_user" if ev.plan_mode else "complete")
    gaps = collect_gaps(
        ev.gates, assessment, ev.loops, ev.findings, ctx.gate_failures, ev.no_change, ev.coverage
    )
    gaps = [claimed_unchecked(g, session, ev.message) for g in gaps]
    if ev.task.waives_checks:
        gaps = [g for g in gaps if not g.pattern.startswith(UNCHECKED_ITEMS)]
    digest = build_digest(
        session,
        ev.task,
        plan_mode=ev.plan_mode,
        has_tests=ctx.repo.has_tests,
        extra_background=payload_background(ctx.background_tasks),
    )
    reading = read_stop(digest, cfg, session)
    if not ev.planning:
        gaps += reading_gaps(reading, digest, gaps)
    return assessment, gaps, digest, reading


# Open items that say only that nothing checked the change: none when the task says not
# to build or run the tests (`TaskContext.waives_checks`). A check that ran and failed
# still counts.
UNCHECKED_ITEMS = (
    "tests:not_run",
    "tests:not_rerun",
    "check:not_run",
    "build:not_run",
    "script:not_run",
    "error_fix:not_checked",
    "ship:unchecked",
    "reading:punt_to_user",
)


def claimed_unchecked(gap: Gap, session: Session, message: str) -> Gap:
    """`tests:not_run` split by what agrees with it: when nothing at all (no test, build,
    typecheck, lint or run of the program) ran after the latest change and the final message
    says the work is done, the evidence and the words agree (`tests:not_run_claimed`).
    A ledger with no passing run for the tree (`tests:ledger`) is the same evidence when
    the transcript shows no check after the change either, and so is a test run that ran
    no test (`tests:none_ran`): it checked nothing. Only a change to a file that holds
    behaviour counts: settings, CI and container files no check is sure to exercise."""
    unchecked = ("tests:not_run", "tests:ledger", "tests:none_ran")
    if gap.pattern not in unchecked or checked_since_last_change(
        session, behaviour_only=True, counts=_ran_a_check
    ):
        return gap
    if not claims_done(message):
        return gap
    return replace(
        gap,
        pattern="tests:not_run_claimed",
        missing=f"{gap.missing}, nothing else checked it, and the message says it is done",
    )


def _ran_a_check(call: ToolCall) -> bool:
    """A check that ran something: a test run that found no test checked nothing."""
    return is_check(call) and not ran_nothing(call)


@record
class StopStatus:
    """Where the stop stands: its status and category, what holds it, and whether the
    configured gate runner gave up."""

    status: str
    category: str
    severity: str
    hold: str | None
    escalated: bool


def stop_status(
    ev: StopEvidence,
    ctx: DecisionContext,
    assessment: StopAssessment,
    gaps: list[Gap],
    digest: dict[str, Any],
    reading: Reading,
) -> StopStatus:
    """Stage 4a: the status, after what holds the stop (a question, human-only needs,
    background work, the host's failure) is applied."""
    category = assessment.category
    severity = _worst([g.severity for g in gaps])
    status = {"waiting_for_user": "waiting_for_user", "genuinely_stuck": "blocked"}.get(
        category, "complete" if category == "complete" and not gaps else "incomplete"
    )
    if status in ("waiting_for_user", "blocked") and severity == "NONE":
        severity = "LOW"
    if ev.findings and status == "waiting_for_user":
        status = "incomplete"  # a security problem outranks a polite question
    escalated = ctx.gate_escalation is not None and status != "complete" and not ev.planning
    if escalated:
        # The gate runner tried its fixes and the same failure persists: pushing the
        # agent again would repeat it. Stop, and put the runner's question to the user.
        status, category = "blocked", "genuinely_stuck"
    changed = bool(ev.task.changed_paths)
    sent, require = ctx.attempts.sent_patterns, ev.inputs.require
    hard_open = any(_is_hard(g, sent, changed=changed, require=require) for g in gaps)
    hold = holding_reason(digest, reading, plan_mode=bool(digest["plan_mode"]), hard_open=hard_open)
    if hold is not None and (status != "complete" or hold in _HOLDS_OVER_COMPLETE):
        category = CATEGORY[hold].record_as
        status = CATEGORY[hold].status
        if status == "complete" and gaps:
            status = "incomplete"  # answered, but something is still open: noted, not pushed
    read_open = any(g.pattern.startswith("reading:") for g in gaps)
    if hold is None and status == "waiting_for_user" and read_open and not ev.findings:
        # The words were read as open work, and nothing the user must answer holds it.
        status = "incomplete"
    return StopStatus(status, category, severity, hold, escalated)


@record
class Push:
    """Stage 4b, the policy's outcome: what pushes the agent on, and what is said."""

    hard: list[Gap]  # the items that push
    said: list[Gap]  # what the feedback says: the pushing items and their context
    should_block: bool
    attempt: int
    max_attempts: int
    feedback: str | None
    budget_exhausted: bool
    report: str | None
    note: str | None


def push_policy(
    session: Session,
    ev: StopEvidence,
    ctx: DecisionContext,
    cfg: dict[str, Any],
    where: StopStatus,
    found: tuple[list[Gap], dict[str, Any], Reading],
) -> Push:
    """Stage 4b: the one policy table (GAP_WEIGHTS) over the open items: push the agent on
    with what is hard, within the attempt budget, or leave a one-line note."""
    gaps, digest, reading = found
    changed = bool(ev.task.changed_paths) or unnamed_changes(session)
    sent = ctx.attempts.sent_patterns
    hard = pushing_gaps(gaps, digest, reading, sent, changed=changed, require=ev.inputs.require)
    soft = [g for g in gaps if g not in hard]
    max_attempts = int(cfg["stop"]["max_attempts"])
    used = max(ctx.attempts.attempts, attempts_in_transcript(session))
    pushable = where.status == "incomplete" and not ev.planning and where.hold is None
    pushable = pushable and bool(hard)
    should_block = pushable and used < max_attempts
    feedback = None
    said_too: list[Gap] = []
    if should_block:
        # Attempts count up one at a time (the transcript can lag the hook; the budget
        # and the host's own cap on consecutive blocks bound a stubborn agent). Readings
        # that did not push join the pushed items as context.
        context = ("reading:", "tests:failing", "loop:action")
        said_too = [g for g in soft if g.pattern.startswith(context) and g.pattern not in sent]
        feedback = compose_feedback(
            hard + said_too, attempt=used + 1, max_attempts=max_attempts, sent_patterns=sent
        )
    # A stop that stands with nothing open says nothing: the agent's own message already
    # tells the user it asks a question, waits or cannot go on.
    said = [g for g in (soft or gaps) if gap_weight(g.pattern) != "record"]
    quiet = should_block or where.status == "complete" or not said
    note = None if quiet else stop_note(where.hold or where.category, said)
    if reading.error:  # a paid reader failed: the built-in reading decided, and the user knows
        note = f"{note}; {reading.error}" if note else reading.error
    exhausted = pushable and not should_block
    return Push(
        hard=hard,
        said=hard + said_too,
        should_block=should_block,
        attempt=used + 1 if should_block else used,
        max_attempts=max_attempts,
        feedback=feedback,
        budget_exhausted=exhausted,
        report=status_report(gaps, used) if exhausted else None,
        note=note,
    )


def decide(session: Session, ctx: DecisionContext) -> Decision:
    """What the stop hook concludes: verdict fields, feedback, and whether to block.

    A pipeline: the project model and the evidence per change (`gather_evidence`), the
    readings of the words (`assess_stop`), then where the stop stands and the one policy
    table that says what pushes (`stop_status`, `push_policy`)."""
    cfg = with_defaults(ctx.config)
    session = read_outcomes(with_wrapped_checks(project_view(session, ctx.root), ctx.repo.wrapped))
    ev = gather_evidence(session, ctx, cfg)
    assessment, gaps, digest, reading = assess_stop(session, ev, ctx, cfg)
    where = stop_status(ev, ctx, assessment, gaps, digest, reading)
    push = push_policy(session, ev, ctx, cfg, where, (gaps, digest, reading))
    return verdict(session, ev, ctx, (assessment, gaps, digest, reading), where, push)


def verdict(
    session: Session,
    ev: StopEvidence,
    ctx: DecisionContext,
    found: tuple[StopAssessment, list[Gap], dict[str, Any], Reading],
    where: StopStatus,
    push: Push,
) -> Decision:
    """The Decision record from the pipeline's stages."""
    assessment, gaps, digest, reading = found
    task, status = ev.task, where.status
    human_only = [sentence for _, sentence in ev.requests.human_only]
    requires_human = bool(human_only) and where.category == "waiting_for_user"
    verified = ev.gates["tests"].satisfied and (
        bool(task.changed_paths) or task.task_type != "coding"
    )
    answer = [f"Answer: {ctx.gate_escalation}"] if where.escalated else []
    return Decision(
        status=status,
        complete=status == "complete",
        severity="NONE" if status == "complete" else where.severity,
        stop_category=where.category,
        missing=[g.missing for g in gaps],
        next_actions=list(dict.fromkeys(answer + [g.action for g in gaps if g.action])),
        requires_human_action=requires_human or where.escalated,
        gates=ev.gates,
        task_type=task.task_type,
        task_id=task_id(session),
        loops=ev.loops,
        feedback=push.feedback,
        should_block=push.should_block,
        agent_score=agent_score(
            status, where.severity, task, session, verified=verified, drift=bool(assessment.drift)
        ),
        attempt=push.attempt,
        max_attempts=push.max_attempts,
        patterns=[g.pattern for g in (push.said if push.should_block else gaps)],
        pushed_by=[g.pattern for g in push.hard] if push.should_block else [],
        open_patterns=[g.pattern for g in gaps],
        security=ev.findings,
        assessment=assessment,
        human_actions=human_only,
        plan_only=ev.planning,
        budget_exhausted=push.budget_exhausted,
        status_report=push.report,
        task_reasons=task.reasons,
        changed_paths=task.changed_paths,
        note=push.note,
        digest=digest,
        reading=reading,
    )
