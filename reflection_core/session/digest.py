"""The evidence digest: every fact a stop decision needs, small enough to hand a reader.

A plain JSON-able dict built once per stop from the parsed session. Each piece of
evidence carries `at`, the index of the transcript record it came from, so a block can
point at it. Readers (built-in, LLM, `claude -p`, a user's command) get this digest,
never the transcript: typically 300-900 tokens, at most about 1,500 (the final message is
the largest part and is clipped to `FINAL_LIMIT` characters).
"""

from __future__ import annotations

import re

from reflection_core.lazyre import lazy
from reflection_core.session.commands import CHECK_KINDS, HTTP_CLIENTS, shows_failed_state
from reflection_core.session.evidence import is_check
from reflection_core.session.gates import (
    checked_from,
    failure_has_the_last_word,
    failure_preexists,
    last_change_index,
    run_passed,
)
from reflection_core.session.model import Session, ToolCall
from reflection_core.session.task import TaskContext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROMPT_LIMIT = 800
FINAL_LIMIT = 4000
OUTPUT_TAIL = 300

# The host's own failure text in the final message: the agent did not choose to stop.
# One phrase family per line; matched case-insensitively anywhere in the message.
HOST_FAILURE_MARKERS: tuple[str, ...] = (
    r"\bapi error: ?(429|5\d\d)\b",
    r"\boverloaded(_error)?\b.{0,40}\b(api|error|try again)|\bapi error\b.{0,80}\boverloaded",
    r"\byou'?ve (hit|reached) your (session|usage|weekly|daily|5-hour) limit",
    r"\b(session|usage) limit (reached|exceeded|hit)\b",
    r"\bautocompact is thrashing\b",
    r"\b(compaction|auto-?compact) failed\b",
    r"\bprompt is too long\b",
    r"\bcontext (window|length) (limit )?exceeded\b",
    r"\brequest timed out\b.{0,40}\bapi\b|\bapi error\b.{0,40}\btimed? ?out\b",
    r"\bcredit balance is too low\b",
)
_HOST_FAILURE = tuple(lazy(p, re.I) for p in HOST_FAILURE_MARKERS)

# What the prompt asks for, beyond "change the code". One phrase per line; the first kind
# whose phrase appears wins, in this order.
TASK_KIND_PHRASES: tuple[tuple[str, str], ...] = (
    # "don't fix anything, just tell me"; not "don't change the xml", which limits a change.
    (
        "report_only",
        r"\b(do not|don'?t|without) (fix|chang|modify|edit|touch|implement)\w*(?= *([.,;:!)\n]|"
        r"$| (anything|any (code|files?)|the code|code|files|it|them|yet|just|only|but|"
        r"for now)\b))",
    ),
    ("report_only", r"\bjust (tell|show|report|explain|list)\b"),
    ("report_only", r"\b(report|tell me) (back )?(what|which|whether|if|how|why)\b"),
    ("report_only", r"\bonly (report|explain|investigate|analy[sz]e|diagnose)\b"),
    ("verify_only", r"^\W*(please )?(run|execute|re-?run) (the |all |our )?(unit |e2e |)tests?\b"),
    ("verify_only", r"^\W*(please )?(check|verify|confirm|make sure|ensure) (that |whether |if )"),
    ("verify_only", r"^\W*(please )?(can you )?(check|verify|confirm) (the |all |that )?\w+"),
    ("read_only", r"^\W*(please )?(can you )?(search|find|grep|look) (for|up|through) "),
    ("read_only", r"^\W*(please )?(can you )?(review|audit|analy[sz]e|explain|summari[sz]e)\b"),
    ("read_only", r"^\W*(what|why|how|where|which|who|when|is|are|does|do)\b[^\n]*\?\s*$"),
    ("ops", r"^\W*(please )?(install|deploy|restart|start|stop|upgrade|uninstall|set ?up)\b"),
)
_TASK_KIND = tuple((kind, lazy(p, re.I)) for kind, p in TASK_KIND_PHRASES)
_GH_PR = lazy(r"\bgh pr (create|merge)\b")
# Subagent tools: their result arrives as the tool result; none yet means still running.
_SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
_MONITOR_TOOLS = frozenset({"Monitor", "BashOutput"})


def clip(text: str, limit: int) -> str:
    """Head and, mostly, tail of `text` within `limit` characters."""
    text = text or ""
    if len(text) <= limit:
        return text
    head = limit // 4
    return text[:head] + "\n...\n" + text[-(limit - head - 5) :]


def task_kind(prompt: str, task: TaskContext) -> str:
    """change | verify_only | report_only | read_only | ops | plan."""
    if task.plan_only:
        return "plan"
    words = (prompt or "").strip()
    for kind, pattern in _TASK_KIND:
        if pattern.search(words):
            return kind
    if task.task_type == "research":
        return "read_only"
    if task.task_type == "ops":
        return "ops"
    return "change"


