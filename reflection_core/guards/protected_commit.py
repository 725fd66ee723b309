"""Console script `reflection-protected-commit`: refuse commits while a protected branch is out.

Unlike a silent exit 1, the refusal names the branch, the rule and the way
forward. A detached HEAD (rebases, CI checkouts) is not a protected branch.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from reflection_core import config, paths
from reflection_core.guards import gitcmd
from reflection_core.guards.branches import protected_rule
from reflection_core.guards.hookenv import repo_and_config, within_deadline
from reflection_core.guards.registry import PushContext

# Operations that stop for a commit (conflicts, `--no-commit`): the state file git keeps
# in its dir while one is under way, and the command that undoes it. Switching branches
# fails until it is undone.
IN_PROGRESS = (
    ("MERGE_HEAD", "merge", "git merge --abort"),
    ("CHERRY_PICK_HEAD", "cherry-pick", "git cherry-pick --abort"),
    ("REVERT_HEAD", "revert", "git revert --abort"),
)


def commit_refusal(
    branch: str | None,
    patterns: Sequence[str],
    *,
    unborn: bool = False,
    in_progress: tuple[str, str] | None = None,
) -> str | None:
    """The refusal message for committing on `branch`, or None when the commit may proceed.

    The first commit of a new repository (`unborn` branch) is allowed: there is no
    history to protect yet, and the push guard still keeps it off the remote.
    `in_progress`: (operation, how to undo it) when the commit finishes a merge,
    cherry-pick or revert, which must be undone before its work can move to a branch.
    """
    if branch is None or unborn:
        return None
    rule = protected_rule(branch, patterns)
    if rule is None:
        return None
    head = (
        f"reflection: refusing to commit on protected branch '{branch}' "
        f"(matched rule {rule!r} in protected_branches).\n"
    )
    if in_progress is not None:
        operation, undo = in_progress
        return head + (
            f"  This commit finishes a {operation}. Undo it, then make it on a new branch:\n"
            f"    {undo}\n"
            "    git switch -c my-change\n"
            f"  and run the {operation} again there.\n"
            "  (Emergency only: `git commit --no-verify` skips every pre-commit check.)"
        )
    return head + (
        "  Move your staged work to a new branch and commit there:\n"
        "    git switch -c my-change\n"
        "    git commit\n"
        "  (Emergency only: `git commit --no-verify` skips every pre-commit check.)"
    )


def operation_in_progress(root: Path) -> tuple[str, str] | None:
    """The merge, cherry-pick or revert this commit would finish, with its undo command."""
    git_dir = paths.git_dir(root)
    return next(((op, undo) for name, op, undo in IN_PROGRESS if (git_dir / name).exists()), None)


def is_unborn(root: Path) -> bool:
    """The checked-out branch has no commit yet: its first commit is allowed anywhere."""
    return not gitcmd.run(root, ["rev-parse", "--verify", "-q", "HEAD"], check=False).strip()


def check_commit(root: Path, cfg: config.Config) -> int:
    """Print the refusal for committing in `root` now, if any; 1 when refused."""
    if not cfg.get("guards.refuse_commits_on_protected"):
        return 0
    branch = gitcmd.current_branch(root)
    if branch is None or protected_rule(branch, cfg.get("protected_branches")) is None:
        return 0
    message = commit_refusal(
        branch,
        cfg.get("protected_branches"),
        unborn=is_unborn(root),
        in_progress=operation_in_progress(root),
    )
    if message:
        sys.stderr.write(message + "\n")
        return 1
    return 0


def native(root: Path, cfg: config.Config, push: PushContext | None) -> int:
    """The native pre-commit hook's call (see guards.registry)."""
    return check_commit(root, cfg)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reflection-protected-commit", description=__doc__)
    parser.parse_args(argv)
    return within_deadline(_check, "commit")


def _check() -> int:
    loaded = repo_and_config()
    if isinstance(loaded, int):
        return loaded
    root, cfg = loaded
    return check_commit(root, cfg)


if __name__ == "__main__":
    sys.exit(main())
