"""`reflection init`: set up a repository the way a user would by hand.

Plans every file change first (pure merges in merge.py), then either prints the
diffs (`--dry-run`) or writes them atomically. Re-running changes nothing.

The default git setup is three native hooks (`<hooks dir>/pre-commit`,
`pre-merge-commit` and `pre-push`) that run the guard registry with the absolute path of the
interpreter that ran `init`: they see every pushed ref (deletes and new
branches included), need nothing on PATH, and cost one process per commit. A hook
that was already there (the pre-commit framework's shim, a hook of your own) is
kept as `<type>.before-reflection` and run after ours with the same arguments
and stdin.
"""

from __future__ import annotations

import difflib
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from reflection_core.atomic import write_text_atomic
from reflection_core.guards import registry
from reflection_core.install import launcher, merge

NATIVE_HOOK_MARKER = "# reflection-native-hook"
OLD_NATIVE_MARKERS = ("# reflection-native-pre-push",)  # written by earlier versions
CHAINED_SUFFIX = ".before-reflection"


@dataclass(frozen=True)
class InitOptions:
    claude: bool = False
    codex: bool = False
    pre_commit: bool = False  # the pre-commit framework runs the commit-stage guards
    pre_push: bool = False  # a native pre-push hook only
    claude_md: bool = False
    dry_run: bool = False
    hosts: tuple[str, ...] = ()  # more agent hosts (install/hosts.py): gemini, opencode
    git_hooks: bool = False  # native pre-commit, pre-merge-commit and pre-push (the default)

    @property
    def nothing_selected(self) -> bool:
        return not (
            self.claude
            or self.codex
            or self.pre_commit
            or self.pre_push
            or self.claude_md
            or self.git_hooks
            or self.hosts
        )

    def with_defaults(self) -> InitOptions:
        if self.nothing_selected:
            return InitOptions(claude=True, git_hooks=True, dry_run=self.dry_run)
        return self

    def native_hook_types(self) -> tuple[str, ...]:
        """Native hooks to install: the push guard always goes native (it sees every ref),
        and so does the merge guard beside the framework (`pre-commit install` sets up
        only the commit stage)."""
        if self.git_hooks and not self.pre_commit:
            return ("pre-commit", "pre-merge-commit", "pre-push")
        if self.git_hooks or self.pre_commit:
            return ("pre-merge-commit", "pre-push")
        if self.pre_push:
            return ("pre-push",)
        return ()


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
    """This installation's CLI as an absolute, shell-quoted command (no PATH lookup).

    Hosts (an IDE's commit button, Claude Code, Codex) run hooks with their own PATH,
    which often lacks the virtualenv `reflection` was installed into.
    """
    script = Path(sys.executable).parent / "reflection"
    if script.is_file() and os.access(script, os.X_OK):
        return shlex.quote(str(script))
    return shlex.join([sys.executable, "-m", "reflection_core"])


def script_dir() -> Path:
    """Where this installation's console scripts live (next to its interpreter)."""
    return Path(sys.executable).parent


def enabled_claude_plugins(root: Path, home: Path) -> list[str]:
    """reflection plugins enabled in Claude Code settings (user, project, local)."""
    found = []
    for path in (
        home / ".claude" / "settings.json",
        root / ".claude" / "settings.json",
        root / ".claude" / "settings.local.json",
    ):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        plugins = data.get("enabledPlugins") if isinstance(data, dict) else None
        if isinstance(plugins, dict):
            found += [
                f"{name} ({path})"
                for name, on in plugins.items()
                if on and str(name).split("@")[0] == "reflection"
            ]
    return found


def prompt_protocol_snippet() -> str:
    return (
        resources.files("reflection_core.data")
        .joinpath("prompt_protocol.md")
        .read_text(encoding="utf-8")
    )


