"""`reflection hook EVENT`: route a host event to its handler without importing click.

Agent events (prompt, stop, session, todo) fail open; git events run their
guard's `main()`, which fails closed for protected-branch pushes.

Failing open is never silent: bad input, our own import or programming errors
and the hook's own deadline all answer with one visible line saying the check
did not run and why, and stop events still leave a `skipped` verdict.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from reflection_core.hookio import (
    DEFAULT_DEADLINE_S,
    MAX_PAYLOAD_BYTES,
    HookDeadline,
    HookResponse,
    PayloadError,
    deadline,
    fail_open,
    parse_payload,
    render,
    salvage_fields,
)

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
DEADLINE_ENV = "REFLECTION_HOOK_DEADLINE"


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
    raw = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
    return render(answer(event, raw, timed=True))


def answer(event: str, raw: bytes, *, timed: bool = False) -> HookResponse:
    """The host answer for one agent event's raw input; never raises.

    `timed` arms the hook's own deadline (the process entry point does; in-process
    callers such as tests may leave it off)."""
    try:
        payload = parse_payload(raw)
    except PayloadError as exc:
        message = f"reflection: {exc}; the {event} check did not run."
        _report_failure(event, {**salvage_fields(raw), "_bad_input": True}, exc)
        return HookResponse(output={"systemMessage": message}, stderr=message)
    deadline_s = _deadline_seconds(payload) if timed else 0.0
    try:
        with deadline(deadline_s):
            handler = _resolve(AGENT_EVENTS[event])
            return handler(payload)
    except (Exception, HookDeadline, RecursionError) as exc:  # fail open, visibly
        _report_failure(event, payload, exc)
        return fail_open(event, exc)


def _deadline_seconds(payload: dict[str, Any]) -> float:
    """`REFLECTION_HOOK_DEADLINE` (seconds; 0 turns it off), else `hooks.deadline_seconds`
    of the repo's config, else the default."""
    raw = os.environ.get(DEADLINE_ENV)
    if raw is not None:
        try:
            return max(float(raw), 0.0)
        except ValueError:
            return DEFAULT_DEADLINE_S
    try:
        with deadline(DEFAULT_DEADLINE_S):
            from reflection_core import config, paths

            root = paths.hook_root(payload.get("cwd"))
            if root is None:
                return DEFAULT_DEADLINE_S
            return float(config.load(root).get("hooks.deadline_seconds"))
    except (Exception, HookDeadline):
        return DEFAULT_DEADLINE_S  # a config problem is reported by the handler itself


def _report_failure(event: str, payload: dict[str, Any], exc: BaseException) -> None:
    """Give the event's module a chance to leave evidence (e.g. a `skipped` verdict)."""
    module_name = AGENT_EVENTS[event].partition(":")[0]
    try:
        with deadline(5.0):
            module = importlib.import_module(module_name)
            on_error = getattr(module, "on_internal_error", None)
            if on_error is not None:
                on_error(event, payload, exc)
    except (Exception, HookDeadline) as report_exc:
        # Reporting a failure must not fail, but it must not vanish either.
        sys.stderr.write(
            f"reflection: could not record that the {event} check did not run "
            f"({type(report_exc).__name__}: {str(report_exc)[:200]})\n"
        )
