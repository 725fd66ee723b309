"""OpenCode session messages -> the normalized `Session` of the current task.

OpenCode keeps sessions in its own store; its plugin API lists them with
`client.session.messages()`: `[{info: {role, ...}, parts: [...]}]`, where parts
are `text` (a `synthetic` flag marks text OpenCode or a plugin added), `tool`
(`tool`, `callID`, `state: {status, input, output, metadata}`), `step-start`,
`step-finish`, `patch`, ... The reflection plugin hands that list over as is.
Pure: no I/O.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from typing import Any

from reflection_core.lazyre import lazy
from reflection_core.session.commands import tool_effect
from reflection_core.session.edit_input import patch_files, renamed, with_patch_edits
from reflection_core.session.model import AssistantText, Session, ToolCall, ToolKind
from reflection_core.session.normalize import EARLIER_PROMPTS_KEPT, cap_output, is_hook_feedback

# OpenCode's built-in tool ids (packages/opencode/src/tool/).
TOOL_KINDS: dict[str, ToolKind] = {
    "bash": "shell",
    "write": "write",
    "edit": "edit",
    "patch": "edit",
    "apply_patch": "edit",  # what OpenCode gives GPT models instead of edit/write
    "multiedit": "edit",
    "read": "read",
    "list": "search",
    "glob": "search",
    "grep": "search",
    "todowrite": "todo",
    "todoread": "read",
    "webfetch": "web",
    "websearch": "web",
    "task": "agent",
}
# Tools whose input is a patch text (`*** Begin Patch` ... `*** End Patch`) -> its key.
PATCH_TOOLS: dict[str, str] = {"apply_patch": "patchText", "patch": "patchText"}
# OpenCode's edit-tool keys -> the core's (session/edit_input.py), `edits[]` entries too.
CORE_KEYS: dict[str, str] = {
    "filePath": "file_path",
    "oldString": "old_string",
    "newString": "new_string",
    "replaceAll": "replace_all",
}
_EXIT = lazy(r"\bexit(?:ed with)? code:? (-?\d+)", re.I)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _role(message: Any) -> str | None:
    info = message.get("info") if isinstance(message, dict) else None
    role = info.get("role") if isinstance(info, dict) else None
    return role if isinstance(role, str) else None


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    parts = message.get("parts")
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def user_text(message: dict[str, Any]) -> str:
    """What the person typed: the message's text parts that OpenCode did not synthesize."""
    return "\n".join(
        str(p.get("text") or "")
        for p in _parts(message)
        if p.get("type") == "text" and not p.get("synthetic")
    ).strip()


def _tool_call(index: int, part: dict[str, Any]) -> ToolCall:
    name = str(part.get("tool") or "")
    state = _dict(part.get("state"))
    raw_input = state.get("input")
    args: dict[str, Any] = renamed(raw_input, CORE_KEYS) if isinstance(raw_input, dict) else {}
    kind, command, files = tool_effect(TOOL_KINDS.get(name, "other"), args, "file_path")
    patch = args.get(PATCH_TOOLS.get(name, ""))
    if isinstance(patch, str):
        files, args = patch_files(patch), with_patch_edits(args, patch)
    raw_output = state.get("output")
    output = raw_output if isinstance(raw_output, str) else ""
    metadata = _dict(state.get("metadata"))
    exit_code = metadata.get("exit") if isinstance(metadata.get("exit"), int) else None
    if exit_code is None and command is not None:
        match = _EXIT.search(output[-500:])
        exit_code = int(match.group(1)) if match else None
    status = state.get("status")
    ok: bool | None = None
    if status in ("completed", "error"):
        ok = status == "completed" and not exit_code
        if command is not None and exit_code is None and status == "completed":
            exit_code = 0
    return ToolCall(
        index=index,
        tool_use_id=str(part.get("callID") or part.get("id") or ""),
        name=name,
        kind=kind,
        input=args,
        files=files,
        command=command,
        ok=ok,
        exit_code=exit_code,
        output=cap_output(output or str(state.get("error") or "")),
    )


def created_at(message: dict[str, Any]) -> str | None:
    """When OpenCode created the message (`info.time.created`, ms since the epoch), as
    ISO 8601 UTC: with the prompt's text it tells one task from a later one that asks the
    same (`task.task_id`), as the other hosts' prompt timestamps do."""
    created = _dict(_dict(message.get("info")).get("time")).get("created")
    if isinstance(created, bool) or not isinstance(created, (int, float)):
        return None
    if not 0 <= created < 2**53:
        return None
    seconds, millis = divmod(int(created), 1000)
    try:
        moment = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    except (OverflowError, OSError, ValueError):
        return None
    return f"{moment}.{millis:03d}Z"


def session_from_messages(messages: Iterable[Any], *, session_id: str | None = None) -> Session:
    """The current task: everything after the last message a person typed."""
    items = [m for m in messages if _role(m) in ("user", "assistant")]
    session = Session(session_id=session_id)
    prompts = [
        i
        for i, m in enumerate(items)
        if _role(m) == "user" and user_text(m) and not is_hook_feedback(user_text(m))
    ]
    start = prompts[-1] if prompts else -1
    session.earlier_prompts = [user_text(items[i]) for i in prompts[:-1]][-EARLIER_PROMPTS_KEPT:]
    if start < 0:
        session.warnings.append("no user prompt found: the whole session is taken as the task")
    else:
        session.task_prompt = user_text(items[start])
        session.task_started_at = created_at(items[start])
    for message in items[start + 1 :]:
        if _role(message) == "user":
            text = user_text(message)
            if is_hook_feedback(text):
                session.hook_feedback.append(text)
            continue
        cwd = _dict(_dict(message.get("info")).get("path")).get("cwd")
        session.cwd = cwd if isinstance(cwd, str) else session.cwd
        for part in _parts(message):
            if part.get("type") == "text" and not part.get("synthetic"):
                text = str(part.get("text") or "").strip()
                if text:
                    session.events.append(AssistantText(len(session.events), text))
            elif part.get("type") == "tool":
                session.events.append(_tool_call(len(session.events), part))
    texts = session.assistant_texts
    session.last_assistant_message = texts[-1].text if texts else ""
    return session
