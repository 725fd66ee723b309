"""The CI branch decision on GitHub Actions context (no network: inputs are given)."""

from __future__ import annotations

from reflection_core.guards.ci import (
    CommitInfo,
    GithubContext,
    annotation,
    creates_branch,
    decide_branch_ci,
    first_push,
    pr_number_from_message,
)
from reflection_core.guards.github_api import PullRequest

PATTERNS = ["main", "release/*"]


def push(ref: str = "refs/heads/main", actor: str = "dev") -> GithubContext:
    return GithubContext(event="push", ref=ref, sha="c" * 40, repository="o/r", actor=actor)


def commit(subject: str, parents: int | None = 1) -> CommitInfo:
    return CommitInfo(sha="c" * 40, subject=subject, parent_count=parents)


def test_context_is_read_from_the_environment() -> None:
    ctx = GithubContext.from_env(
        {
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_REF": "refs/pull/7/merge",
            "GITHUB_HEAD_REF": "feat",
            "GITHUB_BASE_REF": "main",
            "GITHUB_SHA": "d" * 40,
        }
    )
    assert ctx.event == "pull_request" and ctx.branch is None and ctx.base_ref == "main"


def test_pull_request_events_pass() -> None:
    ctx = GithubContext(
        event="pull_request", ref="refs/pull/7/merge", head_ref="f", base_ref="main"
    )
    result = decide_branch_ci(ctx, PATTERNS, [], None, "", None)
    assert result.ok and "f -> main" in result.message


def test_a_job_without_a_github_event_fails_closed() -> None:
    ctx = GithubContext(event="", ref="", sha="c" * 40)
    result = decide_branch_ci(ctx, PATTERNS, [], None, "", None)
    assert not result.ok and "GITHUB_EVENT_NAME" in result.message


def test_other_github_events_are_not_pushes_and_pass() -> None:
    ctx = GithubContext(event="workflow_dispatch", ref="refs/heads/main", sha="c" * 40)
    assert decide_branch_ci(ctx, PATTERNS, [], None, "", None).ok


def test_push_to_unprotected_branch_passes() -> None:
    assert decide_branch_ci(push("refs/heads/feat"), PATTERNS, [], None, "", None).ok


def test_push_with_a_merged_pull_request_passes() -> None:
    pulls = [PullRequest(number=12, base_ref="main", merged=True)]
    result = decide_branch_ci(push(), PATTERNS, [], pulls, "GitHub API", None)
    assert result.ok and "#12" in result.message


def test_direct_push_without_pull_request_fails_by_api() -> None:
    pulls = [PullRequest(number=3, base_ref="main", merged=False)]
    result = decide_branch_ci(push(), PATTERNS, [], pulls, "GitHub API", commit("x"))
    assert not result.ok
    assert "pushed straight to protected branch 'main'" in result.message


def test_offline_merge_commit_heuristics() -> None:
    merge = commit("Merge pull request #9 from o/feat", parents=2)
    squash = commit("Fix parser (#10)")
    direct = commit("quick fix on main")
    assert decide_branch_ci(push(), PATTERNS, [], None, "no GITHUB_TOKEN", merge).ok
    assert decide_branch_ci(push(), PATTERNS, [], None, "no GITHUB_TOKEN", squash).ok
    result = decide_branch_ci(push(), PATTERNS, [], None, "no GITHUB_TOKEN", direct)
    assert not result.ok and "does not look like a pull request merge" in result.message
    assert result.notes == ["no GITHUB_TOKEN; using merge-commit heuristics"]


def test_shallow_clone_without_the_commit_and_without_api_fails_closed() -> None:
    result = decide_branch_ci(push(), PATTERNS, [], None, "no GITHUB_TOKEN", None)
    assert not result.ok and "not in this clone" in result.message


def test_allow_listed_bot_may_push() -> None:
    result = decide_branch_ci(
        push(actor="release-bot"), PATTERNS, ["*-bot"], None, "", commit("bump")
    )
    assert result.ok and "allowed by guards.allow_push" in result.message


def test_pr_numbers_from_merge_subjects() -> None:
    assert pr_number_from_message("Merge pull request #42 from a/b") == 42
    assert pr_number_from_message("Add x (#7)") == 7
    assert pr_number_from_message("Merge branch 'x'") is None


def test_annotations_escape_newlines() -> None:
    assert annotation("error", "a\nb 100%") == "::error title=reflection::a%0Ab 100%25"


def test_a_push_creating_its_branch_on_a_remote_with_nothing_else_is_a_first_push() -> None:
    assert creates_branch("0" * 40) and creates_branch("0" * 64)
    assert not creates_branch("a" * 40) and not creates_branch(None)
    alone = first_push("main", ["HEAD", "refs/heads/main"])
    assert alone == (True, "")
    beside, why = first_push("main", ["HEAD", "refs/heads/main", "refs/pull/1/head"])
    assert not beside and "origin also has refs/pull/1/head" in why
    unlisted, why = first_push("main", None)
    assert not unlisted and "cannot be listed" in why


def test_a_new_repositorys_first_push_passes_and_nothing_else_changes() -> None:
    first = decide_branch_ci(push(), PATTERNS, [], None, "", commit("init", 0), new_repository=True)
    assert first.ok and "its first push" in first.message
    later = decide_branch_ci(push(), PATTERNS, [], None, "no GITHUB_TOKEN", commit("init", 0))
    assert not later.ok


def test_a_merge_pull_request_subject_on_a_single_parent_commit_is_not_a_merge() -> None:
    forged = commit("Merge pull request #12 from someone/feature", parents=1)
    result = decide_branch_ci(push(), PATTERNS, [], None, "no GITHUB_TOKEN", forged)
    assert not result.ok and "1 parent(s)" in result.message
    boundary = commit("Merge pull request #12 from someone/feature", parents=None)
    assert decide_branch_ci(push(), PATTERNS, [], None, "no GITHUB_TOKEN", boundary).ok