def _command_text(call: ToolCall) -> str:
    raw = call.command.raw if call.command else str(call.input.get("command", "") or call.name)
    return raw if len(raw) <= 160 else raw[:157] + "..."


def _shell_outcome(call: ToolCall, message: str = "") -> dict[str, Any]:
    return {
        "at": call.index,
        "command": _command_text(call),
        "ok": call.ok,
        "exit_code": call.exit_code,
        "output_tail": (call.output or "")[-OUTPUT_TAIL:],
        # What the final message quotes (in backticks) of the whole output (`EOTP`): the
        # message speaks of this run's result, whatever its words.
        "quoted_in_message": _quoted_from(call.output or "", message),
        # A check or a run of the program whose output ends on its failure the way the
        # gates read it: a runner's failure summary (`--- FAIL:`, `1 failing`), a
        # compiler's error line, a runtime's crash (a failed run is no check, but shows one).
        "failure_shown": _checks_or_runs(call) and failure_has_the_last_word(call),
        "status_hidden": status_hidden(call),
        "filtered": call.command is not None and call.command.status_of_a_filter,
    }


def _quoted_from(output: str, message: str) -> list[str]:
    if not output or "`" not in message:
        return []
    spans = dict.fromkeys(q.strip() for q in _INLINE.findall(message))
    found = sorted((output.rfind(q), q) for q in spans if len(q) >= 3 and q in output)
    return [q for _, q in found[::-1][:5]]  # nearest the end first: where errors are


_INLINE = lazy(r"`([^`\n]{2,200})`")


def _checks_or_runs(call: ToolCall) -> bool:
    return is_check(call) or (call.command is not None and "run" in call.command.kinds)


def status_hidden(call: ToolCall) -> bool:
    """The command line's exit status is not its check's: the check pipes into another
    program (without pipefail), its status is discarded (`|| true`), or it is an HTTP
    request, whose client exits 0 on a server error unless told to fail (`curl --fail`)."""
    if call.command is None:
        return False
    raw = call.command.raw
    piped = _PIPE.search(raw) is not None and "pipefail" not in raw
    http = bool(HTTP_CLIENTS.intersection(call.command.programs)) and not _FAILS_ON_HTTP.search(raw)
    return call.command.exit_masked or piped or http or _DISCARDED.search(raw) is not None


_PIPE = lazy(r"(?<!\|)\|(?![|&])")
_FAILS_ON_HTTP = lazy(r"\s(-f|--fail|--fail-with-body|-[a-zA-Z]*f[a-zA-Z]*)(\s|$)")
_DISCARDED = lazy(r"\|\|\s*(?:true|:)\b|;\s*(?:true|:)\s*$")


def last_command(session: Session) -> dict[str, Any] | None:
    """The last shell command with a result that did more than look at a system's state,
    and how it ended; for a failed test run, whether it fails the same way without the
    change (a baseline showed it)."""
    calls = session.tool_calls
    for pos in range(len(calls) - 1, -1, -1):
        call = calls[pos]
        if call.kind == "shell" and call.ok is not None and not call.background:
            if only_looks(call):
                continue
            outcome = _shell_outcome(call, session.last_assistant_message or "")
            failed_test = "test" in (call.command.kinds if call.command else ()) and (
                run_passed(call) is False
            )
            outcome["preexisting"] = failed_test and failure_preexists(calls, pos)
            return outcome
    return None


def last_check_after_change(session: Session) -> dict[str, Any] | None:
    """The last test/build/typecheck/lint run after the latest file change (or the
    linter whose fixes are that change: gates.checked_from)."""
    calls = session.tool_calls
    for pos in range(len(calls) - 1, checked_from(session) - 1, -1):
        call = calls[pos]
        if call.command is not None and is_check(call):
            outcome = _shell_outcome(call, session.last_assistant_message or "")
            outcome["kinds"] = sorted(call.command.kinds & CHECK_KINDS)
            outcome["passed"] = run_passed(call)
            outcome["partial"] = call.command.partial
            failed_test = "test" in call.command.kinds and outcome["passed"] is False
            outcome["preexisting"] = failed_test and failure_preexists(calls, pos)
            return outcome
    return None


def checks_before_change(session: Session) -> list[str]:
    """Check commands run earlier in the task: proof that a check is available here."""
    latest = last_change_index(session)
    seen: dict[str, None] = {}
    for call in session.tool_calls[: max(latest, 0)]:
        if call.command is not None and is_check(call):
            seen[_command_text(call)] = None
    return list(seen)[-3:]


def failed_changes(session: Session) -> list[dict[str, Any]]:
    """The agent's last attempts to change files, when they failed and no later change to
    the same file succeeded: a claim of the work done is contradicted."""
    calls = session.tool_calls
    last_success = max(
        (pos for pos, c in enumerate(calls) if c.kind in ("edit", "write") and c.ok), default=-1
    )
    failed = []
    for pos, call in enumerate(calls):
        if pos < last_success or call.kind not in ("edit", "write") or call.ok is not False:
            continue
        retried = any(
            later.kind in ("edit", "write") and later.ok and set(later.files) & set(call.files)
            for later in calls[pos + 1 :]
        )
        if not retried:
            failed.append(
                {
                    "at": call.index,
                    "tool": call.name,
                    "files": list(call.files)[:3],
                    "error": (call.output or "")[-200:],
                }
            )
    return failed[-3:]


