"""The condensed trace of a turn: what a configured reader sees besides the digest.

The digest says what the evidence proves; the trace shows what happened, so a reader can
see work left unfinished in ways no rule can (a fix of a symptom, an answer lacking what
was asked, a check that never reached the change). One entry per tool call of the current
task, in order: the record index, the tool, the command or path with a short summary of
the input, how it ended, and the last lines of its result; then the final message.

Capped at `budget` tokens (4 characters a token, measured on the text a model gets): the
oldest calls are left out first; when the latest change (the newest call when nothing
changed) and the calls after it do not fit even so, result tails shorten (6 lines, then 2,
then none); when their one-line headers still do not fit, the latest change is kept with
the newest calls after it that fit.
Secrets are redacted before anything is measured. Pure: no I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from reflection_core.redact import redact
from reflection_core.session.digest import clip
from reflection_core.session.gates import last_change_index
from reflection_core.session.model import Session, ToolCall

# (result lines, characters of the command/path summary) per level of detail, tried in
# order until the protected part of the turn fits.
DETAIL_LEVELS: tuple[tuple[int, int], ...] = ((6, 240), (2, 160), (0, 100))
LINE_CHARS = 200  # one result line, head kept
FINAL_CHARS = 1200  # the final message (head and, mostly, tail), at most a third of the cap
# Tools whose successful result is content, not an outcome: no tail unless they failed.
_QUIET_KINDS = frozenset({"read", "search", "edit", "write", "todo"})
# Input fields that say what a tool was asked, for tools without a command or a path.
_INPUT_KEYS = ("description", "pattern", "query", "url", "prompt", "skill", "path")
_EDIT_KEYS = ("new_string", "new_source", "content", "patch", "input")


@dataclass(frozen=True)
class TraceCall:
    """One tool call as the reader sees it."""

    at: int  # the transcript record index (the digest's `at`)
    tool: str
    what: str  # the command, the path(s) or a short summary of the input
    outcome: str  # ok | error | exit N | no result | running
    tail: tuple[str, ...] = ()  # the last lines of the result

    def render(self) -> str:
        head = f"#{self.at} {self.tool}: {self.what} -> {self.outcome}"
        return "\n".join([head, *(f"    {line}" for line in self.tail)])


@dataclass(frozen=True)
class Trace:
    """The kept calls, what was left out, the final message, and the text a model gets."""

    calls: tuple[TraceCall, ...]
    omitted: int  # calls left out to fit the cap
    total_calls: int
    final_message: str
    text: str
    tokens: int

    def payload(self) -> dict[str, Any]:
        """The trace as a command reader receives it (JSON-able)."""
        return {
            "calls": [
                {
                    "at": c.at,
                    "tool": c.tool,
                    "what": c.what,
                    "outcome": c.outcome,
                    "tail": list(c.tail),
                }
                for c in self.calls
            ],
            "omitted_calls": self.omitted,
            "total_calls": self.total_calls,
            "final_message": self.final_message,
            "text": self.text,
            "tokens": self.tokens,
        }


def tokens_of(text: str) -> int:
    """4 characters a token, as the readers' budgets count."""
    return len(text) // 4


