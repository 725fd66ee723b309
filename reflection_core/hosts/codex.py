"""Codex: Claude-compatible hooks (`.codex/hooks.json`), rollout JSONL transcripts.

Codex sends the Claude Code field names and reads the same answers, for the
events it has (UserPromptSubmit, Stop, SessionStart); its turn id arrives as
`turn_id`, and `transcript_path` points at a rollout file (session/codex_rollout.py).
"""

from __future__ import annotations

from reflection_core.hosts.claude import ClaudeHost

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar

    from reflection_core.hosts.events import TranscriptFormat


class CodexHost(ClaudeHost):
    name: ClassVar[str] = "codex"
    transcript_format: ClassVar[TranscriptFormat | None] = "codex"
    native_events: ClassVar[dict[str, str]] = {
        "user-prompt-submit": "UserPromptSubmit",
        "stop": "Stop",
        "session-start": "SessionStart",
    }
    todo_tool: ClassVar[str] = "update_plan"


HOST = CodexHost()