def pushes_and_prs(session: Session) -> dict[str, list[dict[str, Any]]]:
    pushes, prs = [], []
    for call in session.tool_calls:
        kinds = call.command.kinds if call.command else frozenset()
        if "push" in kinds:
            pushes.append(
                {"at": call.index, "refs": list(call.command.push_refs), "ok": call.ok}
                if call.command
                else {"at": call.index, "refs": [], "ok": call.ok}
            )
        if kinds & {"pr_create", "pr_merge"} or _GH_PR.search(_command_text(call)):
            prs.append({"at": call.index, "command": _command_text(call), "ok": call.ok})
    return {"pushes": pushes[-5:], "prs": prs[-5:]}


def background_pending(session: Session) -> list[dict[str, Any]]:
    """Background shells, subagents and monitors started in this task with no result yet."""
    pending = []
    for call in session.tool_calls:
        if call.ok is not None:
            continue
        if call.background:
            kind = "background_shell"
        elif call.name in _SUBAGENT_TOOLS:
            kind = "subagent"
        elif call.name in _MONITOR_TOOLS:
            kind = "monitor"
        else:
            continue
        pending.append({"at": call.index, "kind": kind, "what": _command_text(call)[:120]})
    return pending


def host_failure(session: Session) -> dict[str, Any] | None:
    """The stop is the host's failure (API error, usage limit, compaction) when the final
    message is the host's error text."""
    text = session.last_assistant_message or ""
    head = text[:600]  # the host writes its error as the whole (short) message
    for pattern in _HOST_FAILURE:
        match = pattern.search(head)
        if match:
            at = session.assistant_texts[-1].index if session.assistant_texts else None
            return {"at": at, "marker": match.group(0)[:80]}
    return None


def build_digest(
    session: Session,
    task: TaskContext,
    *,
    plan_mode: bool = False,
    has_tests: bool | None = None,
    extra_background: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The digest for one stop. `extra_background` is what the host's Stop payload
    reports as still running, when it reports anything."""
    prompt = session.task_prompt or ""
    return {
        "session_id": session.session_id or "",  # the paid readers' per-session budget key
        "task_prompt": clip(prompt, PROMPT_LIMIT),
        "final_message": clip(session.last_assistant_message or "", FINAL_LIMIT),
        "task_kind": task_kind(prompt, task),
        "task_type": task.task_type,
        "changed_files": task.changed_paths[:20],
        "changed_count": len(task.changed_paths),
        "last_change_at": (
            session.tool_calls[last_change_index(session)].index
            if last_change_index(session) >= 0
            else None
        ),
        "last_command": last_command(session),
        "last_check_after_change": last_check_after_change(session),
        "failed_changes": failed_changes(session),
        "checks_before_change": checks_before_change(session),
        "repo_has_tests": has_tests,
        **pushes_and_prs(session),
        "background_pending": background_pending(session) + list(extra_background or []),
        "host_failure": host_failure(session),
        "plan_mode": plan_mode or task.plan_only,
        "tool_calls": len(session.tool_calls),
        "last_act_at": (acted := last_act_at(session)),
        "failed_state": failed_state_after(session, acted),
    }


# Tool calls that only look: after a failure they leave it the last word on the work.
_LOOKS = frozenset(("read", "search", "todo"))


def only_looks(call: ToolCall) -> bool:
    """A file read, a search, a todo update, or a command that only looks at a system's
    state (`fly status`, `kubectl get pods`): it cannot have changed the work."""
    if call.kind in _LOOKS:
        return True
    kinds = call.command.kinds if call.command is not None else frozenset()
    return bool(kinds) and kinds <= {"status", "read"}


def failed_state_after(session: Session, acted: int | None) -> dict[str, Any] | None:
    """The last look at a system's state after the last act (at record `acted`), when its
    output shows a failed state (`kubectl get pods` after an apply: `CrashLoopBackOff`)."""
    for call in reversed(session.tool_calls):
        if acted is not None and call.index <= acted:
            return None
        if call.command is not None and shows_failed_state(call.command, call.output or ""):
            return {**_shell_outcome(call), "failure_shown": True}
    return None


def last_act_at(session: Session) -> int | None:
    """The record of the last tool call that did more than look."""
    acts = [call.index for call in session.tool_calls if not only_looks(call)]
    return acts[-1] if acts else None


def size_in_tokens(digest: dict[str, Any]) -> int:
    """A rough token count (4 characters a token) of the digest as JSON."""
    import json

    return len(json.dumps(digest, ensure_ascii=False)) // 4
