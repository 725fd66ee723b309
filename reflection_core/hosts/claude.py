"""Claude Code: JSON on stdin, JSON on stdout (code.claude.com/docs/en/hooks).

Payload fields: session_id, transcript_path, cwd, permission_mode, prompt,
last_assistant_message, stop_hook_active, agent_id, agent_transcript_path,
source, reason, tool_name, tool_input. Answers: `decision: block` + `reason`
pushes the agent on (Stop) or refuses the prompt (UserPromptSubmit);
`hookSpecificOutput.additionalContext` adds context; `systemMessage` is shown to
the user.
"""

from __future__ import annotations

from reflection_core.hookio import HookResponse
from reflection_core.hosts.base import Host, text, todo_items
from reflection_core.hosts.events import (
    HostEvent,
    PromptSubmitted,
    Reply,
    SessionEnded,
    SessionStarted,
    StopFailed,
    StopRequested,
    SubagentStopped,
    ToolUsed,
    Transcript,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from reflection_core.hosts.events import TranscriptFormat


class ClaudeHost(Host):
    name: ClassVar[str] = "claude"
    transcript_format: ClassVar[TranscriptFormat | None] = "claude"
    native_events: ClassVar[dict[str, str]] = {
        "user-prompt-submit": "UserPromptSubmit",
        "stop": "Stop",
        "subagent-stop": "SubagentStop",
        "stop-failure": "StopFailure",
        "session-start": "SessionStart",
        "session-end": "SessionEnd",
        "post-tool-use": "PostToolUse",
    }
    todo_tool: ClassVar[str] = "TodoWrite"

    def _transcript(self, path: str | None) -> Transcript | None:
        return Transcript(path, self.transcript_format) if path else None

    def _prompt_id(self, payload: dict[str, Any]) -> str | None:
        return text(payload, "prompt_id") or text(payload, "turn_id")

    def parse(self, event: str, payload: dict[str, Any]) -> HostEvent:
        self.check_event(event)
        common: dict[str, Any] = {
            "host": self.name,
            "session_id": text(payload, "session_id"),
            "cwd": text(payload, "cwd"),
            "transcript": self._transcript(text(payload, "transcript_path")),
            "permission_mode": text(payload, "permission_mode"),
        }
        if event == "user-prompt-submit":
            prompt = payload.get("prompt")
            return PromptSubmitted(**common, prompt=prompt if isinstance(prompt, str) else None)
        if event in ("stop", "subagent-stop"):
            stop: dict[str, Any] = {
                **common,
                "last_assistant_message": text(payload, "last_assistant_message"),
                "prompt_id": self._prompt_id(payload),
                "stop_hook_active": bool(payload.get("stop_hook_active")),
                "background_tasks": _in_flight(payload),
            }
            if common["transcript"] is None and payload.get("transcript_path") is not None:
                # named but not a path (a number, a list, ""): the stop hook skips, visibly
                stop["transcript"] = Transcript("", self.transcript_format)
            if event == "stop":
                return StopRequested(**stop)
            agent_file = self._transcript(text(payload, "agent_transcript_path"))
            if agent_file is None and payload.get("agent_transcript_path") is not None:
                agent_file = Transcript("", self.transcript_format)  # named, but not a path
            stop["transcript"] = agent_file or stop["transcript"]
            return SubagentStopped(**stop, agent_id=text(payload, "agent_id"))
        if event == "stop-failure":
            return StopFailed(
                **common,
                error=text(payload, "error"),
                error_details=text(payload, "error_details"),
                last_assistant_message=text(payload, "last_assistant_message"),
            )
        if event == "session-start":
            return SessionStarted(**common, source=text(payload, "source"))
        if event == "session-end":
            return SessionEnded(**common, reason=text(payload, "reason"))
        tool_name = text(payload, "tool_name") or ""
        tool_input = payload.get("tool_input")
        tool_input = tool_input if isinstance(tool_input, dict) else {}
        todos = todo_items(tool_input, "content") if tool_name == self.todo_tool else None
        return ToolUsed(**common, tool_name=tool_name, tool_input=tool_input, todos=todos)

    def render(self, event: str, reply: Reply) -> HookResponse:
        output: dict[str, Any] = {}
        if reply.block is not None:
            output.update(decision="block", reason=reply.block)
        if reply.context:
            output["hookSpecificOutput"] = {
                "hookEventName": self.native_events[event],
                "additionalContext": reply.context,
            }
        if reply.message:
            output["systemMessage"] = reply.message
        return HookResponse(output=output or None, stderr=reply.stderr)


def _in_flight(payload: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """`background_tasks` and `session_crons`: work that wakes the session again."""
    found: list[dict[str, Any]] = []
    for key, kind in (("background_tasks", None), ("session_crons", "cron")):
        items = payload.get(key)
        if isinstance(items, list):
            found += [
                {**item, "type": kind or item.get("type")}
                for item in items
                if isinstance(item, dict)
            ]
    return tuple(found)


HOST = ClaudeHost()


class ClaudeOrCodexHost(ClaudeHost):
    """`reflection hook EVENT` without `--host`, as installed before adapters existed:
    Claude Code's protocol, and the transcript told apart (Claude Code or Codex) by content."""

    transcript_format: ClassVar[TranscriptFormat | None] = None


UNNAMED = ClaudeOrCodexHost()
