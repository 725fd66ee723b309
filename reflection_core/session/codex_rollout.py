"""Codex rollout records -> the same normalized `Session` the Claude Code reader makes.

Codex passes a rollout JSONL as `transcript_path`: one `{timestamp, type,
payload}` object per line, with `type` one of `session_meta`, `turn_context`,
`response_item` (messages, `function_call`/`custom_tool_call` and their
outputs), `event_msg` (`user_message`, `agent_message`, `exec_command_end`,
`task_complete`, ...) and `compacted`. Pure: transcript.py does the reading.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable

from reflection_core.lazyre import lazy
from reflection_core.session.commands import classify_command, shell_tool_kind
from reflection_core.session.edit_input import patch_files, with_patch_edits
from reflection_core.session.model import (
    AssistantText,
    CommandInfo,
    Event,
    Session,
    ToolCall,
    ToolKind,
)
from reflection_core.session.normalize import (
    EARLIER_PROMPTS_KEPT,
    cap_output,
    is_hook_feedback,
    prompt_text,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ROLLOUT_TYPES = frozenset(
    {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
)
_CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<user_shell_command>",
    "# AGENTS.md instructions",
    "<turn_aborted>",
)
_SHELL_TOOLS = frozenset(
    {"shell", "exec_command", "local_shell", "container.exec", "shell_command"}
)
# Where a text result names its exit code, in the lines before its `Output:` line.
_EXIT_PATTERNS = (
    lazy(r'"exit_code"\s*:\s*(-?\d+)'),
    lazy(r"^Exit code: (-?\d+)", re.M),
    lazy(r"^Process exited with code (-?\d+)", re.M),
)
# Unified exec: a command that outlives its wait; its end comes in a later `write_stdin`.
_RUNNING = lazy(r"^Process running with session ID (\d+)", re.M)
# A JSON result (`{"output": ..., "metadata": {"exit_code": N}}`) is parsed up to this
# size; past it the exit code is read from its end, where `metadata` follows `output`.
# Inside the JSON-encoded output every quote is escaped, so the output cannot fake it.
MAX_JSON_RESULT_CHARS = 4 * 1024 * 1024
_TAIL_EXIT = lazy(r'"metadata"\s*:\s*\{[^{}]*"exit_code"\s*:\s*(-?\d+)[^{}]*\}\s*\}\s*$')
_TAIL_CHARS = 4096
# Codex's tools that are neither a shell nor a patch, by kind.
_OTHER_TOOLS: dict[str, ToolKind] = {"update_plan": "todo", "view_image": "read"}


def is_rollout_record(record: Any) -> bool:
    """A Codex rollout line: `{timestamp, type, payload}` with a rollout type."""
    return (
        isinstance(record, dict)
        and record.get("type") in ROLLOUT_TYPES
        and isinstance(record.get("payload"), dict)
    )


def _payload(record: Any) -> dict[str, Any]:
    payload = record.get("payload") if isinstance(record, dict) else None
    return payload if isinstance(payload, dict) else {}


def _message_text(payload: dict[str, Any]) -> str:
    content = payload.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        str(b.get("text", ""))
        for b in content
        if isinstance(b, dict) and b.get("type") in ("input_text", "output_text", "text")
    ]
    return "\n".join(p for p in parts if p)


def _user_prompt(record: Any) -> str | None:
    """The prompt text when the record is a real user prompt, else None."""
    payload = _payload(record)
    if record.get("type") == "event_msg" and payload.get("type") == "user_message":
        text = str(payload.get("message") or "")
    elif (
        record.get("type") == "response_item"
        and payload.get("type") == "message"
        and payload.get("role") == "user"
    ):
        text = _message_text(payload)
    else:
        return None
    stripped = text.strip()
    if not stripped or stripped.startswith(_CONTEXT_PREFIXES):
        return None
    return prompt_text({"message": {"content": stripped}})


def rollout_record_role(record: Any) -> str:
    """Roles the backward scan needs: "prompt" starts the task, the rest do not."""
    if not is_rollout_record(record):
        return "other"
    if _user_prompt(record) is not None:
        return "prompt"
    return str(record.get("type"))


def _command_string(arguments: dict[str, Any]) -> str | None:
    command = arguments.get("cmd", arguments.get("command"))
    if isinstance(command, str):
        return command
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        shell = command[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh")
        if shell and len(command) >= 3 and command[1] in ("-c", "-lc", "-ic"):
            return command[2]
        return shlex.join(command)
    return None


def _arguments(payload: dict[str, Any]) -> dict[str, Any]:
    raw = payload.get("arguments", payload.get("input"))
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except (ValueError, RecursionError):
            return {"input": raw}
        return parsed if isinstance(parsed, dict) else {"input": raw}
    action = payload.get("action")
    return action if isinstance(action, dict) else {}


class _RolloutBuilder:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.calls: dict[str, ToolCall] = {}
        self.running: dict[str, ToolCall] = {}  # exec session id -> its command, not ended
        self.last_text = ""

    def text(self, text: str, stamp: str | None) -> None:
        if text and text != self.last_text:
            self.events.append(AssistantText(index=len(self.events), text=text, timestamp=stamp))
            self.last_text = text

    def call(self, payload: dict[str, Any], stamp: str | None) -> None:
        name = str(payload.get("name") or payload.get("type") or "")
        call_id = str(payload.get("call_id") or payload.get("id") or "")
        if call_id and call_id in self.calls:
            return
        kind, command, files, arguments = _call_effect(name, payload, _arguments(payload))
        tool = ToolCall(
            index=len(self.events),
            tool_use_id=call_id,
            name=name,
            kind=kind,
            input=arguments,
            files=files,
            command=command,
            timestamp=stamp,
        )
        self.events.append(tool)
        self.last_text = ""
        if call_id:
            self.calls[call_id] = tool

    def output(self, payload: dict[str, Any]) -> None:
        call = self.calls.get(str(payload.get("call_id") or ""))
        if call is None:
            return
        raw = payload.get("output")
        text = raw if isinstance(raw, str) else json.dumps(raw)
        output, exit_code = tool_result(text)
        session = running_session(text) if call.name == "exec_command" else None
        if call.name == "write_stdin":
            self.join(call, output, exit_code)
        call.output = cap_output(output)
        if exit_code is not None:
            call.exit_code = exit_code
        if session is not None and call.exit_code is None and call.name != "write_stdin":
            self.running[session] = call
            call.ok = None  # running: its outcome is not known yet
            return
        if call.exit_code is not None:
            call.ok = call.exit_code == 0
        elif call.ok is None:
            call.ok = not text.lower().startswith(
                ("error", "failed", "apply_patch verification failed")
            )

    def join(self, poll: ToolCall, output: str, exit_code: int | None) -> None:
        """A `write_stdin` result belongs to the command its session id names: the output
        adds to that command's, and its exit code, once there, is that command's outcome."""
        session = poll.input.get("session_id")
        origin = self.running.get(str(session)) if isinstance(session, (int, str)) else None
        if origin is None:
            return
        origin.output = cap_output(f"{origin.output}\n{output}" if origin.output else output)
        if exit_code is not None:
            origin.exit_code, origin.ok = exit_code, exit_code == 0
            del self.running[str(session)]

    def exec_end(self, payload: dict[str, Any]) -> None:
        """`exec_command_end` / `patch_apply_end`: the authoritative status of a call."""
        call = self.calls.get(str(payload.get("call_id") or ""))
        if call is None:
            return
        if isinstance(payload.get("exit_code"), int):
            call.exit_code = payload["exit_code"]
            call.ok = call.exit_code == 0
        elif isinstance(payload.get("success"), bool):
            call.ok = payload["success"]
        output = payload.get("aggregated_output") or payload.get("stdout")
        if isinstance(output, str) and output and not call.output:
            call.output = cap_output(output)


def _call_effect(
    name: str, payload: dict[str, Any], arguments: dict[str, Any]
) -> tuple[ToolKind, CommandInfo | None, tuple[str, ...], dict[str, Any]]:
    """What a call does: its kind, classified command, the files it changes, and its
    arguments with a patch's hunks in the core's edit shape (session/edit_input.py)."""
    command_text = _command_string(arguments)
    if name in _SHELL_TOOLS or payload.get("type") == "local_shell_call":
        if command_text is None:
            return "shell", None, (), arguments
        command = classify_command(command_text)
        return shell_tool_kind(command), command, command.modified_files, arguments
    if name == "apply_patch":
        patch = str(arguments.get("input") or arguments.get("patch") or "")
        return "edit", None, patch_files(patch), with_patch_edits(arguments, patch)
    kind: ToolKind = _OTHER_TOOLS.get(name, "other")
    if payload.get("type") == "web_search_call":
        kind = "search"
    return kind, None, (), arguments


def tool_result(text: str) -> tuple[str, int | None]:
    """A call's output and exit code from Codex's result: JSON (`shell`, `apply_patch`:
    `metadata.exit_code`, wherever it lies) or text (`shell_command`, `exec_command`: the
    code in the lines before `Output:`). None: the result names no exit code."""
    data = _json_result(text)
    if data is not None:
        metadata = data.get("metadata")
        code = metadata.get("exit_code") if isinstance(metadata, dict) else None
        return str(data["output"]), code if type(code) is int else None
    if text.startswith("{") and len(text) > MAX_JSON_RESULT_CHARS:
        match = _TAIL_EXIT.search(text[-_TAIL_CHARS:])
        return text, int(match.group(1)) if match else None
    found = (p.search(_header(text)) for p in _EXIT_PATTERNS)
    match = next((m for m in found if m), None)
    return text, int(match.group(1)) if match else None


def running_session(text: str) -> str | None:
    """The unified exec session id of a command still running when its result was cut
    (`Process running with session ID N`), else None."""
    match = _RUNNING.search(_header(text))
    return match.group(1) if match else None


def _header(text: str) -> str:
    """A text result's lines before its `Output:` line (at most 2,000 characters)."""
    cut = text.find("\nOutput:\n", 0, 2000)
    return text[:cut] if cut >= 0 else text[:2000]


