"""The repository and configuration a git guard runs against, and its deadline."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from reflection_core import config, paths
from reflection_core.hookio import (
    DEFAULT_DEADLINE_S,
    HookDeadline,
    deadline,
    env_deadline_seconds,
)


def repo_and_config() -> tuple[Path, config.Config] | int:
    """(root, config) for the current repo, or the exit code to return right away.

    Outside a repository there is nothing to check (0); a bad config file is a
    usage error (2) whose message names the file and the key.
    """
    root = paths.find_repo_root()
    if root is None:
        sys.stderr.write("reflection: not inside a git repository; nothing to check.\n")
        return 0
    try:
        return root, commit_config(root)
    except config.ConfigError as exc:
        sys.stderr.write(f"reflection: configuration error: {exc}\n")
        return 2


def commit_config(root: Path) -> config.Config:
    """The config a commit is checked against: the one being committed. When the working
    `.reflection.yaml` or `[tool.reflection]` differs from the staged one (an unstaged
    edit, an untracked or git-ignored file), the staged version governs, and the guard
    says so: an edit nobody commits cannot switch a guard off."""
    working = config.load(root)
    staged = _staged_config(root)
    if working.source is None and staged is None:
        return working
    if (
        working.source is not None
        and staged is not None
        and staged[0] == working.source.name
        and config.read_config_bytes(working.source) == staged[1]
    ):
        return working
    what = (
        f"{working.source.name} differs from the staged one"
        if working.source
        else "a config is staged but the working tree has none"
    )
    sys.stderr.write(f"reflection: note: {what}; checking the commit against the staged config.\n")
    if staged is None:
        return config.Config(root=root)
    return config.load_bytes(root / staged[0], staged[1], root)


def _staged_config(root: Path) -> tuple[str, bytes] | None:
    """(file name, bytes) of the config in the index git commits from (GIT_INDEX_FILE in
    hooks): `.reflection.yaml`, else a pyproject.toml with [tool.reflection]."""
    from reflection_core.guards import gitcmd

    names = (config.CONFIG_FILENAME, config.PYPROJECT)
    listed = gitcmd.run(root, ["ls-files", "-z", "--", *(f":(literal){n}" for n in names)])
    for name in (n for n in names if n in listed.split("\0")):
        raw = gitcmd.run(root, ["cat-file", "blob", f":{name}"]).encode("utf-8", "surrogateescape")
        if name == config.CONFIG_FILENAME or b"[tool.reflection" in raw:
            return name, raw
    return None


def deadline_seconds(root: Path | None) -> float:
    """`REFLECTION_HOOK_DEADLINE` (seconds; 0 turns it off), else `hooks.deadline_seconds`
    of the repo's config, else the default (the config is read under that default)."""
    from_env = env_deadline_seconds()
    if from_env is not None:
        return from_env
    if root is None:
        return DEFAULT_DEADLINE_S
    try:
        with deadline(DEFAULT_DEADLINE_S):
            return float(config.load(root).get("hooks.deadline_seconds"))
    except (Exception, HookDeadline):
        return DEFAULT_DEADLINE_S  # a config problem is reported by the guard itself


def within_deadline(check: Callable[[], int], refused: str) -> int:
    """Run a git guard's own checks under the hook deadline. When it passes, the guard
    refuses (`refused`: "commit" or "push") and says why: a guard fails closed."""
    try:
        with deadline(deadline_seconds(paths.find_repo_root())):
            return check()
    except HookDeadline as exc:
        sys.stderr.write(f"reflection: {exc}; refusing the {refused} (fails closed).\n")
        return 1
