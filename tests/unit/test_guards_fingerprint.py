"""Tree fingerprints: what counts (unstaged, untracked) and what does not (ignored, caches)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reflection_core import config
from reflection_core.guards import fingerprint
from reflection_core.guards.tests_ran import ignorable, ignorable_globs
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
    clean = fingerprint.worktree_tree(git_repo, ["gen/", "*.log"])
    (git_repo / "gen").mkdir()
    (git_repo / "gen" / "out.bin").write_text("x")
    (git_repo / "deep" / "dir").mkdir(parents=True)
    (git_repo / "deep" / "dir" / "run.log").write_text("x")
    assert fingerprint.worktree_tree(git_repo, ["gen/", "*.log"]) == clean
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
    (git_repo / "gen").mkdir()
    (git_repo / "gen" / "tracked.txt").write_text("v1")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "tracked build file")
    clean = fingerprint.worktree_tree(git_repo, ["gen/"])
    (git_repo / "gen" / "new.txt").write_text("untracked")
    assert fingerprint.worktree_tree(git_repo, ["gen/"]) == clean
    (git_repo / "gen" / "tracked.txt").write_text("v2")
    assert fingerprint.worktree_tree(git_repo, ["gen/"]) != clean


def test_untracked_build_output_is_left_out_but_tracked_files_there_count(
    git_repo: Path,
) -> None:
    (git_repo / "build").mkdir()
    (git_repo / "build" / "tool.py").write_text("A = 1\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "a tracked source dir named build")
    clean = fingerprint.worktree_tree(git_repo)
    for made in ("build/lib/pkg/__init__.py", "dist/pkg-1.0.tar.gz", "venv/pyvenv.cfg"):
        (git_repo / made).parent.mkdir(parents=True, exist_ok=True)
        (git_repo / made).write_text("output\n")
    (git_repo / "pkg-1.0-py3-none-any.whl").write_text("wheel\n")
    assert fingerprint.worktree_tree(git_repo) == clean
    (git_repo / "build" / "tool.py").write_text("A = 2\n")
    assert fingerprint.worktree_tree(git_repo) != clean
    assert not ignorable("build/tool.py", ignorable_globs(config.Config(root=git_repo)))


# ---------------------------------------------------------------- the private index


def throwaway_copy_tree(repo: Path, exclude: tuple[str, ...] = ()) -> str:
    """What the fingerprint was before the private index: a fresh copy of the real index."""
    excludes = fingerprint.excludes_file_text(fingerprint.user_excludes_file(repo), exclude)
    return fingerprint.temporary_index_tree(repo, excludes)


def private_index(repo: Path) -> Path:
    return repo / ".git" / "reflection" / "fingerprint" / "index"


def test_an_unchanged_tree_is_fingerprinted_without_rewriting_the_private_index(
    git_repo: Path,
) -> None:
    import os

    (git_repo / "new.py").write_text("print(1)\n")
    past = time.time() - 10  # not racily clean: git trusts their stat data at once
    for path in [git_repo, *git_repo.rglob("*")]:  # folders too: the untracked cache's
        if ".git" not in path.parts:
            os.utime(path, (past, past))
    # Adding `new.py` leaves its folder's untracked-cache entry stale: the next scan reads
    # that folder again and writes the index once. From then on nothing is rewritten.
    first = fingerprint.worktree_tree(git_repo)
    assert fingerprint.worktree_tree(git_repo) == first
    before = private_index(git_repo).stat()
    assert fingerprint.worktree_tree(git_repo) == first == throwaway_copy_tree(git_repo)
    after = private_index(git_repo).stat()
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)


def each_step_is_a_new_fingerprint(
    repo: Path, steps: list[Callable[[], object]], seen: set[str]
) -> None:
    """After each step the kept index gives a tree no step gave before, the one a
    throwaway copy of the real index gives."""
    for step in steps:
        step()
        tree = fingerprint.worktree_tree(repo)
        assert tree == throwaway_copy_tree(repo)
        assert tree not in seen
        seen.add(tree)


def test_edits_deletions_new_files_and_mode_changes_are_seen_by_the_kept_index(
    git_repo: Path,
) -> None:
    (git_repo / "a.py").write_text("a = 1\n")
    (git_repo / "b.py").write_text("b = 1\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "two files")
    seen = {fingerprint.worktree_tree(git_repo)}
    steps = [
        lambda: (git_repo / "a.py").write_text("a = 22\n"),
        lambda: (git_repo / "b.py").unlink(),
        lambda: (git_repo / "c.py").write_text("c = 1\n"),
        lambda: (git_repo / "a.py").chmod(0o755),
    ]
    each_step_is_a_new_fingerprint(git_repo, steps, seen)


def test_files_appearing_in_folders_the_untracked_cache_knows_are_seen(git_repo: Path) -> None:
    import os

    (git_repo / "pkg").mkdir()
    (git_repo / "pkg" / "a.py").write_text("a = 1\n")
    (git_repo / "new" / "deep").mkdir(parents=True)
    (git_repo / "new" / "deep" / "x.py").write_text("x = 1\n")
    seen = {fingerprint.worktree_tree(git_repo), fingerprint.worktree_tree(git_repo)}
    past = time.time() - 10  # the folders' stat data is trusted from the cache from now on
    for path in [git_repo, *git_repo.rglob("*")]:
        if ".git" not in path.parts:
            os.utime(path, (past, past))
    seen.add(fingerprint.worktree_tree(git_repo))
    steps = [
        lambda: (git_repo / "pkg" / "b.py").write_text("b = 1\n"),  # beside an untracked file
        lambda: (git_repo / "new" / "deep" / "y.py").write_text("y = 1\n"),  # deep in one
        lambda: (git_repo / "new" / "deep" / "x.py").unlink(),
        lambda: (git_repo / "odd [1] *.py").write_text("glob characters, literally\n"),
        lambda: (git_repo / "odd [1] *.py").write_text("changed again\n"),
        lambda: (git_repo / "line\nbreak.py").write_text("a newline in the name\n"),
    ]
    each_step_is_a_new_fingerprint(git_repo, steps, seen)


def test_a_branch_switch_leaves_no_stale_entry_in_the_kept_index(git_repo: Path) -> None:
    git(git_repo, "switch", "-q", "-c", "other")
    (git_repo / "only_here.py").write_text("x = 1\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "a file on one branch")
    (git_repo / "scratch.txt").write_text("untracked\n")
    fingerprint.worktree_tree(git_repo)
    git(git_repo, "switch", "-q", "main")
    tree = fingerprint.worktree_tree(git_repo)
    assert tree == throwaway_copy_tree(git_repo)
    listed = git(git_repo, "ls-tree", "-r", "--name-only", tree).split()
    assert "only_here.py" not in listed and "scratch.txt" in listed


def test_an_untracked_file_that_becomes_ignored_leaves_the_fingerprint(git_repo: Path) -> None:
    clean = fingerprint.worktree_tree(git_repo)
    (git_repo / "notes.log").write_text("x\n")
    assert fingerprint.worktree_tree(git_repo) != clean
    with (git_repo / ".gitignore").open("a") as handle:  # a tracked .gitignore changes
        handle.write("*.log\n")
    assert fingerprint.worktree_tree(git_repo) == throwaway_copy_tree(git_repo)
    (git_repo / "debug.out").write_text("x\n")
    before_exclude = fingerprint.worktree_tree(git_repo)
    (git_repo / ".git" / "info").mkdir(exist_ok=True)
    (git_repo / ".git" / "info" / "exclude").write_text("*.out\n")
    tree = fingerprint.worktree_tree(git_repo)
    assert tree != before_exclude and tree == throwaway_copy_tree(git_repo)
    (git_repo / "sub").mkdir()
    (git_repo / "sub" / "data.tmp").write_text("x\n")
    fingerprint.worktree_tree(git_repo)
    (git_repo / "sub" / ".gitignore").write_text("*.tmp\n")  # a new, untracked .gitignore
    assert fingerprint.worktree_tree(git_repo) == throwaway_copy_tree(git_repo)


def test_changes_to_what_the_real_index_tracks_are_followed(git_repo: Path) -> None:
    (git_repo / "gen").mkdir()
    (git_repo / "gen" / "out.bin").write_text("v1")
    fingerprint.worktree_tree(git_repo, ["gen/"])
    git(git_repo, "add", "-f", "gen/out.bin")  # force-added: tracked despite the exclude
    tree = fingerprint.worktree_tree(git_repo, ["gen/"])
    assert "gen/out.bin" in git(git_repo, "ls-tree", "-r", "--name-only", tree)
    git(git_repo, "rm", "-q", "--cached", "gen/out.bin")
    tree = fingerprint.worktree_tree(git_repo, ["gen/"])
    assert "gen/out.bin" not in git(git_repo, "ls-tree", "-r", "--name-only", tree)


def test_fingerprints_with_different_excludes_do_not_mix(git_repo: Path) -> None:
    (git_repo / "gen").mkdir()
    (git_repo / "gen" / "out.bin").write_text("x")
    for _ in range(2):
        with_gen = fingerprint.worktree_tree(git_repo)
        without = fingerprint.worktree_tree(git_repo, ["gen/"])
        assert with_gen == throwaway_copy_tree(git_repo)
        assert without == throwaway_copy_tree(git_repo, ("gen/",)) != with_gen


def test_a_scan_started_before_the_excludes_are_known_gives_the_tree_for_them(
    git_repo: Path,
) -> None:
    (git_repo / "gen").mkdir()
    (git_repo / "gen" / "out.bin").write_text("x")
    fingerprint.worktree_tree(git_repo)  # the kept index now holds gen/out.bin
    scan = fingerprint.start_worktree_tree(git_repo)
    assert scan.result(["gen/"]) == throwaway_copy_tree(git_repo, ("gen/",))


def test_same_size_edits_right_after_the_kept_index_was_written_are_seen(
    git_repo: Path,
) -> None:
    for attempt in range(5):
        (git_repo / "calc.py").write_text(f"return a + {attempt}\n")
        first = fingerprint.worktree_tree(git_repo)  # rewrites the kept index
        (git_repo / "calc.py").write_text(f"return {attempt} + a\n")  # same second, same size
        assert fingerprint.worktree_tree(git_repo) != first
        assert fingerprint.worktree_tree(git_repo) == throwaway_copy_tree(git_repo)


def test_while_another_process_holds_the_kept_index_a_throwaway_copy_is_used(
    git_repo: Path,
) -> None:
    import fcntl
    import os

    (git_repo / "new.py").write_text("print(1)\n")
    lock = git_repo / ".git" / "reflection" / "fingerprint" / "lock"
    lock.parent.mkdir(parents=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert fingerprint.worktree_tree(git_repo) == throwaway_copy_tree(git_repo)
        assert not private_index(git_repo).exists()
    finally:
        os.close(fd)
    assert fingerprint.worktree_tree(git_repo) == throwaway_copy_tree(git_repo)
    assert private_index(git_repo).exists()


def test_a_corrupt_kept_index_gives_the_right_tree_and_is_rebuilt(git_repo: Path) -> None:
    (git_repo / "new.py").write_text("print(1)\n")
    expected = fingerprint.worktree_tree(git_repo)
    private_index(git_repo).write_bytes(b"DIRC not an index")
    assert fingerprint.worktree_tree(git_repo) == expected
    assert fingerprint.worktree_tree(git_repo) == expected
    assert private_index(git_repo).read_bytes().startswith(b"DIRC\0\0\0")


def test_after_a_commit_the_next_fingerprint_reads_the_tree_from_the_kept_index(
    git_repo: Path,
) -> None:
    from reflection_core.guards.indexfile import cached_root_tree

    git(git_repo, "write-tree")  # the real index's cache tree is valid: git rewrites no copy
    tree = fingerprint.worktree_tree(git_repo)
    assert tree == head_tree(git_repo) == cached_root_tree(private_index(git_repo))


def test_a_spawned_git_that_fails_raises_with_gits_own_message(git_repo: Path) -> None:
    from reflection_core.guards import gitcmd

    running = gitcmd.spawn(git_repo, ["rev-parse", "--verify", "no-such-ref"])
    with pytest.raises(gitcmd.GitError, match="no-such-ref"):
        running.wait()
    assert gitcmd.spawn(str(git_repo), ["add", "-A"], background=True).wait() == ""


def test_a_spawned_git_can_be_stopped_and_is_reaped(git_repo: Path) -> None:
    from reflection_core.guards import gitcmd

    running = gitcmd.spawn(git_repo, ["-c", "alias.nap=!sleep 30", "nap"])
    started = time.monotonic()
    running.stop()
    assert time.monotonic() - started < 10
    assert isinstance(running, gitcmd.Spawned) and running.returncode != 0


def test_a_linked_worktree_is_fingerprinted_through_its_own_git_dir(git_repo: Path) -> None:
    linked = git_repo.parent / "linked"
    git(git_repo, "worktree", "add", "-q", str(linked), "-b", "side")
    (linked / "new.py").write_text("print(1)\n")
    tree = fingerprint.worktree_tree(linked)
    assert tree != head_tree(git_repo)
    git_dir = fingerprint.paths.git_directory(str(linked))
    assert Path(git_dir, "reflection", "fingerprint", "state").is_file()
    assert git_dir == str(fingerprint.paths.git_dir(linked))
