"""Host-neutral hook events and replies: what handlers take and what they return.

A host adapter (hosts/claude.py, codex.py, gemini.py, opencode.py) turns its raw
payload into one of these events and renders a `Reply` in its own protocol, so no
handler knows a host's field names or output shapes. The prompt hook imports
this module on every prompt: each generated dataclass method costs import time,
so the events skip the generated repr and eq they have no use for (and every class
has a docstring: without one, dataclass builds it from the signature).
"""

from __future__ import annotations

from reflection_core.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from reflection_core.session.model import Session

    TranscriptFormat = Literal["claude", "codex", "gemini", "opencode"]


@record(frozen=True, eq=False)
class Transcript:
    """A session record on disk and the reader its host's adapter chose for it."""

    path: str
    format: TranscriptFormat | None  # None: Claude Code or Codex, told apart by content
    records: tuple[Any, ...] | None = field(default=None, repr=False)  # handed over inline

    def read_session(
        self,
        *,
        last_assistant_message: str | None = None,
        session_id: str | None = None,
        max_task_bytes: int | None = None,
    ) -> Session:
        """The current task of the session, normalized (session/model.py)."""
        if self.records is not None:
            from reflection_core.session.opencode_messages import session_from_messages

            session = session_from_messages(self.records, session_id=session_id)
            if last_assistant_message:
                session.last_assistant_message = last_assistant_message
            return session
        from reflection_core.session.transcript import DEFAULT_MAX_TASK_BYTES, read_session

        return read_session(
            self.path,
            last_assistant_message=last_assistant_message,
            session_id=session_id,
            max_task_bytes=max_task_bytes or DEFAULT_MAX_TASK_BYTES,
            transcript_format=self.format,
        )

    def previous_assistant_turn(self) -> tuple[str | None, str]:
        """The agent's last words before the prompt being submitted, and what its turn
        wrote before them (cheap: a tail read; see `transcript_tail.assistant_turn`)."""
        if self.format == "gemini":
            from reflection_core.session.gemini_chat import last_model_text

            return last_model_text(self.path), ""
        if self.records is not None:
            return None, ""  # handed over only at the stop
        from reflection_core.prompt.transcript_tail import previous_assistant_turn

        return previous_assistant_turn(self.path)


@record(frozen=True, kw_only=True, repr=False, eq=False)
class HostEvent:
    """What every event carries: which host, which session, where."""

    host: str
    session_id: str | None = None
    cwd: str | None = None
    transcript: Transcript | None = None
    permission_mode: str | None = None


@record(frozen=True, kw_only=True, repr=False, eq=False)
class PromptSubmitted(HostEvent):
    """The person sent a prompt; the agent has not started on it."""

    prompt: str | None = None  # None: the host sent no prompt text


@record(frozen=True, kw_only=True, repr=False, eq=False)
class StopRequested(HostEvent):
    """The agent's turn ended; the host asks whether it may stop."""

    last_assistant_message: str | None = None
    prompt_id: str | None = None
    stop_hook_active: bool = False
    # work the host says will wake the session (Claude Code: background tasks, crons)
    background_tasks: tuple[dict[str, Any], ...] = ()


@record(frozen=True, kw_only=True, repr=False, eq=False)
class SubagentStopped(StopRequested):
    """A subagent's turn ended (its own transcript is on the event)."""

    agent_id: str | None = None


@record(frozen=True, kw_only=True, repr=False, eq=False)
class StopFailed(HostEvent):
    """The host ended the turn on its own failure (API error, usage limit); no Stop follows."""

    error: str | None = None
    error_details: str | None = None
    last_assistant_message: str | None = None


@record(frozen=True, kw_only=True, repr=False, eq=False)
class SessionStarted(HostEvent):
    """A session (re)started, e.g. after a compaction."""

    source: str | None = None  # startup | resume | clear | compact


@record(frozen=True, kw_only=True, repr=False, eq=False)
class SessionEnded(HostEvent):
    """The session is over; its last verdict becomes final."""

    reason: str | None = None


@record(frozen=True, kw_only=True, repr=False, eq=False)
class ToolUsed(HostEvent):
    """A tool finished. `todos` is set when the tool wrote the agent's todo list."""

    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    todos: tuple[tuple[str, str], ...] | None = None  # (content, status) per item


@record(frozen=True, eq=False)
class Reply:
    """A handler's answer, host-neutral.

    block: push the agent on (stop) or refuse the prompt, with this text for the agent.
    context: extra text for the agent, without blocking.
    message: one line for the user.
    stderr: a diagnostic line for the host's log.
    """

    block: str | None = None
    context: str | None = None
    message: str | None = None
    stderr: str = ""


SILENT = Reply()
