"""Compact YAML sessions -> real Claude Code transcript JSONL records.

Eval cases describe an agent session in a few lines (`task`, `steps`, `final`);
this module expands them into the records the Claude Code CLI writes, so the
suites exercise the same transcript reader the hooks use. Pure: records are
plain dicts; `write_jsonl` is the only I/O.

Step forms (one key names the step; `note` adds assistant text before a tool):

    - read: path                       Read, result is `output` or a stub
    - edit: path                       Edit (optional old/new)
    - write: path                      Write (optional content)
    - bash: "cmd"                      Bash; exit (default 0), output, background
    - todo: [{content, status}]        TodoWrite
    - agent: "description"             Agent (a subagent), output
    - tool: Name                       any other tool; input, output, is_error
    - say: "text"                      assistant text with no tool call
    - prompt: "text"                   a new real user prompt (earlier tasks)
    - hook_feedback: "text"            Stop-hook feedback as the CLI records it
    - compact: "summary"               compaction boundary + the summary message
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

CLI_VERSION = "2.1.328"
MODEL = "claude-sonnet-4-5"
DEFAULT_CWD = "/home/dev/project"
HOOK_FEEDBACK_PREFIX = "Stop hook feedback:\n"
COMPACT_PREFIX = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\n"
)
STEP_KEYS = (
    "read",
    "edit",
    "write",
    "bash",
    "todo",
    "agent",
    "tool",
    "say",
    "prompt",
    "hook_feedback",
    "compact",
)
_START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=timezone.utc)


class SessionSpecError(ValueError):
    """A compact session that cannot be expanded; the message names the step."""


class _Writer:
    """Accumulates records with the ids, parent links and clock the CLI would write."""

    def __init__(self, session_id: str, cwd: str, branch: str) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.branch = branch
        self.records: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.counter = 0
        self.clock = _START

    def _next_id(self, kind: str) -> str:
        self.counter += 1
        digest = hashlib.sha256(f"{self.session_id}:{kind}:{self.counter}".encode()).hexdigest()
        return digest

    def uuid(self) -> str:
        h = self._next_id("uuid")
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"

    def tool_use_id(self) -> str:
        return "toolu_01" + self._next_id("tool")[:22]

    def message_id(self) -> str:
        return "msg_01" + self._next_id("msg")[:22]

    def tick(self, seconds: float = 2.0) -> str:
        self.clock += timedelta(seconds=seconds)
        return self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def base(self, kind: str, **extra: Any) -> dict[str, Any]:
        record: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": CLI_VERSION,
            "gitBranch": self.branch,
            "type": kind,
            **extra,
            "uuid": self.uuid(),
            "timestamp": self.tick(),
        }
        return record

    def add(self, record: dict[str, Any]) -> dict[str, Any]:
        self.records.append(record)
        self.parent = record["uuid"]
        return record

    def user_text(self, text: str, **extra: Any) -> None:
        self.add(self.base("user", message={"role": "user", "content": text}, **extra))

    def assistant_blocks(self, blocks: list[dict[str, Any]], stop_reason: str | None) -> None:
        """One API message, written as one line per content block sharing `message.id`."""
        msg_id = self.message_id()
        request_id = "req_011" + self._next_id("req")[:21]
        for position, block in enumerate(blocks):
            last = position == len(blocks) - 1
            message = {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [block],
                "stop_reason": stop_reason if last else None,
                "stop_sequence": None,
                "usage": {"input_tokens": 4, "output_tokens": 60},
            }
            self.add(self.base("assistant", message=message, requestId=request_id))

    def tool_result(
        self, tool_use_id: str, content: str, is_error: bool, tool_use_result: Any
    ) -> None:
        block = {
            "tool_use_id": tool_use_id,
            "type": "tool_result",
            "content": content,
            "is_error": is_error,
        }
        message = {"role": "user", "content": [block]}
        self.add(self.base("user", message=message, toolUseResult=tool_use_result))


def build_records(spec: dict[str, Any], *, session_id: str | None = None) -> list[dict[str, Any]]:
    """The transcript records for one compact session (`task`, `steps`, `final`, ...)."""
    if not isinstance(spec, dict):
        raise SessionSpecError("a session must be a mapping with 'task' and 'steps'")
    task = spec.get("task")
    if not isinstance(task, str) or not task.strip():
        raise SessionSpecError("'task' must be a non-empty string (the user's prompt)")
    steps = spec.get("steps") or []
    if not isinstance(steps, list):
        raise SessionSpecError("'steps' must be a list")
    sid = session_id or _session_id_for(spec)
    writer = _Writer(sid, str(spec.get("cwd") or DEFAULT_CWD), str(spec.get("branch") or "main"))
    for earlier in _str_list(spec.get("history"), "history"):
        writer.user_text(earlier)
        writer.assistant_blocks([{"type": "text", "text": "Done."}], "end_turn")
    prompt_id = writer.uuid()
    mode = str(spec.get("permission_mode") or "default")
    writer.user_text(task, promptId=prompt_id, permissionMode=mode)
    for index, step in enumerate(steps):
        try:
            _add_step(writer, step)
        except SessionSpecError as exc:
            raise SessionSpecError(f"step {index + 1}: {exc}") from None
    final = spec.get("final")
    if final is not None:
        if not isinstance(final, str):
            raise SessionSpecError("'final' must be a string (the last assistant message)")
        writer.assistant_blocks([{"type": "text", "text": final}], "end_turn")
    return writer.records


def write_jsonl(records: Iterable[dict[str, Any]], path: Path) -> Path:
    """Write records one JSON object per line, as the CLI does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    return path


