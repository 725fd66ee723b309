"""CI reuse of the guards: GitHub Actions context and the branch decision for `check --ci`.

On a push event to a protected branch, the head commit must have come through a
pull request: the REST API says so when a token is present; offline, a merge
commit ("Merge pull request #N") or a squash-merge subject ending in "(#N)" counts.
On pull_request events the checkout is a detached merge commit and the branch
rule does not apply (a pull request is the way forward). Annotations use the
`::error::` workflow-command syntax.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reflection_core.guards.branches import allowed_identity, protected_rule
from reflection_core.guards.github_api import PullRequest
from reflection_core.lazyre import lazy

_MERGE_PR = lazy(r"^Merge pull request #(\d+) from ")
_SQUASH_PR = lazy(r"\(#(\d+)\)\s*$")


@dataclass(frozen=True)
class GithubContext:
    """What GitHub Actions tells a job about the event, from its environment."""

    event: str = ""
    ref: str = ""
    head_ref: str = ""
    base_ref: str = ""
    sha: str = ""
    repository: str = ""
    actor: str = ""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> GithubContext:
        return cls(
            event=env.get("GITHUB_EVENT_NAME", ""),
            ref=env.get("GITHUB_REF", ""),
            head_ref=env.get("GITHUB_HEAD_REF", ""),
            base_ref=env.get("GITHUB_BASE_REF", ""),
            sha=env.get("GITHUB_SHA", ""),
            repository=env.get("GITHUB_REPOSITORY", ""),
            actor=env.get("GITHUB_ACTOR", ""),
        )

    @property
    def branch(self) -> str | None:
        """The pushed branch for push events (GITHUB_REF=refs/heads/<name>)."""
        return self.ref[len("refs/heads/") :] if self.ref.startswith("refs/heads/") else None


@dataclass(frozen=True)
class CommitInfo:
    """The head commit as far as a (possibly shallow) clone knows it."""

    sha: str
    subject: str
    parent_count: int | None  # None: a shallow clone's boundary, its parents not fetched

    @property
    def parents(self) -> str:
        if self.parent_count is None:
            return "its parents are not in this shallow clone"
        return f"{self.parent_count} parent(s)"


@dataclass
class CiResult:
    ok: bool
    message: str
    notes: list[str] = field(default_factory=list)


def push_before(env: Mapping[str, str]) -> str | None:
    """The pushed branch's tip before the push: `before` in the event payload GitHub
    Actions writes to GITHUB_EVENT_PATH, or None when there is none to read."""
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            before = json.load(handle).get("before")
    except (OSError, ValueError, AttributeError):
        return None
    return before if isinstance(before, str) else None


def creates_branch(before: str | None) -> bool:
    """The push created its branch: the event's `before` is an all-zero id."""
    return bool(before) and not (before or "").strip("0")


def first_push(branch: str, remote_refs: Sequence[str] | None) -> tuple[bool, str]:
    """Is a push that creates `branch` a new repository's first push, as the local push
    guard allows it (a remote with no branches)? The job runs after the push, so the
    remote must list no ref but this branch (and HEAD): no other branch, no tag, no pull
    request ref (which no push can delete). Otherwise, or when the remote cannot be listed,
    it is not (the rule fails closed), and the note says why."""
    if remote_refs is None:
        return False, (
            f"this push creates '{branch}', but origin's refs cannot be listed, so it does "
            "not count as a new repository's first push"
        )
    others = [r for r in remote_refs if r not in ("HEAD", f"refs/heads/{branch}")]
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        return False, (
            f"this push creates '{branch}', but origin also has {shown}: not a new "
            "repository's first push"
        )
    return True, ""


def pr_number_from_message(subject: str) -> int | None:
    """The pull request a merge or squash-merge subject names, if any."""
    match = _MERGE_PR.match(subject) or _SQUASH_PR.search(subject)
    return int(match.group(1)) if match else None


