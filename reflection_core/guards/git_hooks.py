"""Native git hooks: `reflection hook pre-commit`, `pre-merge-commit` and `pre-push`.

`reflection init` installs `<hooks dir>/pre-commit`, `pre-merge-commit` and `pre-push`
scripts that run these with the absolute path of the installing interpreter.
They run the registry's guards for the hook type, in table order, then the hook
that was there before (`<type>.before-reflection`, e.g. the pre-commit
framework's shim) with the same arguments and the exact same stdin bytes.

Unlike the pre-commit framework, a native pre-push hook sees every pushed ref
(deletes included), so every ref is checked against the protected branches and
every pushed commit needs test evidence. The pre-push side fails CLOSED.
`SKIP=<guard id>,...` skips guards as it does under the framework (said aloud).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from reflection_core import config, paths
from reflection_core.guards import registry
from reflection_core.guards.branches import HEADS, PushedRef, PushParseError, parse_push_lines
from reflection_core.guards.hookenv import (
    commit_config,
    config_refusal,
    push_config,
    within_deadline,
)
from reflection_core.guards.registry import PushContext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from reflection_core.consumers.verdict_notes import PushedTip

CHAINED_SUFFIX = ".before-reflection"


def skipped_ids(env: dict[str, str] | os._Environ[str]) -> set[str]:
    return {part.strip() for part in env.get("SKIP", "").split(",") if part.strip()}


def run_guards(hook_type: str, root: Path, cfg: config.Config, push: PushContext | None) -> int:
    """Run the registry's guards for `hook_type`; the first refusal's status, else 0."""
    skip = skipped_ids(os.environ)
    for guard in registry.for_hook(hook_type):
        if guard.id in skip:
            sys.stderr.write(f"reflection: {guard.id} skipped (SKIP={os.environ['SKIP']}).\n")
            continue
        status = guard.native()(root, cfg, push)
        if status:
            return status
    return 0


def hooks_dir(root: Path) -> Path:
    """Where git looks for hooks here (respects core.hooksPath)."""
    from reflection_core.guards import gitcmd

    out = gitcmd.run(root, ["rev-parse", "--git-path", "hooks"]).strip()
    path = Path(out)
    return path if path.is_absolute() else root / path


def run_chained(root: Path, hook_type: str, argv: Sequence[str], stdin: bytes) -> int:
    """The hook that was installed before ours, if any, with git's arguments and stdin."""
    try:
        chained = hooks_dir(root) / f"{hook_type}{CHAINED_SUFFIX}"
    except RuntimeError:
        return 0
    if not (chained.is_file() and os.access(chained, os.X_OK)):
        return 0
    try:
        return subprocess.run([str(chained), *argv], input=stdin, cwd=root).returncode
    except OSError as exc:
        sys.stderr.write(f"reflection: cannot run the chained hook {chained}: {exc}\n")
        return 1


def pre_commit_main(argv: Sequence[str] | None = None) -> int:
    """No commits on a protected branch; the staged tree needs a passing test run."""
    return _staged_hook("pre-commit", "commit", argv)


def pre_merge_commit_main(argv: Sequence[str] | None = None) -> int:
    """No merge commits on a protected branch (git runs no pre-commit hook for them)."""
    return _staged_hook("pre-merge-commit", "merge", argv)


def _staged_hook(hook_type: str, verb: str, argv: Sequence[str] | None) -> int:
    """A hook checked against the config being committed: its guards, then the chained
    hook; `verb` is what a refusal refuses."""
    args = list(argv or [])
    root = paths.find_repo_root()
    if root is None:
        return 0
    status = within_deadline(lambda: _staged_guards(root, hook_type, verb), verb)
    return status or run_chained(root, hook_type, args, b"")


def _staged_guards(root: Path, hook_type: str, verb: str) -> int:
    try:
        cfg = commit_config(root)
    except config.ConfigError as exc:
        sys.stderr.write(config_refusal(exc, verb) + "\n")
        return 2
    return run_guards(hook_type, root, cfg, None)


def fail_closed(message: str) -> int:
    sys.stderr.write(f"reflection: {message}\nreflection: refusing the push (fails closed).\n")
    return 1


def pre_push_main(argv: Sequence[str] | None = None) -> int:
    """Every ref against protected_branches, test evidence for every pushed commit, then chain."""
    args = list(argv or [])
    remote = args[0] if args else "origin"
    stdin = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    root = paths.find_repo_root()
    if root is None:
        return fail_closed("not inside a git repository")
    status = within_deadline(lambda: _pre_push_guards(root, remote, stdin), "push")
    if status:
        return status
    chained = run_chained(root, "pre-push", args, stdin)
    if chained == 0:
        _attach_verdicts(root, remote, stdin)
    return chained


def _attach_verdicts(root: Path, remote: str, stdin: bytes) -> None:
    """The verdict travels with the push, for CI (a git note on each pushed branch tip
    whose work a verdict is about)."""
    from reflection_core.consumers.verdict_notes import attach_and_push
    from reflection_core.guards import gitcmd

    try:
        refs = parse_push_lines(stdin.decode("utf-8", errors="surrogateescape"))
    except PushParseError:
        return
    current = None
    if any(r.local_ref == "HEAD" for r in refs):
        current = gitcmd.current_branch(root)
    attach_and_push(root, remote, pushed_tips(refs, current))


def pushed_tips(refs: Sequence[PushedRef], current: str | None) -> list[PushedTip]:
    """Each pushed branch tip with the names its work goes by: the remote branch, the
    local branch pushed (`current`, the checked-out branch, when git says `HEAD`)."""
    from reflection_core.consumers.verdict_notes import PushedTip

    tips = []
    for ref in refs:
        if ref.is_delete or ref.branch is None:
            continue
        local = current if ref.local_ref == "HEAD" else None
        if ref.local_ref.startswith(HEADS):
            local = ref.local_ref[len(HEADS) :]
        names = {ref.branch} | ({local} if local else set())
        tips.append(PushedTip(ref.local_sha, frozenset(names)))
    return tips


def _pre_push_guards(root: Path, remote: str, stdin: bytes) -> int:
    try:
        refs = parse_push_lines(stdin.decode("utf-8", errors="surrogateescape"))
    except PushParseError as exc:
        return fail_closed(str(exc))
    try:
        cfg = push_config(root, [r.remote_sha for r in refs if not r.is_new and not r.is_notes])
    except config.ConfigError as exc:
        sys.stderr.write(config_refusal(exc, "push") + "\n")
        return 1
    try:
        return run_guards("pre-push", root, cfg, PushContext(remote, refs))
    except Exception as exc:  # fail closed on our own bugs too
        return fail_closed(f"internal error in the push guards: {type(exc).__name__}: {exc}")
