"""`reflection check {tests,branch,verdict} [--ci]`: the hook checks, runnable anywhere.

Exit 0 when the check passes, 1 when it fails (the message says why and what to
do), 2 on usage or configuration errors. With `--ci` the checks read the GitHub
Actions context and print `::error::` annotations.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from reflection_core import paths
from reflection_core.cli.common import load_config_or_exit

if TYPE_CHECKING:
    from reflection_core.config import Config
    from reflection_core.guards.ci import CommitInfo


def _root_or_exit() -> Path:
    root = paths.find_repo_root()
    if root is None:
        click.echo("reflection: not inside a git repository.", err=True)
        raise SystemExit(2)
    return root


def _fail(message: str, ci: bool) -> None:
    from reflection_core.guards.ci import annotation

    click.echo(annotation("error", message) if ci else f"reflection: {message}", err=not ci)
    raise SystemExit(1)


@click.group("check")
def command() -> None:
    """The hook checks (tests, branch, verdict), for CI."""


@command.command("tests")
@click.option("--ci", is_flag=True, help="Check HEAD's tree and print GitHub annotations.")
@click.option("--staged", is_flag=True, help="Check the staged tree (what a commit would hold).")
@click.option("--commit", "rev", default=None, help="Check the tree of this commit.")
@click.option("--json", "as_json", is_flag=True, help="Print the evidence as JSON.")
def tests_command(ci: bool, staged: bool, rev: str | None, as_json: bool) -> None:
    """Did tests pass on this tree? (default: the working tree, unstaged files included)"""
    from reflection_core.guards.check_tests import check_tests

    code = check_tests(ci=ci, staged=staged, rev=rev, as_json=as_json)
    if code:
        raise SystemExit(code)


def _check_local_branch(root: Path, patterns: list[str]) -> None:
    """What the commit guard would say of a commit here now: a protected branch refuses,
    except for its first commit (a new repository's `main` has no history to protect)."""
    from reflection_core.guards import gitcmd
    from reflection_core.guards.branches import protected_rule
    from reflection_core.guards.protected_commit import commit_refusal, is_unborn

    branch = gitcmd.current_branch(root)
    protected = branch is not None and protected_rule(branch, patterns) is not None
    unborn = protected and is_unborn(root)
    message = commit_refusal(branch, patterns, unborn=unborn)
    if message:
        click.echo(message, err=True)
        raise SystemExit(1)
    if unborn:
        click.echo(
            f"reflection: on {branch}, which is protected but has no commits yet: its first "
            "commit is allowed, later ones are refused."
        )
        return
    click.echo(f"reflection: on {branch or 'a detached HEAD'}, which is not protected.")


@command.command("branch")
@click.option("--ci", is_flag=True, help="Read the GitHub Actions context; print annotations.")
def branch_command(ci: bool) -> None:
    """Local: is a protected branch checked out? CI: did a push bypass pull requests?"""
    root = _root_or_exit()
    cfg = load_config_or_exit(str(root))
    if not ci:
        _check_local_branch(root, cfg.get("protected_branches"))
        return
    _check_ci_branch(root, cfg)


def _check_ci_branch(root: Path, cfg: Config) -> None:
    """The push event's branch rule: protected branches as the branch already had them
    (see hookenv.agreed_protected), proof of a pull request, allow-listed actors, or a new
    repository's first push."""
    from reflection_core.guards import ci as ci_mod
    from reflection_core.guards import gitcmd
    from reflection_core.guards.branches import protected_rule
    from reflection_core.guards.github_api import pulls_for_commit
    from reflection_core.guards.hookenv import agreed_allow_push, agreed_protected

    ctx = ci_mod.GithubContext.from_env(os.environ)
    sha = ctx.sha or gitcmd.run(root, ["rev-parse", "HEAD"], check=False).strip()
    ctx = dataclasses.replace(ctx, sha=sha)
    before = ci_mod.push_before(os.environ)
    patterns = list(cfg.get("protected_branches"))
    if ctx.event == "push" and ctx.branch is not None:
        patterns, note = agreed_protected(root, before, patterns)
        _note(note)
    needs_proof = ctx.branch is not None and protected_rule(ctx.branch, patterns) is not None
    needs_proof = needs_proof and ctx.event == "push"
    allow, new_repository = list(cfg.get("guards.allow_push")), False
    pulls, source = None, "not needed"
    if needs_proof and allow:
        allow, note = agreed_allow_push(root, before, allow)
        _note(note)
    if needs_proof and ctx.branch is not None and ci_mod.creates_branch(before):
        new_repository, note = ci_mod.first_push(ctx.branch, _remote_refs(root))
        _note(note)
    if needs_proof and not new_repository:
        pulls, source = pulls_for_commit(os.environ, ctx.repository, sha)
    result = ci_mod.decide_branch_ci(
        ctx, patterns, allow, pulls, source, _commit_info(root, sha), new_repository=new_repository
    )
    for note in result.notes:
        _note(note)
    if not result.ok:
        _fail(result.message, ci=True)
    click.echo(f"reflection: {result.message}.")


def _note(note: str) -> None:
    if note:
        click.echo(f"reflection: note: {note.rstrip('.')}.")


def _remote_refs(root: Path) -> list[str] | None:
    """Every ref `origin` lists now, or None when it cannot be listed."""
    from reflection_core.guards import gitcmd

    try:
        out = gitcmd.run(root, ["ls-remote", "origin"])
    except gitcmd.GitError:
        return None
    return [line.split("\t", 1)[1] for line in out.splitlines() if "\t" in line]


def _commit_info(root: Path, sha: str) -> CommitInfo | None:
    from reflection_core.guards import gitcmd
    from reflection_core.guards.ci import CommitInfo

    out = gitcmd.run(root, ["log", "-1", "--format=%H%x00%s%x00%P", sha, "--"], check=False)
    parts = out.rstrip("\n").split("\0")
    if len(parts) != 3:
        return None  # not in this (shallow) clone
    shallow = Path(gitcmd.run(root, ["rev-parse", "--git-path", "shallow"]).strip())
    shallow = shallow if shallow.is_absolute() else root / shallow
    try:
        boundary = parts[0] in shallow.read_text(encoding="ascii").split()
    except OSError:  # not a shallow clone
        boundary = False
    count = None if boundary else len(parts[2].split())
    return CommitInfo(sha=parts[0], subject=parts[1], parent_count=count)


@command.command("verdict")
@click.option("--session", default=None, help="Session id (default: the latest verdict).")
@click.option("--ci", is_flag=True, help="Print GitHub annotations.")
def verdict_command(session: str | None, ci: bool) -> None:
    """Is the latest agent verdict complete?"""
    # Usage and configuration errors exit 2, as for the other checks: outside a repository
    # there is no verdict to read, and a broken config must not pass unnoticed.
    load_config_or_exit(str(_root_or_exit()))
    try:
        from reflection_core.consumers.verdict_files import check_verdict
    except (ImportError, AttributeError):
        click.echo("reflection: `reflection check verdict` is not implemented yet.", err=True)
        raise SystemExit(2) from None
    raise SystemExit(check_verdict(session, ci))
