"""Real `git push` to a local bare remote through a natively installed pre-push hook."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitutil import GIT_ENV, git, make_bare_remote, make_repo

REFLECTION = Path(sys.executable).parent / "reflection"
NO_LEDGER = "tests:\n  ledger: false\n"


def install_native_hook(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-push"
    hook.write_text(f'#!/bin/sh\nexec "{REFLECTION}" hook pre-push "$@"\n')
    hook.chmod(0o755)


def push(
    repo: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "push", "origin", *args],
        cwd=repo,
        env={**os.environ, **GIT_ENV, **(env or {})},
        capture_output=True,
        text=True,
    )


def remote_sha(remote: Path, ref: str) -> str:
    return git(remote, "rev-parse", "--verify", "-q", ref, check=False).strip()


def commit_file(repo: Path, name: str, text: str = "x\n") -> str:
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"add {name}")
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def pushed_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repo whose main is on a bare remote, with the native hook installed afterwards."""
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": NO_LEDGER})
    remote = make_bare_remote(tmp_path / "remote.git", repo)
    git(repo, "push", "-q", "origin", "main")
    install_native_hook(repo)
    return repo, remote


def test_push_to_main_is_refused_and_the_remote_is_unchanged(
    pushed_repo: tuple[Path, Path],
) -> None:
    repo, remote = pushed_repo
    before = remote_sha(remote, "main")
    commit_file(repo, "a.txt")
    result = push(repo, "main")
    assert result.returncode != 0
    assert "refusing to push to protected branch 'main'" in result.stderr
    assert "Matched rule 'main' in protected_branches" in result.stderr
    assert "gh pr create --base main" in result.stderr
    assert remote_sha(remote, "main") == before


def test_head_to_main_from_a_feature_branch_is_refused(pushed_repo: tuple[Path, Path]) -> None:
    repo, remote = pushed_repo
    before = remote_sha(remote, "main")
    git(repo, "switch", "-q", "-c", "feat")
    commit_file(repo, "b.txt")
    result = push(repo, "HEAD:main")
    assert result.returncode != 0
    assert remote_sha(remote, "main") == before
    assert "protected branch 'main' (refs/heads/main, pushing refs/heads/feat" in result.stderr
    assert "git push -u origin feat" in result.stderr  # the branch under its own name


def test_feat_to_main_refspec_is_refused(pushed_repo: tuple[Path, Path]) -> None:
    repo, _ = pushed_repo
    git(repo, "switch", "-q", "-c", "feat")
    commit_file(repo, "c.txt")
    git(repo, "switch", "-q", "main")
    result = push(repo, "feat:main")
    assert result.returncode != 0
    assert "pushing refs/heads/feat" in result.stderr


def test_a_multi_ref_push_with_one_protected_ref_is_refused_whole(
    pushed_repo: tuple[Path, Path],
) -> None:
    repo, remote = pushed_repo
    git(repo, "switch", "-q", "-c", "feat")
    commit_file(repo, "d.txt")
    result = push(repo, "feat", "feat:master")
    assert result.returncode != 0
    assert "protected branch 'master'" in result.stderr
    assert "'feat'" not in result.stderr
    assert remote_sha(remote, "refs/heads/feat") == ""  # git aborts the whole push


def test_deleting_main_is_refused(pushed_repo: tuple[Path, Path]) -> None:
    repo, remote = pushed_repo
    git(repo, "switch", "-q", "-c", "feat")
    result = push(repo, "--delete", "main")
    assert result.returncode != 0
    assert "refusing to delete protected branch 'main'" in result.stderr
    assert remote_sha(remote, "main") != ""


