"""`reflection init`: idempotent, merging, never clobbering set-up of a repository."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from reflection_core import paths

if TYPE_CHECKING:
    from reflection_core.install.init import InitOptions, InitPlan


@click.command("init")
@click.option("--claude", is_flag=True, help="Merge hook entries into .claude/settings.json.")
@click.option("--codex", is_flag=True, help="Write .codex/hooks.json (Claude-compatible hooks).")
@click.option("--gemini", is_flag=True, help="Merge hook entries into .gemini/settings.json.")
@click.option("--opencode", is_flag=True, help="Write the plugin .opencode/plugins/reflection.js.")
@click.option(
    "--git-hooks",
    "git_hooks",
    is_flag=True,
    help="Native pre-commit, pre-merge-commit and pre-push hooks running the git guards "
    "(the default).",
)
@click.option(
    "--pre-commit",
    "pre_commit",
    is_flag=True,
    help="Run the commit-stage guards through the pre-commit framework instead "
    "(.pre-commit-config.yaml + `pre-commit install`); the merge and push guards stay "
    "native hooks.",
)
@click.option(
    "--pre-push",
    "pre_push",
    is_flag=True,
    help="Install only the native pre-push hook (checks every pushed ref).",
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
    git_hooks: bool,
    pre_commit: bool,
    pre_push: bool,
    claude_md: bool,
    dry_run: bool,
) -> int:
    """Set up this repo. With no flags: --claude --git-hooks.

    Always adds .reflection/ to .gitignore. Re-running changes nothing. Exit 2 when
    an existing file is malformed (reported, left untouched); exit 1 when something
    promised could not be installed (the message says how to fix it).
    """
    from reflection_core.install.init import InitOptions, plan_init

    root = paths.find_repo_root()
    if root is None:
        click.echo("reflection init: not inside a git repository (run `git init` first).", err=True)
        return 2
    hosts = tuple(name for name, chosen in (("gemini", gemini), ("opencode", opencode)) if chosen)
    options = InitOptions(
        claude=claude,
        codex=codex,
        pre_commit=pre_commit,
        pre_push=pre_push,
        claude_md=claude_md,
        dry_run=dry_run,
        git_hooks=git_hooks,
        hosts=hosts,
    ).with_defaults()
    # Native hooks are planned after `pre-commit install` so they chain the framework's shim.
    files_only = replace(options, git_hooks=False, pre_push=False)
    plan = plan_init(root, files_only)
    hooks_options = InitOptions(
        git_hooks=options.git_hooks,
        pre_commit=options.pre_commit,
        pre_push=options.pre_push,
        dry_run=dry_run,
    )
    for error in plan.errors:
        click.echo(f"reflection init: {error}", err=True)
    if dry_run:
        return _dry_run(root, plan, options, hooks_options)
    return _set_up(root, plan, options, hooks_options)


def _dry_run(root: Path, plan: InitPlan, options: InitOptions, hooks_options: InitOptions) -> int:
    """Print what init would change, git hooks included; 2 when a file is malformed."""
    from reflection_core.install.init import plan_init

    errors = list(plan.errors)
    _print_dry_run(plan, root)
    if options.native_hook_types():
        hook_plan = plan_init(root, hooks_options)
        _print_dry_run(hook_plan, root, gitignore=False)
        errors += hook_plan.errors
    return 2 if errors else 0


def _set_up(root: Path, plan: InitPlan, options: InitOptions, hooks_options: InitOptions) -> int:
    """Write the planned files, run `pre-commit install`, then install the native hooks."""
    from reflection_core.install.init import apply_plan, plan_init

    for line in apply_plan(plan):
        click.echo(f"  {line}")
    changed = any(change.changed for change in plan.changes)
    errors = list(plan.errors)
    notes = list(plan.notes)
    if plan.run_pre_commit_install and not plan.errors and not _run_pre_commit_install(root):
        return 1
    if options.native_hook_types():
        hook_plan = plan_init(root, hooks_options)
        for error in hook_plan.errors:
            click.echo(f"reflection init: {error}", err=True)
        if not _apply_hook_plan(hook_plan):
            return 1
        changed = changed or any(change.changed for change in hook_plan.changes)
        errors += hook_plan.errors
        notes += [n for n in hook_plan.notes if n not in notes]
    for note in notes:
        click.echo(f"  note: {note}")
    if errors:
        return 2
    if not changed:
        click.echo("reflection init: already set up; nothing changed.")
    return 0


def _run_pre_commit_install(root: Path) -> bool:
    """`pre-commit install`, its output echoed; False (said on stderr) when it failed."""
    from reflection_core.install.init import install_pre_commit_hooks

    ok, output = install_pre_commit_hooks(root)
    if not ok:
        click.echo(f"reflection init: {output}", err=True)
        return False
    for line in output.splitlines():
        click.echo(f"  {line}")
    return True


def _apply_hook_plan(hook_plan: InitPlan) -> bool:
    """Install the native git hooks; False (said loudly: main is unprotected) when it failed."""
    from reflection_core.install.init import apply_plan

    try:
        done = apply_plan(hook_plan)
    except OSError as exc:
        click.echo(
            f"reflection init: could not install the git hooks ({exc}); "
            "main is NOT protected in this clone. Fix the hooks directory's permissions, "
            "then re-run `reflection init`.",
            err=True,
        )
        return False
    for line in done:
        click.echo(f"  {line}")
    return True


def _print_dry_run(plan: InitPlan, root: Path, gitignore: bool = True) -> None:
    for change in plan.changes:
        if not gitignore and change.path.name == ".gitignore":
            continue
        if change.changed:
            click.echo(change.diff(root), nl=False)
    for source, destination in plan.moves:
        click.echo(f"would move {source.name} -> {destination.name}")
    if plan.run_pre_commit_install:
        click.echo("would run: pre-commit install --hook-type pre-commit")
    for note in plan.notes:
        click.echo(f"note: {note}")
