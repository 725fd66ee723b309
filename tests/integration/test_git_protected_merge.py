"""The merge guard: `git merge` into a protected branch, through the hooks `reflection init`
installs (native by default, and beside the pre-commit framework)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitutil import GIT_ENV, git, make_repo

BIN = Path(sys.executable).parent
REFLECTION = BIN / "reflection"


def run(repo: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "REFLECTION_"))}
    env.update({**GIT_ENV, "HOME": str(repo.parent / "home"), **extra})
    return subprocess.run(list(args), cwd=repo, env=env, capture_output=True, text=True)


def commit_on(repo: Path, branch: str, name: str) -> None:
    git(repo, "switch", "-q", branch)
    (repo / name).write_text(name)
    git(repo, "add", name)
    git(repo, "commit", "-q", "--no-verify", "-m", name)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main and a feature branch that diverged (a merge records a commit), the default
    install of the git hooks."""
    (tmp_path / "home").mkdir()
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": "tests:\n  ledger: false\n"})
    init = run(repo, str(REFLECTION), "init", "--git-hooks")
    assert init.returncode == 0, init.stdout + init.stderr
    git(repo, "branch", "feat")
    commit_on(repo, "feat", "feat.txt")
    commit_on(repo, "main", "main.txt")
    return repo


def test_a_merge_commit_on_main_is_refused_and_abort_restores_the_branch(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    merged = run(repo, "git", "merge", "--no-edit", "feat")
    assert merged.returncode != 0
    assert "refusing to merge into protected branch 'main'" in merged.stderr
    assert "git merge --abort" in merged.stderr
    assert git(repo, "rev-parse", "HEAD").strip() == head  # no merge commit recorded
    finished = run(repo, "git", "commit", "--no-edit")  # finishing it is a commit on main
    assert finished.returncode != 0 and "protected branch 'main'" in finished.stderr
    assert run(repo, "git", "merge", "--abort").returncode == 0
    assert git(repo, "status", "--porcelain").strip() == ""
    assert git(repo, "rev-parse", "HEAD").strip() == head


def test_the_refusal_names_the_branch_merged_in(repo: Path) -> None:
    merged = run(repo, "git", "merge", "--no-edit", "feat")
    assert "    git merge feat\n" in merged.stderr


def test_a_pull_into_a_diverged_main_is_refused_and_its_advice_works(
    repo: Path, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(repo, "push", "-q", "--no-verify", str(remote), "main~1:refs/heads/main")
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "fetch", "-q", "origin")
    git(repo, "branch", "-q", "--set-upstream-to=origin/main", "main")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    (other / "theirs.txt").write_text("theirs\n")
    git(other, "add", "theirs.txt")
    git(other, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "theirs")
    git(other, "push", "-q", "--no-verify", "origin", "main")
    pulled = run(repo, "git", "pull", "--no-rebase", "--no-edit", "origin", "main")
    assert pulled.returncode != 0
    assert "Its local commits diverged from its upstream" in pulled.stderr
    for line in ("git merge --abort", "git branch my-change", "git reset --keep @{upstream}"):
        assert f"    {line}\n" in pulled.stderr
        assert run(repo, *line.split()).returncode == 0, line
    assert git(repo, "rev-parse", "HEAD").strip() == git(repo, "rev-parse", "origin/main").strip()
    assert "main.txt" in git(repo, "show", "--name-only", "my-change")  # the work is kept


def test_merges_into_a_feature_branch_and_fast_forwards_pass(repo: Path) -> None:
    git(repo, "switch", "-q", "feat")
    assert run(repo, "git", "merge", "--no-edit", "main").returncode == 0
    assert git(repo, "rev-list", "--count", "--merges", "HEAD").strip() == "1"
    git(repo, "switch", "-q", "-c", "behind", "main~1")
    # A fast-forward records no commit, so git runs no hook (pushing main is refused).
    assert run(repo, "git", "merge", "--ff-only", "main").returncode == 0


def test_no_verify_and_skip_let_a_merge_through_and_skip_says_so(repo: Path) -> None:
    skipped = run(repo, "git", "merge", "--no-edit", "feat", SKIP="reflection-protected-merge")
    assert skipped.returncode == 0, skipped.stderr
    assert "reflection-protected-merge skipped" in skipped.stderr
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    bypassed = run(repo, "git", "merge", "--no-verify", "--no-edit", "feat")
    assert bypassed.returncode == 0 and "refusing" not in bypassed.stderr


def test_an_existing_pre_merge_commit_hook_is_kept_and_runs_after_ours(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": "tests:\n  ledger: false\n"})
    own = repo / ".git" / "hooks" / "pre-merge-commit"
    own.write_text("#!/bin/sh\necho theirs ran >&2\n")
    own.chmod(0o755)
    assert run(repo, str(REFLECTION), "init", "--git-hooks").returncode == 0
    git(repo, "branch", "feat")
    commit_on(repo, "feat", "feat.txt")
    commit_on(repo, "main", "main.txt")
    refused = run(repo, "git", "merge", "--no-edit", "feat")
    assert refused.returncode != 0 and "theirs ran" not in refused.stderr
    run(repo, "git", "merge", "--abort")
    git(repo, "switch", "-q", "-c", "topic")
    merged = run(repo, "git", "merge", "--no-edit", "feat")
    assert merged.returncode == 0 and "theirs ran" in merged.stderr


def test_the_merge_guard_follows_the_commit_guards_switch(repo: Path) -> None:
    (repo / ".reflection.yaml").write_text(
        "tests:\n  ledger: false\nguards:\n  refuse_commits_on_protected: false\n"
    )
    git(repo, "commit", "-q", "--no-verify", "-am", "guards off")
    assert run(repo, "git", "merge", "--no-edit", "feat").returncode == 0


def test_the_console_script_says_why(repo: Path) -> None:
    result = run(repo, str(BIN / "reflection-protected-merge"))
    assert result.returncode == 1
    assert "refusing to merge into protected branch 'main'" in result.stderr


def test_doctor_sees_the_merge_hook_and_warns_when_an_older_install_lacks_it(
    repo: Path,
) -> None:
    def findings() -> list[dict[str, str]]:
        out = run(repo, str(REFLECTION), "doctor", "--json").stdout
        return [f for f in json.loads(out)["findings"] if "pre-merge-commit" in f["message"]]

    assert [f["level"] for f in findings()] == ["ok"]
    (repo / ".git" / "hooks" / "pre-merge-commit").unlink()
    missing = findings()
    assert [f["level"] for f in missing] == ["warn"]
    assert "merge commits on protected branches" in missing[0]["message"]


def test_beside_the_pre_commit_framework_the_merge_guard_is_a_native_hook() -> None:
    from reflection_core.install.init import InitOptions

    assert "pre-merge-commit" in InitOptions(pre_commit=True).native_hook_types()
    assert "pre-merge-commit" in InitOptions(git_hooks=True).native_hook_types()
    assert InitOptions(pre_push=True).native_hook_types() == ("pre-push",)
