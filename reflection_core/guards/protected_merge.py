"""Console script `reflection-protected-merge`: refuse merge commits on a protected branch.

`git merge` records its commit without running the pre-commit hook, so a clean merge
into `main` passed where a conflicted one (finished by `git commit`) was refused. Git
runs `pre-merge-commit` instead, after the merge is prepared and before its commit: a
refusal leaves the merge in progress, undone by `git merge --abort`. Fast-forwards
create no commit and run no hook; the push guard still keeps them off the remote.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from reflection_core import config
from reflection_core.guards import gitcmd
from reflection_core.guards.branches import protected_rule
from reflection_core.guards.hookenv import repo_and_config, within_deadline
from reflection_core.guards.registry import PushContext


def merge_refusal(
    branch: str | None, patterns: Sequence[str], merged: str | None = None, pulling: bool = False
) -> str | None:
    """The refusal message for a merge commit on `branch`, or None when it may proceed.
    `merged` names what is merged in, when git says; `pulling`: `git pull` on a branch
    whose history diverged from its upstream, which a rebase keeps linear."""
    if branch is None:
        return None
    rule = protected_rule(branch, patterns)
    if rule is None:
        return None
    head = (
        f"reflection: refusing to merge into protected branch '{branch}' "
        f"(matched rule {rule!r} in protected_branches).\n"
    )
    if pulling:
        return head + (
            "  Its local commits diverged from its upstream. Undo the merge, move them to a\n"
            f"  branch, and bring '{branch}' up to date:\n"
            "    git merge --abort\n"
            "    git branch my-change\n"
            "    git reset --keep @{upstream}\n"
            "  then push my-change and open a pull request.\n"
            "  (Emergency only: `git pull --no-verify` skips this check.)"
        )
    return head + (
        "  Undo the merge, then merge on a branch and open a pull request:\n"
        "    git merge --abort\n"
        "    git switch -c my-merge\n"
        f"    git merge {shlex.quote(merged) if merged else '<branch>'}\n"
        "  (Emergency only: `git merge --no-verify` skips this check.)"
    )


def merge_in_progress(env: Mapping[str, str]) -> tuple[str | None, bool]:
    """What git's environment says of the merge under way: the one head merged in, by the
    name it was given (`GITHEAD_<sha>=feat`), and whether `git pull` started it."""
    heads = [v for k, v in env.items() if k.startswith("GITHEAD_") and v and " " not in v]
    action = env.get("GIT_REFLOG_ACTION", "")
    return (heads[0] if len(heads) == 1 else None), action.split(" ", 1)[0] == "pull"


def check_merge(root: Path, cfg: config.Config) -> int:
    """Print the refusal for a merge commit in `root` now, if any; 1 when refused.

    Off with `guards.refuse_commits_on_protected: false`, like the commit guard: a merge
    commit is a commit on the branch."""
    if not cfg.get("guards.refuse_commits_on_protected"):
        return 0
    merged, pulling = merge_in_progress(os.environ)
    branch = gitcmd.current_branch(root)
    message = merge_refusal(branch, cfg.get("protected_branches"), merged, pulling)
    if message:
        sys.stderr.write(message + "\n")
        return 1
    return 0


def native(root: Path, cfg: config.Config, push: PushContext | None) -> int:
    """The native pre-merge-commit hook's call (see guards.registry)."""
    return check_merge(root, cfg)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reflection-protected-merge", description=__doc__)
    parser.parse_args(argv)
    return within_deadline(_check, "merge")


def _check() -> int:
    loaded = repo_and_config("merge")
    if isinstance(loaded, int):
        return loaded
    root, cfg = loaded
    return check_merge(root, cfg)


if __name__ == "__main__":
    sys.exit(main())