def _json_result(text: str) -> dict[str, Any] | None:
    """The result as a JSON object with an `output`, when it is one and not too big."""
    if not text.startswith("{") or len(text) > MAX_JSON_RESULT_CHARS:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and "output" in data else None


def session_from_rollout_records(
    records: Iterable[Any],
    *,
    session_id: str | None = None,
    last_assistant_message: str | None = None,
) -> Session:
    """The current task of a Codex session from its rollout records (file order)."""
    items = [r for r in records if is_rollout_record(r)]
    prompts = [i for i, r in enumerate(items) if _user_prompt(r) is not None]
    start = prompts[-1] if prompts else -1
    session = Session(session_id=session_id)
    earlier: list[str] = []
    for i in prompts[:-1]:
        text = _user_prompt(items[i]) or ""
        if text and (not earlier or earlier[-1] != text):
            earlier.append(text)
    task_prompt = _user_prompt(items[start]) if start >= 0 else None
    session.earlier_prompts = [p for p in earlier if p != task_prompt][-EARLIER_PROMPTS_KEPT:]
    for record in items:
        payload = _payload(record)
        if record["type"] in ("session_meta", "turn_context"):
            session.session_id = session.session_id or _str(payload.get("id"))
            session.cwd = _str(payload.get("cwd")) or session.cwd
            git = payload.get("git")
            if isinstance(git, dict):
                session.git_branch = _str(git.get("branch")) or session.git_branch
        if record["type"] == "compacted":
            session.compacted = True
            session.compaction_summary = str(payload.get("message") or "")
    if start < 0:
        session.warnings.append("no user prompt found: the whole read window is taken as the task")
    else:
        session.task_prompt = task_prompt or ""
        session.task_started_at = _str(items[start].get("timestamp"))
    builder = _RolloutBuilder()
    for record in items[start + 1 :]:
        _apply(builder, session, record)
    session.events = builder.events
    texts = session.assistant_texts
    in_file = texts[-1].text if texts else ""
    if last_assistant_message and last_assistant_message.strip():
        session.last_assistant_message = last_assistant_message
        if last_assistant_message.strip() != in_file.strip():
            session.events.append(
                AssistantText(index=len(session.events), text=last_assistant_message)
            )
    else:
        session.last_assistant_message = in_file
    return session


