"""`reflection hook EVENT [--host NAME]`: route a host event to its handler without click.

Agent events (prompt, stop, session, todo) go through the host's adapter
(hosts/): payload -> typed event -> handler -> `Reply` -> the host's protocol.
They fail open. Git events run their guard's `main()`, which fails closed for
protected-branch pushes.

Failing open is never silent: bad input, our own import or programming errors
and the hook's own deadline all answer with one visible line saying the check
did not run and why, and stop events still leave a `skipped` verdict.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from reflection_core.hookio import (
    DEFAULT_DEADLINE_S,
    MAX_PAYLOAD_BYTES,
    HookDeadline,
    HookResponse,
    PayloadError,
    deadline,
    env_deadline_seconds,
    parse_payload,
    render,
    salvage_fields,
)
from reflection_core.hosts.events import HostEvent, Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# event -> "module:function"; agent handlers take a typed event (hosts/events.py)
# and return a Reply.
AGENT_EVENTS: dict[str, str] = {
    "user-prompt-submit": "reflection_core.prompt.hook:handle",
    "stop": "reflection_core.session.stop_hook:handle_stop",
    "subagent-stop": "reflection_core.session.stop_hook:handle_stop",
    "stop-failure": "reflection_core.session.stop_hook:handle_stop_failure",
    "session-end": "reflection_core.session.stop_hook:handle_session_end",
    "session-start": "reflection_core.session.compaction_hook:handle_session_start",
    "post-tool-use": "reflection_core.session.todos_hook:handle_tool_used",
}
# event -> "module:main"; these take argv (git hooks: plus stdin lines for pre-push;
# Codex's legacy `notify` program: one JSON argument).
GIT_EVENTS: dict[str, str] = {
    "pre-commit": "reflection_core.guards.git_hooks:pre_commit_main",
    "pre-merge-commit": "reflection_core.guards.git_hooks:pre_merge_commit_main",
    "pre-push": "reflection_core.guards.git_hooks:pre_push_main",
    "codex-notify": "reflection_core.consumers.codex_notify:main",
    # One guard each, as the pre-commit framework runs them through the shared launcher.
    "reflection-protected-commit": "reflection_core.guards.protected_commit:main",
    "reflection-protected-merge": "reflection_core.guards.protected_merge:main",
    "reflection-protected-push": "reflection_core.guards.protected_push:main",
    "reflection-tests-ran": "reflection_core.guards.tests_ran:main",
}
EVENTS = (*AGENT_EVENTS, *GIT_EVENTS)


def _resolve(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    return getattr(_module(module_name), attr)


def _module(name: str) -> Any:
    """`importlib.import_module(name)` without importing importlib (and warnings)."""
    __import__(name)
    return sys.modules[name]


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
    raw = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
    return render(answer(event, raw, host=host, timed=True))


def answer(event: str, raw: bytes, *, host: Any = None, timed: bool = False) -> HookResponse:
    """The host's answer for one agent event's raw input; never raises.

    `host` is the adapter (default: Claude Code's protocol). `timed` arms the hook's own
    deadline (the process entry point does; in-process callers may leave it off)."""
    if host is None:
        from reflection_core import hosts

        host = hosts.get(None)
    try:
        payload = parse_payload(raw)
    except PayloadError as exc:
        message = f"reflection: {exc}; the {event} check did not run."
        _report_failure(event, host, salvage_fields(raw), exc)
        return host.render(event, Reply(message=message, stderr=message))
    deadline_s = _deadline_seconds(payload) if timed else 0.0
    try:
        with deadline(deadline_s):
            parsed = host.parse(event, payload)
            reply = redacted(event, _resolve(AGENT_EVENTS[event])(parsed))
            return host.render(event, reply)
    except (Exception, HookDeadline, RecursionError) as exc:  # fail open, visibly
        _report_failure(event, host, payload, exc)
        return host.render(event, redacted(event, fail_open(event, exc)))


def redacted(event: str, reply: Reply) -> Reply:
    """What a hook prints, secrets redacted (the Stop block reason, SessionStart context,
    every message). The prompt hook only restates the prompt it was given: not worth
    the redaction table's import on every prompt."""
    texts = (reply.block, reply.context, reply.message, reply.stderr)
    if event == "user-prompt-submit" or not any(texts):
        return reply
    from reflection_core.records import replace
    from reflection_core.redact import redact

    return replace(
        reply,
        block=redact(reply.block) if reply.block else reply.block,
        context=redact(reply.context) if reply.context else reply.context,
        message=redact(reply.message) if reply.message else reply.message,
        stderr=redact(reply.stderr) if reply.stderr else reply.stderr,
    )


def _deadline_seconds(payload: dict[str, Any]) -> float:
    """`REFLECTION_HOOK_DEADLINE` (seconds; 0 turns it off), else `hooks.deadline_seconds`
    of the repo's config, else the default."""
    from_env = env_deadline_seconds()
    if from_env is not None:
        return from_env
    try:
        with deadline(DEFAULT_DEADLINE_S):
            from reflection_core import paths
            from reflection_core.hosts.loader import preload_config

            root = paths.hook_root_dir(payload.get("cwd"))
            if root is None:
                return DEFAULT_DEADLINE_S
            return float(preload_config(root).get("hooks.deadline_seconds"))
    except (Exception, HookDeadline):
        return DEFAULT_DEADLINE_S  # a config problem is reported by the handler itself


def fail_open(event: str, exc: BaseException) -> Reply:
    """Our bug must never block or wedge a session: allow, and say so visibly."""
    if isinstance(exc, HookDeadline):
        message = (
            f"reflection: the {event} check did not run to the end ({exc}); "
            "it did not block anything."
        )
    else:
        message = (
            f"reflection: the {event} hook hit an internal error ({type(exc).__name__}: "
            f"{str(exc)[:200]}); it did not block anything. Run `reflection doctor`."
        )
    return Reply(message=message, stderr=message)


def _report_failure(event: str, host: Any, payload: dict[str, Any], exc: BaseException) -> None:
    """Give the event's module a chance to leave evidence (e.g. a `skipped` verdict).
    `payload` may be what could be salvaged from input that did not parse."""
    module_name = AGENT_EVENTS[event].partition(":")[0]
    try:
        with deadline(5.0):
            parsed: HostEvent = host.parse(event, payload)
            module = _module(module_name)
            on_error = getattr(module, "on_internal_error", None)
            if on_error is not None:
                on_error(parsed, exc)
    except (Exception, HookDeadline) as report_exc:
        # Reporting a failure must not fail, but it must not vanish either.
        sys.stderr.write(
            f"reflection: could not record that the {event} check did not run "
            f"({type(report_exc).__name__}: {str(report_exc)[:200]})\n"
        )
