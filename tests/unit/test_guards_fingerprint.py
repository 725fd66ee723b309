"""Tree fingerprints: what counts (unstaged, untracked) and what does not (ignored, caches)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from reflection_core.guards import fingerprint
from tests.gitutil import git


def head_tree(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD^{tree}").strip()


def test_a_clean_tree_fingerprints_as_the_head_tree(git_repo: Path) -> None:
    assert fingerprint.worktree_tree(git_repo) == head_tree(git_repo)
    assert fingerprint.staged_tree(git_repo) == head_tree(git_repo)
    assert fingerprint.commit_tree(git_repo, "HEAD") == head_tree(git_repo)


def test_unstaged_and_untracked_files_change_the_fingerprint(git_repo: Path) -> None:
    clean = fingerprint.worktree_tree(git_repo)
    (git_repo / "new.py").write_text("print(1)\n")
    with_untracked = fingerprint.worktree_tree(git_repo)
    assert with_untracked != clean
    (git_repo / ".gitignore").write_text("changed\n")
    assert fingerprint.worktree_tree(git_repo) not in (clean, with_untracked)


def test_the_real_index_is_untouched(git_repo: Path) -> None:
    (git_repo / "new.py").write_text("print(1)\n")
    index = git_repo / ".git" / "index"
    before = index.read_bytes()
    fingerprint.worktree_tree(git_repo)
    assert index.read_bytes() == before
    assert git(git_repo, "status", "--porcelain").strip() == "?? new.py"


def test_fingerprint_equals_the_staged_tree_after_adding_everything(git_repo: Path) -> None:
    (git_repo / "a.py").write_text("a\n")
    (git_repo / "sub").mkdir()
    (git_repo / "sub" / "b.py").write_text("b\n")
    tree = fingerprint.worktree_tree(git_repo)
    git(git_repo, "add", "-A")
    assert fingerprint.staged_tree(git_repo) == tree


def test_ignored_files_and_test_caches_do_not_count(git_repo: Path) -> None:
    clean = fingerprint.worktree_tree(git_repo)
    (git_repo / ".pytest_cache").mkdir()
    (git_repo / ".pytest_cache" / "v").write_text("x")  # git-ignored by the sample project
    (git_repo / "pkg" / "__pycache__").mkdir(parents=True)
    (git_repo / "pkg" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\0")
    (git_repo / "stray.pyc").write_bytes(b"\0")
    (git_repo / "src" / "pkg.egg-info").mkdir(parents=True)
    (git_repo / "src" / "pkg.egg-info" / "PKG-INFO").write_text("x")
    (git_repo / ".coverage").write_text("x")
    (git_repo / "node_modules" / "left-pad").mkdir(parents=True)
    (git_repo / "node_modules" / "left-pad" / "index.js").write_text("x")
    assert fingerprint.worktree_tree(git_repo) == clean


def test_configured_excludes_do_not_count(git_repo: Path) -> None:
    clean = fingerprint.worktree_tree(git_repo, ["build/", "*.log"])
    (git_repo / "build").mkdir()
    (git_repo / "build" / "out.bin").write_text("x")
    (git_repo / "deep" / "dir").mkdir(parents=True)
    (git_repo / "deep" / "dir" / "run.log").write_text("x")
    assert fingerprint.worktree_tree(git_repo, ["build/", "*.log"]) == clean
    assert fingerprint.worktree_tree(git_repo) != clean


def test_works_before_the_first_commit(tmp_path: Path) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("a")
    tree = fingerprint.worktree_tree(repo)
    assert len(tree) == 40 and not (repo / ".git" / "index").exists()


def test_same_size_edits_right_after_an_index_write_are_seen(tmp_path: Path) -> None:
    """Racy git: a file rewritten in the second its index was written, with the same size."""
    for attempt in range(5):
        repo = tmp_path / f"racy{attempt}"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        (repo / "calc.py").write_text("return a + b\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "initial")
        git(repo, "switch", "-q", "-c", "feat")  # rewrites the index
        (repo / "calc.py").write_text("return b + a\n")
        time.sleep(0.3)  # a copy of the index made now would carry a later mtime
        assert fingerprint.worktree_tree(repo) != head_tree(repo)


def test_the_users_global_ignore_rules_still_apply(
    git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = fingerprint.worktree_tree(git_repo)
    xdg = tmp_path / "xdg"
    (xdg / "git").mkdir(parents=True)
    (xdg / "git" / "ignore").write_text("*.secret\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    (git_repo / "keys.secret").write_text("x")
    assert fingerprint.worktree_tree(git_repo) == clean
    custom = tmp_path / "custom-ignore"
    custom.write_text("*.local\n")
    git(git_repo, "config", "core.excludesFile", str(custom))
    (git_repo / "settings.local").write_text("x")
    assert fingerprint.worktree_tree(git_repo) != clean  # *.secret no longer ignored
    (git_repo / "keys.secret").unlink()
    assert fingerprint.worktree_tree(git_repo) == clean


def test_changes_to_tracked_files_in_excluded_paths_still_count(git_repo: Path) -> None:
    (git_repo / "build").mkdir()
    (git_repo / "build" / "tracked.txt").write_text("v1")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "tracked build file")
    clean = fingerprint.worktree_tree(git_repo, ["build/"])
    (git_repo / "build" / "new.txt").write_text("untracked")
    assert fingerprint.worktree_tree(git_repo, ["build/"]) == clean
    (git_repo / "build" / "tracked.txt").write_text("v2")
    assert fingerprint.worktree_tree(git_repo, ["build/"]) != clean
