"""Gates runner: run the configured gate commands, try quick fixes, decide escalation.

`reflection verify` and (with `stop.run_gates`) the Stop hook call this. Each gate
runs with its timeout; test gates are stamped in the test-run ledger; a failing
gate's configured fixes are tried and the gate re-run (a fix counts only when the
re-run passes); the fix-attempt tracker then decides whether the agent gets one
more correction round or the task escalates to the user with a question.

Gate commands come from the user's own config file, which is trusted data the
user wrote, never host-provided input: plain commands run without a shell
(`shlex.split`); commands with shell syntax (pipes, `&&`, redirections, globs,
variables) run under `bash -c`.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import signal
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reflection_core import paths
from reflection_core.config import Config
from reflection_core.lazyre import lazy
from reflection_core.verify import signature as sig_mod
from reflection_core.verify.quick_fix import plan_fixes
from reflection_core.verify.tracker import (
    FAILED,
    SUCCESS,
    Attempt,
    Escalation,
    Tracker,
    escalation,
)

_SHELL_SYNTAX = lazy(r"[|&;<>()$`*?~\n]|\[\[|\{")
_PYTEST_COUNTS = lazy(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)")
OUTPUT_CAP = 256 * 1024
OUTPUT_TAIL = 8000
TIMEOUT_EXIT = 124
NOT_FOUND_EXIT = 127
ESCALATION_EVENTS = ("escalated", "exhausted")


@dataclass
class CommandRun:
    """One finished process: exit code (124 on timeout, 127 when not found) and output."""

    command: str
    exit_code: int
    duration_s: float
    output: str
    timed_out: bool = False


@dataclass
class GateRun:
    name: str
    kind: str
    command: str
    exit_code: int
    duration_s: float
    signature: str | None
    summary: str
    timed_out: bool = False
    output_tail: str = ""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


@dataclass
class FixAttempt:
    gate: str
    signature: str
    fix: str
    outcome: str  # success | failed | skipped (failed before for this error)
    fix_exit_code: int | None = None
    duration_s: float = 0.0


@dataclass
class VerifyResult:
    ok: bool
    results: list[GateRun] = field(default_factory=list)
    fixes: list[FixAttempt] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    escalation: str | None = None  # the question for the user when escalated
    escalation_reason: str | None = None  # same_error | exhausted
    round: int = 0
    auto_detected: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for item, result in zip(data["results"], self.results, strict=True):
            item["ok"] = result.ok
        return data


@dataclass
class GateFailure:
    """One failing gate as the Stop hook reports it; `message` is the formatted feedback item."""

    name: str
    command: str
    message: str
    summary: str
    signature: str | None
    escalate: bool = False

    def __str__(self) -> str:
        return self.message


@dataclass
class StopGatesOutcome:
    """What the Stop hook needs: formatted failures, whether to escalate, events for the record."""

    ok: bool
    failures: list[GateFailure]
    feedback: str
    escalate: bool
    question: str | None
    events: list[dict[str, Any]]
    fixed: list[str]
    last_agent_output: str | None
    lesson: dict[str, Any]
    result: VerifyResult
    notice: str | None = None  # why the gates did not run (an untrusted repo config)

    def to_dict(self) -> dict[str, Any]:
        """For the full record: everything, with the per-gate results and fixes."""
        data = {k: v for k, v in asdict(self).items() if k != "result"}
        data["result"] = self.result.to_dict()
        return data


# ---------------------------------------------------------------- processes


def command_argv(command: str) -> list[str]:
    """argv for a configured command: no shell unless the command uses shell syntax."""
    if _SHELL_SYNTAX.search(command):
        return ["bash", "-c", command]
    return shlex.split(command)


def run_command(
    command: str, cwd: Path, timeout: float, *, quiet_ledger: bool = False
) -> CommandRun:
    """Run one configured command; on timeout its whole process group is killed."""
    started = time.monotonic()
    env = {**os.environ, "NO_COLOR": "1", "PY_COLORS": "0", "TERM": "dumb"}
    env.pop("FORCE_COLOR", None)
    if quiet_ledger:
        env["REFLECTION_LEDGER"] = "0"
    try:
        proc = subprocess.Popen(
            command_argv(command),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except (FileNotFoundError, PermissionError, ValueError) as exc:
        return CommandRun(command, NOT_FOUND_EXIT, 0.0, f"cannot run {command!r}: {exc}")
    try:
        raw, _ = proc.communicate(timeout=timeout)
        timed_out = False
        code = proc.returncode
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raw, _ = proc.communicate()
        timed_out = True
        code = TIMEOUT_EXIT
    except BaseException:  # the hook's own deadline: leave no command running behind it
        _kill_group(proc)
        raise
    output = _cap(raw.decode("utf-8", errors="replace"))
    if timed_out:
        output += f"\n[reflection: timed out after {timeout:g}s; process group killed]"
    return CommandRun(command, code, time.monotonic() - started, output, timed_out)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        proc.kill()


def _cap(text: str) -> str:
    if len(text) <= OUTPUT_CAP:
        return text
    half = OUTPUT_CAP // 2
    return text[:half] + "\n[... output truncated ...]\n" + text[-half:]


def pytest_counts(output: str) -> dict[str, int] | None:
    """Counts from a pytest-style summary line ('3 passed, 1 failed'), if there is one."""
    counts: dict[str, int] = {}
    tail = "\n".join(output.strip().splitlines()[-3:])  # the summary is the last line
    for number, word in _PYTEST_COUNTS.findall(tail):
        key = "errors" if word.startswith("error") else word
        counts[key] = int(number)
    return counts or None


# ---------------------------------------------------------------- gates


def configured_gates(root: Path, cfg: Config) -> tuple[list[dict[str, Any]], bool]:
    """The `gates:` list, or gates detected from the repo's files when none are configured."""
    gates: list[dict[str, Any]] = list(cfg.get("gates") or [])
    if gates:
        return gates, False
    try:
        from reflection_core.project import repo_signals
    except ImportError:
        return [], False
    signals = repo_signals(root, cfg)
    detected: list[tuple[str, str, str | None]] = []
    if signals.test_command:
        detected.append(("tests", "tests", signals.test_command))
    detected.extend(("lint", "lint", cmd) for cmd in signals.lint_commands[:1])
    detected.extend(("typecheck", "typecheck", cmd) for cmd in signals.typecheck_commands[:1])
    if signals.build_command:
        detected.append(("build", "build", signals.build_command))
    out = [
        {"name": name, "run": cmd, "fix": [], "fix_patterns": [], "timeout": 600.0, "kind": kind}
        for name, kind, cmd in detected
        if cmd
    ]
    return out, bool(out)


