"""`reflection hook EVENT` (normally served by the fast path in entry.py)."""

from __future__ import annotations

import click

from reflection_core.hook_dispatch import EVENTS


@click.command(
    "hook",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.argument("event", type=click.Choice(EVENTS))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def command(event: str, args: tuple[str, ...]) -> int:
    """Run a host hook: JSON on stdin, host JSON/exit code out.

    EVENT is an agent event (the host is named by `--host NAME`: claude, codex,
    gemini, opencode; without it, Claude Code or Codex) or a git hook name.
    """
    from reflection_core.hook_dispatch import run_hook

    return run_hook(event, args)
