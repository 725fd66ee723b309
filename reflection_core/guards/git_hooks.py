"""Native git hooks: `reflection hook pre-commit` and `reflection hook pre-push`.

`reflection init` installs `.git/hooks/pre-push` running `reflection hook pre-push "$@"`.
Unlike the pre-commit framework, a native pre-push hook sees every pushed ref, so
every ref is checked against the protected branches, and every pushed commit
needs test evidence. The protected-branch part fails CLOSED.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from reflection_core import config, paths
from reflection_core.guards import gitcmd, protected_commit, protected_push, tests_ran
from reflection_core.guards.branches import PushParseError
from reflection_core.guards.hookenv import repo_and_config


def pre_commit_main(argv: Sequence[str] | None = None) -> int:
    """No commits on a protected branch; the staged tree needs a passing test run."""
    argparse.ArgumentParser(prog="reflection hook pre-commit").parse_args(argv)
    loaded = repo_and_config()
    if isinstance(loaded, int):
        return loaded
    root, cfg = loaded
    status = protected_commit.check_commit(root, cfg)
    if status:
        return status
    if not cfg.get("tests.ledger"):
        return 0
    try:
        return tests_ran.check_staged(root, cfg)
    except gitcmd.GitError as exc:
        sys.stderr.write(f"reflection: tests-ran check could not run git: {exc}\n")
        return 1


def pre_push_main(argv: Sequence[str] | None = None) -> int:
    """Every ref against protected_branches, then test evidence for every pushed commit."""
    parser = argparse.ArgumentParser(prog="reflection hook pre-push")
    parser.add_argument("remote", nargs="?", default="origin")
    parser.add_argument("url", nargs="?", default="")
    args = parser.parse_args(argv)
    root = paths.find_repo_root()
    if root is None:
        return protected_push.fail_closed("not inside a git repository")
    try:
        cfg = config.load(root)
    except config.ConfigError as exc:
        return protected_push.fail_closed(f"configuration error: {exc}")
    try:
        refs = protected_push.read_stdin_refs()
    except PushParseError as exc:
        return protected_push.fail_closed(str(exc))
    status = protected_push.check_refs(root, cfg, refs, args.remote)
    if status or not cfg.get("tests.ledger"):
        return status
    targets = [(r.local_sha, r.remote_sha) for r in refs if not r.is_delete]
    try:
        return tests_ran.check_push_refs(root, cfg, targets, args.remote)
    except gitcmd.GitError as exc:
        return protected_push.fail_closed(f"tests-ran check could not run git: {exc}")