def run_gate(root: Path, gate: dict[str, Any]) -> GateRun:
    """Run one gate and stamp test gates in the ledger with the tree they ran on."""
    is_tests = gate.get("kind") == "tests"
    tree = _fingerprint(root) if is_tests else None
    # Our stamp is the record of this run; the pytest plugin in the child would add a second.
    run = run_command(gate["run"], root, float(gate.get("timeout", 600)), quiet_ledger=is_tests)
    if is_tests:
        _record_in_ledger(root, run, tree)
    ok = run.exit_code == 0
    return GateRun(
        name=gate["name"],
        kind=gate.get("kind", "other"),
        command=gate["run"],
        exit_code=run.exit_code,
        duration_s=round(run.duration_s, 3),
        signature=None
        if ok
        else sig_mod.error_signature(gate["name"], run.output, run.exit_code, str(root)),
        summary="" if ok else sig_mod.summarize(run.output, str(root)),
        timed_out=run.timed_out,
        output_tail="" if ok else sig_mod.strip_ansi(run.output[-OUTPUT_TAIL:]),
    )


def _fingerprint(root: Path) -> str | None:
    """The tree a test gate is about to run on (None outside a git repo)."""
    try:
        from reflection_core.guards.fingerprint import worktree_tree

        return worktree_tree(root)
    except (ImportError, OSError, RuntimeError, ValueError, subprocess.SubprocessError):
        return None


