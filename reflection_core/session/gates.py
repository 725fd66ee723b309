"""Gates: each one a yes/no with the evidence behind it, decided from the session alone.

The central question is "did tests run and pass AFTER THE LATEST CHANGE?": a run
before the last edit proves nothing about the code that is there now. When the
test-run ledger has evidence for the current tree it overrides the transcript,
because the ledger fingerprints the tree itself while the transcript only shows
what the agent said it ran.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reflection_core.globs import matching_branch_rule, path_matches
from reflection_core.lazyre import lazy
from reflection_core.session.model import Session, ToolCall
from reflection_core.session.task import TaskContext, is_dependency_manifest, unnamed_changes

_FAILED_IN_OUTPUT = lazy(
    r"\b[1-9]\d* (failed|failing|errors?)\b|^FAILED\b|\bTests?:\s+[1-9]\d* failed|^FAIL\b", re.M
)
_NOTHING_RAN = lazy(
    r"\bno tests ran\b|\bcollected 0 items\b|\b0 passed\b|\bno test files\b|\bRan 0 tests\b|"
    r"\bno tests? (files? )?(were )?found\b|\b0 passing\b|\bTests:\s+0 total\b|"
    r"\b0 tests? (ran|run|executed)\b",
    re.I,
)
# A count of tests that did run: a runner that found nothing in one place ("running 0
# tests" for doc-tests, "No tests found" for one package) may still have run the rest.
_RAN_SOME = lazy(
    r"\b[1-9]\d* (passed|passing)\b|\bRan [1-9]\d* tests?\b|\bTests:\s+[1-9]\d* passed|"
    r"^ok\s+\S+\s+(\(cached\)|[\d.]+s)",  # go test: one `ok <pkg> <time>` per tested package
    re.I | re.M,
)
_PASSED_IN_OUTPUT = lazy(
    r"\b[1-9]\d* (passed|passing)\b|^OK\b|^ok\s|\bPASS\b|\bTests?:\s+\d+ passed", re.M
)
_FLAKY = lazy(
    r"\b(flaky|flake|intermittent\w*|unrelated (to (my|the|these) changes?)?|pre-?existing|"
    r"not (related|caused by) (to )?(my|the|these) change)",
    re.I,
)
_TEXT_TAIL = 20_000
_PR_URL = lazy(r"https?://(?:(?!https?://)\S)+/(?:pull|merge_requests)/\d+")


@dataclass
class LedgerEvidence:
    """What the test-run ledger says about the current tree (converted from TreeEvidence)."""

    passed: bool
    reason: str = ""
    command_hint: str | None = None
    ignorable_only: bool = False


@dataclass
class GateResult:
    """One gate: required or advisory, satisfied or not, and why."""

    name: str
    required: bool
    satisfied: bool
    evidence: str
    missing: str | None = None
    next_action: str | None = None
    severity: str = "NONE"  # severity of the gap when required and not satisfied
    pattern: str = ""  # stable key for "same message not injected twice"

    def to_dict(self) -> dict[str, object]:
        return {"required": self.required, "satisfied": self.satisfied, "evidence": self.evidence}

    @property
    def failing(self) -> bool:
        return self.required and not self.satisfied


@dataclass
class GateInputs:
    """Everything the gates read besides the session."""

    task: TaskContext
    required: set[str]
    protected_branches: list[str] = field(default_factory=lambda: ["main", "master"])
    ignore_globs: list[str] = field(default_factory=list)
    allow_partial: bool = False
    test_command: str | None = None
    build_command: str | None = None
    ledger: LedgerEvidence | None = None


def _has(call: ToolCall, kind: str) -> bool:
    return call.command is not None and kind in call.command.kinds


def last_change_index(session: Session) -> int:
    """Position (in tool_calls) of the latest file change, or -1 when nothing changed."""
    calls = session.tool_calls
    for pos in range(len(calls) - 1, -1, -1):
        if calls[pos].changes_files:
            return pos
    return -1


def last_tested_change_index(session: Session, ignore_globs: list[str]) -> int:
    """Position of the latest change that needs tests: a doc written after a passing run
    (a report, a changelog) does not make that run stale. A modifying command whose files
    are unknown counts as a code change."""
    calls = session.tool_calls
    for pos in range(len(calls) - 1, -1, -1):
        call = calls[pos]
        if not call.changes_files:
            continue
        paths = [p.replace("\\", "/") for p in call.files] if call.kind in ("edit", "write") else []
        if call.command is not None:
            paths = [p.replace("\\", "/") for p in call.command.modified_files]
        if not paths or any(
            is_dependency_manifest(p) or not _ignored(p, ignore_globs) for p in paths
        ):
            return pos
    return -1


# Repository housekeeping files no test run checks, whatever the configured globs say.
NEVER_TESTED = (".gitignore", ".gitattributes", ".dockerignore", ".editorconfig")


def _ignored(path: str, ignore_globs: list[str]) -> bool:
    """Ignored by a glob, matched against the path and against each of its tails (the
    transcript's paths are absolute, the globs repo-relative)."""
    parts = path.split("/")
    if parts[-1] in NEVER_TESTED:
        return True
    return any(path_matches("/".join(parts[i:]), ignore_globs) for i in range(len(parts)))


def ran_nothing(call: ToolCall) -> bool:
    """The run finished but no test ran: "No tests found, exiting with code 0",
    "collected 0 items", pytest's exit 5."""
    if call.exit_code == 5 and call.command is not None and call.command.test_runner == "pytest":
        return True
    return bool(_NOTHING_RAN.search(call.output)) and not _RAN_SOME.search(call.output)


def run_passed(call: ToolCall) -> bool | None:
    """Did this run pass? Output showing failures wins over an exit code a pipe masked.

    When the command line hides the test's exit status (`pytest | tail`, `|| true`),
    only a pass summary in the output counts as passing.
    """
    if call.ok is None:
        return None
    if call.ok and (_FAILED_IN_OUTPUT.search(call.output) or ran_nothing(call)):
        return False
    if call.ok and call.command is not None and call.command.exit_masked:
        return bool(_PASSED_IN_OUTPUT.search(call.output))
    return call.ok


def _cmd(call: ToolCall) -> str:
    raw = call.command.raw if call.command else str(call.input.get("command", ""))
    return raw if len(raw) <= 80 else raw[:77] + "..."


def dismissed_as_flaky(session: Session, after_index: int) -> bool:
    """The agent waved a failure away as flaky/unrelated after tool call `after_index`."""
    texts = [t.text for t in session.assistant_texts if t.index > after_index]
    texts.append(session.last_assistant_message)
    return any(_FLAKY.search(text[-_TEXT_TAIL:]) for text in texts)


def tests_gate(session: Session, inputs: GateInputs) -> GateResult:
    required = "tests" in inputs.required
    run_hint = inputs.test_command or "the project's full test suite"
    action = f"Run `{inputs.test_command}`" if inputs.test_command else "Run the full test suite"
    ledger = inputs.ledger
    if not inputs.task.changed_paths and not unnamed_changes(session):
        # The tree's state before this task is not this task's work to check.
        return GateResult("tests", required, True, "no file changed in this task")
    if ledger is not None:
        if ledger.passed or ledger.ignorable_only:
            why = ledger.reason or "a passing run is recorded for the current tree"
            return GateResult("tests", required, True, f"ledger: {why}")
        hint = ledger.command_hint or inputs.test_command
        return GateResult(
            "tests",
            required,
            False,
            f"ledger: {ledger.reason or 'no passing run recorded for the current tree'}",
            missing="no passing test run is recorded for the current tree",
            next_action=f"Run `{hint}` and fix any failures"
            if hint
            else "Run the full test suite so the run is recorded (pytest records itself; "
            "other runners through `reflection run -- <command>`)",
            severity="MEDIUM",
            pattern="tests:ledger",
        )
    changed = inputs.task.changed_paths
    if not changed:
        return GateResult("tests", required, True, "no file changed in this task")
    needs_tests = [
        p for p in changed if is_dependency_manifest(p) or not path_matches(p, inputs.ignore_globs)
    ]
    if not needs_tests:
        return GateResult(
            "tests", required, True, f"only files that need no tests changed ({changed[0]}...)"
        )
    calls = session.tool_calls
    last_change = last_tested_change_index(session, inputs.ignore_globs)
    changed_at = calls[last_change] if last_change >= 0 else None
    change_label = (
        f"the latest change ({changed_at.name} #{changed_at.index})" if changed_at else ""
    )
    runs_after = [(pos, c) for pos, c in enumerate(calls) if pos > last_change and _has(c, "test")]
    if not runs_after:
        ran_before = any(_has(c, "test") for c in calls[: max(last_change, 0)])
        lint_after = any(_has(c, "lint") for c in calls[last_change + 1 :])
        if ran_before:
            evidence = f"tests ran before {change_label} but not after it"
        elif lint_after:
            evidence = "only lint ran after the latest change; lint is not tests"
        else:
            evidence = "no test run in this task"
        return GateResult(
            "tests",
            required,
            False,
            evidence,
            missing=f"tests have not run after {change_label or 'the latest change'}",
            next_action=f"{action} now that the code has changed",
            severity="MEDIUM",
            pattern="tests:not_run",
        )
    last = runs_after[-1][1]
    passed = run_passed(last)
    if passed is None:
        return GateResult(
            "tests",
            required,
            False,
            f"`{_cmd(last)}` has no result yet (still running or the transcript lags)",
            missing="the last test run has no result",
            next_action=f"Wait for the test run to finish, or {action.lower()} again",
            severity="MEDIUM",
            pattern="tests:no_result",
        )
    if not passed and ran_nothing(last):
        return GateResult(
            "tests",
            required,
            False,
            f"`{_cmd(last)}` ran no tests (none collected or found)",
            missing="the last test run ran no tests",
            next_action="Make the test runner find the tests (file names, test paths or "
            f"patterns in its config), then {action.lower()} again and check the count",
            severity="MEDIUM",
            pattern="tests:none_ran",
        )
    if not passed:
        flaky = dismissed_as_flaky(session, last.index)
        evidence = f"`{_cmd(last)}` failed after the latest change" + (
            "; the failure was dismissed as flaky/unrelated, which does not make it pass"
            if flaky
            else ""
        )
        return GateResult(
            "tests",
            required,
            False,
            evidence,
            missing="tests fail after the latest change",
            next_action=f"Fix the failing tests, then {action.lower()} until it passes"
            + (" (a flaky test still has to pass or be fixed)" if flaky else ""),
            severity="HIGH",
            pattern="tests:failing",
        )
    full_passes = [
        c
        for _, c in runs_after
        if run_passed(c) and not (c.command is not None and c.command.partial)
    ]
    if last.command is not None and last.command.partial and not inputs.allow_partial:
        if full_passes:
            return GateResult(
                "tests", required, True, f"`{_cmd(full_passes[-1])}` passed after the latest change"
            )
        return GateResult(
            "tests",
            required,
            False,
            f"only a partial run passed after the latest change (`{_cmd(last)}`)",
            missing="only a filtered/partial test run passed",
            next_action=f"Run {run_hint} (not a filtered subset)",
            severity="MEDIUM",
            pattern="tests:partial",
        )
    return GateResult("tests", required, True, f"`{_cmd(last)}` passed after the latest change")


def _command_gate(
    session: Session, inputs: GateInputs, name: str, kind: str, configured: str | None
) -> GateResult:
    required = name in inputs.required
    calls = session.tool_calls
    last_change = last_change_index(session)
    runs = [c for pos, c in enumerate(calls) if pos > last_change and _has(c, kind)]
    action = f"Run `{configured}`" if configured else f"Run the project's {name}"
    if not runs:
        if last_change < 0:
            return GateResult(name, required, True, "no file changed in this task")
        return GateResult(
            name,
            required,
            False,
            f"no {name} run after the latest change",
            missing=f"{name} has not run after the latest change",
            next_action=action,
            severity="MEDIUM",
            pattern=f"{name}:not_run",
        )
    last = runs[-1]
    if run_passed(last):
        return GateResult(name, required, True, f"`{_cmd(last)}` passed after the latest change")
    return GateResult(
        name,
        required,
        False,
        f"`{_cmd(last)}` failed after the latest change",
        missing=f"{name} fails",
        next_action=f"Fix the {name} errors, then {action[0].lower()}{action[1:]}",
        severity="HIGH",
        pattern=f"{name}:failing",
    )


def pr_evidence(session: Session) -> str | None:
    """Where the transcript shows a pull request exists, or None."""
    for call in reversed(session.tool_calls):
        if call.ok is False:
            continue
        match = _PR_URL.search(call.output)
        if (_has(call, "pr_create") or _has(call, "pr_view")) and call.ok:
            return f"`{_cmd(call)}` succeeded" + (f" ({match.group(0)})" if match else "")
        if match and call.command is not None:
            return f"pull request {match.group(0)}"
    return None


def pr_gate(session: Session, inputs: GateInputs) -> GateResult:
    required = "pr" in inputs.required
    found = pr_evidence(session)
    if found:
        return GateResult("pr", required, True, found)
    return GateResult(
        "pr",
        required,
        False,
        "no pull request created or found in this task",
        missing="no pull request exists for the change",
        next_action="Push the branch and open a pull request (`gh pr create --fill`)",
        severity="MEDIUM",
        pattern="pr:missing",
    )


def ci_gate(session: Session, inputs: GateInputs) -> GateResult:
    required = "ci" in inputs.required
    calls = session.tool_calls
    last_push = max((pos for pos, c in enumerate(calls) if _has(c, "push") and c.ok), default=-1)
    checks = [c for pos, c in enumerate(calls) if pos > last_push and _has(c, "pr_checks")]
    if not checks:
        return GateResult(
            "ci",
            required,
            False,
            "CI status was not checked after the latest push",
            missing="CI has not been confirmed green",
            next_action="Wait for CI and check it (`gh pr checks --watch`)",
            severity="MEDIUM",
            pattern="ci:unchecked",
        )
    last = checks[-1]
    if run_passed(last):
        return GateResult("ci", required, True, f"`{_cmd(last)}` reported green checks")
    return GateResult(
        "ci",
        required,
        False,
        f"`{_cmd(last)}` reported failing or pending checks",
        missing="CI is not green",
        next_action="Read the failing CI job's log, fix it, push, and check again",
        severity="HIGH",
        pattern="ci:failing",
    )


def push_gate(session: Session, inputs: GateInputs) -> GateResult:
    """No direct push to a protected branch (a refused push is the guard working)."""
    required = "push" in inputs.required
    violations: list[str] = []
    refused: list[str] = []
    for call in session.tool_calls:
        if not _has(call, "push") or call.command is None:
            continue
        refs = list(call.command.push_refs) or ([session.git_branch] if session.git_branch else [])
        for ref in refs:
            short = ref.removeprefix("refs/heads/")
            rule = matching_branch_rule(short, inputs.protected_branches)
            if rule is None:
                continue
            target = f"`{_cmd(call)}` -> {short} (rule {rule!r})"
            (refused if call.ok is False else violations).append(target)
    if violations:
        return GateResult(
            "push",
            required,
            False,
            "direct push to a protected branch: " + "; ".join(violations[:3]),
            missing="the change was pushed straight to a protected branch",
            next_action="Do not force-push or rewrite the protected branch; tell the user which "
            "commits were pushed so they can review them, and do any further work on a feature "
            "branch with a pull request",
            severity="HIGH",
            pattern="push:protected",
        )
    evidence = "no push to a protected branch"
    if refused:
        evidence += "; refused attempt: " + refused[0]
    return GateResult("push", required, True, evidence)


def evaluate_gates(session: Session, inputs: GateInputs) -> dict[str, GateResult]:
    """Every gate, required or not, in a fixed order."""
    return {
        "tests": tests_gate(session, inputs),
        "build": _command_gate(session, inputs, "build", "build", inputs.build_command),
        "lint": _command_gate(session, inputs, "lint", "lint", None),
        "pr": pr_gate(session, inputs),
        "ci": ci_gate(session, inputs),
        "push": push_gate(session, inputs),
    }
