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


def last_assistant_text(lines: list[str]) -> str | None:
    """Pure: the text of the last assistant message that has any text."""
    chunks: list[str] = []
    current_id: object = None
    for line in reversed(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        codex = _codex_text(record)
        if codex:
            return codex[-MAX_MESSAGE_CHARS:]
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
    if not chunks:
        return None
    return "\n".join(reversed(chunks))[-MAX_MESSAGE_CHARS:]


def previous_assistant_message(path: object) -> str | None:
    """The last assistant text in the transcript at `path`, or None (never raises)."""
    if not isinstance(path, str) or not path:
        return None
    return last_assistant_text(read_tail(path))