def _record_in_ledger(root: Path, run: CommandRun, tree: str | None) -> None:
    try:
        from reflection_core.guards.ledger import record_run
    except ImportError:  # the ledger is optional for `reflection verify`
        return
    try:
        record_run(
            root,
            run.command,
            run.exit_code,
            run.duration_s,
            counts=pytest_counts(run.output),
            partial=False,
            source="verify",
            tree=tree,
        )
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError):
        pass  # outside a git repo there is no ledger; the gate result still stands


def run_gates(root: Path, cfg: Config, *, task_key: str, quick_fix: bool = True) -> VerifyResult:
    """Run every gate, try quick fixes on failures, count the round, escalate when due."""
    from reflection_core.atomic import locked

    gates, auto = configured_gates(root, cfg)
    lock = paths.state_dir() / "verify-locks" / _repo_key(root)
    with locked(lock):  # gates and fixes of one repo never interleave
        tracker = Tracker(task_key)
        tracker.prune()
        try:
            result = _run_locked(root, cfg, gates, tracker, quick_fix)
        finally:
            tracker.close()
    result.auto_detected = auto
    return result


def _repo_key(root: Path) -> str:
    return hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]


def _run_locked(
    root: Path, cfg: Config, gates: list[dict[str, Any]], tracker: Tracker, quick_fix: bool
) -> VerifyResult:
    result = VerifyResult(ok=True)
    for gate in gates:
        gate_result = run_gate(root, gate)
        if not gate_result.ok and quick_fix:
            gate_result = _try_fixes(root, gate, gate_result, tracker, result)
        result.results.append(gate_result)
    failing = [r for r in result.results if not r.ok]
    result.ok = not failing
    if not failing:
        return result
    history = tracker.record_round([(r.name, r.signature or "", r.summary) for r in failing])
    result.round = history.rounds
    decision = escalation(
        history,
        [r.signature or "" for r in failing],
        same_error_limit=int(cfg.get("verify.same_error_limit")),
        max_rounds=int(cfg.get("verify.max_rounds")),
    )
    if decision is not None:
        result.escalation_reason = decision.reason
        result.escalation = escalation_question(decision, failing, history.attempts)
        result.events.append(
            {
                "type": "escalated" if decision.reason == "same_error" else "exhausted",
                "reason": decision.reason,
                "signature": decision.signature,
                "count": decision.count,
                "limit": decision.limit,
                "round": history.rounds,
                "at": _now(),
            }
        )
    return result


def _try_fixes(
    root: Path,
    gate: dict[str, Any],
    failed: GateRun,
    tracker: Tracker,
    result: VerifyResult,
) -> GateRun:
    signature = failed.signature or ""
    plan = plan_fixes(gate, failed.output_tail, tracker.failed_fixes(signature))
    for fix in plan.skipped:
        result.fixes.append(FixAttempt(gate["name"], signature, fix, "skipped"))
        result.events.append(
            {
                "type": "quick_fix_skipped",
                "gate": gate["name"],
                "fix": fix,
                "signature": signature,
                "reason": "failed before for this error",
                "at": _now(),
            }
        )
    current = failed
    for fix in plan.to_try:
        fix_run = run_command(fix, root, float(gate.get("timeout", 600)))
        rerun = run_gate(root, gate)
        outcome = SUCCESS if rerun.ok else FAILED
        tracker.record_fix(signature, gate["name"], fix, outcome)
        result.fixes.append(
            FixAttempt(
                gate["name"],
                signature,
                fix,
                outcome,
                fix_run.exit_code,
                round(fix_run.duration_s, 3),
            )
        )
        result.events.append(
            {
                "type": "quick_fix_applied",
                "gate": gate["name"],
                "fix": fix,
                "signature": signature,
                "outcome": outcome,
                "at": _now(),
            }
        )
        current = rerun
        if rerun.ok:
            break
    return current


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# ---------------------------------------------------------------- messages


