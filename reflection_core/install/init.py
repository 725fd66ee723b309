"""`reflection init`: set up a repository the way a user would by hand.

Plans every file change first (pure merges in merge.py), then either prints the
diffs (`--dry-run`) or writes them atomically. Re-running changes nothing.
"""

from __future__ import annotations

import difflib
import os
import shutil
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from reflection_core.atomic import write_text_atomic
from reflection_core.install import merge

NATIVE_HOOK_MARKER = "# reflection-native-pre-push"
CHAINED_SUFFIX = ".before-reflection"


@dataclass(frozen=True)
class InitOptions:
    claude: bool = False
    codex: bool = False
    pre_commit: bool = False
    pre_push: bool = False
    claude_md: bool = False
    dry_run: bool = False
    hosts: tuple[str, ...] = ()  # more agent hosts (install/hosts.py): gemini, opencode

    @property
    def nothing_selected(self) -> bool:
        return not (
            self.claude
            or self.codex
            or self.pre_commit
            or self.pre_push
            or self.claude_md
            or self.hosts
        )


@dataclass
class FileChange:
    path: Path
    old: str | None
    new: str
    executable: bool = False

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def diff(self, root: Path) -> str:
        rel = (
            self.path.relative_to(root).as_posix()
            if self.path.is_relative_to(root)
            else str(self.path)
        )
        return "".join(
            difflib.unified_diff(
                (self.old or "").splitlines(keepends=True),
                self.new.splitlines(keepends=True),
                fromfile=f"a/{rel}" if self.old is not None else "/dev/null",
                tofile=f"b/{rel}",
            )
        )


@dataclass
class InitPlan:
    root: Path
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    moves: list[tuple[Path, Path]] = field(default_factory=list)  # (existing hook, chained name)
    run_pre_commit_install: bool = False


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _plan_file(
    plan: InitPlan, path: Path, merge_fn: Callable[[str | None], str], executable: bool = False
) -> None:
    old = _read(path)
    try:
        new = merge_fn(old)
    except merge.MergeError as exc:
        plan.errors.append(f"{exc}; left untouched")
        return
    plan.changes.append(FileChange(path, old, new, executable))


def reflection_command() -> str:
    """`reflection` when it is on PATH, else the absolute path of this installation's script."""
    if shutil.which("reflection"):
        return "reflection"
    import sys

    candidate = Path(sys.executable).with_name("reflection")
    return str(candidate) if candidate.exists() else "reflection"


def prompt_protocol_snippet() -> str:
    return (
        resources.files("reflection_core.data")
        .joinpath("prompt_protocol.md")
        .read_text(encoding="utf-8")
    )


def plan_init(root: Path, options: InitOptions) -> InitPlan:
    """Every change `init` would make to `root`, computed without writing anything."""
    if options.nothing_selected:
        options = InitOptions(claude=True, pre_commit=True, dry_run=options.dry_run)
    plan = InitPlan(root=root)
    command = reflection_command()
    _plan_file(plan, root / ".gitignore", merge.ensure_gitignore)
    if options.pre_commit:
        _plan_file(plan, root / ".pre-commit-config.yaml", merge.merge_pre_commit_config)
        plan.run_pre_commit_install = True
    if options.claude:
        entries = merge.claude_hook_entries(command)
        _plan_file(
            plan,
            root / ".claude" / "settings.json",
            lambda text: merge.merge_hook_settings(text, entries, ".claude/settings.json"),
        )
    _plan_hosts(plan, root, options.hosts, command)
    if options.codex:
        entries = merge.codex_hook_entries(command)
        _plan_file(
            plan,
            root / ".codex" / "hooks.json",
            lambda text: merge.merge_hook_settings(text, entries, ".codex/hooks.json"),
        )
        plan.notes.append(
            'Codex: add `notify = ["reflection", "hook", "codex-notify"]` to '
            "~/.codex/config.toml for notifications, and trust this project in Codex "
            "(untrusted project hooks are skipped silently)."
        )
    if options.claude_md:
        target = _memory_file(root, prefer_agents=options.codex and not options.claude)
        snippet = prompt_protocol_snippet()
        _plan_file(plan, target, lambda text: merge.append_snippet(text, snippet))
    if options.pre_push:
        _plan_native_pre_push(plan, command)
    return plan


