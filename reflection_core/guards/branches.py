"""Protected branches: which rule protects a branch, and the pure pre-push decision.

git's pre-push hook gets one stdin line per pushed ref:
`<local ref> <local sha> <remote ref> <remote sha>`. What matters is the *remote*
ref (`git push origin HEAD:main` from a feature branch targets main), deletes have
local ref `(delete)` and an all-zero sha, and zero ids are 40 (SHA-1) or 64
(SHA-256) characters. Tags are not branches. Notes refs (`refs/notes/*`, where the
pre-push hook carries verdicts) hold metadata about commits: neither a branch to protect
nor commits that need test evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from reflection_core.config import Config
from reflection_core.globs import matching_branch_rule
from reflection_core.guards.gitcmd import is_zero
from reflection_core.lazyre import lazy
from reflection_core.records import record

_SHA = lazy(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
HEADS = "refs/heads/"
NOTES = "refs/notes/"


class PushParseError(ValueError):
    """Pre-push input that cannot be understood; the hook fails closed on it."""


@record(frozen=True)
class PushedRef:
    """One ref of a push, as git describes it."""

    local_ref: str
    local_sha: str
    remote_ref: str
    remote_sha: str

    @property
    def is_delete(self) -> bool:
        return is_zero(self.local_sha)

    @property
    def is_new(self) -> bool:
        return is_zero(self.remote_sha)

    @property
    def is_notes(self) -> bool:
        """An update of a notes ref: its commits are notes history, not project commits."""
        return self.remote_ref.startswith(NOTES) or self.local_ref.startswith(NOTES)

    @property
    def needs_evidence(self) -> bool:
        """Whether the tests-ran gate judges this ref: every non-delete that is not notes
        (branches, and tags, which stand for the commit they tag)."""
        return not self.is_delete and not self.is_notes

    @property
    def branch(self) -> str | None:
        """The remote branch's short name; None for tags and other non-branch refs."""
        if self.remote_ref.startswith(HEADS):
            return self.remote_ref[len(HEADS) :]
        if self.remote_ref.startswith("refs/") or not self.remote_ref:
            return None
        return self.remote_ref  # an unqualified name can only be a branch here


@record(frozen=True)
class Refusal:
    """A refused ref with the rule that matched and what to do instead."""

    ref: PushedRef
    rule: str
    message: str


def protected_rule(branch: str, patterns: Sequence[str]) -> str | None:
    """The rule in `patterns` protecting `branch` (short name or refs/heads/...), or None."""
    name = branch[len(HEADS) :] if branch.startswith(HEADS) else branch
    return matching_branch_rule(name, list(patterns))


def parse_push_lines(text: str) -> list[PushedRef]:
    """The refs of a native pre-push hook's stdin; raises PushParseError on anything odd."""
    refs: list[PushedRef] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4:
            raise PushParseError(
                f"pre-push input line {number} has {len(parts)} fields, expected 4 "
                f"(<local ref> <local sha> <remote ref> <remote sha>): {line[:200]!r}"
            )
        local_ref, local_sha, remote_ref, remote_sha = parts
        for label, sha in (("local", local_sha), ("remote", remote_sha)):
            if not _SHA.match(sha):
                raise PushParseError(
                    f"pre-push input line {number}: {label} object id {sha[:80]!r} is not a "
                    "40- or 64-character hex id"
                )
        refs.append(PushedRef(local_ref, local_sha, remote_ref, remote_sha))
    return refs


def identity_pattern(pattern: str) -> re.Pattern[str]:
    """An allow-list entry: `*` and `?` are wildcards, everything else is literal.

    Brackets stay literal so `github-actions[bot]@users.noreply.github.com` means itself.
    """
    regex = re.escape(pattern).replace(r"\*", ".*").replace(r"\?", ".")
    return re.compile(f"^{regex}$")


def allowed_identity(identity: Sequence[str], allow: Sequence[str]) -> str | None:
    """The first identity value matching a `guards.allow_push` entry, or None."""
    for value in identity:
        if value and any(identity_pattern(pattern).match(value) for pattern in allow):
            return value
    return None


def refusal_message(
    ref: PushedRef, rule: str, remote: str = "origin", patterns: Sequence[str] = ()
) -> str:
    branch = ref.branch or ref.remote_ref
    if ref.is_delete:
        head = f"refusing to delete protected branch '{branch}' ({ref.remote_ref})"
        way = (
            "  Protected branches are deleted through the hosting service's settings, "
            "not by a push."
        )
    else:
        source = ref.local_ref if ref.local_ref != ref.remote_ref else "it"
        head = (
            f"refusing to push to protected branch '{branch}' "
            f"({ref.remote_ref}, pushing {source} at {ref.local_sha[:12]})"
        )
        local = ref.local_ref[len(HEADS) :] if ref.local_ref.startswith(HEADS) else None
        if local and protected_rule(local, patterns) is None:
            way = (
                f"  Push your branch under its own name and open a pull request instead:\n"
                f"    git push -u {remote} {local}\n"
                f"    gh pr create --base {branch} --head {local}"
            )
        else:
            change = f"change-{ref.local_sha[:8]}"  # named for the commit: not taken yet
            way = (
                "  Push a branch and open a pull request instead:\n"
                f"    git switch -c {change} && git push -u {remote} {change}\n"
                f"    gh pr create --base {branch} --head {change}"
            )
    return (
        f"reflection: {head}.\n"
        f"  Matched rule {rule!r} in protected_branches.\n"
        f"{way}\n"
        "  Allowed bots/CI identities go in guards.allow_push."
    )


def decide_push(
    refs: Sequence[PushedRef],
    cfg: Config,
    identity: Sequence[str],
    remote: str = "origin",
    remote_empty: bool = False,
) -> list[Refusal]:
    """Refusals for every ref that targets (or deletes) a protected branch.

    An identity on the `guards.allow_push` list may push anywhere. A remote with no
    branches at all (a new repository) has no protected branch yet: creating one
    there is its first push, not an update of a protected branch.
    """
    patterns = cfg.get("protected_branches")
    refusals = []
    for ref in refs:
        branch = ref.branch
        if branch is None or (remote_empty and ref.is_new and not ref.is_delete):
            continue
        rule = protected_rule(branch, patterns)
        if rule is not None:
            message = refusal_message(ref, rule, remote, patterns)
            refusals.append(Refusal(ref, rule, message))
    if refusals and allowed_identity(identity, cfg.get("guards.allow_push")):
        return []
    return refusals


def refs_from_pre_commit_env(env: Mapping[str, str]) -> list[PushedRef] | None:
    """The one ref the pre-commit framework describes in PRE_COMMIT_* variables, if any.

    The framework runs a hook for the first pushed ref that has new commits only;
    it skips deletes, so those never reach us on this path (use the native hook).
    """
    remote_ref = env.get("PRE_COMMIT_REMOTE_BRANCH")
    if not remote_ref:
        return None
    local_ref = env.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD"
    local_sha = env.get("PRE_COMMIT_TO_REF") or ""
    return [PushedRef(local_ref, local_sha, remote_ref, "")]
