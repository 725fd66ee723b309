"""Gemini CLI chat recordings -> the normalized `Session` of the current task.

Gemini CLI records a session as JSONL under ~/.gemini/tmp/<project>/chats/
(`session-<time>-<id>.jsonl`): a metadata line, then message records
(`type` user | gemini | info | error | warning) with tool calls attached to the
`gemini` records (`toolCalls`: name, args, result, status). A message is written
again under the same `id` when it grows (its tool calls finish), `{"$set": ...}`
lines update metadata (or replace the message list), and `{"$rewindTo": id}`
drops that message and everything after it. This module folds those lines and
builds the session; it does no I/O but `last_model_text`, a small tail read for
the prompt hook.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from reflection_core.lazyre import lazy
from reflection_core.session.commands import tool_effect
from reflection_core.session.model import AssistantText, Session, ToolCall, ToolKind
from reflection_core.session.normalize import (
    EARLIER_PROMPTS_KEPT,
    cap_output,
    is_hook_feedback,
)

# Gemini CLI's built-in tool names (packages/core/src/tools/tool-names.ts).
TOOL_KINDS: dict[str, ToolKind] = {
    "run_shell_command": "shell",
    "write_file": "write",
    "replace": "edit",
    "read_file": "read",
    "read_many_files": "read",
    "list_directory": "search",
    "glob": "search",
    "grep_search": "search",
    "search_file_content": "search",
    "write_todos": "todo",
    "web_fetch": "web",
    "google_web_search": "web",
    "invoke_agent": "agent",
}
_EXIT_CODE = lazy(r"^Exit Code: (-?\d+)", re.M)
_CONTEXT_PREFIX = "<session_context>"  # the CLI's own first message
_HOOK_CONTEXT_PREFIX = "<hook_context>"  # a BeforeAgent hook's additionalContext, as a part
TAIL_BYTES = 256 * 1024


def fold_records(records: Iterable[Any]) -> list[dict[str, Any]]:
    """The session's messages in order, after updates and rewinds."""
    messages: dict[str, dict[str, Any]] = {}
    for record in records:
        if not isinstance(record, dict):
            continue
        update = record.get("$set")
        if isinstance(update, dict) and isinstance(update.get("messages"), list):
            messages = {str(m.get("id")): m for m in update["messages"] if isinstance(m, dict)}
            continue
        rewind = record.get("$rewindTo")
        if isinstance(rewind, str) and rewind in messages:
            ids = list(messages)
            for stale in ids[ids.index(rewind) :]:
                del messages[stale]
            continue
        if isinstance(record.get("type"), str) and "id" in record:
            messages[str(record["id"])] = record  # a later line for the same id replaces it
    return list(messages.values())


def parts_text(content: Any) -> str:
    """The text of a message's `content`: a string, or the `text` of its parts.

    Context a hook added to the prompt is recorded as a part of the prompt; it is
    not what the person asked, so it is left out.
    """
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    return "\n".join(
        str(p["text"])
        for p in parts
        if isinstance(p, dict)
        and isinstance(p.get("text"), str)
        and not p["text"].startswith(_HOOK_CONTEXT_PREFIX)
    )


def prompt_text(message: dict[str, Any]) -> str | None:
    """The text of a real user prompt; None for tool results, context and hook feedback."""
    if message.get("type") != "user":
        return None
    text = parts_text(message.get("content")).strip()
    if not text or text.startswith(_CONTEXT_PREFIX) or is_hook_feedback(text):
        return None
    return text


def _tool_call(index: int, raw: dict[str, Any]) -> ToolCall:
    name = str(raw.get("name") or "")
    raw_args = raw.get("args")
    args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
    kind, command, files = tool_effect(TOOL_KINDS.get(name, "other"), args, "file_path")
    output = _result_text(raw.get("result"))
    status = raw.get("status")
    match = _EXIT_CODE.search(output)
    exit_code = int(match.group(1)) if match else None
    if exit_code is None and command is not None and status == "success":
        exit_code = 0  # the shell tool names the exit code only when it is not 0
    ok: bool | None = None
    if status in ("success", "error", "cancelled"):
        ok = status == "success" and not exit_code
    return ToolCall(
        index=index,
        tool_use_id=str(raw.get("id") or ""),
        name=name,
        kind=kind,
        input=args,
        files=files,
        command=command,
        ok=ok,
        exit_code=exit_code,
        output=cap_output(output),
        timestamp=raw.get("timestamp") if isinstance(raw.get("timestamp"), str) else None,
    )


def _result_text(result: Any) -> str:
    texts: list[str] = []
    for part in result if isinstance(result, list) else [result]:
        if not isinstance(part, dict):
            continue
        response = part.get("functionResponse")
        if isinstance(response, dict):
            body = response.get("response")
            if isinstance(body, dict):
                value = body.get("output", body.get("error", body))
                texts.append(value if isinstance(value, str) else json.dumps(value))
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "\n".join(texts)


def session_from_chat_records(
    records: Iterable[Any],
    *,
    session_id: str | None = None,
    last_assistant_message: str | None = None,
) -> Session:
    """The current task of a Gemini CLI session: everything after its last real prompt."""
    raw = list(records)
    messages = fold_records(raw)
    session = Session(session_id=session_id)
    for record in raw:
        if isinstance(record, dict) and isinstance(record.get("sessionId"), str):
            session.session_id = session.session_id or record["sessionId"]
    prompts = [i for i, m in enumerate(messages) if prompt_text(m) is not None]
    start = prompts[-1] if prompts else -1
    earlier = [prompt_text(messages[i]) or "" for i in prompts[:-1]]
    session.earlier_prompts = earlier[-EARLIER_PROMPTS_KEPT:]
    if start < 0:
        session.warnings.append("no user prompt found: the whole session is taken as the task")
    else:
        session.task_prompt = prompt_text(messages[start]) or ""
        stamp = messages[start].get("timestamp")
        session.task_started_at = stamp if isinstance(stamp, str) else None
    for message in messages[start + 1 :]:
        kind = message.get("type")
        if kind == "user":
            text = parts_text(message.get("content")).strip()
            if is_hook_feedback(text):
                session.hook_feedback.append(text)
        elif kind == "gemini":
            text = parts_text(message.get("content")).strip()
            stamp = message.get("timestamp") if isinstance(message.get("timestamp"), str) else None
            if text:
                session.events.append(AssistantText(len(session.events), text, stamp))
            for call in message.get("toolCalls") or []:
                if isinstance(call, dict):
                    session.events.append(_tool_call(len(session.events), call))
    texts = session.assistant_texts
    in_file = texts[-1].text if texts else ""
    said = (last_assistant_message or "").strip()
    if said and in_file and said.endswith(in_file.strip()):
        session.last_assistant_message = in_file  # the hook sends the whole turn's text
    elif said:
        session.last_assistant_message = said
        if not in_file or in_file.strip() not in said:
            session.events.append(AssistantText(len(session.events), said))
    else:
        session.last_assistant_message = in_file
    return session


def last_model_text(path: str) -> str | None:
    """The last `gemini` message's text in the file's tail (the prompt hook's context)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - TAIL_BYTES))
            lines = handle.read().decode("utf-8", "replace").splitlines()
    except (OSError, ValueError):
        return None
    for line in reversed(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") == "gemini":
            text = parts_text(record.get("content")).strip()
            if text:
                return text
    return None