def _plan_hosts(plan: InitPlan, root: Path, names: tuple[str, ...], command: str) -> None:
    from reflection_core.install.hosts import HOST_INSTALLS

    for name in names:
        install = HOST_INSTALLS[name]
        for rel, merge_fn in install.files(command):
            _plan_file(plan, root / rel, merge_fn)
        plan.notes.extend(install.notes)


def _memory_file(root: Path, prefer_agents: bool) -> Path:
    claude_md, agents_md = root / "CLAUDE.md", root / "AGENTS.md"
    if prefer_agents or (agents_md.exists() and not claude_md.exists()):
        return agents_md
    return claude_md


def hooks_dir(root: Path) -> Path:
    """Where git looks for hooks (respects core.hooksPath)."""
    out = subprocess.run(
        ["git", "rev-parse", "--git-path", "hooks"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    path = Path(out)
    return path if path.is_absolute() else (root / path)


def native_pre_push_script(command: str) -> str:
    """A git pre-push hook that checks every pushed ref, then runs a chained older hook."""
    return f"""#!/bin/sh
{NATIVE_HOOK_MARKER}
# Installed by `reflection init --pre-push`. Checks every ref of the push (the
# pre-commit framework only shows hooks the first one). Fails closed.
REFLECTION="${{REFLECTION:-{command}}}"
if ! command -v "$REFLECTION" >/dev/null 2>&1; then
    echo "reflection: '$REFLECTION' not found; refusing the push because the" >&2
    echo "protected-branch check cannot run. Install reflection-hooks, or bypass" >&2
    echo "once with 'git push --no-verify'." >&2
    exit 1
fi
input=$(cat)
printf '%s\\n' "$input" | "$REFLECTION" hook pre-push "$@" || exit $?
chained="$(dirname "$0")/pre-push{CHAINED_SUFFIX}"
if [ -x "$chained" ]; then
    printf '%s\\n' "$input" | "$chained" "$@" || exit $?
fi
exit 0
"""


def _plan_native_pre_push(plan: InitPlan, command: str) -> None:
    try:
        directory = hooks_dir(plan.root)
    except (OSError, subprocess.CalledProcessError) as exc:
        plan.errors.append(f"cannot locate the git hooks dir: {exc}")
        return
    target = directory / "pre-push"
    existing = _read(target)
    script = native_pre_push_script(command)
    if existing is not None and NATIVE_HOOK_MARKER not in existing:
        chained = directory / f"pre-push{CHAINED_SUFFIX}"
        if chained.exists():
            plan.errors.append(
                f"{target} is not reflection's and {chained.name} already exists; "
                "merge them by hand"
            )
            return
        plan.moves.append((target, chained))
        plan.notes.append(f"existing pre-push hook kept as {chained.name} and run after ours")
        existing = None
    plan.changes.append(FileChange(target, existing, script, executable=True))


def apply_plan(plan: InitPlan) -> list[str]:
    """Write the planned changes; returns one line per file touched."""
    done: list[str] = []
    for source, destination in plan.moves:
        os.replace(source, destination)
        done.append(f"moved {source.name} -> {destination.name}")
    for change in plan.changes:
        if not change.changed:
            continue
        write_text_atomic(change.path, change.new)
        if change.executable:
            mode = change.path.stat().st_mode
            change.path.chmod(mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        verb = "created" if change.old is None else "updated"
        done.append(f"{verb} {_rel(change.path, plan.root)}")
    return done


def native_pre_push_installed(root: Path) -> bool:
    try:
        text = _read(hooks_dir(root) / "pre-push")
    except (OSError, subprocess.CalledProcessError):
        return False
    return text is not None and NATIVE_HOOK_MARKER in text


def install_pre_commit_hooks(root: Path) -> str:
    """Run `pre-commit install` for both hook types, as the README tells users to.

    When reflection's native pre-push hook is installed it already chains the
    framework's pre-push hook, so only the pre-commit type is (re)installed.
    """
    exe = shutil.which("pre-commit")
    if exe is None:
        return (
            "pre-commit is not installed: run `pip install pre-commit` then "
            "`pre-commit install --hook-type pre-commit --hook-type pre-push`"
        )
    hook_types = ["--hook-type", "pre-commit"]
    if not native_pre_push_installed(root):
        hook_types += ["--hook-type", "pre-push"]
    proc = subprocess.run(
        [exe, "install", *hook_types],
        cwd=root,
        capture_output=True,
        text=True,
    )
    text = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        return f"`pre-commit install` failed ({proc.returncode}): {text}"
    return text


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
