"""`reflection init`: idempotent, merging, never clobbering set-up of a repository."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from reflection_core import paths

if TYPE_CHECKING:
    from reflection_core.install.init import InitPlan


@click.command("init")
@click.option("--claude", is_flag=True, help="Merge hook entries into .claude/settings.json.")
@click.option("--codex", is_flag=True, help="Write .codex/hooks.json (Claude-compatible hooks).")
@click.option("--gemini", is_flag=True, help="Merge hook entries into .gemini/settings.json.")
@click.option("--opencode", is_flag=True, help="Write the plugin .opencode/plugins/reflection.js.")
@click.option(
    "--pre-commit",
    "pre_commit",
    is_flag=True,
    help="Add hooks to .pre-commit-config.yaml and run `pre-commit install`.",
)
@click.option(
    "--pre-push",
    "pre_push",
    is_flag=True,
    help="Install a native .git/hooks/pre-push that checks every pushed ref.",
)
@click.option(
    "--claude-md",
    "claude_md",
    is_flag=True,
    help="Append the prompt protocol to CLAUDE.md (or AGENTS.md) once.",
)
@click.option("--dry-run", is_flag=True, help="Print the diffs; change nothing.")
def command(
    claude: bool,
    codex: bool,
    gemini: bool,
    opencode: bool,
    pre_commit: bool,
    pre_push: bool,
    claude_md: bool,
    dry_run: bool,
) -> int:
    """Set up this repo. With no flags: --claude --pre-commit.

    Always adds .reflection/ to .gitignore. Re-running changes nothing; a malformed
    existing file is reported and left untouched (exit 2).
    """
    from reflection_core.install.init import (
        InitOptions,
        apply_plan,
        install_pre_commit_hooks,
        plan_init,
    )

    root = paths.find_repo_root()
    if root is None:
        click.echo("reflection init: not inside a git repository (run `git init` first).", err=True)
        return 2
    hosts = tuple(name for name, chosen in (("gemini", gemini), ("opencode", opencode)) if chosen)
    options = InitOptions(claude, codex, pre_commit, pre_push, claude_md, dry_run, hosts)
    if options.nothing_selected:
        options = InitOptions(claude=True, pre_commit=True, dry_run=dry_run)
    # The native pre-push hook is planned after `pre-commit install` so it chains pre-commit's.
    plan = plan_init(root, replace(options, pre_push=False))
    for error in plan.errors:
        click.echo(f"reflection init: {error}", err=True)
    if dry_run:
        _print_dry_run(plan, root)
        if options.pre_push:
            _print_dry_run(
                plan_init(root, InitOptions(pre_push=True, dry_run=True)), root, gitignore=False
            )
        return 2 if plan.errors else 0
    for line in apply_plan(plan):
        click.echo(f"  {line}")
    if plan.run_pre_commit_install and not plan.errors:
        for line in install_pre_commit_hooks(root).splitlines():
            click.echo(f"  {line}")
    if options.pre_push:
        hook_plan = plan_init(root, InitOptions(pre_push=True))
        for error in hook_plan.errors:
            click.echo(f"reflection init: {error}", err=True)
        for line in apply_plan(hook_plan):
            click.echo(f"  {line}")
        plan.errors += hook_plan.errors
        plan.notes += hook_plan.notes
    for note in plan.notes:
        click.echo(f"  note: {note}")
    if plan.errors:
        return 2
    if not any(change.changed for change in plan.changes):
        click.echo("reflection init: already set up; nothing changed.")
    return 0


def _print_dry_run(plan: InitPlan, root: Path, gitignore: bool = True) -> None:
    for change in plan.changes:
        if not gitignore and change.path.name == ".gitignore":
            continue
        if change.changed:
            click.echo(change.diff(root), nl=False)
    for source, destination in plan.moves:
        click.echo(f"would move {source.name} -> {destination.name}")
    if plan.run_pre_commit_install:
        click.echo("would run: pre-commit install --hook-type pre-commit --hook-type pre-push")
    for note in plan.notes:
        click.echo(f"note: {note}")