def _session_id_for(spec: dict[str, Any]) -> str:
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-9{digest[17:20]}-{digest[20:32]}"


def _str_list(value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise SessionSpecError(f"'{name}' must be a string or a list of strings")


def _step_kind(step: Any) -> str:
    if not isinstance(step, dict):
        raise SessionSpecError(f"expected a mapping like {{bash: 'pytest'}}, got {step!r:.60}")
    kinds = [key for key in STEP_KEYS if key in step]
    if len(kinds) != 1:
        raise SessionSpecError(
            f"expected exactly one of {', '.join(STEP_KEYS)}; got keys {sorted(step)}"
        )
    return kinds[0]


def _add_step(writer: _Writer, step: Any) -> None:
    kind = _step_kind(step)
    value = step[kind]
    if kind == "say":
        writer.assistant_blocks([{"type": "text", "text": str(value)}], "end_turn")
        return
    if kind == "prompt":
        writer.user_text(str(value))
        return
    if kind == "hook_feedback":
        _add_hook_feedback(writer, str(value))
        return
    if kind == "compact":
        _add_compaction(writer, str(value))
        return
    name, tool_input, content, is_error, result = _tool_call(writer.cwd, kind, value, step)
    tool_id = writer.tool_use_id()
    blocks: list[dict[str, Any]] = []
    if step.get("note"):
        blocks.append({"type": "text", "text": str(step["note"])})
    blocks.append({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
    writer.assistant_blocks(blocks, "tool_use")
    writer.tool_result(tool_id, content, is_error, result)


def _add_hook_feedback(writer: _Writer, reason: str) -> None:
    """A blocking Stop hook, as the CLI records it: the agent's next input, then a summary."""
    writer.user_text(HOOK_FEEDBACK_PREFIX + reason, isMeta=True)
    summary = writer.base(
        "system",
        subtype="stop_hook_summary",
        hookCount=1,
        hookInfos=[{"command": "reflection hook stop"}],
        hookErrors=[reason],
        preventedContinuation=False,
        stopReason="",
        hasOutput=True,
        level="suggestion",
    )
    writer.add(summary)


def _add_compaction(writer: _Writer, summary: str) -> None:
    boundary = writer.base(
        "system",
        subtype="compact_boundary",
        content="Conversation compacted",
        isMeta=False,
        level="info",
        compactMetadata={"trigger": "auto", "preTokens": 167000},
        logicalParentUuid=writer.parent,
    )
    boundary["parentUuid"] = None
    writer.add(boundary)
    writer.user_text(
        COMPACT_PREFIX + summary, isCompactSummary=True, isVisibleInTranscriptOnly=True
    )


def _abs(cwd: str, path: Any) -> str:
    if not isinstance(path, str) or not path:
        raise SessionSpecError("expected a file path")
    return path if path.startswith("/") else posixpath.join(cwd, path)


def _tool_call(
    cwd: str, kind: str, value: Any, step: dict[str, Any]
) -> tuple[str, dict[str, Any], str, bool, Any]:
    """(tool name, input, result content, is_error, toolUseResult) for one tool step."""
    output = step.get("output")
    if kind == "read":
        path = _abs(cwd, value)
        text = str(output if output is not None else f"# {posixpath.basename(path)}\n")
        numbered = "\n".join(
            f"{n:>6}\u2192{line}" for n, line in enumerate(text.splitlines(), start=1)
        )
        file_info = {"filePath": path, "content": text, "numLines": len(text.splitlines())}
        return "Read", {"file_path": path}, numbered, False, {"type": "text", "file": file_info}
    if kind == "edit":
        path = _abs(cwd, value)
        old = str(step.get("old", "old_line = 1"))
        new = str(step.get("new", "new_line = 2"))
        content = f"The file {path} has been updated successfully."
        result = {"filePath": path, "oldString": old, "newString": new, "replaceAll": False}
        tool_input = {"replace_all": False, "file_path": path, "old_string": old, "new_string": new}
        return "Edit", tool_input, content, False, result
    if kind == "write":
        path = _abs(cwd, value)
        body = str(step.get("content", "# new file\n"))
        result = {"type": "create", "filePath": path, "content": body}
        return (
            "Write",
            {"file_path": path, "content": body},
            f"File created successfully at: {path}",
            False,
            result,
        )
    if kind == "bash":
        return _bash(value, step)
    if kind == "todo":
        todos = _todos(value)
        content = (
            "Todos have been modified successfully. Ensure that you continue to use the todo "
            "list to track your progress. Please proceed with the current tasks if applicable"
        )
        return "TodoWrite", {"todos": todos}, content, False, {"oldTodos": [], "newTodos": todos}
    if kind == "agent":
        text = str(output if output is not None else "Done.")
        tool_input = {"description": str(value), "prompt": str(value), "subagent_type": "general"}
        return "Agent", tool_input, text, False, {"status": "completed", "content": text}
    # kind == "tool": any other tool, spelled out
    text = str(output if output is not None else "")
    tool_input = step.get("input") or {}
    if not isinstance(tool_input, dict):
        raise SessionSpecError("'input' must be a mapping")
    is_error = bool(step.get("is_error", False))
    return str(value), tool_input, text, is_error, text


def _bash(value: Any, step: dict[str, Any]) -> tuple[str, dict[str, Any], str, bool, Any]:
    if not isinstance(value, str) or not value.strip():
        raise SessionSpecError("'bash' must be a non-empty command")
    exit_code = step.get("exit", 0)
    if isinstance(exit_code, bool) or not isinstance(exit_code, int):
        raise SessionSpecError("'exit' must be an integer")
    output = str(step.get("output", "")).rstrip("\n")
    tool_input: dict[str, Any] = {"command": value, "description": step.get("description", "")}
    if not tool_input["description"]:
        del tool_input["description"]
    if step.get("background"):
        tool_input["run_in_background"] = True
        shell_id = "bash_" + hashlib.sha256(value.encode()).hexdigest()[:6]
        content = f"Command running in background with ID: {shell_id}"
        return "Bash", tool_input, content, False, {"backgroundTaskId": shell_id}
    if step.get("timeout"):
        tool_input["timeout"] = int(step["timeout"])
    if exit_code != 0:
        content = f"Exit code {exit_code}\n{output}".rstrip("\n")
        return "Bash", tool_input, content, True, f"Error: {content}"
    result = {
        "stdout": output,
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    return "Bash", tool_input, output, False, result


def _todos(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, list):
        raise SessionSpecError("'todo' must be a list of {content, status}")
    todos = []
    for item in value:
        if isinstance(item, str):
            item = {"content": item}
        if not isinstance(item, dict) or not isinstance(item.get("content"), str):
            raise SessionSpecError("each todo needs a 'content' string")
        status = item.get("status", "pending")
        if status not in ("pending", "in_progress", "completed"):
            raise SessionSpecError(
                f"todo status {status!r}: expected pending/in_progress/completed"
            )
        todos.append({"content": item["content"], "status": status, "activeForm": item["content"]})
    return todos
