"""`reflection hook EVENT`: route a host event to its handler without importing click.

Agent events (prompt, stop, session, todo) fail open; git events run their
guard's `main()`, which fails closed for protected-branch pushes.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any

from reflection_core.hookio import HookResponse, PayloadError, fail_open, read_payload, render

# event -> "module:function"; agent handlers take the payload and return a HookResponse.
AGENT_EVENTS: dict[str, str] = {
    "user-prompt-submit": "reflection_core.prompt.hook:handle",
    "stop": "reflection_core.session.stop_hook:handle_stop",
    "subagent-stop": "reflection_core.session.stop_hook:handle_subagent_stop",
    "session-end": "reflection_core.session.stop_hook:handle_session_end",
    "session-start": "reflection_core.session.compaction:handle_session_start",
    "post-tool-use": "reflection_core.session.todos:handle_post_tool_use",
}
# event -> "module:main"; these take argv (git hooks: plus stdin lines for pre-push;
# Codex's legacy `notify` program: one JSON argument).
GIT_EVENTS: dict[str, str] = {
    "pre-commit": "reflection_core.guards.git_hooks:pre_commit_main",
    "pre-push": "reflection_core.guards.git_hooks:pre_push_main",
    "codex-notify": "reflection_core.consumers.codex_notify:main",
}
EVENTS = (*AGENT_EVENTS, *GIT_EVENTS)


def _resolve(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def run_hook(event: str, argv: Sequence[str] = ()) -> int:
    if event in GIT_EVENTS:
        return int(_resolve(GIT_EVENTS[event])(list(argv)))
    if event not in AGENT_EVENTS:
        sys.stderr.write(
            f"reflection hook: unknown event {event!r}; expected one of: {', '.join(EVENTS)}\n"
        )
        return 2
    try:
        payload = read_payload()
    except PayloadError as exc:
        response = HookResponse(
            output={"systemMessage": f"reflection: {exc}; the {event} hook did nothing."},
            stderr=f"reflection: {exc}",
        )
        return render(response)
    try:
        handler = _resolve(AGENT_EVENTS[event])
        response = handler(payload)
    except Exception as exc:  # fail open: our bug never blocks the host
        response = fail_open(event, exc)
        _report_failure(event, payload, exc)
    return render(response)


def _report_failure(event: str, payload: dict[str, Any], exc: BaseException) -> None:
    """Give the event's module a chance to leave evidence (e.g. a `skipped` verdict)."""
    module_name = AGENT_EVENTS[event].partition(":")[0]
    try:
        module = importlib.import_module(module_name)
        on_error = getattr(module, "on_internal_error", None)
        if on_error is not None:
            on_error(event, payload, exc)
    except Exception:
        pass  # reporting a failure must not fail
