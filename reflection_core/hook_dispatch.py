"""`reflection hook EVENT [--host NAME]`: route a host event to its handler without click.

Agent events (prompt, stop, session, todo) go through the host's adapter
(hosts/): payload -> typed event -> handler -> `Reply` -> the host's protocol.
They fail open. Git events run their guard's `main()`, which fails closed for
protected-branch pushes.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any

from reflection_core.hookio import PayloadError, read_payload, render
from reflection_core.hosts.events import HostEvent, Reply

# event -> "module:function"; agent handlers take a typed event (hosts/events.py)
# and return a Reply.
AGENT_EVENTS: dict[str, str] = {
    "user-prompt-submit": "reflection_core.prompt.hook:handle",
    "stop": "reflection_core.session.stop_hook:handle_stop",
    "subagent-stop": "reflection_core.session.stop_hook:handle_stop",
    "session-end": "reflection_core.session.stop_hook:handle_session_end",
    "session-start": "reflection_core.session.compaction_hook:handle_session_start",
    "post-tool-use": "reflection_core.session.todos_hook:handle_tool_used",
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


def host_option(argv: Sequence[str]) -> str | None:
    """The `--host NAME` (or `--host=NAME`) of an agent hook line, None when absent."""
    args = list(argv)
    for pos, arg in enumerate(args):
        if arg == "--host" and pos + 1 < len(args):
            return args[pos + 1]
        if arg.startswith("--host="):
            return arg.partition("=")[2]
    return None


def run_hook(event: str, argv: Sequence[str] = ()) -> int:
    if event in GIT_EVENTS:
        return int(_resolve(GIT_EVENTS[event])(list(argv)))
    if event not in AGENT_EVENTS:
        sys.stderr.write(
            f"reflection hook: unknown event {event!r}; expected one of: {', '.join(EVENTS)}\n"
        )
        return 2
    from reflection_core import hosts
    from reflection_core.hosts.base import UnsupportedEvent

    try:
        host = hosts.get(host_option(argv))
        host.check_event(event)
    except (hosts.UnknownHost, UnsupportedEvent) as exc:
        sys.stderr.write(f"reflection hook: {exc}\n")
        return 2
    try:
        payload = read_payload()
    except PayloadError as exc:
        text = f"reflection: {exc}; the {event} hook did nothing."
        return render(host.render(event, Reply(message=text, stderr=f"reflection: {exc}")))
    parsed: HostEvent | None = None
    try:
        parsed = host.parse(event, payload)
        reply = _resolve(AGENT_EVENTS[event])(parsed)
    except Exception as exc:  # fail open: our bug never blocks the host
        reply = fail_open(event, exc)
        if parsed is not None:
            _report_failure(event, parsed, exc)
    return render(host.render(event, reply))


def fail_open(event: str, exc: BaseException) -> Reply:
    """Our bug must never block or wedge a session: allow, and say so visibly."""
    message = (
        f"reflection: the {event} hook hit an internal error ({type(exc).__name__}: "
        f"{str(exc)[:200]}); it did not block anything. Run `reflection doctor`."
    )
    return Reply(message=message, stderr=message)


def _report_failure(event: str, parsed: HostEvent, exc: BaseException) -> None:
    """Give the event's module a chance to leave evidence (e.g. a `skipped` verdict)."""
    module_name = AGENT_EVENTS[event].partition(":")[0]
    try:
        module = importlib.import_module(module_name)
        on_error = getattr(module, "on_internal_error", None)
        if on_error is not None:
            on_error(parsed, exc)
    except Exception:
        pass  # reporting a failure must not fail
