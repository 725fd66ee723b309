"""Reading the root tree id from an index's cache tree: only when git would print that id."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reflection_core.guards.indexfile import cached_root_tree, eoie, root_tree
from tests.gitutil import git

EOIE = ("-c", "index.recordEndOfIndexEntries=true")


def indexed_repo(path: Path, *init_args: str) -> Path:
    path.mkdir()
    git(path, "init", "-q", *init_args)
    (path / "src").mkdir()
    (path / "src" / "a.py").write_text("a = 1\n")
    (path / "b.txt").write_text("b\n")
    git(path, *EOIE, "add", "-A")
    return path


def write_tree(repo: Path) -> str:
    return git(repo, *EOIE, "write-tree").strip()


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_a_valid_cache_tree_gives_what_write_tree_prints(
    tmp_path: Path, object_format: str
) -> None:
    repo = indexed_repo(tmp_path / "repo", f"--object-format={object_format}")
    tree = write_tree(repo)
    assert cached_root_tree(repo / ".git" / "index") == tree
    assert len(tree) == (40 if object_format == "sha1" else 64)


def test_a_change_since_the_last_write_tree_gives_none(tmp_path: Path) -> None:
    repo = indexed_repo(tmp_path / "repo")
    write_tree(repo)
    (repo / "src" / "a.py").write_text("a = 2\n")
    git(repo, *EOIE, "add", "-A")
    assert cached_root_tree(repo / ".git" / "index") is None
    tree = write_tree(repo)
    assert cached_root_tree(repo / ".git" / "index") == tree


def test_an_index_without_the_end_of_entries_extension_gives_none(tmp_path: Path) -> None:
    repo = indexed_repo(tmp_path / "repo")
    git(repo, "-c", "index.recordEndOfIndexEntries=false", "write-tree")
    assert cached_root_tree(repo / ".git" / "index") is None


def test_missing_truncated_and_foreign_files_give_none(tmp_path: Path) -> None:
    repo = indexed_repo(tmp_path / "repo")
    write_tree(repo)
    index = repo / ".git" / "index"
    data = index.read_bytes()
    assert cached_root_tree(tmp_path / "absent") is None
    for broken in (data[:-1], data[: len(data) // 2], b"", b"PK\3\4" + data[4:]):
        index.write_bytes(broken)
        assert cached_root_tree(index) is None


def test_extensions_that_overrun_or_lack_a_tree_give_none() -> None:
    assert root_tree(b"TREE\0\0\0\x40\0", 20) is None  # a size past the end
    assert root_tree(b"REUC\0\0\0\0", 20) is None  # no TREE extension at all
    invalid_root = b"\0-1 0\n"
    assert root_tree(b"TREE" + len(invalid_root).to_bytes(4, "big") + invalid_root, 20) is None
    assert eoie(b"DIRC\0\0\0\x09\0\0\0\0", b"", 0) is None  # an index version git never wrote


def test_reading_the_tree_reads_the_tail_not_the_entries(tmp_path: Path) -> None:
    repo = indexed_repo(tmp_path / "repo")
    for n in range(300):
        (repo / "src" / f"m{n}.py").write_text(f"m = {n}\n")
    git(repo, *EOIE, "add", "-A")
    tree = write_tree(repo)
    index = repo / ".git" / "index"
    with open(index, "rb") as handle:
        header = handle.read(12)
        size = os.fstat(handle.fileno()).st_size
        handle.seek(size - 76)
        found = eoie(header, handle.read(76), size)
    assert found is not None
    start, end, hash_len = found
    assert start > size // 2 and hash_len == 20  # the extensions follow 300 entries
    assert root_tree(index.read_bytes()[start:end], hash_len) == tree
