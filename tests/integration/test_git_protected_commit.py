"""The commit guard through a native pre-commit hook: branches, detached HEAD, amend, merge."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitutil import GIT_ENV, git, make_repo

REFLECTION = Path(sys.executable).parent / "reflection"


def run_git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, capture_output=True, text=True
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": "tests:\n  ledger: false\n"})
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f'#!/bin/sh\nexec "{REFLECTION}" hook pre-commit\n')
    hook.chmod(0o755)
    return repo


def stage(repo: Path, name: str) -> None:
    (repo / name).write_text(name)
    git(repo, "add", name)


def test_a_commit_on_main_is_refused_and_nothing_is_recorded(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    stage(repo, "a.txt")
    result = run_git(repo, "commit", "-m", "on main")
    assert result.returncode == 1
    assert "refusing to commit on protected branch 'main'" in result.stderr
    assert "(matched rule 'main' in protected_branches)" in result.stderr
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert git(repo, "diff", "--cached", "--name-only").strip() == "a.txt"  # work kept


def test_commits_on_a_feature_branch_and_a_detached_head_pass(repo: Path) -> None:
    git(repo, "switch", "-q", "-c", "feat")
    stage(repo, "a.txt")
    assert run_git(repo, "commit", "-m", "feat").returncode == 0
    git(repo, "checkout", "-q", "--detach")
    stage(repo, "b.txt")
    assert run_git(repo, "commit", "-m", "detached").returncode == 0


def test_amending_on_main_is_refused(repo: Path) -> None:
    result = run_git(repo, "commit", "--amend", "-m", "reworded")
    assert result.returncode == 1 and "protected branch 'main'" in result.stderr


def test_merge_commits_run_pre_merge_commit_not_pre_commit(repo: Path) -> None:
    """git merge runs the pre-merge-commit hook, so the pre-commit guard does not see it;
    a merge finished with `git commit` (conflicts, --no-commit) does run pre-commit."""
    git(repo, "switch", "-q", "-c", "feat")
    stage(repo, "a.txt")
    git(repo, "commit", "-q", "--no-verify", "-m", "feat")
    git(repo, "switch", "-q", "main")
    stopped = run_git(repo, "merge", "--no-ff", "--no-commit", "feat")
    assert stopped.returncode == 0
    finished = run_git(repo, "commit", "-m", "merge feat")
    assert finished.returncode == 1 and "protected branch 'main'" in finished.stderr
    git(repo, "merge", "--abort")
    merged = run_git(repo, "merge", "--no-ff", "-m", "merge feat", "feat")
    assert merged.returncode == 0  # the merge guard's hook covers this (test_git_protected_merge)


def test_a_commit_finishing_a_merge_or_cherry_pick_on_main_says_to_undo_it_first(
    repo: Path,
) -> None:
    git(repo, "switch", "-q", "-c", "feat")
    stage(repo, "a.txt")
    git(repo, "commit", "-q", "--no-verify", "-m", "feat")
    git(repo, "switch", "-q", "main")
    assert run_git(repo, "merge", "--no-ff", "--no-commit", "feat").returncode == 0
    refused = run_git(repo, "commit", "-m", "merge feat")
    assert refused.returncode == 1 and "This commit finishes a merge" in refused.stderr
    advice = [ln.strip() for ln in refused.stderr.splitlines() if ln.startswith("    git ")]
    assert advice == ["git merge --abort", "git switch -c my-change"]
    for line in advice:  # followed literally, both work (a switch fails mid-merge)
        assert run_git(repo, *line.split()[1:]).returncode == 0, line
    assert run_git(repo, "merge", "--no-edit", "feat").returncode == 0
    git(repo, "switch", "-q", "main")
    (repo / "a.txt").write_text("main's own\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "--no-verify", "-m", "main's a.txt")
    assert run_git(repo, "cherry-pick", "feat").returncode != 0  # a conflict stops it
    git(repo, "add", "a.txt")
    picked = run_git(repo, "commit", "--no-edit")
    assert picked.returncode == 1 and "    git cherry-pick --abort" in picked.stderr


def test_the_first_commit_of_a_new_repository_is_allowed(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q", "-b", "main")
    hook = fresh / ".git" / "hooks" / "pre-commit"
    hook.write_text(f'#!/bin/sh\nexec "{REFLECTION}" hook pre-commit\n')
    hook.chmod(0o755)
    (fresh / ".reflection.yaml").write_text("tests:\n  ledger: false\n")
    git(fresh, "add", "-A")
    assert run_git(fresh, "commit", "-m", "initial").returncode == 0
    stage(fresh, "b.txt")
    assert run_git(fresh, "commit", "-m", "second").returncode == 1


def test_the_commit_guard_can_be_switched_off(repo: Path) -> None:
    (repo / ".reflection.yaml").write_text(
        "tests:\n  ledger: false\nguards:\n  refuse_commits_on_protected: false\n"
    )
    git(repo, "add", ".reflection.yaml")  # the guard reads the config being committed
    stage(repo, "a.txt")
    assert run_git(repo, "commit", "-m", "allowed").returncode == 0


def test_the_console_script_says_why(repo: Path) -> None:
    result = subprocess.run(
        [str(Path(sys.executable).parent / "reflection-protected-commit")],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "git switch -c my-change" in result.stderr


def test_check_branch_reports_a_protected_checkout(repo: Path) -> None:
    on_main = subprocess.run(
        [str(REFLECTION), "check", "branch"], cwd=repo, capture_output=True, text=True
    )
    assert on_main.returncode == 1 and "protected branch 'main'" in on_main.stderr
    git(repo, "switch", "-q", "-c", "feat")
    on_feat = subprocess.run(
        [str(REFLECTION), "check", "branch"], cwd=repo, capture_output=True, text=True
    )
    assert on_feat.returncode == 0 and "on feat, which is not protected" in on_feat.stdout


def test_check_branch_allows_the_first_commit_of_a_new_repository_like_the_hook(
    tmp_path: Path,
) -> None:
    new = tmp_path / "new"
    new.mkdir()
    git(new, "init", "-q", "-b", "main")
    hook = new / ".git" / "hooks" / "pre-commit"
    hook.write_text(f'#!/bin/sh\nexec "{REFLECTION}" hook pre-commit\n')
    hook.chmod(0o755)
    (new / ".reflection.yaml").write_text("tests:\n  ledger: false\n")
    git(new, "add", "-A")
    check = subprocess.run(
        [str(REFLECTION), "check", "branch"], cwd=new, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr
    assert "on main, which is protected but has no commits yet" in check.stdout
    assert run_git(new, "commit", "-m", "first").returncode == 0
    again = subprocess.run(
        [str(REFLECTION), "check", "branch"], cwd=new, capture_output=True, text=True
    )
    assert again.returncode == 1 and "protected branch 'main'" in again.stderr


def test_a_commit_under_an_unreadable_config_is_refused_naming_the_file_to_fix(
    repo: Path,
) -> None:
    git(repo, "switch", "-q", "-c", "feat")
    (repo / ".reflection.yaml").write_text("protected_branches: [main\n  foo: : bar\n")
    result = run_git(repo, "commit", "-q", "--allow-empty", "-m", "x")
    assert result.returncode != 0
    assert "refusing the commit (fails closed): the configuration cannot be read" in result.stderr
    assert f"Fix {repo / '.reflection.yaml'}" in result.stderr
    assert "`git commit --no-verify`" in result.stderr
