"""The previous assistant message, read from the tail of a transcript file.

Only the last ~256 KB are read: the prompt hook runs on every prompt and long
sessions have transcripts of many megabytes. Missing, truncated or garbled
files yield None; they never raise. Reads Claude Code transcripts (one JSONL
line per content block, lines of one API message share `message.id`) and Codex
rollout files (`response_item` records with an assistant `message` payload).
"""

from __future__ import annotations

import json
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TAIL_BYTES = 256 * 1024
MAX_MESSAGE_CHARS = 16 * 1024
# The same turn's messages before its last one: where a list the user answers may stand.
MAX_EARLIER_CHARS = 8 * 1024
MAX_EARLIER_LINES = 400


def read_tail(path: str | os.PathLike[str], limit: int = TAIL_BYTES) -> list[str]:
    """The complete lines in the last `limit` bytes of `path` (first partial line dropped)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return []  # a FIFO or device would block the hook
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            start = max(0, size - limit)
            handle.seek(start)
            data = handle.read(limit)
    except (OSError, ValueError):
        return []
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    if start > 0 and lines:
        lines = lines[1:]
    return [line for line in lines if line.strip()]


def _claude_text(record: dict[str, Any]) -> tuple[str | None, str] | None:
    """(message id, text) of a Claude Code assistant line, or None for other lines."""
    if record.get("type") != "assistant":
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return message.get("id"), content
    if not isinstance(content, list):
        return None
    parts = [
        block.get("text", "")
        for block in content
        if isinstance(block, dict) and block.get("type") == "text"
    ]
    return message.get("id"), "\n".join(p for p in parts if isinstance(p, str))


def _codex_text(record: dict[str, Any]) -> str | None:
    if record.get("type") != "response_item":
        return None
    payload = record.get("payload")
    if not isinstance(payload, dict) or payload.get("type") != "message":
        return None
    if payload.get("role") != "assistant":
        return None
    content = payload.get("content")
    if not isinstance(content, list):
        return None
    parts = [
        block.get("text", "")
        for block in content
        if isinstance(block, dict) and block.get("type") in ("output_text", "text")
    ]
    return "\n".join(p for p in parts if isinstance(p, str))


def assistant_turn(lines: list[str]) -> tuple[str | None, str]:
    """Pure: the last assistant message with text, and what the same turn wrote before it.

    A turn can list options in one message, run a tool, and end on "Tell me which you
    prefer": the user's "2" answers the turn, not its last message. The earlier text is
    read back to the user's last prompt (a user record that is not a tool result), at
    most MAX_EARLIER_CHARS of it; Codex rollouts give the last message only."""
    chunks: list[str] = []
    current_id: object = None
    for position in range(len(lines) - 1, -1, -1):
        record = _decoded(lines[position])
        if record is None:
            continue
        codex = _codex_text(record)
        if codex:
            return codex[-MAX_MESSAGE_CHARS:], ""
        found = _claude_text(record)
        if found is None:
            if chunks and record.get("type") == "user":
                break  # the previous assistant message is complete
            continue
        message_id, text = found
        if chunks and message_id != current_id:
            break
        if text.strip():
            chunks.append(text)
            current_id = message_id
    else:  # the tail holds nothing before the last message
        position = -1
    if not chunks:
        return None, ""
    last = "\n".join(reversed(chunks))[-MAX_MESSAGE_CHARS:]
    return last, _earlier_in_turn(lines[: position + 1])


def _earlier_in_turn(lines: list[str]) -> str:
    """The assistant text in `lines` after the user's last prompt (newest last), capped."""
    texts: list[str] = []
    size = 0
    for line in reversed(lines[-MAX_EARLIER_LINES:]):
        if '"tool_result"' in line or ('"text"' not in line and '"user"' not in line):
            continue  # a tool's result or call: neither the user's prompt nor words
        record = _decoded(line)
        if record is None:
            continue
        if record.get("type") == "user":
            break
        found = _claude_text(record)
        if found is not None and found[1].strip():
            texts.append(found[1])
            size += len(found[1])
            if size >= MAX_EARLIER_CHARS:
                break
    return "\n".join(reversed(texts))[-MAX_EARLIER_CHARS:]


def _decoded(line: str) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def previous_assistant_turn(path: object) -> tuple[str | None, str]:
    """`assistant_turn` of the transcript at `path`; (None, "") when unreadable (never
    raises)."""
    if not isinstance(path, str) or not path:
        return None, ""
    return assistant_turn(read_tail(path))
