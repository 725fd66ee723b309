"""What a host adapter is: parse a payload into a typed event, render a `Reply`.

Each adapter module (claude.py, codex.py, gemini.py, opencode.py) defines one
`Host` subclass and a module-level `HOST`. Everything a host names its own way
(payload fields, output shapes, transcript format) lives in its adapter.
"""

from __future__ import annotations

from reflection_core.hookio import HookResponse
from reflection_core.hosts.events import HostEvent, Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from reflection_core.hosts.events import TranscriptFormat


class UnsupportedEvent(ValueError):
    """The host has no such hook event (a wrong `reflection hook EVENT --host` line)."""


class Host:
    """A coding-agent host: its hook payloads in, its hook answers out."""

    name: ClassVar[str]
    transcript_format: ClassVar[TranscriptFormat | None]
    # our event -> the host's own event name (the hook is registered under it)
    native_events: ClassVar[dict[str, str]]

    def parse(self, event: str, payload: dict[str, Any]) -> HostEvent:
        raise NotImplementedError

    def render(self, event: str, reply: Reply) -> HookResponse:
        raise NotImplementedError

    def check_event(self, event: str) -> None:
        if event not in self.native_events:
            raise UnsupportedEvent(
                f"{self.name} has no hook for {event!r} "
                f"(supported: {', '.join(self.native_events)})"
            )


def text(payload: dict[str, Any], key: str) -> str | None:
    """A non-empty string field, else None: hosts omit, null or mistype fields."""
    value = payload.get(key)
    return value if isinstance(value, str) and value else None


def todo_items(raw: Any, text_key: str) -> tuple[tuple[str, str], ...]:
    """(content, status) per todo item of a todo-writing tool's input."""
    entries = raw.get("todos") if isinstance(raw, dict) else None
    return tuple(
        (entry[text_key], str(entry.get("status", "pending")))
        for entry in (entries if isinstance(entries, list) else [])
        if isinstance(entry, dict) and isinstance(entry.get(text_key), str)
    )