def _apply(builder: _RolloutBuilder, session: Session, record: dict[str, Any]) -> None:
    payload = _payload(record)
    stamp = _str(record.get("timestamp"))
    kind, item = record["type"], payload.get("type")
    if kind == "response_item":
        if item in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
            builder.call(payload, stamp)
        elif item in ("function_call_output", "custom_tool_call_output"):
            builder.output(payload)
        elif item == "message" and payload.get("role") == "assistant":
            builder.text(_message_text(payload).strip(), stamp)
        elif item == "message" and payload.get("role") in ("user", "developer"):
            _feedback(session, _message_text(payload))
    elif kind == "event_msg":
        if item in ("exec_command_end", "patch_apply_end"):
            builder.exec_end(payload)
        elif item == "agent_message":
            builder.text(str(payload.get("message") or "").strip(), stamp)
        elif item == "user_message":
            _feedback(session, str(payload.get("message") or ""))
    elif kind == "compacted":
        session.compacted = True
        session.compaction_summary = str(payload.get("message") or "")


def _feedback(session: Session, text: str) -> None:
    """Hook feedback Codex injected as a user turn (once, though it is logged twice)."""
    stripped = text.strip()
    if is_hook_feedback(stripped) and stripped not in session.hook_feedback[-1:]:
        session.hook_feedback.append(stripped)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
