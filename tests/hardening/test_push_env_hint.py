"""Git's stdin names what a push updates; PRE_COMMIT_* variables only fill in when it is empty.

A real repository, a real bare remote and a real `git push` through the guard installed
as the native pre-push hook.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.gitutil import GIT_ENV, git, make_bare_remote, make_repo

BIN = Path(sys.executable).parent


def pushed_repo(tmp_path: Path, script: str, yaml: str = "tests:\n  ledger: false\n") -> Path:
    """A repo whose main is on a bare remote, on a new commit of branch `feature`."""
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": yaml, "app.py": "x = 0\n"})
    make_bare_remote(tmp_path / "remote.git", repo)
    git(repo, "push", "-q", "origin", "main")
    hook = repo / ".git" / "hooks" / "pre-push"
    hook.write_text(f'#!/bin/sh\nexec "{BIN}"/{script}\n')
    hook.chmod(0o755)
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "app.py").write_text("x = 1\n")
    git(repo, "commit", "-qam", "untested change")
    return repo


def push(repo: Path, spec: str, hint: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "push", "origin", spec],
        cwd=repo,
        env={**os.environ, **GIT_ENV, **hint},
        capture_output=True,
        text=True,
        timeout=120,
    )


def remote_sha(repo: Path, ref: str) -> str:
    remote = repo.parent / "remote.git"
    return git(remote, "rev-parse", "-q", "--verify", ref, check=False).strip()


def test_an_environment_hint_cannot_turn_a_push_to_main_into_a_push_to_a_feature(
    tmp_path: Path,
) -> None:
    repo = pushed_repo(tmp_path, 'reflection-protected-push "$@"')
    before = remote_sha(repo, "main")
    hint = {"PRE_COMMIT_REMOTE_BRANCH": "refs/heads/feature", "PRE_COMMIT_LOCAL_BRANCH": "feature"}
    result = push(repo, "HEAD:main", hint)
    assert result.returncode != 0
    assert "refusing to push to protected branch 'main'" in result.stderr
    assert remote_sha(repo, "main") == before


def test_the_hint_still_fills_in_when_git_lists_nothing(tmp_path: Path) -> None:
    repo = pushed_repo(tmp_path, 'reflection-protected-push "$@"')
    result = subprocess.run(
        [BIN / "reflection-protected-push", "origin"],
        cwd=repo,
        env={**os.environ, "PRE_COMMIT_REMOTE_BRANCH": "refs/heads/main"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and "protected branch 'main'" in result.stderr


def test_the_tests_ran_gate_checks_what_git_pushes_not_what_the_hint_names(
    tmp_path: Path,
) -> None:
    repo = pushed_repo(tmp_path, "reflection-tests-ran", yaml="protected_branches: []\n")
    already_there = remote_sha(repo, "main")  # a commit with nothing new to check
    hint = {"PRE_COMMIT_TO_REF": already_there, "PRE_COMMIT_FROM_REF": already_there}
    result = push(repo, "HEAD:refs/heads/feature", hint)
    assert result.returncode != 0, result.stderr
    assert remote_sha(repo, "feature") == ""