def test_tags_and_feature_branches_are_pushed(pushed_repo: tuple[Path, Path]) -> None:
    repo, remote = pushed_repo
    git(repo, "tag", "main")  # a tag named like a protected branch is still a tag
    git(repo, "tag", "v1.0")
    assert push(repo, "refs/tags/main", "v1.0").returncode == 0
    assert remote_sha(remote, "refs/tags/v1.0") != ""
    git(repo, "switch", "-q", "-c", "feat")
    sha = commit_file(repo, "e.txt")
    result = push(repo, "-u", "feat")
    assert result.returncode == 0, result.stderr
    assert remote_sha(remote, "refs/heads/feat") == sha


def test_deleting_a_feature_branch_is_allowed(pushed_repo: tuple[Path, Path]) -> None:
    repo, remote = pushed_repo
    git(repo, "push", "-q", "origin", "main:feat")
    assert push(repo, "--delete", "feat").returncode == 0
    assert remote_sha(remote, "refs/heads/feat") == ""


def test_an_allow_listed_identity_may_push_to_main(tmp_path: Path) -> None:
    allow = NO_LEDGER + "guards:\n  allow_push: ['release-*']\n"
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": allow})
    remote = make_bare_remote(tmp_path / "remote.git", repo)
    git(repo, "push", "-q", "origin", "main")
    install_native_hook(repo)
    sha = commit_file(repo, "f.txt")
    assert push(repo, "main").returncode != 0
    result = push(repo, "main", env={"REFLECTION_IDENTITY": "release-bot"})
    assert result.returncode == 0, result.stderr
    assert remote_sha(remote, "main") == sha


def test_an_identity_allowed_only_by_the_pushed_config_may_not_push_to_main(
    pushed_repo: tuple[Path, Path],
) -> None:
    """An agent that adds itself to the allow list, in the working tree or in the commit it
    pushes, is still refused: the remote branch's committed config does not list it."""
    repo, remote = pushed_repo
    before = remote_sha(remote, "main")
    (repo / ".reflection.yaml").write_text(NO_LEDGER + "guards:\n  allow_push: ['agent']\n")
    env = {"REFLECTION_IDENTITY": "agent"}
    commit_file(repo, "f.txt")
    uncommitted = push(repo, "main", env=env)
    assert uncommitted.returncode != 0
    assert "not counting guards.allow_push 'agent'" in uncommitted.stderr
    git(repo, "commit", "-q", "-am", "allow the agent")
    committed = push(repo, "main", env=env)
    assert committed.returncode != 0
    assert "refusing to push to protected branch 'main'" in committed.stderr
    assert "not counting guards.allow_push 'agent'" in committed.stderr
    assert remote_sha(remote, "main") == before


def test_configured_patterns_protect_release_branches(pushed_repo: tuple[Path, Path]) -> None:
    repo, _ = pushed_repo
    (repo / ".reflection.yaml").write_text(
        NO_LEDGER + "protected_branches: [main, 'release/*', 're:^hotfix-\\d+$']\n"
    )
    result = push(repo, "main:release/1.0", "main:hotfix-7", "main:hotfix-x")
    assert result.returncode != 0
    assert "rule 'release/*'" in result.stderr and "'hotfix-7'" in result.stderr
    assert "'hotfix-x'" not in result.stderr


def run_hook(repo: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REFLECTION), "hook", "pre-push", "origin", "/dev/null"],
        cwd=repo,
        input=stdin,
        capture_output=True,
        text=True,
    )


def test_unparseable_input_fails_closed(pushed_repo: tuple[Path, Path]) -> None:
    repo, _ = pushed_repo
    result = run_hook(repo, "refs/heads/feat not-a-sha refs/heads/feat 123\n")
    assert result.returncode == 1
    assert "is not a 40- or 64-character hex id" in result.stderr
    assert "fails closed" in result.stderr


def test_non_utf8_input_fails_closed(pushed_repo: tuple[Path, Path]) -> None:
    repo, _ = pushed_repo
    result = subprocess.run(
        [str(REFLECTION), "hook", "pre-push", "origin", "/dev/null"],
        cwd=repo,
        input=b"refs/heads/\xff\xfe " + b"\xff" * 40 + b" refs/heads/main " + b"0" * 40 + b"\n",
        capture_output=True,
    )
    assert result.returncode == 1
    assert b"fails closed" in result.stderr


