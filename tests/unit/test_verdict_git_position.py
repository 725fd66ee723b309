"""Each verdict records the branch and commit it is about; the pre-push hook matches on it."""

from __future__ import annotations

from pathlib import Path

from reflection_core.consumers.verdict_notes import claimed_base
from reflection_core.githead import head_position
from reflection_core.session.verdict import skipped_fields, write_fields
from tests.gitutil import git, make_repo
from tests.verdictutil import position, read_json

A, B = "a" * 40, "b" * 40


def test_git_files_name_the_branch_and_commit_as_git_does(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert head_position(repo) == tuple(position(repo).values())
    git(repo, "pack-refs", "--all")  # the branch now lives in packed-refs only
    assert head_position(repo) == ("main", git(repo, "rev-parse", "HEAD").strip())
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    assert head_position(tmp_path / "wt") == tuple(position(tmp_path / "wt").values())
    git(repo, "switch", "-q", "--detach")
    assert head_position(repo) == (None, git(repo, "rev-parse", "HEAD").strip())
    git(repo, "switch", "-q", "--orphan", "fresh")
    assert head_position(repo) == ("fresh", None)


def test_a_written_verdict_records_where_the_work_tree_stood(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "switch", "-q", "-c", "feature")
    target, _ = write_fields(
        repo, skipped_fields("x", 0), session_id="s", prompt_id=None, event="stop", record_body={}
    )
    assert (
        read_json(target)["git"]
        == position(repo)
        == {
            "branch": "feature",
            "head": git(repo, "rev-parse", "HEAD").strip(),
        }
    )


def test_a_verdict_answers_for_its_own_branch_or_its_exact_detached_commit() -> None:
    on_a = {"git": {"branch": "feature-a", "head": A}}
    assert claimed_base(on_a, B, {"feature-a"}) == A  # B must descend from A
    assert claimed_base(on_a, A, {"feature-a", "origin-name"}) == A
    assert claimed_base(on_a, B, {"feature-b"}) is None
    detached = {"git": {"branch": None, "head": A}}
    assert claimed_base(detached, A, {"feature-b"}) == A
    assert claimed_base(detached, B, {"feature-b"}) is None
    assert claimed_base({}, A, {"feature-a"}) is None  # written before verdicts had a position
    assert claimed_base({"git": {"branch": "feature-a", "head": None}}, A, {"feature-a"}) is None


def test_note_candidates_read_a_merges_parents_and_the_events_pull_request_head() -> None:
    from reflection_core.consumers.verdict_notes import note_candidates

    tree, c, d = "1" * 40, "c" * 40, "d" * 40
    merge = f"tree {tree}\nparent {A}\nparent {B}\nauthor x\n\nMerge B into A\nparent {c}\n"
    event = {"pull_request": {"head": {"sha": c}}}
    assert note_candidates(d, merge, event) == [d, B, c, tree]
    assert note_candidates(d, f"tree {tree}\nparent {A}\n\nsquash", {}) == [d, tree]
    assert note_candidates(d, "", {"pull_request": "odd"}) == [d]