def plan_init(root: Path, options: InitOptions, home: Path | None = None) -> InitPlan:
    """Every change `init` would make to `root`, computed without writing anything.

    Plans exactly what `options` select (callers apply `with_defaults` first); the
    .gitignore entry is always planned.
    """
    plan = InitPlan(root=root)
    command = launcher.SHARED_COMMAND  # shared files name no one's path (install/launcher.py)
    _plan_file(plan, root / ".gitignore", merge.ensure_gitignore)
    if options.pre_commit:
        _plan_pre_commit_framework(plan, root)
    if options.claude:
        _plan_claude(plan, root, home or Path.home(), command)
    _plan_hosts(plan, root, options.hosts, command)
    if options.codex or options.hosts:
        _plan_launcher(plan)
    if options.codex:
        _plan_codex(plan, root, command)
    if options.claude_md:
        target = _memory_file(root, prefer_agents=options.codex and not options.claude)
        snippet = prompt_protocol_snippet()
        _plan_file(plan, target, lambda text: merge.append_snippet(text, snippet))
    if options.git_hooks and not options.pre_commit:
        _note_guards_in_framework(plan, root)
    for hook_type in options.native_hook_types():
        _plan_native_hook(plan, hook_type)
    lacking = _test_runner_missing(root) if options.native_hook_types() else None
    if lacking:
        plan.notes.append(f"commits need a passing test run, and {lacking}")
    _note_untrusted_commands(plan, root)
    return plan


def _plan_pre_commit_framework(plan: InitPlan, root: Path) -> None:
    """The commit-stage guards in .pre-commit-config.yaml, and `pre-commit install` to run."""
    stages = ("pre-commit",)
    _plan_file(
        plan,
        root / ".pre-commit-config.yaml",
        lambda text: merge.merge_pre_commit_config(text, launcher.FRAMEWORK_COMMAND, stages),
    )
    plan.run_pre_commit_install = True
    _plan_launcher(plan)


def _plan_claude(plan: InitPlan, root: Path, home: Path, command: str) -> None:
    """Claude Code's hook entries, unless the reflection plugin already runs them."""
    plugins = enabled_claude_plugins(root, home)
    if plugins:
        plan.notes.append(
            "Claude Code: the reflection plugin is enabled ("
            + "; ".join(plugins)
            + "), so its hooks already run; .claude/settings.json is left alone "
            "(both would run every hook twice)."
        )
        return
    entries = merge.claude_hook_entries(command)
    _plan_file(
        plan,
        root / ".claude" / "settings.json",
        lambda text: merge.merge_hook_settings(text, entries, ".claude/settings.json"),
    )
    _plan_personal_cleanup(plan, root / ".claude" / "settings.local.json")
    _plan_launcher(plan)


def _plan_codex(plan: InitPlan, root: Path, command: str) -> None:
    """Codex's .codex/hooks.json, and a note on what Codex itself still needs."""
    entries = merge.codex_hook_entries(command)
    _plan_file(
        plan,
        root / ".codex" / "hooks.json",
        lambda text: merge.merge_hook_settings(text, entries, ".codex/hooks.json"),
    )
    notify = json.dumps([*shlex.split(reflection_command()), "hook", "codex-notify"])
    plan.notes.append(
        "Codex: hooks need `[features] codex_hooks = true` in ~/.codex/config.toml on "
        "Codex versions that still gate them, and Codex runs a project's hooks only once "
        "you trust the project; `reflection doctor` checks both. For notifications add "
        f"`notify = {notify}` to ~/.codex/config.toml."
    )


def _note_guards_in_framework(plan: InitPlan, root: Path) -> None:
    """A note when .pre-commit-config.yaml runs guards the native hooks run too."""
    framework = _read(root / ".pre-commit-config.yaml") or ""
    doubled = [hook_id for hook_id in registry.hook_ids() if hook_id in framework]
    if doubled:
        plan.notes.append(
            ".pre-commit-config.yaml also runs "
            + ", ".join(doubled)
            + "; the native hooks run them already: remove them there (or use "
            "`reflection init --pre-commit` to keep the commit-stage guards in the framework)"
        )


def _note_untrusted_commands(plan: InitPlan, root: Path) -> None:
    """A note when the repository's config names commands that stay off until trusted."""
    untrusted = _untrusted_commands(root)
    if untrusted:
        plan.notes.append(
            f"this repository's config lists {len(untrusted)} command(s) hooks would run "
            f"(first: `{untrusted[0][:80]}`); they stay off until you review them with "
            "`reflection trust --show` and run `reflection trust`"
        )