def format_failure(result: GateRun) -> str:
    """One failing gate as a feedback item: name, command, exit, the error lines."""
    status = "timed out" if result.timed_out else f"exit {result.exit_code}"
    head = f"{result.name}: `{result.command}` {status}"
    return f"{head}\n{_indent(result.summary)}" if result.summary else head


def escalation_question(
    decision: Escalation, failing: list[GateRun], attempts: list[Attempt]
) -> str:
    """The blocked verdict's question: the error, the fixes tried and their outcomes."""
    main = next((r for r in failing if r.signature == decision.signature), failing[0])
    if decision.reason == "same_error":
        why = f"The same failure persisted {decision.count} times (limit {decision.limit})"
    else:
        why = f"The correction budget is spent ({decision.count} of {decision.limit} rounds)"
    tried = [a for a in attempts if a.signature == main.signature] or attempts
    fixes = "; ".join(f"`{a.fix}` -> {a.outcome}" for a in tried[-5:]) or "none configured"
    others = [r.name for r in failing if r is not main]
    also = f" Also failing: {', '.join(others)}." if others else ""
    return (
        f"{why} in gate {main.name} (`{main.command}`):\n{_indent(main.summary or '(no output)')}\n"
        f"Fixes tried: {fixes}.{also}\n"
        "How should we proceed: fix it by hand, change the approach, or accept this failure?"
    )


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def run_for_stop(
    root: Path, cfg: Config, task_key: str, *, last_agent_output: str | None = None
) -> StopGatesOutcome:
    """Gates for the Stop hook: feedback for the agent, or an escalation for the user.

    A hook runs a repository's commands only when the user trusts its config."""
    from reflection_core import trust

    if not trust.is_trusted(root, cfg):
        return StopGatesOutcome(
            ok=True,
            failures=[],
            feedback="",
            escalate=False,
            question=None,
            events=[{"type": "untrusted_config", "at": _now()}],
            fixed=[],
            last_agent_output=None,
            lesson={},
            result=VerifyResult(ok=True),
            notice=trust.untrusted_notice(root, cfg),
        )
    result = run_gates(root, cfg, task_key=task_key, quick_fix=True)
    escalated = {e.get("signature") for e in result.events if e["type"] in ESCALATION_EVENTS}
    exhausted = result.escalation_reason == "exhausted"
    failures = [
        GateFailure(
            name=r.name,
            command=r.command,
            message=format_failure(r),
            summary=r.summary,
            signature=r.signature,
            escalate=exhausted or r.signature in escalated,
        )
        for r in result.results
        if not r.ok
    ]
    fixed = [f"{f.gate}: `{f.fix}`" for f in result.fixes if f.outcome == SUCCESS]
    parts = []
    if fixed:
        parts.append("Quick fixes changed files and their gates now pass: " + ", ".join(fixed))
    if failures:
        items = "\n- ".join(f.message for f in failures)
        parts.append("These gates fail; fix them, then stop again:\n- " + items)
    kept = last_agent_output[-2000:] if last_agent_output else None
    return StopGatesOutcome(
        ok=result.ok,
        failures=failures,
        feedback="\n".join(parts),
        escalate=result.escalation is not None,
        question=result.escalation,
        events=result.events,
        fixed=fixed,
        last_agent_output=kept,
        lesson=lesson_from(result),
        result=result,
    )


def lesson_from(result: VerifyResult) -> dict[str, Any]:
    """What this gate run teaches for episodic memory (memory.store_lesson's lesson dict)."""
    failed = list(dict.fromkeys(f.gate for f in result.fixes))
    failed += [r.name for r in result.results if not r.ok and r.name not in failed]
    return {
        "outcome": "escalated" if result.escalation else ("complete" if result.ok else "failing"),
        "failed_gates": failed,
        "fixes_worked": [f.fix for f in result.fixes if f.outcome == SUCCESS],
    }
