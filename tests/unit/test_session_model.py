"""The session model's derived views stay in step with the events they are read from."""

from __future__ import annotations

from reflection_core.session.model import AssistantText, Session, ToolCall


def call(index: int) -> ToolCall:
    return ToolCall(index=index, tool_use_id=f"t{index}", name="Read", kind="read")


def test_tool_calls_and_texts_follow_the_events_as_they_grow_and_when_replaced() -> None:
    session = Session(events=[call(0), AssistantText(index=1, text="reading")])
    assert [c.index for c in session.tool_calls] == [0]
    assert session.tool_calls is session.tool_calls  # filtered once for the same events
    session.events.append(call(2))
    assert [c.index for c in session.tool_calls] == [0, 2]
    assert [t.text for t in session.assistant_texts] == ["reading"]
    session.events = [AssistantText(index=0, text="done")]
    assert session.tool_calls == [] and [t.text for t in session.assistant_texts] == ["done"]