def test_a_broken_config_fails_closed(pushed_repo: tuple[Path, Path]) -> None:
    repo, _ = pushed_repo
    (repo / ".reflection.yaml").write_text("protected_branches: [main, '']\n")
    line = f"refs/heads/feat {'a' * 40} refs/heads/feat {'0' * 40}\n"
    result = run_hook(repo, line)
    assert result.returncode == 1
    assert "configuration error" in result.stderr and "protected_branches" in result.stderr


def test_sha256_repositories_are_guarded(tmp_path: Path) -> None:
    repo = tmp_path / "repo256"
    repo.mkdir()
    probe = subprocess.run(
        ["git", "init", "-q", "--object-format=sha256", "-b", "main", str(repo)],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"this git cannot create SHA-256 repositories: {probe.stderr.strip()}")
    (repo / ".reflection.yaml").write_text(NO_LEDGER)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    remote = tmp_path / "remote256.git"
    subprocess.run(
        ["git", "init", "-q", "--bare", "--object-format=sha256", str(remote)], check=True
    )
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main", "main:feat")
    install_native_hook(repo)
    deleted = push(repo, "--delete", "main")
    assert deleted.returncode != 0 and "refusing to delete protected branch" in deleted.stderr
    assert push(repo, "--delete", "feat").returncode == 0


def test_the_console_script_reads_stdin_like_the_native_hook(
    pushed_repo: tuple[Path, Path],
) -> None:
    repo, _ = pushed_repo
    script = str(Path(sys.executable).parent / "reflection-protected-push")
    line = f"HEAD {'a' * 40} refs/heads/master {'b' * 40}\n"
    refused = subprocess.run(
        [script, "origin", "/dev/null"], cwd=repo, input=line, capture_output=True, text=True
    )
    assert refused.returncode == 1 and "protected branch 'master'" in refused.stderr
    nothing = subprocess.run(
        [script], cwd=repo, stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    assert nothing.returncode == 0 and "no pushed refs to check" in nothing.stderr


def test_an_uncommitted_config_edit_cannot_unprotect_main(pushed_repo: tuple[Path, Path]) -> None:
    repo, remote = pushed_repo
    before = remote_sha(remote, "main")
    commit_file(repo, "a.txt")
    (repo / ".reflection.yaml").write_text(NO_LEDGER + "protected_branches: []\n")
    result = push(repo, "main")
    assert result.returncode != 0, result.stderr
    assert "refusing to push to protected branch 'main'" in result.stderr
    assert "the committed config protects" in result.stderr
    assert remote_sha(remote, "main") == before


def test_a_config_edit_committed_on_the_way_cannot_unprotect_main(
    pushed_repo: tuple[Path, Path],
) -> None:
    repo, remote = pushed_repo
    before = remote_sha(remote, "main")
    commit_file(repo, ".reflection.yaml", NO_LEDGER + "protected_branches: []\n")
    result = push(repo, "main")
    assert result.returncode != 0, result.stderr
    assert "'main' (at " in result.stderr  # named with the remote tip that protects it
    assert remote_sha(remote, "main") == before


def test_a_repo_whose_committed_config_protects_nothing_pushes_its_first_main(
    tmp_path: Path,
) -> None:
    repo = make_repo(
        tmp_path / "repo", files={".reflection.yaml": NO_LEDGER + "protected_branches: []\n"}
    )
    remote = make_bare_remote(tmp_path / "remote.git", repo)
    install_native_hook(repo)
    result = push(repo, "main")
    assert result.returncode == 0, result.stderr
    assert remote_sha(remote, "main") == git(repo, "rev-parse", "HEAD").strip()
    commit_file(repo, "a.txt")
    again = push(repo, "main")  # the remote's own config agrees
    assert again.returncode == 0, again.stderr