def _plan_launcher(plan: InitPlan) -> None:
    """The shared launcher at the root and this clone's per-user record of the interpreter."""
    if any(change.path == plan.root / launcher.LAUNCHER for change in plan.changes):
        return

    def write_launcher(text: str | None) -> str:
        if text is not None and not launcher.is_ours(text):
            raise merge.MergeError(f"{launcher.LAUNCHER} exists and is not reflection's")
        return launcher.launcher_script()

    _plan_file(plan, plan.root / launcher.LAUNCHER, write_launcher, executable=True)
    record = launcher.record_path(plan.root)
    if record is None:
        plan.errors.append("cannot locate the git dir to record this installation")
        return
    _plan_file(plan, record, lambda _old: sys.executable + "\n")


def _plan_personal_cleanup(plan: InitPlan, path: Path) -> None:
    """Reflection entries in a personal settings file would run every hook twice: drop them."""
    old = _read(path)
    try:
        new = merge.remove_reflection_hooks(old, path.name)
    except merge.MergeError as exc:
        plan.errors.append(f"{exc}; left untouched")
        return
    if new is not None and new != old:
        plan.changes.append(FileChange(path, old, new))
        plan.notes.append(
            f"{_rel(path, plan.root)}: its reflection hooks were dropped "
            "(the shared settings run them through .reflection-hook)"
        )


def _test_runner_missing(root: Path) -> str | None:
    """What the project's test command lacks here (pytest, npm, ...), for a note."""
    from reflection_core import config
    from reflection_core.guards import runner_ready
    from reflection_core.project import repo_signals

    try:
        return runner_ready.missing(repo_signals(root, config.load(root)).test_command)
    except config.ConfigError:
        return None


def _untrusted_commands(root: Path) -> list[str]:
    """Commands the repository's own config lists and the user has not trusted yet.

    `init` never trusts them itself: a cloned repo's config is someone else's code."""
    from reflection_core import config, trust

    try:
        cfg = config.load(root)
    except config.ConfigError:
        return []  # `init` reports a broken config on its own
    return [] if trust.is_trusted(root, cfg) else trust.repo_commands(cfg)


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


def hooks_path_beyond_the_repository(root: Path) -> str | None:
    """Why the hooks must not go where git looks for them: a `core.hooksPath` from the
    user's or the system's config names a directory every repository uses, and hooks
    written there would guard them all. None when this repository's own config (or no
    config) chose the hooks directory."""
    out = subprocess.run(
        ["git", "config", "--show-scope", "--get", "core.hooksPath"],
        cwd=root,
        capture_output=True,
        text=True,
    ).stdout.strip()
    scope, _, value = out.partition("\t")
    if not value or scope in ("local", "worktree"):
        return None
    if not os.path.isabs(os.path.expanduser(value)):
        return None  # relative: each repository's own directory
    return (
        f"core.hooksPath is set in your {scope} git config to {value}, which every "
        "repository of yours uses: reflection's git hooks are not installed there, since "
        "they would guard all of them. Give this repository its own hooks directory "
        "(the hooks in that directory then stop running here), then run init again: "
        "git config core.hooksPath .git/hooks && reflection init"
    )


def shared_with_the_repository(root: Path, path: Path) -> bool:
    """A hook file git would track: inside the work tree (`core.hooksPath = .githooks`)
    and not ignored (husky keeps its `.husky/_` ignored)."""
    try:
        relative = path.resolve().relative_to(root.resolve())
    except (OSError, ValueError):
        return False
    if relative.parts[:1] == (".git",):
        return False
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "--no-index", "--", relative.as_posix()],
        cwd=root,
        capture_output=True,
    )
    return ignored.returncode != 0


def is_native_hook(text: str | None) -> bool:
    return text is not None and any(
        marker in text for marker in (NATIVE_HOOK_MARKER, *OLD_NATIVE_MARKERS)
    )


# What a hook type guards, as `git <verb> --no-verify` names it.
HOOK_VERBS = {"pre-commit": "commit", "pre-merge-commit": "merge", "pre-push": "push"}


