"""Console script `reflection-protected-push`: refuse pushes that target a protected branch.

Works as a native git pre-push hook (refs on stdin, every ref checked) and under
the pre-commit framework (PRE_COMMIT_REMOTE_BRANCH & co., first ref only, read
only when git's stdin lists nothing).
Fails CLOSED: input it cannot parse, or a config it cannot read, refuses the push.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from reflection_core import config, paths
from reflection_core.guards import gitcmd
from reflection_core.guards.branches import (
    PushedRef,
    PushParseError,
    decide_push,
    parse_push_lines,
    refs_from_pre_commit_env,
)
from reflection_core.guards.hookenv import config_refusal, push_config, within_deadline
from reflection_core.guards.registry import PushContext
from reflection_core.records import replace


def identity(root: Path, env: Mapping[str, str]) -> list[str]:
    """Who is pushing, for `guards.allow_push`: REFLECTION_IDENTITY, GITHUB_ACTOR, user.email."""
    values = [env.get("REFLECTION_IDENTITY", ""), env.get("GITHUB_ACTOR", "")]
    values.append(gitcmd.run(root, ["config", "user.email"], check=False).strip())
    return [v for v in values if v]


def read_stdin_refs() -> list[PushedRef]:
    """Refs from stdin, or none when stdin is a terminal or empty."""
    if sys.stdin is None or sys.stdin.isatty():
        return []
    raw = sys.stdin.buffer.read()
    return parse_push_lines(raw.decode("utf-8", errors="surrogateescape"))


def push_refs(env: Mapping[str, str]) -> list[PushedRef]:
    """The refs being pushed: git's stdin lines; the pre-commit framework's variables
    only when git said nothing (the framework's stdin is spent). An environment hint
    never overrides what git says it pushes."""
    from_git = read_stdin_refs()
    if from_git:
        return from_git
    return refs_from_pre_commit_env(env) or []


def check_refs(root: Path, cfg: config.Config, refs: Sequence[PushedRef], remote: str) -> int:
    """Print refusals to stderr; 1 when any ref is refused."""
    who: list[str] = []
    if cfg.get("guards.allow_push"):
        who = identity(root, os.environ)
    if any(r.local_ref == "HEAD" for r in refs):
        # `git push origin HEAD:main` names the checked-out branch: say which, for the advice.
        current = gitcmd.current_branch(root)
        if current:
            refs = [
                replace(r, local_ref=f"refs/heads/{current}") if r.local_ref == "HEAD" else r
                for r in refs
            ]
    refusals = decide_push(refs, cfg, who, remote)
    if any(r.ref.is_new and not r.ref.is_delete for r in refusals) and remote_is_empty(
        root, remote
    ):
        created = ", ".join(sorted({str(r.ref.branch) for r in refusals}))
        sys.stderr.write(
            f"reflection: {remote} has no branches yet, so creating {created} there is the "
            "repository's first push: allowed (protection applies from the next push).\n"
        )
        refusals = decide_push(refs, cfg, who, remote, remote_empty=True)
    for refusal in refusals:
        sys.stderr.write(refusal.message + "\n")
    return 1 if refusals else 0


def remote_is_empty(root: Path, remote: str) -> bool:
    """True only when git can list the remote and it has no branches (a new repository).

    Asked only when a push would create a protected branch; an unreachable remote is
    not empty (the push stays refused: this guard fails closed).
    """
    try:
        return not gitcmd.run(root, ["ls-remote", "--heads", remote]).strip()
    except gitcmd.GitError:
        return False


def native(root: Path, cfg: config.Config, push: PushContext | None) -> int:
    """The native pre-push hook's call: every ref git listed (see guards.registry)."""
    if push is None:
        return 0
    return check_refs(root, cfg, push.refs, push.remote)


def fail_closed(message: str) -> int:
    sys.stderr.write(f"reflection: {message}\nreflection: refusing the push (fails closed).\n")
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reflection-protected-push", description=__doc__)
    parser.add_argument("remote", nargs="?", default=None, help="remote name (git passes it)")
    parser.add_argument("url", nargs="?", default=None, help="remote URL (git passes it)")
    args = parser.parse_args(argv)
    return within_deadline(lambda: _check(args.remote), "push")


def _check(remote_arg: str | None) -> int:
    root = paths.find_repo_root()
    if root is None:
        return fail_closed("not inside a git repository")
    try:
        refs = push_refs(os.environ)
    except PushParseError as exc:
        return fail_closed(str(exc))
    try:
        cfg = push_config(root, [r.remote_sha for r in refs if not r.is_new and not r.is_notes])
    except config.ConfigError as exc:
        sys.stderr.write(config_refusal(exc, "push") + "\n")
        return 1
    remote = remote_arg or os.environ.get("PRE_COMMIT_REMOTE_NAME") or "origin"
    if not refs:
        sys.stderr.write(
            "reflection: no pushed refs to check (run as a pre-push hook; "
            "in CI use `reflection check branch --ci`).\n"
        )
        return 0
    return check_refs(root, cfg, refs, remote)


if __name__ == "__main__":
    sys.exit(main())