def pr_number_from_commit(commit: CommitInfo) -> int | None:
    """The pull request the head commit names offline: a squash subject ending in "(#N)",
    or "Merge pull request #N from ..." on a commit that is a merge (a single-parent
    commit with that subject was written by hand; an unknown count, at a shallow clone's
    boundary, still counts, as the heuristics always did)."""
    if _MERGE_PR.match(commit.subject) and commit.parent_count == 1:
        return None
    return pr_number_from_message(commit.subject)


def _event_outcome(ctx: GithubContext) -> CiResult | None:
    """The answer for any event but a push to a branch; None for such a push."""
    if ctx.event in ("pull_request", "pull_request_target"):
        base = ctx.base_ref or "?"
        return CiResult(
            True, f"pull request {ctx.head_ref or '?'} -> {base}: the branch rule is met"
        )
    if not ctx.event:  # fail closed: without the event, a direct push looks like any job
        return CiResult(
            False,
            "no GitHub Actions event here (GITHUB_EVENT_NAME is not set), so this job cannot "
            "tell a merged pull request from a direct push to a protected branch. `check "
            "branch --ci` runs in GitHub Actions; elsewhere run `reflection check branch` "
            "(the local rule) where it fits",
        )
    if ctx.event != "push" or ctx.branch is None:
        return CiResult(True, f"event {ctx.event} on {ctx.ref or '?'}: not a push to a branch")
    return None


def decide_branch_ci(
    ctx: GithubContext,
    patterns: Sequence[str],
    allow: Sequence[str],
    pulls: list[PullRequest] | None,
    pulls_source: str,
    commit: CommitInfo | None,
    *,
    new_repository: bool = False,
) -> CiResult:
    """Did this event put a commit on a protected branch without a pull request?

    `new_repository`: the push created the branch on a remote that has nothing else (see
    `first_push`), which the local push guard allows as the repository's first push."""
    not_a_push = _event_outcome(ctx)
    if not_a_push is not None:
        return not_a_push
    branch = ctx.branch or ""  # _event_outcome answered every event but a push to a branch
    rule = protected_rule(branch, patterns)
    if rule is None:
        return CiResult(True, f"push to '{branch}', which is not protected")
    if allowed_identity([ctx.actor], allow):
        return CiResult(True, f"push to '{branch}' by {ctx.actor}, allowed by guards.allow_push")
    if new_repository:
        return CiResult(
            True,
            f"push creating '{branch}' in a repository with no other branch or ref: its first "
            "push, allowed (protection applies from the next push)",
        )
    sha = ctx.sha[:12] or "?"
    if pulls is not None:
        merged = [p for p in pulls if p.merged and (not p.base_ref or p.base_ref == branch)]
        if merged:
            return CiResult(
                True, f"{sha} on '{branch}' came through pull request #{merged[0].number}"
            )
        return CiResult(
            False,
            f"commit {sha} was pushed straight to protected branch '{branch}' (rule {rule!r}): "
            f"{pulls_source} lists no merged pull request for it. Push a branch and open a PR.",
        )
    notes = [f"{pulls_source}; using merge-commit heuristics"]
    if commit is None:
        return CiResult(
            False,
            f"cannot tell whether {sha} on protected branch '{branch}' came through a pull "
            "request: the commit is not in this clone and the API is unavailable "
            "(set GITHUB_TOKEN, or fetch the commit).",
            notes,
        )
    number = pr_number_from_commit(commit)
    if number is not None:
        return CiResult(True, f"{sha} on '{branch}' names pull request #{number}", notes)
    return CiResult(
        False,
        f"commit {sha} on protected branch '{branch}' (rule {rule!r}) does not look like a "
        f"pull request merge (subject {commit.subject[:80]!r}, {commit.parents}). "
        "Push a branch and open a PR.",
        notes,
    )


def annotation(level: str, message: str, title: str = "reflection") -> str:
    """A GitHub workflow command (`::error title=...::message`), newlines escaped."""
    body = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return f"::{level} title={title}::{body}"
