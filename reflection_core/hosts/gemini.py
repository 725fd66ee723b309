"""Gemini CLI: command hooks in `.gemini/settings.json` (docs/hooks/reference.md).

Events we use and the names Gemini CLI gives them: BeforeAgent (a prompt was
submitted: `prompt`), AfterAgent (the agent's turn ended: `prompt_response`,
`stop_hook_active`), SessionStart (`source`: startup | resume | clear),
SessionEnd (`reason`), AfterTool (`tool_name`, `tool_input`; the todo tool is
`write_todos` with `todos[].description`). Every payload has session_id,
transcript_path (a JSONL chat recording, session/gemini_chat.py) and cwd.

Answers: `decision: "deny"` + `reason` rejects the agent's response and sends the
reason to the agent as a new prompt (AfterAgent) or discards the prompt
(BeforeAgent); `hookSpecificOutput.additionalContext` is appended to the prompt
(BeforeAgent) or the tool result (AfterTool); `systemMessage` is shown to the user.
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
    StopRequested,
    ToolUsed,
    Transcript,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from reflection_core.hosts.events import TranscriptFormat


class GeminiHost(Host):
    name: ClassVar[str] = "gemini"
    transcript_format: ClassVar[TranscriptFormat | None] = "gemini"
    native_events: ClassVar[dict[str, str]] = {
        "user-prompt-submit": "BeforeAgent",
        "stop": "AfterAgent",
        "session-start": "SessionStart",
        "session-end": "SessionEnd",
        "post-tool-use": "AfterTool",
    }

    def parse(self, event: str, payload: dict[str, Any]) -> HostEvent:
        self.check_event(event)
        path = text(payload, "transcript_path")
        common: dict[str, Any] = {
            "host": self.name,
            "session_id": text(payload, "session_id"),
            "cwd": text(payload, "cwd"),
            "transcript": Transcript(path, "gemini") if path else None,
        }
        if event == "user-prompt-submit":
            prompt = payload.get("prompt")
            return PromptSubmitted(**common, prompt=prompt if isinstance(prompt, str) else None)
        if event == "stop":
            return StopRequested(
                **common,
                last_assistant_message=text(payload, "prompt_response"),
                stop_hook_active=bool(payload.get("stop_hook_active")),
            )
        if event == "session-start":
            return SessionStarted(**common, source=text(payload, "source"))
        if event == "session-end":
            return SessionEnded(**common, reason=text(payload, "reason"))
        tool_name = text(payload, "tool_name") or ""
        tool_input = payload.get("tool_input")
        tool_input = tool_input if isinstance(tool_input, dict) else {}
        todos = todo_items(tool_input, "description") if tool_name == "write_todos" else None
        return ToolUsed(**common, tool_name=tool_name, tool_input=tool_input, todos=todos)

    def render(self, event: str, reply: Reply) -> HookResponse:
        output: dict[str, Any] = {}
        if reply.block is not None:
            output.update(decision="deny", reason=reply.block)
        if reply.context:
            output["hookSpecificOutput"] = {
                "hookEventName": self.native_events[event],
                "additionalContext": reply.context,
            }
        if reply.message:
            output["systemMessage"] = reply.message
        return HookResponse(output=output or None, stderr=reply.stderr)


HOST = GeminiHost()