def one_line(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _edit_text(data: dict[str, Any]) -> str:
    edits = data.get("edits")
    if isinstance(edits, list):
        return " / ".join(str(e.get("new_string", "")) for e in edits if isinstance(e, dict))
    return next((data[k] for k in _EDIT_KEYS if isinstance(data.get(k), str)), "")


def call_what(call: ToolCall) -> str:
    """The command, the path(s) and a short summary of what the call was asked."""
    if call.command is not None:
        return call.command.raw
    paths = ", ".join(call.files[:3])
    if call.kind in ("edit", "write"):
        text = _edit_text(call.input)
        lines = len(text.splitlines())
        return f"{paths} (+{lines} lines): {text}" if text else paths
    if call.kind == "todo":
        todos = [t for t in call.input.get("todos") or [] if isinstance(t, dict)]
        return "; ".join(f"[{t.get('status', '?')}] {t.get('content', '')}" for t in todos)
    detail = next((str(call.input[k]) for k in _INPUT_KEYS if call.input.get(k)), "")
    if not (paths or detail) and call.input:
        detail = json.dumps(call.input, ensure_ascii=False, default=str)
    return " ".join(part for part in (paths, detail) if part)


def call_outcome(call: ToolCall) -> str:
    if call.ok is None:
        return "running" if call.background else "no result"
    if call.exit_code is not None:
        return f"exit {call.exit_code}"
    return "ok" if call.ok else "error"


def full_call(call: ToolCall, cwd: str = "") -> TraceCall:
    """`call` at full detail, redacted (the whole output first: a secret block may span
    the lines kept); paths under the working directory are shown relative to it."""
    tail: tuple[str, ...] = ()
    lines = DETAIL_LEVELS[0][0]
    if call.kind not in _QUIET_KINDS or call.ok is False:
        output = redact(call.output or "")
        kept = [line.rstrip() for line in output.splitlines() if line.strip()]
        tail = tuple(one_line(line, LINE_CHARS) for line in kept[-lines:])
    what = call_what(call)
    if cwd:
        what = what.replace(cwd.rstrip("/") + "/", "")
    what = redact(one_line(what, DETAIL_LEVELS[0][1]))
    return TraceCall(call.index, call.name, what, call_outcome(call), tail)


def at_detail(call: TraceCall, lines: int, chars: int) -> TraceCall:
    """A full-detail call shortened: its last `lines` result lines, `chars` of summary."""
    tail = call.tail[len(call.tail) - lines :] if lines else ()
    return replace(call, what=one_line(call.what, chars), tail=tail)


class _Calls:
    """The session's calls at full detail, built (and redacted) only when looked at."""

    def __init__(self, calls: list[ToolCall], cwd: str) -> None:
        self.calls = calls
        self.cwd = cwd
        self.full: dict[int, TraceCall] = {}

    def at(self, pos: int, lines: int, chars: int) -> TraceCall:
        if pos not in self.full:
            self.full[pos] = full_call(self.calls[pos], self.cwd)
        return at_detail(self.full[pos], lines, chars)


def build_trace(session: Session, budget: int) -> Trace | None:
    """The turn of `session` within `budget` tokens, or None when the budget is 0."""
    if budget <= 0:
        return None
    limit = budget * 4
    final = redact(
        clip(session.last_assistant_message or "", min(FINAL_CHARS, max(40, limit // 3)))
    )
    calls = _Calls(session.tool_calls, session.cwd or "")
    count = len(session.tool_calls)
    # The latest change (or, when nothing changed, the newest call) and all after it stay.
    protect = last_change_index(session)
    protect = protect if protect >= 0 else count - 1
    room = limit - _overhead(count, final)
    for lines, chars in DETAIL_LEVELS:
        start = _oldest_kept(calls, count, room, protect, (lines, chars))
        if start is not None:
            shown = {pos: calls.at(pos, lines, chars) for pos in range(start, count)}
            return _assemble(shown, count, final, limit)
    lines, chars = DETAIL_LEVELS[-1]
    shown = _newest_that_fit(calls, count, room, protect, chars)
    return _assemble(shown, count, final, limit)


def _overhead(count: int, final: str) -> int:
    """Characters besides the calls, at most: the heading, two gap lines, the final message."""
    return len(_heading(count, count)) + 2 * (len(_gap(count)) + 1) + len(final) + 15


def _oldest_kept(
    calls: _Calls, count: int, room: int, protect: int, detail: tuple[int, int]
) -> int | None:
    """The oldest call to keep so that it and every later call fit in `room` characters,
    or None when even the calls from the latest change on do not."""
    used = 0
    for pos in range(count - 1, -1, -1):
        used += len(calls.at(pos, *detail).render()) + 1
        if used > room:
            return pos + 1 if pos + 1 <= protect else None
    return 0


def _newest_that_fit(
    calls: _Calls, count: int, room: int, protect: int, chars: int
) -> dict[int, TraceCall]:
    """The latest change's header, then the newest headers after it that fit with it."""
    shown = {protect: calls.at(protect, 0, chars)} if protect >= 0 else {}
    used = sum(len(c.render()) + 1 for c in shown.values())
    for pos in range(count - 1, protect, -1):
        call = calls.at(pos, 0, chars)
        used += len(call.render()) + 1
        if used > room:
            break
        shown[pos] = call
    return shown


def _heading(count: int, omitted: int) -> str:
    return f"TRACE OF THE TURN ({count} tool calls, {omitted} not shown; #N is the record index)"


def _gap(omitted: int) -> str:
    return f"[... {omitted} calls not shown]"


def render(shown: dict[int, TraceCall], count: int, final: str) -> str:
    """The text a model reader gets: the kept calls, a line where calls were left out."""
    lines = [_heading(count, count - len(shown))]
    previous = -1
    for pos in sorted(shown):
        if pos > previous + 1:
            lines.append(_gap(pos - previous - 1))
        lines.append(shown[pos].render())
        previous = pos
    if previous < count - 1:
        lines.append(_gap(count - 1 - previous))
    lines += ["FINAL MESSAGE", final]
    return "\n".join(lines)


def _assemble(shown: dict[int, TraceCall], count: int, final: str, limit: int) -> Trace:
    text = render(shown, count, final)[:limit]  # a cap below one header line cuts the text
    return Trace(
        calls=tuple(shown[pos] for pos in sorted(shown)),
        omitted=count - len(shown),
        total_calls=count,
        final_message=final,
        text=text,
        tokens=tokens_of(text),
    )