def native_hook_script(hook_type: str, python: str | None = None, *, shared: bool = False) -> str:
    """A git hook that runs reflection's `hook_type` guards with an absolute interpreter path.

    If the interpreter is gone (a deleted virtualenv) the hook refuses and says how to
    repair or bypass: the protected-branch check must not silently stop running. `shared`:
    the hooks directory is part of the repository (`core.hooksPath = .githooks`), so the
    hook names nobody's paths and runs through the shared launcher, which refuses the
    same way when it finds no reflection.
    """
    if shared:
        return f"""#!/bin/sh
{NATIVE_HOOK_MARKER} ({hook_type})
# Installed by `reflection init` in a hooks directory this repository shares: it names
# nobody's paths. It runs reflection's {hook_type} guards through the shared launcher
# (.reflection-hook, which refuses when reflection is not installed), then the hook
# that was here before, kept as {hook_type}{CHAINED_SUFFIX}.
exec sh "$(git rev-parse --show-toplevel)/{launcher.LAUNCHER}" hook {hook_type} "$@"
"""
    interpreter = shlex.quote(python or sys.executable)
    verb = HOOK_VERBS.get(hook_type, "commit")
    return f"""#!/bin/sh
{NATIVE_HOOK_MARKER} ({hook_type})
# Installed by `reflection init`: runs reflection's {hook_type} guards (see the guard
# registry), then the hook that was here before, kept as {hook_type}{CHAINED_SUFFIX}.
PYTHON={interpreter}
if [ ! -x "$PYTHON" ]; then
    echo "reflection: $PYTHON is missing, so the {hook_type} guards cannot run; refusing." >&2
    echo "  Re-run 'reflection init' from the environment reflection is installed in," >&2
    echo "  or skip every check once with 'git {verb} --no-verify'." >&2
    exit 1
fi
exec "$PYTHON" -c "import sys
try:
    from reflection_core.entry import main
except ModuleNotFoundError as missing:
    if missing.name != 'reflection_core':
        raise
    sys.exit('reflection: reflection is not installed in ' + sys.executable + ', so the '
             '{hook_type} guards cannot run; refusing.\\n  Re-run \\'reflection init\\' from the '
             'environment reflection is installed in, or skip every check once with '
             '\\'git {verb} --no-verify\\'.')
sys.exit(main())" hook {hook_type} "$@"
"""


def _plan_native_hook(plan: InitPlan, hook_type: str) -> None:
    try:
        directory = hooks_dir(plan.root)
    except (OSError, subprocess.CalledProcessError) as exc:
        plan.errors.append(f"cannot locate the git hooks dir: {exc}")
        return
    target = directory / hook_type
    beyond = hooks_path_beyond_the_repository(plan.root)
    if beyond:
        plan.errors.append(beyond)
        return
    existing = _read(target)
    shared = shared_with_the_repository(plan.root, target)
    script = native_hook_script(hook_type, shared=shared)
    if shared:
        _plan_launcher(plan)
        plan.notes.append(
            f"{_rel(target, plan.root)} is in the repository (core.hooksPath), so it runs "
            f"through {launcher.LAUNCHER} and names nobody's paths: commit both"
        )
    if existing is not None and not is_native_hook(existing):
        chained = directory / f"{hook_type}{CHAINED_SUFFIX}"
        if chained.exists():
            plan.errors.append(
                f"{target} is not reflection's and {chained.name} already exists; "
                "merge them by hand"
            )
            return
        plan.moves.append((target, chained))
        plan.notes.append(f"existing {hook_type} hook kept as {chained.name} and run after ours")
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


def pre_commit_executable() -> str | None:
    """The pre-commit installed with reflection (same environment), else one on PATH."""
    beside = script_dir() / "pre-commit"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("pre-commit")


def install_pre_commit_hooks(root: Path) -> tuple[bool, str]:
    """Run `pre-commit install` for the commit stage; (succeeded, output or the fix).

    The push stage is reflection's native pre-push hook, which chains the framework's
    pre-push shim when the framework installed one before.
    """
    exe = pre_commit_executable()
    if exe is None:
        return False, (
            "pre-commit is not installed, so the commit-stage hooks were not installed. "
            f"Fix: {shlex.quote(sys.executable)} -m pip install pre-commit && "
            "reflection init --pre-commit"
        )
    proc = subprocess.run(
        [exe, "install", "--hook-type", "pre-commit"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    text = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        fix = ""
        if "core.hooksPath" in text:
            fix = " Fix: git config --unset-all core.hooksPath, then reflection init --pre-commit"
        return False, f"`pre-commit install` failed ({proc.returncode}): {text}.{fix}"
    return True, text


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
