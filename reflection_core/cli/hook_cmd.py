"""`reflection hook EVENT [--host NAME]` (normally served by the fast path in entry.py)."""

from __future__ import annotations

import click

from reflection_core.hook_dispatch import EVENTS
from reflection_core.hosts import HOSTS


@click.command(
    "hook",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.argument("event", type=click.Choice(EVENTS))
@click.option(
    "--host",
    metavar="NAME",
    type=click.Choice(tuple(HOSTS)),
    default=None,
    help="The agent host speaking: claude, codex, gemini, opencode "
    "(default: Claude Code or Codex, told apart by the payload).",
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def command(event: str, host: str | None, args: tuple[str, ...]) -> int:
    """Run a host hook: JSON on stdin, host JSON/exit code out.

    EVENT is an agent event (user-prompt-submit, stop, subagent-stop, stop-failure,
    session-start, session-end, post-tool-use) or a git hook name (pre-commit,
    pre-merge-commit, pre-push; codex-notify for Codex's legacy notifier). `--help` only
    prints this.
    """
    from reflection_core.hook_dispatch import run_hook

    return run_hook(event, (*args, "--host", host) if host else args)
