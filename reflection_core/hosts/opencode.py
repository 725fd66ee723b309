"""OpenCode: a plugin (`.opencode/plugins/reflection.js`) runs `reflection hook EVENT`.

OpenCode has no command hooks; its plugins are JS modules that receive an SDK
client and subscribe to events (opencode.ai/docs/plugins). Ours
(reflection_core/data/opencode_plugin.js) sends:
- on `chat.message` (a prompt was submitted): {session_id, cwd, prompt}
- on the `session.idle` event (the agent's turn ended): {session_id, cwd, messages},
  messages being `client.session.messages()` as is (session/opencode_messages.py).
and reads back {block, context, message, level}: on `block` it sends the text to
the session as a new prompt (push on with feedback), `context` rides along with the
prompt as a synthetic text part, and `message`, the one line for the user, is shown
as a TUI toast (`client.tui.showToast`, published on the server's `/event` stream as
`tui.toast.show`) of variant `level`: "warning" when the reply blocks or something of
ours did not run, else "info". stderr still goes to OpenCode's log. When this
command cannot answer at all (gone, timed out, crashed) the plugin itself shows a
warning that the check did not run.
"""

from __future__ import annotations

from reflection_core.hookio import HookResponse
from reflection_core.hosts.base import Host, text
from reflection_core.hosts.events import (
    HostEvent,
    PromptSubmitted,
    Reply,
    StopRequested,
    Transcript,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from reflection_core.hosts.events import TranscriptFormat


class OpenCodeHost(Host):
    name: ClassVar[str] = "opencode"
    transcript_format: ClassVar[TranscriptFormat | None] = "opencode"
    native_events: ClassVar[dict[str, str]] = {
        "user-prompt-submit": "chat.message",
        "stop": "session.idle",
    }

    def parse(self, event: str, payload: dict[str, Any]) -> HostEvent:
        self.check_event(event)
        messages = payload.get("messages")
        transcript = (
            Transcript("", "opencode", records=tuple(messages))
            if isinstance(messages, list)
            else None
        )
        common: dict[str, Any] = {
            "host": self.name,
            "session_id": text(payload, "session_id"),
            "cwd": text(payload, "cwd"),
            "transcript": transcript,
        }
        if event == "user-prompt-submit":
            prompt = payload.get("prompt")
            return PromptSubmitted(**common, prompt=prompt if isinstance(prompt, str) else None)
        return StopRequested(**common)

    def render(self, event: str, reply: Reply) -> HookResponse:
        output: dict[str, str] = {
            key: value
            for key, value in (
                ("block", reply.block),
                ("context", reply.context),
                ("message", reply.message),
            )
            if value
        }
        if reply.message:
            # The toast's colour: a warning when it holds the session or something of
            # ours did not work (such a reply also carries a diagnostic for the log).
            output["level"] = "warning" if reply.block or reply.stderr else "info"
        return HookResponse(output=output or None, stderr=reply.stderr)


HOST = OpenCodeHost()
